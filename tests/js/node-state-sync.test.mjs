// State sync from JavaScript against the release package (Node + fake-indexeddb).
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListResourcesRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import {
  ResultCache, matchGlob, parseCacheControl, parseInvalidations, wasmMemoryBytes,
} from '../../pkg/node.mjs';
// The SEP-2549 list-result cache and URI templates: their own entry and WebAssembly module.
import { ListCache, matchUriTemplate } from '../../pkg/lists.node.mjs';
// The server's half of State Sync: its own entry and WebAssembly module.
import {
  StateSync, validatePattern, detectOverlaps, listCacheMeta, matchGlob as serverMatchGlob,
  wasmMemoryBytes as serverMemoryBytes,
} from '../../pkg/server.node.mjs';

/** @typedef {import('../../js/server.js').ResolvedPolicy} ResolvedPolicy */
/** @typedef {import('../../js/server.js').StateSyncConfig} StateSyncConfig */
/** @typedef {import('../../js/server.js').McpNotification} McpNotification */
/** @typedef {Parameters<NonNullable<StateSyncConfig['onInvalidation']>>[0]} InvalidationEvent */
/** @typedef {import('../../js/lists.js').ListCacheHit} ListCacheHit */
// `/** @type {never} */ (x)` marks an argument these tests pass on purpose with a type the
// declarations refuse: that such input is refused at run time is what they check.

test('matchGlob reference rows and separators', () => {
  /** @type {[string, string, boolean][]} */
  const rows = [
    ['a.*', 'a', false], ['a.*', 'a.', true], ['a.**', 'a', true], ['**.a', 'a', true],
    ['a.*.b', 'a..b', true], ['a.**.b.**.c', 'a.x.b.y.z.c', true], ['Sprints.get', 'sprints.get', false],
    ['**', '', true], ['billing.get_*', 'billing.get_invoice', true], ['billing.get_*', 'billing.get.x', false],
  ];
  // The host entry and the server entry answer the same.
  for (const glob of [matchGlob, serverMatchGlob]) {
    for (const [p, n, expected] of rows) assert.equal(glob(p, n), expected, `${p} vs ${n}`);
    assert.equal(glob('billing__get_*', 'billing__get_invoice', { separator: '__' }), true);
  }
});

test('validatePattern errors carry the stable phrases', () => {
  assert.equal(validatePattern('billing.get_*'), undefined);
  assert.throws(() => validatePattern(''), /must be a non-empty string/);
  assert.throws(() => validatePattern(42), /must be a non-empty string/);
  for (const bad of ['***', 'a..b', 'a b']) assert.throws(() => validatePattern(bad), /invalid segment/);
});

test('StateSync: first match, defaults, frozen memoized resolution, validation', () => {
  const sync = new StateSync({
    policies: [
      { match: 'sprints.update', invalidates: ['sprints.*'] },
      { match: 'sprints.*', cacheControl: 'no-store' },
      { match: 'countries.*', cacheControl: 'immutable' },
    ],
    defaults: { cacheControl: 'no-store' },
  });
  const r = /** @type {Required<ResolvedPolicy>} */ (sync.resolve('sprints.update'));
  assert.deepEqual({ ...r, invalidates: [...r.invalidates] }, { cacheControl: 'no-store', invalidates: ['sprints.*'] });
  assert.equal(sync.resolve('sprints.update'), r, 'memo returns the identical object');
  assert.ok(Object.isFrozen(r) && Object.isFrozen(r.invalidates));
  assert.equal(/** @type {ResolvedPolicy} */ (sync.resolve('countries.list')).cacheControl, 'immutable');
  assert.equal(/** @type {ResolvedPolicy} */ (sync.resolve('unmatched.tool')).cacheControl, 'no-store');
  assert.equal(new StateSync({ policies: [] }).resolve('x'), null);
  const shadow = new StateSync({ policies: [{ match: 'billing.*' }, { match: 'billing.refund', invalidates: ['billing.*'] }] });
  assert.equal(shadow.resolve('billing.refund'), null, 'a match-only policy shadows a later specific one');
  const bad = (/** @type {unknown[]} */ policies) => () => new StateSync({ policies: /** @type {never} */ (policies) });
  assert.throws(bad([{ match: '' }]), /must be a non-empty string/);
  assert.throws(bad([{ match: 'a..b' }]), /invalid segment/);
  assert.throws(bad([{ match: 'a', cacheControl: 'max-age=60' }]), /invalid cacheControl/);
  assert.throws(bad([{ match: 'a', invalidates: 'b.*' }]), /must be an array/);
  assert.throws(bad([{ match: 'a', invalidates: ['b..c'] }]), /invalid segment/);
  // `defaults` is an object: a bare directive is refused, not ignored.
  for (const defaults of ['no-store', 5, true]) {
    assert.throws(() => new StateSync({ policies: [], defaults: /** @type {never} */ (defaults) }), (e) => e instanceof TypeError && /StateSync defaults must be an object/.test(String(e)), `defaults: ${String(defaults)}`);
  }
  assert.equal(new StateSync({ policies: [], defaults: /** @type {never} */ (null) }).resolve('x'), null);
});

test('detectOverlaps counts shadowed later policies', () => {
  assert.equal(detectOverlaps([{ match: 'sprints.*' }, { match: 'sprints.update' }]).length, 1);
  const three = detectOverlaps([{ match: '**' }, { match: 'billing.*' }, { match: 'billing.pay' }]);
  assert.equal(three.length, 3);
  assert.deepEqual(three.map((o) => [o.earlier, o.later]), [[0, 1], [0, 2], [1, 2]]);
  assert.equal(detectOverlaps([{ match: 'billing.pay' }, { match: 'billing.*' }]).length, 0);
});

test('detectOverlaps reports a later policy whose `**` an earlier `*` shadows, and StateSync agrees', () => {
  // Pairs where every name of the later pattern is a name of the earlier one.
  const pairs = [['billing.*.**', 'billing.**.refund'], ['a.**.*', 'a.*.**'], ['a.**.*', 'a.b.**'], ['*.**', '**']];
  const names = ['billing.refund', 'billing.x.refund', 'billing.x.y.refund', 'a.b', 'a.b.c', 'a.x.y.z', 'a.b.c.d', 'x', ''];
  for (const [earlier, later] of pairs) {
    /** @type {StateSyncConfig['policies']} */
    const policies = [{ match: earlier, cacheControl: 'no-store' }, { match: later, invalidates: ['x.*'] }];
    assert.deepEqual(detectOverlaps(policies).map((o) => [o.earlier, o.later]), [[0, 1]], `${earlier} shadows ${later}`);
    // It never fires: the earlier policy answers every name the later one matches.
    const sync = new StateSync({ policies });
    const ofLater = names.filter((name) => serverMatchGlob(later, name));
    assert.ok(ofLater.length > 0);
    for (const name of ofLater) assert.deepEqual(sync.resolve(name), { cacheControl: 'no-store' }, name);
  }
  // Not shadowed: the later one has names the earlier one does not match.
  for (const [earlier, later] of [['a.**.*', 'a.**'], ['*.*.**', '**'], ['billing.*.**', 'billing.**']]) {
    assert.deepEqual(detectOverlaps([{ match: earlier }, { match: later }]), [], `${earlier} vs ${later}`);
  }
});

test("detectOverlaps answers in MCP Fusion's shape and words", () => {
  const [w] = detectOverlaps([{ match: 'sprints.*', cacheControl: 'no-store' }, { match: 'sprints.update', invalidates: ['sprints.*'] }]);
  assert.deepEqual(w, {
    message: 'policy[0] (match: "sprints.*") shadows policy[1] (match: "sprints.update"). '
      + 'The later policy will never match because first-match-wins applies.',
    shadowingIndex: 0,
    shadowedIndex: 1,
    earlier: 0,
    later: 1,
    earlierMatch: 'sprints.*',
    laterMatch: 'sprints.update',
  });
  const [, second] = detectOverlaps([{ match: 'a' }, { match: '**' }, { match: 'b.c' }]);
  assert.equal(second, undefined, 'only one overlap');
  const [only] = detectOverlaps([{ match: 'a' }, { match: '**' }, { match: 'b.c' }]);
  assert.deepEqual([only.shadowingIndex, only.shadowedIndex], [1, 2]);
  assert.match(only.message, /^policy\[1\] \(match: "\*\*"\) shadows policy\[2\] \(match: "b\.c"\)\. /);
});

test('resolve shares one frozen object per matching policy, and one for the defaults', () => {
  const sync = new StateSync({
    policies: [{ match: 'a.*', invalidates: ['b.*'] }, { match: 'c.*', cacheControl: 'immutable' }],
    defaults: { cacheControl: 'no-store' },
  });
  const ax = /** @type {Required<ResolvedPolicy>} */ (sync.resolve('a.x'));
  assert.equal(sync.resolve('a.y'), ax, 'one policy matches both names: the same object');
  assert.ok(Object.isFrozen(ax) && Object.isFrozen(ax.invalidates));
  assert.deepEqual({ ...ax, invalidates: [...ax.invalidates] }, { cacheControl: 'no-store', invalidates: ['b.*'] });
  assert.notEqual(sync.resolve('c.x'), ax, 'another policy: another object');
  assert.equal(sync.resolve('c.x'), sync.resolve('c.y'));
  const defaults = sync.resolve('z');
  assert.ok(Object.isFrozen(defaults));
  assert.deepEqual({ ...defaults }, { cacheControl: 'no-store' });
  assert.equal(sync.resolve('q.r.s'), defaults, 'every unmatched name gets the defaults object');
  // Beyond the memo (512 names) the answers stay the same objects.
  for (let i = 0; i < 2000; i++) assert.equal(sync.resolve(`a.n${i}`), ax);
  assert.equal(sync.resolve('a.x'), ax);
  // Long names match (MCP Fusion's suite: a 50-segment, 289-byte name); over 4096 bytes none do.
  assert.equal(sync.resolve(`a.${'x'.repeat(4094)}`), ax);
  assert.equal(sync.resolve(`a.${'x'.repeat(4095)}`), defaults);
  assert.equal(sync.resolve('a.'.repeat(32_768)), defaults);
  assert.throws(() => sync.resolve(/** @type {never} */ (42)), TypeError);
  // A name with a lone surrogate is matched by no policy either.
  assert.equal(sync.resolve('a.\uD800'), defaults);
  assert.equal(new StateSync({ policies: [{ match: 'a.*', invalidates: ['b'] }] }).resolve('x'), null);
});

test('stale notifications: every MCP Fusion scheme on the host, a chosen prefix on the server', async () => {
  /** @type {McpNotification[]} */
  const sent = [];
  const notifications = (/** @type {Partial<StateSyncConfig>} */ options) => {
    sent.length = 0;
    new StateSync({ policies: [{ match: 't.do', invalidates: ['x.*', 'y'] }], notificationSink: (n) => sent.push(n), ...options })
      .decorateResult('t.do', { content: [] });
    return sent.map((n) => /** @type {{ uri?: string }} */ (n.params).uri);
  };
  assert.deepEqual(notifications({}), ['mcpfusion://stale/x.*', 'mcpfusion://stale/y']);
  assert.deepEqual(notifications({ staleUriPrefix: 'vurb://stale/' }), ['vurb://stale/x.*', 'vurb://stale/y']);
  assert.deepEqual(notifications({ staleUriPrefix: 'fusion://stale/' }), ['fusion://stale/x.*', 'fusion://stale/y']);
  for (const bad of ['', 'vurb://', 42, null, 'x'.repeat(300) + 'stale/', 'vurb://\uD800/stale/']) {
    assert.throws(() => new StateSync({ policies: [], staleUriPrefix: /** @type {never} */ (bad) }), TypeError, String(bad).slice(0, 20));
  }

  const cache = new ResultCache({ dbName: `stale-schemes-${process.pid}` });
  const big = (/** @type {string} */ tool) => cache.afterToolCall(tool, { rows: Array.from({ length: 300 }, (_, i) => ({ i, v: `row ${i}` })) }, { convId: 'c' });
  await big('a.get');
  await big('b.get');
  await big('c.get');
  const updated = (/** @type {string} */ uri) => cache.handleNotification({ method: 'notifications/resources/updated', params: { uri } });
  assert.equal(await updated('mcpfusion://stale/a.*'), 1);
  assert.equal(await updated('fusion://stale/b.*'), 1, 'MCP Fusion v2.6–v3.1');
  assert.equal(await updated('vurb://stale/c.*'), 1, 'v3.2 and later');
  assert.equal(await updated('other://stale/c.*'), 0);
  assert.equal(await updated('vurb://stale/'), 0);
});

test('string edge cases: lone surrogates never compare equal', () => {
  assert.equal(matchGlob('a.\uD800', 'a.\uDBFF'), false);
  assert.equal(matchGlob('a.\uD800', 'a.\uD800'), false, 'not even to themselves: they match nothing');
  assert.equal(matchGlob('**', '\uDC00'), false);
  assert.equal(matchGlob('a.*', 'a.\uFFFD'), true, 'a real U+FFFD is an ordinary character');
  assert.equal(matchGlob('a.\uD83D\uDE00', 'a.\uD83D\uDE00'), true, 'surrogate pairs are fine');
  assert.throws(() => matchGlob('a*b', 'a\uD800b', { separator: '\uDBFF' }), TypeError);
  assert.throws(() => validatePattern('a.\uD800'), /invalid segment/);
  // detectOverlaps: such a pattern shadows nothing and is shadowed by nothing.
  assert.deepEqual(detectOverlaps([{ match: 'a.\uD800' }, { match: 'a.\uDBFF' }]), []);
  const [o] = detectOverlaps([{ match: 'a.\uD800' }, { match: 'b.*' }, { match: 'b.c' }]);
  assert.deepEqual([o.shadowingIndex, o.shadowedIndex], [1, 2], 'indexes of the original list');
  // Bounds: patterns over 1024 and names over 4096 bytes match nothing.
  const longName = Array.from({ length: 50 }, (_, i) => `seg${i}`).join('.');
  assert.equal(matchGlob('**', longName), true);
  assert.equal(matchGlob('seg0.**', longName), true);
  assert.equal(matchGlob('*', 'x'.repeat(4096)), true);
  assert.equal(matchGlob('*', 'x'.repeat(4097)), false);
  assert.equal(matchGlob('**', 'x.'.repeat(500_000)), false);
  assert.equal(matchGlob(`*${'a'.repeat(1e4)}b`, 'a'.repeat(2e4)), false);
  assert.throws(() => validatePattern('a'.repeat(1025)), /longer than 1024 characters/);
  // Every character of a cause survives the trip back to JS.
  const cause = 'a"\\\u0001\n\t\u2028é🙂\uFFFD</x>';
  const tag = `<cache_invalidation cause="${cause.replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')}" domains="x, y" />`;
  assert.deepEqual(parseInvalidations(tag), [{ cause, domains: ['x', 'y'] }]);
});

test('the browser entry memoizes matchGlob with collision-free keys', async () => {
  // The entries as published (bundled modules); their `.wasm` is fetched from disk.
  await import('./file-fetch.mjs');
  const browser = await import('../../pkg/browser.mjs');
  await browser.ready();
  // With `\0`-joined keys these two calls shared one key, and the second got the first's answer.
  assert.equal(browser.matchGlob('*', '*\0x'), true);
  assert.equal(browser.matchGlob('*\0*', 'x'), false);
  assert.equal(browser.matchGlob('a', 'b', { separator: 'a' }), false);
  assert.equal(browser.matchGlob('', '', { separator: 'ab' }), true);
  assert.equal(browser.matchGlob('a\uD800', 'a\uDBFF'), false);
  assert.equal(browser.matchGlob('a\uD800', 'a\uDBFF'), false, 'memoized answer');
  // A separator getter is read once: the memo key and the match agree.
  let reads = 0;
  const flaky = { get separator() { reads += 1; return reads === 1 ? '.' : '_'; } };
  assert.equal(browser.matchGlob('a.*', 'a.b', flaky), true);
  assert.equal(browser.matchGlob('a.*', 'a.b'), true);
  assert.equal(reads, 1);
  assert.throws(() => browser.matchGlob('a', 'a', { get separator() { throw new Error('boom'); } }), TypeError);
  assert.throws(() => browser.matchGlob({ length: 3e9 }, 'a'), TypeError);
  // The server entry's browser build memoizes StateSync#resolve.
  const serverBrowser = await import('../../pkg/server.mjs');
  await serverBrowser.ready();
  assert.equal(serverBrowser.matchGlob('*', '*\0x'), true);
  assert.equal(serverBrowser.matchGlob('*\0*', 'x'), false);
  const sync = new serverBrowser.StateSync({ policies: [{ match: 'a.*', cacheControl: 'immutable' }] });
  assert.equal(sync.resolve('a.x'), sync.resolve('a.y'));
  assert.equal(sync.resolve('a.'.repeat(200)), null);
  assert.throws(() => sync.resolve(Symbol('x')), TypeError);
});

/** Values that must never trap the module: each export gets each of them. */
function hostileValues() {
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const { proxy: revokedArray, revoke: revokeArray } = Proxy.revocable([], {});
  revokeArray();
  const throwing = (/** @type {string} */ key) => ({ get [key]() { throw new Error(`getter ${key}`); } });
  const trapAll = new Proxy({}, {
    get() { throw new Error('get trap'); },
    getOwnPropertyDescriptor() { throw new Error('gOPD trap'); },
    ownKeys() { throw new Error('ownKeys trap'); },
  });
  const arrayTrap = new Proxy(/** @type {unknown[]} */ ([]), { get() { throw new Error('array get trap'); } });
  /** @type {unknown[]} */
  const sparse = [];
  sparse.length = 2 ** 32 - 1;
  return {
    revoked, revokedArray, trapAll, arrayTrap, sparse, throwing,
    wrongTypes: [undefined, null, 42, true, 10n, Symbol('s'), () => {}, { length: 3e9 }, new String('a.b')],
  };
}

/** Every hostile call, each expected to throw a TypeError. */
function hostileCalls() {
  const h = hostileValues();
  const sync = new StateSync({ policies: [{ match: 't.*', invalidates: ['x'] }, { match: 'd.*', cacheControl: 'immutable' }] });
  /** @type {[string, () => unknown][]} */
  const calls = [];
  const add = (/** @type {string} */ label, /** @type {() => unknown} */ f) => calls.push([label, f]);
  for (const bad of [h.revoked, h.trapAll, ...h.wrongTypes]) {
    add('matchGlob pattern', () => matchGlob(/** @type {never} */ (bad), 'a'));
    add('matchGlob name', () => matchGlob('a', /** @type {never} */ (bad)));
    add('resolve', () => sync.resolve(/** @type {never} */ (bad)));
    add('decorateResult toolName', () => sync.decorateResult(/** @type {never} */ (bad), { content: [] }));
    add('validatePattern', () => validatePattern(bad));
    // A missing description (undefined, null) is a plain `null` answer.
    if (bad !== undefined && bad !== null) add('parseCacheControl', () => parseCacheControl(/** @type {never} */ (bad)));
  }
  for (const bad of [h.revoked, h.trapAll, h.throwing('separator'), 5, 'x']) {
    add('matchGlob options', () => matchGlob('a', 'a', bad));
    add('validatePattern options', () => validatePattern('a', bad));
    add('detectOverlaps options', () => detectOverlaps([], bad));
  }
  for (const bad of [h.revoked, h.revokedArray, h.arrayTrap, h.sparse, { length: 3e9 }, 42, undefined,
    [h.revoked], [h.throwing('match')], [{ match: 'a', get invalidates() { throw new Error('x'); } }],
    [{ match: 'a', invalidates: h.arrayTrap }]]) {
    add('detectOverlaps', () => detectOverlaps(/** @type {never} */ (bad)));
    // Missing policies are an empty list for StateSync.
    if (bad !== undefined) add('new StateSync policies', () => new StateSync({ policies: /** @type {never} */ (bad) }));
  }
  for (const bad of [h.revoked, h.revokedArray, h.trapAll, h.throwing('content'), { content: [h.revoked] },
    { content: [h.throwing('text')] }, { content: h.arrayTrap }, { content: h.sparse }, 42, undefined, null, 10n]) {
    add('parseInvalidations', () => parseInvalidations(/** @type {never} */ (bad)));
  }
  for (const bad of [h.revoked, h.trapAll, h.throwing('policies'), h.throwing('separator'), h.throwing('defaults'),
    { policies: [], defaults: h.revoked }, { policies: [], defaults: h.throwing('cacheControl') },
    { policies: [], onInvalidation: 5 }, { policies: [], get notificationSink() { throw new Error('x'); } },
    { policies: [], staleUriPrefix: h.revoked }, h.throwing('staleUriPrefix'), 7]) {
    add('new StateSync', () => new StateSync(/** @type {never} */ (bad)));
  }
  for (const bad of [h.revoked, h.revokedArray, h.arrayTrap, h.sparse, 42, [h.revoked], [h.trapAll],
    [h.throwing('name')], [{ name: 'd.x', get description() { throw new Error('x'); } }],
    [new Proxy({ name: 'd.x' }, { ownKeys() { throw new Error('keys'); } })]]) {
    add('decorateTools', () => sync.decorateTools(/** @type {never} */ (bad)));
  }
  for (const bad of [h.revoked, h.revokedArray, h.trapAll, h.throwing('isError'), h.throwing('content'),
    { content: h.arrayTrap }, { content: h.revokedArray },
    new Proxy({ content: [] }, { ownKeys() { throw new Error('keys'); } })]) {
    add('decorateResult result', () => sync.decorateResult('t.do', /** @type {never} */ (bad)));
  }
  return calls;
}

test('decorated copies keep every own key as data', () => {
  const sync = new StateSync({ policies: [{ match: 'd.*', cacheControl: 'immutable' }, { match: 't.*', invalidates: ['x'] }] });
  const tool = JSON.parse('{"name":"d.x","":1,"__proto__":{"evil":true},"description":"D."}');
  const [copy] = sync.decorateTools([tool]);
  assert.equal(copy[''], 1);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.deepEqual(/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(copy, '__proto__')).value, { evil: true });
  assert.equal(copy.description, 'D. [Cache-Control: immutable]');
  const result = JSON.parse('{"":2,"__proto__":{"evil":true},"content":[]}');
  const decorated = sync.decorateResult('t.do', result);
  assert.equal(decorated[''], 2);
  assert.equal(Object.getPrototypeOf(decorated), Object.prototype);
  assert.equal(decorated.content.length, 1);
  // Inherited fields are not the result's own: an inherited isError does not make it an error.
  const inherited = Object.create({ isError: true });
  inherited.content = [];
  assert.equal(sync.decorateResult('t.do', inherited).content.length, 1);
});

test('decorateResult: a task answer ({ task }, no content) is returned as it is, and no stale notification is sent before the mutation runs', () => {
  /** @type {unknown[]} */
  const sent = [];
  const sync = new StateSync({ policies: [{ match: 'billing.refund', invalidates: ['billing.get_*'] }], notificationSink: (n) => { sent.push(n); } });
  for (const status of ['working', 'failed']) {
    const answer = { task: { taskId: 't1', status, createdAt: '2026-12-06T00:00:00Z' } };
    assert.equal(sync.decorateResult('billing.refund', /** @type {never} */ (answer)), answer, status);
  }
  assert.deepEqual(sent, []);
  // The task's final result is a finished call's: decorated, and the notification sent.
  const final = sync.decorateResult('billing.refund', { content: [{ type: 'text', text: 'refunded' }] });
  assert.match(/** @type {{ text: string }} */ (final.content[0]).text, /^<cache_invalidation cause="billing.refund"/);
  assert.equal(sent.length, 1);
});

test('wrong types, throwing getters and revoked proxies are TypeErrors, never traps', () => {
  for (const [label, call] of hostileCalls()) {
    assert.throws(call, TypeError, label);
  }
});

test('100 000 hostile calls leave the module working', () => {
  const calls = hostileCalls();
  // Both modules: the hostile calls reach the host's and the server's.
  const memory = () => wasmMemoryBytes() + serverMemoryBytes();
  const before = memory();
  let typeErrors = 0;
  for (let i = 0; i < 100_000; i++) {
    try {
      calls[i % calls.length][1]();
    } catch (e) {
      if (e instanceof TypeError) typeErrors += 1;
    }
  }
  assert.equal(typeErrors, 100_000);
  assert.ok(memory() - before <= 1 << 20, `wasm memory grew by ${memory() - before} bytes`);
  assert.equal(matchGlob('billing.get_*', 'billing.get_invoice'), true);
  assert.equal(matchGlob('billing.get_*', 'billing.refund'), false);
  const sync = new StateSync({ policies: [{ match: 'a.*', invalidates: ['b.*'] }] });
  assert.equal(sync.decorateResult('a.x', { content: [] }).content.length, 1);
  assert.deepEqual(parseInvalidations('<cache_invalidation cause="a" domains="b" />'), [{ cause: 'a', domains: ['b'] }]);
});

test('decorateTools / decorateResult byte-for-byte, hooks swallowed', async () => {
  /** @type {(InvalidationEvent | McpNotification)[]} */
  const seen = [];
  const sync = new StateSync({
    policies: [
      { match: 'sprints.get', cacheControl: 'no-store' },
      { match: 'tasks.update', invalidates: ['tasks.*', 'sprints.*'] },
      { match: 'tool*', invalidates: ['x'] },
    ],
    onInvalidation: (e) => { seen.push(e); throw new Error('observer bug'); },
    notificationSink: async (n) => { seen.push(n); throw new Error('async sink bug'); },
  });
  const tools = [{ name: 'sprints.get', description: 'Get sprint details.' }, { name: 'x.y', description: 'd' }];
  const out = sync.decorateTools(tools);
  assert.equal(out[0].description, 'Get sprint details. [Cache-Control: no-store]');
  assert.equal(out[1], tools[1]);
  assert.equal(tools[0].description, 'Get sprint details.');
  const result = { content: [{ type: 'text', text: '{"ok":true}' }] };
  const decorated = sync.decorateResult('tasks.update', result);
  assert.deepEqual(decorated.content[0], { type: 'text', text: '<cache_invalidation cause="tasks.update" domains="tasks.*, sprints.*" />' });
  assert.equal(result.content.length, 1, 'input not mutated');
  assert.equal(/** @type {InvalidationEvent} */ (seen[0]).causedBy, 'tasks.update');
  assert.deepEqual(/** @type {InvalidationEvent} */ (seen[0]).patterns, ['tasks.*', 'sprints.*']);
  assert.match(/** @type {InvalidationEvent} */ (seen[0]).timestamp, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(seen.slice(1), [
    { method: 'notifications/resources/updated', params: { uri: 'mcpfusion://stale/tasks.*' } },
    { method: 'notifications/resources/updated', params: { uri: 'mcpfusion://stale/sprints.*' } },
  ]);
  const evil = sync.decorateResult('tool<"evil">', { content: [] });
  assert.equal(evil.content[0].text, '<cache_invalidation cause="tool&lt;&quot;evil&quot;&gt;" domains="x" />');
  const failed = { isError: true, content: [{ type: 'text', text: 'no' }] };
  assert.equal(sync.decorateResult('tasks.update', failed), failed, 'error results untouched');
  await new Promise((r) => setTimeout(r, 10)); // an unhandled rejection would fail the run
});

test('parseCacheControl and parseInvalidations', () => {
  assert.equal(parseCacheControl('Get. [Cache-Control: no-store]'), 'no-store');
  assert.equal(parseCacheControl('List. [Cache-Control: immutable]'), 'immutable');
  assert.equal(parseCacheControl('Plain.'), null);
  assert.equal(parseCacheControl(undefined), null);
  const result = { content: [
    { type: 'text', text: '<cache_invalidation cause="a&amp;b" domains="x.*, y.get_*" />' },
    { type: 'text', text: '[System: Cache invalidated for sprints.* — caused by sprints.update]' },
    { type: 'text', text: '{"ok":true}' },
  ] };
  assert.deepEqual(parseInvalidations(result), [
    { cause: 'a&b', domains: ['x.*', 'y.get_*'] },
    { cause: 'sprints.update', domains: ['sprints.*'] },
  ]);
  assert.deepEqual(parseInvalidations('nothing here'), []);
});

test('a refund invalidates the invoice reference (fake-indexeddb)', async () => {
  const cache = new ResultCache({ dbName: `sync-${process.pid}` });
  const invoice = { ok: true, lines: Array.from({ length: 150 }, (_, i) => ({ sku: `SKU-${i}`, cents: 1000 + i })) };
  const shown = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('billing.get_invoice', invoice, { convId: 'c' }));
  const server = new StateSync({ policies: [{ match: 'billing.refund', invalidates: ['billing.get_*'] }] });
  const refund = server.decorateResult('billing.refund', { content: [{ type: 'text', text: '{"ok":true}' }] });
  const visible = /** @type {{ content: { text: string }[] }} */ (await cache.afterToolCall('billing.refund', refund, { convId: 'c' }));
  assert.match(visible.content[0].text, /^<cache_invalidation cause="billing.refund"/);
  const before = /** @type {Extract<import('../../js/index.js').BeforeToolCallResult, { envelope: unknown }>} */ (await cache.beforeToolCall('report.render', { data_uri: shown._cache_uri }, { convId: 'c' }));
  assert.equal(before.dispatch, false);
  assert.equal(before.envelope.error, `invalid_args: cache URI ${shown._cache_uri} is stale (invalidated by billing.refund)`);
  assert.deepEqual(before.envelope._stale_uris, [shown._cache_uri]);
  assert.match(before.envelope.fix_hint, /billing\.get_invoice/);
  assert.deepEqual(await cache.lookup(shown._cache_uri), { status: 'stale', cause: 'billing.refund', sourceToolName: 'billing.get_invoice' });
});

test('listCacheMeta always emits ttlMs and cacheScope, private by default', () => {
  assert.deepEqual(listCacheMeta({ ttlMs: 0 }), { ttlMs: 0, cacheScope: 'private' });
  assert.deepEqual(listCacheMeta({ ttlMs: 60_000, scope: 'public' }), { ttlMs: 60_000, cacheScope: 'public' });
  assert.deepEqual(listCacheMeta({ ttlMs: -5, scope: 'private' }), { ttlMs: 0, cacheScope: 'private' });
  assert.deepEqual(listCacheMeta({ ttlMs: 5, scope: /** @type {never} */ (null) }), { ttlMs: 5, cacheScope: 'private' });
});

test('a per-user list sent with listCacheMeta({ttlMs}) says private on the wire (SEP-2549 reads absent as public)', async () => {
  // A real MCP SDK server whose resources/list is per user and states no scope.
  const server = new Server({ name: 'files', version: '1' }, { capabilities: { resources: {} } });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: 'file:///home/alice/salary.xlsx', name: 'salary' }],
    ...listCacheMeta({ ttlMs: 60_000 }),
  }));
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  try {
    const wire = await client.listResources();
    // Present and private: any SEP-2549 cache (which reads an absent scope as "public") keeps it per user.
    assert.equal(wire.cacheScope, 'private');
    assert.equal(wire.ttlMs, 60_000);
    const lists = new ListCache();
    lists.put('resources/list', {}, wire, 'alice');
    assert.equal(lists.get('resources/list', {}, 'bob'), null);
    assert.equal(/** @type {ListCacheHit} */ (lists.get('resources/list', {}, 'alice')).result, wire);
  } finally {
    await client.close();
  }
});

test('ListCache: TTL, scopes, pages, invalid cursor, notifications, serve-stale', () => {
  let now = 1_000;
  const lists = new ListCache({ now: () => now });
  const page1 = { tools: [{ name: 'a' }], nextCursor: 'p2', ttlMs: 5_000, cacheScope: 'public' };
  const page2 = { tools: [{ name: 'b' }], ttlMs: 5_000, cacheScope: 'public' };
  lists.put('tools/list', {}, page1, null);
  lists.put('tools/list', { cursor: 'p2' }, page2, null);
  assert.equal(/** @type {ListCacheHit} */ (lists.get('tools/list', {}, 'user-1')).result, page1, 'public: served across auth contexts');
  assert.equal(/** @type {ListCacheHit} */ (lists.get('tools/list', { cursor: 'p2' })).result, page2, 'pages cached independently');
  now = 5_999;
  assert.equal(/** @type {ListCacheHit} */ (lists.get('tools/list', {})).stale, false);
  now = 6_000;
  assert.equal(lists.get('tools/list', {}), null, 'fresh only while now < receivedAt + ttlMs');
  assert.deepEqual(/** @type {ListCacheHit} */ (lists.get('tools/list', {}, null, { allowStale: true })).stale, true);
  const mine = { resources: [], ttlMs: 10_000, cacheScope: 'private' };
  lists.put('resources/list', {}, mine, 'alice');
  assert.equal(/** @type {ListCacheHit} */ (lists.get('resources/list', {}, 'alice')).result, mine);
  assert.equal(lists.get('resources/list', {}, 'bob'), null, 'private never across auth contexts');
  assert.equal(lists.get('resources/list', {}), null);
  lists.put('prompts/list', {}, { prompts: [] }, null);
  assert.equal(lists.get('prompts/list', {}), null, 'missing ttlMs = 0');
  lists.put('prompts/list', {}, { prompts: [], ttlMs: -1 }, null);
  assert.equal(lists.get('prompts/list', {}), null, 'negative ttlMs = 0');
  assert.equal(lists.invalidateList('tools/list'), 2, 'invalid cursor drops every page');
  lists.put('tools/list', {}, page1, null);
  assert.equal(lists.handleNotification({ method: 'notifications/tools/list_changed' }), 1);
  lists.put('resources/read', { uri: 'file:///a' }, { contents: [], ttlMs: 9_999, cacheScope: 'public' }, null);
  assert.equal(lists.handleNotification({ method: 'notifications/resources/updated', params: { uri: 'file:///b' } }), 0);
  assert.equal(lists.handleNotification({ method: 'notifications/resources/updated', params: { uri: 'file:///a' } }), 1);
});

test('matchUriTemplate level 1', () => {
  assert.deepEqual(matchUriTemplate('file:///{path}', 'file:///a'), { path: 'a' });
  assert.equal(matchUriTemplate('file:///{path}', 'file:///a/b'), null);
  assert.deepEqual(matchUriTemplate('users/{id}/posts/{post}', 'users/7/posts/x-1'), { id: '7', post: 'x-1' });
  assert.equal(matchUriTemplate('a.b/{x}', 'aXb/1'), null);
  assert.deepEqual(matchUriTemplate('q?{x}', 'q?1'), { x: '1' });
  assert.equal(matchUriTemplate('q?{x}', 'q1'), null);
  assert.equal(/** @type {Record<string, string>} */ (matchUriTemplate('a+[b]|{x}', 'a+[b]|y')).x, 'y');
});
