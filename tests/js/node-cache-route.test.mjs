// `cacheRoute(cache, { authorize, convId? })` served by a real `node:http` server and asked with
// `fetch`: exact JSON and a part by pointer, pages, the list and its ETag, 304, identical 404s
// for a missing reference and another conversation's, 400, 403 with no read, 405, 410, 500 for a
// storage failure, and the TypeErrors of bad arguments.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, cacheRoute, parseCacheUri } from 'mcp-result-cache';
// The source of the package's `cacheRoute` (pkg/cache-route.cjs is written from it by the build),
// over the package's parser as js/node.cjs makes it: what the tests of its argument reads run on.
import { makeCacheRoute } from '../../js/cache-route.mjs';
const cacheRouteSource = makeCacheRoute(parseCacheUri);
import { serveRoute } from '../support/serve-route.mjs';

const table = (/** @type {number} */ n) => ({ ok: true, columns: ['t', 'value'], rows: Array.from({ length: n }, (_, i) => ({ t: `2026-01-01T00:00:${i}Z`, value: i })) });

/**
 * A cache with one stored table per conversation `chat-a` and `chat-b`, a route and its server.
 * @param {import('node:test').TestContext} t
 * @param {Partial<import('mcp-result-cache').CacheRouteOptions>} [routeOptions]
 */
async function setup(t, routeOptions = {}) {
  /** @type {unknown[][]} */
  const reads = [];
  const cache = new ResultCache({ storage: 'memory' });
  const data = table(300);
  const a = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', data, { convId: 'chat-a' }))._cache_uri;
  const b = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', table(200), { convId: 'chat-b' }))._cache_uri;
  // The route's view of the cache: every read it makes is noted.
  /** @type {Pick<import('mcp-result-cache').ResultCache, 'lookup' | 'entries'>} */
  const noted = {
    lookup: (...args) => (reads.push(['lookup', ...args]), cache.lookup(...args)),
    entries: (...args) => (reads.push(['entries', ...args]), cache.entries(...args)),
  };
  const route = cacheRoute(/** @type {import('mcp-result-cache').ResultCache} */ (noted), { authorize: (_request, { convId }) => convId !== 'forbidden', ...routeOptions });
  const server = await serveRoute(route);
  t.after(() => server.close());
  const get = (/** @type {Record<string, string>} */ query, /** @type {Record<string, string>} */ headers = {}) => fetch(`${server.url}/api/cache?${new URLSearchParams(query)}`, { headers });
  return { cache, data, a, b, get, reads, server };
}

test('200: the stored JSON exactly, a part by pointer, a page; ETag and Cache-Control: private', async (t) => {
  const { data, a, get } = await setup(t);
  const whole = await get({ uri: a, convId: 'chat-a' });
  assert.equal(whole.status, 200);
  assert.equal(whole.headers.get('cache-control'), 'private');
  assert.match(/** @type {string} */ (whole.headers.get('content-type')), /^application\/json/);
  assert.deepEqual(await whole.json(), data);
  const etag = /** @type {string} */ (whole.headers.get('etag'));
  assert.match(etag, /^"[0-9a-z-]+"$/);

  // The reference's `#` arrives as %23 (URLSearchParams encodes it so).
  const part = await get({ uri: `${a}#/rows/7`, convId: 'chat-a' });
  assert.equal(part.status, 200);
  assert.deepEqual(await part.json(), data.rows[7]);
  assert.notEqual(part.headers.get('etag'), etag);

  const page = await get({ uri: `${a}#/rows`, convId: 'chat-a', offset: '10', limit: '5' });
  assert.equal(page.status, 200);
  assert.deepEqual(await page.json(), { uri: `${a}#/rows`, total: 300, offset: 10, items: data.rows.slice(10, 15), next_offset: 15 });
  const last = await (await get({ uri: `${a}#/rows`, convId: 'chat-a', offset: '298', limit: '5' })).json();
  assert.deepEqual(last, { uri: `${a}#/rows`, total: 300, offset: 298, items: data.rows.slice(298) });

  // If-None-Match: 304, no body.
  const again = await get({ uri: a, convId: 'chat-a' }, { 'if-none-match': etag });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), '');
  assert.equal(again.headers.get('etag'), etag);
});

test('GET ?convId= lists metadata without payloads; its ETag changes when the list does', async (t) => {
  const { cache, a, get } = await setup(t);
  const first = await get({ convId: 'chat-a' });
  assert.equal(first.status, 200);
  const list = /** @type {import('mcp-result-cache').CacheRouteList} */ (await first.json());
  assert.equal(list.convId, 'chat-a');
  assert.deepEqual(list.entries.map((e) => e.uri), [a]);
  assert.deepEqual(Object.keys(list.entries[0]).sort(), ['addedAt', 'sizeBytes', 'sourceToolName', 'staleCause', 'uri']);
  assert.equal(list.entries[0].staleCause, null);
  assert.ok(!JSON.stringify(list).includes('"rows"'), 'no payload in the list');
  const etag = /** @type {string} */ (first.headers.get('etag'));
  assert.equal((await get({ convId: 'chat-a' }, { 'if-none-match': etag })).status, 304);
  // A read does not change the list's tag; a stale mark does.
  await get({ uri: a, convId: 'chat-a' });
  assert.equal((await get({ convId: 'chat-a' }, { 'if-none-match': etag })).status, 304);
  await cache.invalidate(['metrics.*'], { cause: 'metrics.reset' });
  const changed = await get({ convId: 'chat-a' }, { 'if-none-match': etag });
  assert.equal(changed.status, 200);
  assert.equal((await changed.json()).entries[0].staleCause, 'metrics.reset');
});

test('404: a missing reference and another conversation\'s get the same body', async (t) => {
  const { a, b, get } = await setup(t);
  const other = await get({ uri: b, convId: 'chat-a' });
  const missing = await get({ uri: a.replace(/\/[^/]+$/, '/AAAAAAAAAAA'), convId: 'chat-a' });
  const nothingAtPointer = await get({ uri: `${a}#/nope`, convId: 'chat-a' });
  assert.equal(other.status, 404);
  assert.equal(missing.status, 404);
  assert.equal(nothingAtPointer.status, 404);
  const bodies = [await other.text(), await missing.text(), await nothingAtPointer.text()];
  assert.equal(bodies[0], bodies[1]);
  assert.equal(bodies[0], bodies[2]);
  assert.deepEqual(JSON.parse(bodies[0]), { error: 'not_found' });
  assert.equal(other.headers.get('etag'), null);
});

test('410: a stale entry names the tool to call again, and no payload', async (t) => {
  const { cache, a, get } = await setup(t);
  await cache.invalidate(['metrics.*'], { cause: 'metrics.reset' });
  const stale = await get({ uri: a, convId: 'chat-a' });
  assert.equal(stale.status, 410);
  const body = await stale.json();
  assert.equal(body.error, 'stale');
  assert.equal(body.sourceToolName, 'metrics.query');
  assert.equal(body.cause, 'metrics.reset');
  assert.match(body.message, /call metrics\.query again/);
  assert.ok(!JSON.stringify(body).includes('2026-01-01'), 'no payload data');
});

test('400: malformed requests, nothing read', async (t) => {
  const { a, get, reads } = await setup(t);
  for (const query of /** @type {Record<string, string>[]} */ ([
    { uri: 'https://example.com/x', convId: 'chat-a' },
    { uri: 'mcp+cache://bad uri\u0001', convId: 'chat-a' },
    { uri: a },
    { uri: a, convId: 'chat-a', offset: '-1' },
    { uri: a, convId: 'chat-a', limit: '0' },
    { uri: a, convId: 'chat-a', limit: 'ten' },
    { convId: 'chat-a', offset: '0' },
    {},
  ])) {
    const response = await get(query);
    assert.equal(response.status, 400, JSON.stringify(query));
    assert.equal((await response.json()).error, 'bad_request');
  }
  assert.deepEqual(reads, []);
  // A page of what is not an array, and past the end: 400 after the read, no payload in the body.
  const object = await get({ uri: a, convId: 'chat-a', offset: '0' });
  assert.equal(object.status, 400);
  assert.ok(!(await object.text()).includes('2026'));
  assert.equal((await get({ uri: `${a}#/rows`, convId: 'chat-a', offset: '301' })).status, 400);
});

test('400, not 404: references the cache\'s own parser refuses (parseCacheUri answers null), nothing read', async (t) => {
  const { a, get, reads } = await setup(t);
  const token = a.slice(a.lastIndexOf('/') + 1);
  for (const uri of [
    `${a}#rows`, // a fragment that is no JSON Pointer
    `${a}#/rows/~2`, // an escape RFC 6901 does not have
    'mcp+cache://chat-a/', // no token
    `mcp+cache://chat-a/../chat-b/${token}`, // a path
    `${a}#/${'a'.repeat(3000)}`, // a pointer over 2 048 bytes
  ]) {
    assert.equal(parseCacheUri(uri), null, uri);
    const response = await get({ uri, convId: 'chat-a' });
    assert.equal(response.status, 400, uri.slice(0, 80));
    const body = await response.json();
    assert.equal(body.error, 'bad_request');
    assert.match(body.message, /not a well-formed cache reference/);
  }
  assert.deepEqual(reads, []);
  // Well formed: read, and answered 200 or 404 as before.
  assert.equal((await get({ uri: `${a}#/rows/0`, convId: 'chat-a' })).status, 200);
  assert.equal((await get({ uri: `${a}#/rows/~0`, convId: 'chat-a' })).status, 404);
});

test('403 before any read; 405 for other methods', async (t) => {
  const { a, get, reads, server } = await setup(t);
  const refused = await get({ uri: a, convId: 'forbidden' });
  assert.equal(refused.status, 403);
  assert.deepEqual(await refused.json(), { error: 'forbidden' });
  assert.equal((await get({ convId: 'forbidden' })).status, 403);
  assert.deepEqual(reads, []);
  for (const method of ['POST', 'PUT', 'DELETE', 'HEAD']) {
    const response = await fetch(`${server.url}/api/cache?convId=chat-a`, { method });
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.get('allow'), 'GET');
  }
  assert.deepEqual(reads, []);
});

test('authorize sees the conversation and the reference; convId(request) overrides the query', async (t) => {
  /** @type {unknown[]} */
  const seen = [];
  const { a, get } = await setup(t, {
    authorize: async (request, scope) => (seen.push({ url: new URL(request.url).pathname, ...scope }), true),
    // `null` without the header (a 400), on purpose.
    convId: /** @type {(request: Request) => string} */ ((request) => request.headers.get('x-chat')),
  });
  const own = await get({ uri: a, convId: 'chat-b' }, { 'x-chat': 'chat-a' });
  assert.equal(own.status, 200);
  assert.deepEqual(seen, [{ url: '/api/cache', convId: 'chat-a', uri: a }]);
  assert.equal((await get({ uri: a, convId: 'chat-a' }, { 'x-chat': 'chat-b' })).status, 404);
  assert.equal((await get({ uri: a, convId: 'chat-a' })).status, 400, 'no conversation from the session');
});

test('authorize must answer true; a throwing authorize is a 500 without detail', async (t) => {
  const { a, get } = await setup(t, { authorize: /** @type {never} */ (() => 'yes') });
  assert.equal((await get({ uri: a, convId: 'chat-a' })).status, 403);
  const { get: get2, a: a2 } = await setup(t, { authorize: () => { throw new Error('secret detail'); } });
  const failed = await get2({ uri: a2, convId: 'chat-a' });
  assert.equal(failed.status, 500);
  assert.deepEqual(await failed.json(), { error: 'internal_error' });
});

test('a storage failure (a TypeError too, as fetch failed) is a 500 without detail, an entry\'s as a list\'s', async (t) => {
  for (const failure of [new TypeError('fetch failed'), Object.assign(new Error('down'), { name: 'NetworkError' })]) {
    const { a } = await setup(t);
    const failing = { lookup: async () => { throw failure; }, entries: async () => { throw failure; } };
    const server = await serveRoute(cacheRoute(/** @type {import('mcp-result-cache').ResultCache} */ (/** @type {unknown} */ (failing)), { authorize: () => true }));
    t.after(() => server.close());
    for (const query of /** @type {Record<string, string>[]} */ ([{ uri: a, convId: 'chat-a' }, { convId: 'chat-a' }])) {
      const answer = await fetch(`${server.url}/api/cache?${new URLSearchParams(query)}`);
      assert.equal(answer.status, 500, `${failure.name} ${JSON.stringify(Object.keys(query))}`);
      assert.deepEqual(await answer.json(), { error: 'internal_error' });
    }
  }
});

test('TypeError at construction without authorize, or with bad arguments', () => {
  const cache = new ResultCache({ storage: 'memory' });
  // Bad arguments on purpose: cast to `never` (or no options at all).
  assert.throws(() => /** @type {(cache: unknown) => unknown} */ (cacheRoute)(cache), TypeError);
  assert.throws(() => cacheRoute(cache, /** @type {never} */ ({})), /authorize/);
  assert.throws(() => cacheRoute(cache, { authorize: /** @type {never} */ (true) }), TypeError);
  assert.throws(() => cacheRoute(cache, { authorize: () => true, convId: /** @type {never} */ ('chat-a') }), TypeError);
  assert.throws(() => cacheRoute(/** @type {never} */ ({}), { authorize: () => true }), TypeError);
  assert.throws(() => cacheRoute(/** @type {never} */ (null), { authorize: () => true }), TypeError);
  assert.equal(typeof cacheRoute(cache, { authorize: () => true }), 'function');
});

test('arguments that cannot be read are a TypeError naming what could not be read, thrown at construction', () => {
  const cache = new ResultCache({ storage: 'memory' });
  const trap = new Proxy({}, { get() { throw new Error('trap'); } });
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const authorize = () => true;
  const unreadable = (/** @type {string} */ what) => ({ name: 'TypeError', message: `cacheRoute: could not read \`${what}\` (a getter threw, or the object is a revoked Proxy)` });
  assert.throws(() => cacheRouteSource(cache, trap), unreadable('options.authorize'));
  assert.throws(() => cacheRouteSource(cache, revoked), unreadable('options.authorize'));
  assert.throws(() => cacheRouteSource(cache, { authorize, get convId() { throw new Error('getter'); } }), unreadable('options.convId'));
  assert.throws(() => cacheRouteSource(trap, { authorize }), unreadable('cache.lookup'));
  assert.throws(() => cacheRouteSource(revoked, { authorize }), unreadable('cache.lookup'));
  // Readable but wrong arguments answer as before.
  assert.throws(() => cacheRouteSource(cache, {}), { name: 'TypeError', message: 'cacheRoute: options.authorize must be a function' });
  assert.throws(() => cacheRouteSource(null, trap), { name: 'TypeError', message: 'cacheRoute: cache must be a ResultCache' });
  assert.equal(typeof cacheRouteSource(cache, { authorize }), 'function');
});

test('a page the route refuses is refused with If-None-Match too: 400, never a 304 for a tag no 200 carried', async (t) => {
  const { a, get } = await setup(t);
  for (const [query, what] of /** @type {const} */ ([[{ uri: a, offset: '0', limit: '10' }, 'an object paged'], [{ uri: `${a}#/rows`, offset: '999' }, 'an offset past the end']])) {
    for (const tag of ['*', 'W/"x", *']) {
      const answer = await get({ ...query, convId: 'chat-a' }, { 'if-none-match': tag });
      assert.equal(answer.status, 400, `${what}, If-None-Match: ${tag}`);
      assert.equal(answer.headers.get('etag'), null);
    }
  }
  // What a 200 answers, a matching tag answers 304.
  const page = await get({ uri: `${a}#/rows`, offset: '10', limit: '5', convId: 'chat-a' });
  assert.equal(page.status, 200);
  assert.equal((await get({ uri: `${a}#/rows`, offset: '10', limit: '5', convId: 'chat-a' }, { 'if-none-match': /** @type {string} */ (page.headers.get('etag')) })).status, 304);
});

test('the conversation "" is a conversation, from the query or from convId(request), as in the cache', async (t) => {
  const { cache, get } = await setup(t);
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', table(300), { convId: '' }))._cache_uri;
  assert.equal((await get({ uri, convId: '' })).status, 200);
  assert.equal((await get({ uri, convId: 'chat-a' })).status, 404);
  assert.equal((await get({ uri })).status, 400, 'no conversation at all');
  const route = cacheRoute(cache, { authorize: () => true, convId: (request) => /** @type {string} */ (request.headers.get('x-chat')) });
  const ask = (/** @type {Record<string, string>} */ headers) => route(new Request(`http://localhost/api/cache?uri=${encodeURIComponent(uri)}`, { headers }));
  assert.equal((await ask({ 'x-chat': '' })).status, 200);
  assert.equal((await ask({ 'x-chat': 'chat-a' })).status, 404);
  assert.equal((await ask({})).status, 400, 'convId(request) answered null');
});
