// ListCache against hostile and ill-typed JS input (release package, Node): the key never merges
// distinct requests, bad arguments are TypeErrors, and JS that re-enters the cache while it is
// reading its arguments never traps the wasm module.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ListCache, matchUriTemplate, wasmMemoryBytes } from '../../pkg/lists.node.mjs';
import { listCacheMeta } from '../../pkg/server.node.mjs';

/** @typedef {InstanceType<typeof ListCache>} Lists */
/** @typedef {import('../../js/lists.js').ListCacheHit} ListCacheHit */
// `/** @type {never} */ (x)` marks an argument these tests pass on purpose with a type the
// declarations refuse: that such input is refused at run time is what they check.

const FRESH = { ttlMs: 60_000, cacheScope: 'public' };
const fixedClock = () => new ListCache({ now: () => 1_000 });

/**
 * Runs `fn`; returns what it threw (failing the test if nothing was thrown).
 * @param {() => unknown} fn
 * @returns {unknown}
 */
function thrown(fn) {
  try {
    fn();
  } catch (error) {
    assert.ok(!(error instanceof WebAssembly.RuntimeError), `wasm trap: ${error}`);
    return error;
  }
  assert.fail('expected a throw');
}

/** @param {() => unknown} fn @param {string} [what] */
const assertTypeError = (fn, what) => assert.ok(thrown(fn) instanceof TypeError, what);

/** A revoked Proxy: every property read throws a TypeError. */
function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

// Present, but not a string: each must be refused, never read as absent or stringified.
/** @type {[string, () => unknown][]} */
const NOT_STRINGS = [
  ['URL', () => new URL('file:///home/alice/secret')],
  ['number', () => 2],
  ['null', () => null],
  ['boolean', () => true],
  ['object', () => ({ toString: () => 'x' })],
  ['array', () => ['x']],
  ['String object', () => new String('x')],
  ['bigint', () => 2n],
  ['symbol', () => Symbol('x')],
  ['function', () => () => 'x'],
  ['lone surrogate', () => '\uD800'],
];

test('two resources/read URIs given as URL objects never share an entry', () => {
  const lists = fixedClock();
  const secret = { contents: [{ text: 'alice' }], ttlMs: 60_000, cacheScope: 'private' };
  assertTypeError(() => lists.put('resources/read', { uri: /** @type {never} */ (new URL('file:///home/alice/secret')) }, secret, 'u'));
  assertTypeError(() => lists.get('resources/read', { uri: /** @type {never} */ (new URL('file:///tmp/public')) }, 'u'));
  assert.equal(lists.size, 0);
  // As strings (what MCP sends), each URI is its own key.
  lists.put('resources/read', { uri: new URL('file:///home/alice/secret').href }, secret, 'u');
  assert.equal(lists.get('resources/read', { uri: 'file:///tmp/public' }, 'u', { allowStale: true }), null);
  assert.equal(/** @type {ListCacheHit} */ (lists.get('resources/read', { uri: 'file:///home/alice/secret' }, 'u')).result, secret);
});

test('a newer private answer is never answered by an older public one', () => {
  let now = 0;
  const lists = new ListCache({ now: () => now });
  const older = { tools: ['OLD'], ttlMs: 60_000, cacheScope: 'public' };
  const newer = { tools: ['NEW'], ttlMs: 5_000, cacheScope: 'private' };
  lists.put('tools/list', {}, older, 'alice');
  now = 10;
  lists.put('tools/list', {}, newer, 'alice');
  assert.equal(/** @type {ListCacheHit} */ (lists.get('tools/list', {}, 'alice')).result, newer);
  now = 6_000; // the newer answer expired, the older public one has not
  assert.equal(lists.get('tools/list', {}, 'alice'), null);
  assert.deepEqual(lists.get('tools/list', {}, 'alice', { allowStale: true }), { result: newer, stale: true, ageMs: 5_990 });
  assert.equal(/** @type {ListCacheHit} */ (lists.get('tools/list', {}, 'bob')).result, older, 'other contexts keep the public entry');
  // "Do not reuse" (ttlMs 0), put in the same millisecond as a fresh public answer.
  lists.put('tools/list', {}, older, 'bob');
  lists.put('tools/list', {}, { tools: ['ZERO'], ttlMs: 0, cacheScope: 'private' }, 'alice');
  assert.equal(lists.get('tools/list', {}, 'alice'), null);
  // A newer public answer (bob's) is alice's newest too: it replaces her older private one.
  now = 6_100;
  const shared = { tools: ['SHARED'], ttlMs: 10, cacheScope: 'public' };
  lists.put('tools/list', {}, shared, 'bob');
  now = 6_200;
  assert.deepEqual(lists.get('tools/list', {}, 'alice', { allowStale: true }), { result: shared, stale: true, ageMs: 100 });
  assert.equal(lists.size, 1);
});

test('a numeric cursor is refused, so page 2 is never served as the first page', () => {
  const lists = fixedClock();
  const first = { tools: ['a'], ...FRESH };
  assertTypeError(() => lists.put('tools/list', { cursor: /** @type {never} */ (2) }, { tools: ['page 2'], ...FRESH }));
  assert.equal(lists.get('tools/list', {}), null);
  lists.put('tools/list', {}, first);
  assertTypeError(() => lists.get('tools/list', { cursor: /** @type {never} */ (2) }));
  assert.equal(/** @type {ListCacheHit} */ (lists.get('tools/list', {})).result, first);
});

test('every present non-string cursor or uri is a TypeError for put and get', () => {
  const lists = fixedClock();
  for (const key of ['cursor', 'uri']) {
    for (const [name, make] of NOT_STRINGS) {
      const params = { [key]: make() };
      assertTypeError(() => lists.put('m', params, { ...FRESH }), `put ${key}: ${name}`);
      assertTypeError(() => lists.get('m', params, null, { allowStale: true }), `get ${key}: ${name}`);
    }
  }
  assert.equal(lists.size, 0);
});

test('the key is exact: absent, empty, cursor and uri are all different requests', () => {
  const lists = fixedClock();
  const requests = [{}, { cursor: '' }, { cursor: '2' }, { uri: '2' }, { cursor: '2', uri: '2' },
    { cursor: '\uFFFD' }, { cursor: '\uD83D\uDE00' }];
  requests.forEach((params, i) => lists.put('tools/list', params, { i, ...FRESH }));
  assert.equal(lists.size, requests.length);
  requests.forEach((params, i) => assert.equal(/** @type {{ result: { i: number } }} */ (lists.get('tools/list', params)).result.i, i, JSON.stringify(params)));
  // `undefined` is absent, and keys that do not select a result are ignored.
  assert.equal(/** @type {{ result: { i: number } }} */ (lists.get('tools/list', { cursor: undefined, _meta: { progressToken: 1 } })).result.i, 0);
  assert.equal(/** @type {{ result: { i: number } }} */ (lists.get('tools/list', undefined)).result.i, 0);
  // `null` is the first page too.
  assert.equal(/** @type {{ result: { i: number } }} */ (lists.get('tools/list', null)).result.i, 0);
});

test('params, method, authContext and options of the wrong type are TypeErrors', () => {
  const lists = fixedClock();
  for (const params of ['cursor', 42, true, Symbol('p'), () => ({})]) {
    assertTypeError(() => lists.put('m', /** @type {never} */ (params), FRESH), `params ${String(params)}`);
    assertTypeError(() => lists.get('m', /** @type {never} */ (params)), `params ${String(params)}`);
  }
  for (const [name, make] of NOT_STRINGS) {
    assertTypeError(() => lists.put(/** @type {never} */ (make()), {}, FRESH), `put method: ${name}`);
    assertTypeError(() => lists.get(/** @type {never} */ (make()), {}), `get method: ${name}`);
    assertTypeError(() => lists.invalidateList(/** @type {never} */ (make())), `invalidateList: ${name}`);
    assertTypeError(() => matchUriTemplate(/** @type {never} */ (make()), 'a'), `matchUriTemplate template: ${name}`);
    assertTypeError(() => matchUriTemplate('a', /** @type {never} */ (make())), `matchUriTemplate uri: ${name}`);
    if (name !== 'null') {
      assertTypeError(() => lists.put('m', {}, FRESH, /** @type {never} */ (make())), `put authContext: ${name}`);
      assertTypeError(() => lists.get('m', {}, /** @type {never} */ (make())), `get authContext: ${name}`);
    }
  }
  assertTypeError(() => lists.put(/** @type {never} */ (undefined), {}, FRESH), 'missing method');
  for (const allowStale of [1, 'yes', null, {}]) {
    assertTypeError(() => lists.get('m', {}, null, /** @type {never} */ ({ allowStale })), `allowStale ${String(allowStale)}`);
  }
  assertTypeError(() => lists.get('m', {}, null, /** @type {never} */ ('stale')), 'options must be an object');
  // A cacheScope this version does not know (a server's new value, another spelling) is read
  // as private: kept for its own context only, never a TypeError for the host.
  for (const cacheScope of ['Public', 'shared', 7]) {
    const scoped = new ListCache({ now: () => 0 });
    scoped.put('m', {}, /** @type {never} */ ({ items: [cacheScope], ttlMs: 60_000, cacheScope }), 'alice');
    assert.notEqual(scoped.get('m', {}, 'alice'), null, `${String(cacheScope)}: served to its own context`);
    assert.equal(scoped.get('m', {}, 'bob'), null, `${String(cacheScope)}: never to another`);
  }
  assertTypeError(() => listCacheMeta({ ttlMs: /** @type {never} */ ('60000') }), 'listCacheMeta ttlMs');
  // A bare TTL is not read as no options (which would answer `ttlMs: 0`, a list never cached).
  for (const options of [60000, 'public', true]) {
    assert.throws(() => listCacheMeta(/** @type {never} */ (options)), (e) => e instanceof TypeError && /listCacheMeta options must be an object/.test(String(e)), `listCacheMeta(${String(options)})`);
  }
  assert.deepEqual(listCacheMeta(/** @type {never} */ (null)), { ttlMs: 0, cacheScope: 'private' });
  assert.deepEqual(listCacheMeta(/** @type {never} */ (undefined)), { ttlMs: 0, cacheScope: 'private' });
  assertTypeError(() => new ListCache({ now: /** @type {never} */ (5) }), 'now must be a function');
  for (const maxEntries of ['10', -1, NaN, null, true, 0.5, 2.9, -Infinity]) {
    assert.throws(() => new ListCache({ maxEntries: /** @type {never} */ (maxEntries) }), (e) => e instanceof TypeError && /maxEntries must be a non-negative integer or Infinity/.test(String(e)), `maxEntries: ${String(maxEntries)}`);
  }
  assert.equal(lists.size, 0);
  // A non-string value is never stringified on the way in.
  let calls = 0;
  const sneaky = { toString: () => { calls += 1; return 'tools/list'; } };
  assertTypeError(() => lists.put(/** @type {never} */ (sneaky), { cursor: /** @type {never} */ (sneaky) }, FRESH, /** @type {never} */ (sneaky)));
  assert.equal(calls, 0);
});

test('unreadable inputs (throwing getters, revoked Proxies) are TypeErrors, nothing is stored', () => {
  const lists = fixedClock();
  const throwing = (/** @type {string} */ key) => Object.defineProperty({}, key, { get() { throw new Error('boom'); } });
  /** @param {() => unknown} fn @param {string} key */
  const unreadable = (fn, key) => {
    const error = thrown(fn);
    assert.ok(error instanceof TypeError, `${key}: ${error}`);
    assert.match(error.message, new RegExp(`\`${key}\``));
  };
  unreadable(() => lists.put('m', throwing('cursor'), FRESH), 'cursor');
  unreadable(() => lists.get('m', throwing('uri')), 'uri');
  unreadable(() => lists.put('m', {}, throwing('ttlMs')), 'ttlMs');
  unreadable(() => lists.put('m', {}, throwing('cacheScope')), 'cacheScope');
  unreadable(() => lists.get('m', {}, null, throwing('allowStale')), 'allowStale');
  unreadable(() => lists.handleNotification(/** @type {never} */ (throwing('method'))), 'method');
  unreadable(() => lists.handleNotification({ method: 'm', params: throwing('uri') }), 'uri');
  unreadable(() => new ListCache(throwing('now')), 'now');
  unreadable(() => listCacheMeta(/** @type {never} */ (throwing('ttlMs'))), 'ttlMs');
  // A getter that throws something other than an Error is still a TypeError.
  unreadable(() => lists.put('m', /** @type {never} */ ({ get cursor() { throw 'not an Error'; } }), FRESH), 'cursor');
  unreadable(() => lists.put('m', revoked(), FRESH), 'cursor');
  unreadable(() => lists.get('m', revoked()), 'cursor');
  unreadable(() => lists.put('m', {}, revoked()), 'ttlMs');
  unreadable(() => lists.get('m', {}, null, revoked()), 'allowStale');
  unreadable(() => lists.handleNotification(/** @type {never} */ (revoked())), 'method');
  unreadable(() => new ListCache(revoked()), 'now');
  unreadable(() => listCacheMeta(/** @type {never} */ (revoked())), 'ttlMs');
  assert.equal(lists.size, 0);
  lists.put('m', {}, FRESH);
  assert.equal(/** @type {ListCacheHit} */ (lists.get('m', {})).result, FRESH);
});

test('the clock: a throw or a non-finite reading is a TypeError', () => {
  const boom = new Error('clock');
  const failing = new ListCache({ now: () => { throw boom; } });
  for (const call of [() => failing.put('m', {}, FRESH), () => failing.get('m', {})]) {
    const error = thrown(call);
    assert.ok(error instanceof TypeError);
    assert.equal(error.cause, boom, 'what the clock threw is the cause');
  }
  assert.equal(failing.size, 0);
  for (const reading of [NaN, Infinity, '1000', undefined]) {
    const lists = new ListCache({ now: /** @type {never} */ (() => reading) });
    assertTypeError(() => lists.put('m', {}, FRESH), `now() = ${String(reading)}`);
    assertTypeError(() => lists.get('m', {}), `now() = ${String(reading)}`);
    assert.equal(lists.size, 0);
  }
});

test('malformed notifications drop nothing; well-formed ones still apply', () => {
  const lists = fixedClock();
  lists.put('resources/read', { uri: 'file:///a' }, FRESH);
  for (const message of [undefined, null, 42, {}, { method: 42 }, { method: 'notifications/resources/updated' },
    { method: 'notifications/resources/updated', params: { uri: new URL('file:///a') } },
    { method: 'notifications/resources/updated', params: { uri: '\uD800' } }]) {
    assert.equal(lists.handleNotification(/** @type {never} */ (message)), 0);
  }
  assert.equal(lists.size, 1);
  assert.equal(lists.handleNotification({ method: 'notifications/resources/updated', params: { uri: 'file:///a' } }), 1);
});

/**
 * Params whose `cursor` getter calls back into `lists` before answering `cursor`.
 * @param {Lists} lists
 * @param {string} cursor
 * @param {(lists: Lists) => unknown} action
 */
function reentrant(lists, cursor, action) {
  return { get cursor() { action(lists); return cursor; } };
}

/** @type {Record<string, (lists: Lists) => unknown>} */
const REENTRIES = {
  put: (l) => l.put('tools/list', { cursor: 'inner' }, { inner: true, ...FRESH }),
  get: (l) => l.get('tools/list', { cursor: 'inner' }),
  size: (l) => l.size,
  invalidateList: (l) => l.invalidateList('prompts/list'),
  handleNotification: (l) => l.handleNotification({ method: 'notifications/prompts/list_changed' }),
  clear: (l) => l.clear(),
};

test('getters and the clock that re-enter the same ListCache never trap', () => {
  for (const [name, action] of Object.entries(REENTRIES)) {
    const lists = fixedClock();
    lists.put('tools/list', reentrant(lists, 'outer', action), { outer: true, ...FRESH });
    // The inner call ran first, then the outer put landed.
    assert.equal(/** @type {{ result: { outer: boolean } }} */ (lists.get('tools/list', { cursor: 'outer' })).result.outer, true, name);
    const hit = /** @type {{ result: { outer?: boolean } } | null} */ (lists.get('tools/list', reentrant(lists, 'outer', action)));
    assert.equal(hit?.result.outer ?? 'cleared', name === 'clear' ? 'cleared' : true, name);
  }
  /** @type {Lists} */
  let lists;
  let depth = 0;
  lists = new ListCache({
    now: () => {
      depth += 1;
      if (depth === 1) lists.put('inner', {}, FRESH); // the clock re-enters once
      depth -= 1;
      return 1_000;
    },
  });
  lists.put('outer', {}, FRESH);
  assert.equal(lists.size, 2);
  const message = { get method() { lists.clear(); return 'notifications/tools/list_changed'; } };
  assert.equal(lists.handleNotification(message), 0);
  const options = { get allowStale() { lists.put('x', {}, FRESH); return true; } };
  assert.equal(/** @type {ListCacheHit} */ (lists.get('x', {}, null, options)).result, FRESH);
});

test('freeing the ListCache from inside a getter throws, and the module keeps working', () => {
  const lists = fixedClock();
  const error = thrown(() => lists.put('m', { get cursor() { lists.free(); return 'c'; } }, FRESH));
  assert.ok(error instanceof Error);
  const next = fixedClock();
  next.put('m', {}, FRESH);
  assert.equal(/** @type {ListCacheHit} */ (next.get('m', {})).result, FRESH);
});

test('100 000 hostile calls leave the ListCache and the module working', () => {
  const lists = fixedClock();
  lists.put('tools/list', {}, { survivor: true, ...FRESH });
  const hostile = [
    () => lists.put('m', { uri: /** @type {never} */ (new URL('file:///x')) }, FRESH),
    () => lists.get('m', { cursor: /** @type {never} */ (2) }),
    () => lists.get(/** @type {never} */ (42), {}),
    () => lists.put(/** @type {never} */ (Symbol('m')), {}, FRESH),
    () => lists.invalidateList(/** @type {never} */ ({})),
    () => lists.put('m', revoked(), FRESH),
    () => lists.get('m', {}, null, revoked()),
    () => lists.handleNotification(/** @type {never} */ (revoked())),
    () => lists.put('m', Object.defineProperty({}, 'cursor', { get() { throw new Error('boom'); } }), FRESH),
    () => lists.get('m', {}, /** @type {never} */ ({ ctx: 1 })),
    () => lists.get('m', {}, '\uDC00'),
    // Re-enters, and the inner put's TypeError propagates out of the getter.
    () => lists.get('tools/list', reentrant(lists, 'r', (l) => l.put('m', { cursor: /** @type {never} */ (1) }, FRESH))),
    () => matchUriTemplate(/** @type {never} */ (1), /** @type {never} */ (2)),
  ];
  // The only call that succeeds: a getter re-entering with a valid get.
  const reentrantPut = () => lists.put('tools/list', reentrant(lists, 'r', (l) => l.get('tools/list', {})), FRESH);
  const calls = [...hostile, reentrantPut];
  const memoryBefore = wasmMemoryBytes();
  let failures = 0;
  for (let i = 0; i < 100_000; i += 1) {
    const call = calls[i % calls.length];
    try {
      call();
      assert.equal(call, reentrantPut, `call ${i % calls.length} did not throw`);
    } catch (error) {
      assert.ok(error instanceof TypeError, `call ${i % calls.length}: ${error}`);
      failures += 1;
    }
  }
  assert.equal(failures, 100_000 - Math.ceil((100_000 - hostile.length) / calls.length));
  assert.equal(/** @type {{ result: { survivor: boolean } }} */ (lists.get('tools/list', {})).result.survivor, true);
  assert.equal(/** @type {ListCacheHit} */ (lists.get('tools/list', { cursor: 'r' })).result, FRESH);
  lists.put('after', { cursor: 'c' }, FRESH, 'alice');
  assert.equal(/** @type {ListCacheHit} */ (lists.get('after', { cursor: 'c' }, 'alice')).result, FRESH);
  assert.deepEqual(listCacheMeta({ ttlMs: 5, scope: 'public' }), { ttlMs: 5, cacheScope: 'public' });
  assert.deepEqual(matchUriTemplate('users/{id}', 'users/7'), { id: '7' });
  console.log(`# wasm memory: ${memoryBefore} bytes before, ${wasmMemoryBytes()} after 100 000 hostile calls`);
});

test('the browser entry exports ListCache as a class: instanceof holds and a subclass keeps its methods', async () => {
  await import('./file-fetch.mjs');
  const browser = await import('../../pkg/lists.mjs');
  assert.throws(() => new browser.ListCache(), /new ListCache\(\) needs the WebAssembly module/, 'before ready()');
  assert.throws(() => browser.matchUriTemplate('users/{id}', 'users/7'), /matchUriTemplate\(\) needs the WebAssembly module/);
  await browser.ready();
  assert.deepEqual(browser.matchUriTemplate('users/{id}', 'users/7'), { id: '7' });
  assert.ok(browser.wasmMemoryBytes() > 0);
  const plain = new browser.ListCache({ now: () => 1_000 });
  assert.ok(plain instanceof browser.ListCache);
  class Traced extends browser.ListCache {
    /** @type {string[]} */
    seen = [];
    /** @param {string} method */
    getTraced(method) {
      this.seen.push(method);
      return this.get(method, {});
    }
  }
  const traced = new Traced({ now: () => 1_000 });
  assert.ok(traced instanceof Traced && traced instanceof browser.ListCache);
  traced.put('tools/list', {}, { tools: [], ...FRESH });
  assert.equal(traced.size, 1);
  assert.deepEqual(/** @type {ListCacheHit} */ (traced.getTraced('tools/list')).result, { tools: [], ...FRESH });
  assert.deepEqual(traced.seen, ['tools/list']);
  assert.equal(traced.invalidateList('tools/list'), 1);
  assert.equal(Reflect.get(traced, Symbol.dispose), traced.free, '`using` frees it');
  traced.free();
  plain.free();
});

test('maxEntries bounds the cache: a new entry in a full cache drops the one stored longest ago', () => {
  let now = 1_000;
  const lists = new ListCache({ now: () => now, maxEntries: 2 });
  const page = (/** @type {string} */ cursor) => ({ cursor });
  for (const cursor of ['a', 'b']) {
    lists.put('tools/list', page(cursor), { ...FRESH, cursor });
    now += 1;
  }
  lists.put('tools/list', page('a'), { ...FRESH, cursor: 'a2' }); // replaces: drops nothing
  assert.equal(lists.size, 2);
  now += 1;
  lists.put('tools/list', page('c'), { ...FRESH, cursor: 'c' });
  assert.equal(lists.size, 2);
  assert.equal(lists.get('tools/list', page('b')), null, 'stored longest ago: dropped');
  const cursor = (/** @type {string} */ at) => /** @type {{ cursor?: string } | undefined} */ (lists.get('tools/list', page(at))?.result)?.cursor;
  assert.deepEqual([cursor('a'), cursor('c')], ['a2', 'c']);
  const off = new ListCache({ maxEntries: 0 });
  off.put('tools/list', undefined, FRESH);
  assert.equal(off.size, 0, 'maxEntries: 0 stores nothing');
  const unbounded = new ListCache({ maxEntries: Infinity });
  for (let i = 0; i < 1_500; i += 1) unbounded.put('resources/read', { uri: `file:///${i}` }, FRESH);
  assert.equal(unbounded.size, 1_500);
  const bounded = new ListCache();
  for (let i = 0; i < 1_500; i += 1) bounded.put('resources/read', { uri: `file:///${i}` }, FRESH);
  assert.equal(bounded.size, 1_000, 'the default bound');
});
