// `mcp-result-cache/react` rendered by React 19 in jsdom (global-jsdom, Testing Library): hooks
// over a real IndexedDB cache (fake-indexeddb, as consumers' Node tests run it) — ready with the
// exact data, a page, a tool output as the argument, the live list, missing after
// `clearConversation`, stale after `invalidate` — and over an `endpoint` answered by
// `cacheRoute` from a real `node:http` server (revalidation on focus and on demand). Server
// rendering reads nothing.
/// <reference path="../types/react-subset.d.ts" />
import globalJsdom from 'global-jsdom';
import { test, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';

import { createElement as h, StrictMode } from 'react';
import { renderToString } from 'react-dom/server';

import { ResultCache, cacheRoute } from 'mcp-result-cache';
import { ResultCacheProvider, useCachedResult, useCacheEntries, useCacheRevalidate } from 'mcp-result-cache/react';
import { serveRoute } from '../support/serve-route.mjs';

const cleanupDom = globalJsdom(undefined, { url: 'http://localhost/' });
// IndexedDB, as consumers' Node tests have it. With a `window`, fake-indexeddb installs itself on
// it; the wasm glue reads the `IDB*` classes as globals too, so they are on both.
await import('fake-indexeddb/auto');
for (const name of Object.getOwnPropertyNames(window).filter((n) => n === 'indexedDB' || n.startsWith('IDB'))) /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (globalThis))[name] = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (window))[name];
globalThis.IS_REACT_ACT_ENVIRONMENT = true;
const { render, cleanup, waitFor, act, configure } = await import('@testing-library/react');
// Reads go through IndexedDB and HTTP: a busy machine may take more than the default second.
configure({ asyncUtilTimeout: 10000 });
afterEach(() => cleanup());
after(() => cleanupDom());

/**
 * What these tests read of a listed entry (`CacheEntryInfo` in the page, `CacheRouteEntry` over HTTP).
 * @typedef {{ uri: string, staleCause: string | null }[]} Listed
 */
const table = (/** @type {number} */ n) => ({ ok: true, columns: ['t', 'value'], rows: Array.from({ length: n }, (_, i) => ({ t: `2026-01-01T00:00:${i}Z`, value: i })) });
let n = 0;

/**
 * Renders `hook()` inside the provider; answers the list of what it returned, render by render.
 * @template T
 * @param {() => import('mcp-result-cache/react').CachedResult<T>} hook
 * @param {import('mcp-result-cache/react').ResultCacheProviderProps} props
 */
function renderHook(hook, props) {
  /** @type {import('mcp-result-cache/react').CachedResult<T>[]} */
  const seen = [];
  const controls = /** @type {{ revalidate: () => void }} */ ({});
  function Probe() {
    const value = hook();
    controls.revalidate = useCacheRevalidate();
    seen.push(value);
    return h('pre', null, value.status);
  }
  const view = render(h(StrictMode, null, h(ResultCacheProvider, props, h(Probe))));
  return { seen, last: () => /** @type {import('mcp-result-cache/react').CachedResult<T>} */ (seen.at(-1)), view, controls };
}

/**
 * @param {{ last: () => import('mcp-result-cache/react').CachedResult<unknown> }} probe
 * @param {import('mcp-result-cache/react').CachedResult['status']} status
 */
const until = (probe, status) => waitFor(() => assert.equal(probe.last().status, status, String(/** @type {Error | undefined} */ (probe.last().error)?.stack ?? probe.last().error)), { timeout: 10000 });

test('a cache in the page (IndexedDB): ready with the exact data, then stale, then missing', async () => {
  const cache = new ResultCache({ storage: 'indexeddb', dbName: `react-${process.pid}-${n++}` });
  assert.equal(cache.storage, 'indexeddb');
  const data = table(300);
  const output = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', data, { convId: 'chat-1' }));
  const uri = output._cache_uri;

  const whole = renderHook(() => useCachedResult(uri), { cache, convId: 'chat-1' });
  const fromOutput = renderHook(() => useCachedResult(output), { cache, convId: 'chat-1' });
  const page = renderHook(() => useCachedResult(`${uri}#/rows`, { offset: 10, limit: 5 }), { cache, convId: 'chat-1' });
  const list = renderHook(() => useCacheEntries(), { cache, convId: 'chat-1' });
  assert.equal(whole.seen[0].status, 'loading');
  await until(whole, 'ready');
  assert.deepEqual(whole.last().data, data);
  await until(fromOutput, 'ready');
  assert.deepEqual(fromOutput.last().data, data);
  await until(page, 'ready');
  assert.deepEqual(page.last().data, { uri: `${uri}#/rows`, total: 300, offset: 10, items: data.rows.slice(10, 15), next_offset: 15 });
  await until(list, 'ready');
  assert.deepEqual(/** @type {Listed} */ (list.last().data).map((e) => e.uri), [uri]);

  // A write shows in the list.
  const second = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('files.read', table(250), { convId: 'chat-1' }))._cache_uri;
  await waitFor(() => assert.deepEqual(/** @type {Listed} */ (list.last().data).map((e) => e.uri), [uri, second]));

  // An invalidation: stale, keeping the data shown.
  await act(() => cache.invalidate(['metrics.*'], { cause: 'metrics.reset' }));
  await until(whole, 'stale');
  assert.deepEqual(whole.last().data, data);
  await until(page, 'stale');
  assert.equal(/** @type {{ items: unknown[] }} */ (page.last().data).items.length, 5);
  await waitFor(() => assert.equal(/** @type {Listed[number]} */ (/** @type {Listed} */ (list.last().data).find((e) => e.uri === uri)).staleCause, 'metrics.reset'));

  // A clear of the conversation: missing, no data.
  await act(() => cache.clearConversation('chat-1'));
  await until(whole, 'missing');
  assert.equal(whole.last().data, undefined);
  await until(fromOutput, 'missing');
  await waitFor(() => assert.deepEqual(list.last().data, []));
});

test('an entry of another conversation is missing; an output without a reference too; bad input throws', async () => {
  const cache = new ResultCache({ storage: 'indexeddb', dbName: `react-${process.pid}-${n++}` });
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', table(300), { convId: 'chat-a' }))._cache_uri;
  const other = renderHook(() => useCachedResult(uri), { cache, convId: 'chat-b' });
  const own = renderHook(() => useCachedResult(uri, { convId: 'chat-a' }), { cache, convId: 'chat-b' });
  const small = renderHook(() => useCachedResult({ ok: true }), { cache, convId: 'chat-a' });
  const pending = renderHook(() => useCachedResult(undefined), { cache, convId: 'chat-a' });
  await until(other, 'missing');
  await until(own, 'ready');
  assert.equal(small.last().status, 'missing');
  assert.equal(pending.last().status, 'loading');

  const quiet = (/** @type {() => void} */ fn) => {
    const error = console.error;
    console.error = () => {};
    try {
      fn();
    } finally {
      console.error = error;
    }
  };
  quiet(() => assert.throws(() => renderHook(() => useCachedResult('https://example.com'), { cache }), TypeError));
  // Wrong props on purpose: cast to `never`.
  quiet(() => assert.throws(() => renderHook(() => useCachedResult(uri, { limit: 0 }), { cache }), TypeError));
  quiet(() => assert.throws(() => renderHook(() => useCachedResult(uri), /** @type {never} */ ({ cache, endpoint: '/api/cache' })), TypeError));
  quiet(() => assert.throws(() => renderHook(() => useCachedResult(uri), /** @type {never} */ ({})), TypeError));
  quiet(() => assert.throws(() => render(h(function Outside() {
    useCachedResult(uri);
    return null;
  })), /inside <ResultCacheProvider>/));
});

test('an endpoint answered by cacheRoute over HTTP: ready, stale on focus, missing on revalidate', async (t) => {
  const cache = new ResultCache({ storage: 'memory' });
  const data = table(300);
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', data, { convId: 'chat-1' }))._cache_uri;
  /** @type {{ url: string, ifNoneMatch: string | null }[]} */
  const requests = [];
  const server = await serveRoute(async (request) => {
    requests.push({ url: request.url, ifNoneMatch: request.headers.get('if-none-match') });
    return cacheRoute(cache, { authorize: (_request, { convId }) => convId === 'chat-1' })(request);
  });
  t.after(() => server.close());
  const endpoint = `${server.url}/api/cache`;

  const whole = renderHook(() => useCachedResult(uri), { endpoint, convId: 'chat-1' });
  const page = renderHook(() => useCachedResult(`${uri}#/rows`, { offset: 298, limit: 5 }), { endpoint, convId: 'chat-1' });
  const list = renderHook(() => useCacheEntries(), { endpoint, convId: 'chat-1' });
  await until(whole, 'ready');
  assert.deepEqual(whole.last().data, data);
  await until(page, 'ready');
  assert.deepEqual(page.last().data, { uri: `${uri}#/rows`, total: 300, offset: 298, items: data.rows.slice(298) });
  await until(list, 'ready');
  assert.deepEqual(/** @type {Listed} */ (list.last().data).map((e) => e.uri), [uri]);

  // Focus revalidates with If-None-Match: unchanged entries answer 304 and stay ready.
  const before = requests.length;
  await act(async () => window.dispatchEvent(new window.Event('focus')));
  await waitFor(() => assert.ok(requests.length >= before + 3), { timeout: 10000 });
  assert.ok(requests.slice(before).every((r) => r.ifNoneMatch), 'conditional requests');
  assert.equal(whole.last().status, 'ready');

  // The server invalidates: the next focus shows it stale, with the data kept.
  await cache.invalidate(['metrics.*'], { cause: 'metrics.reset' });
  await act(async () => window.dispatchEvent(new window.Event('focus')));
  await until(whole, 'stale');
  assert.deepEqual(whole.last().data, data);
  await waitFor(() => assert.equal(/** @type {Listed} */ (list.last().data)[0].staleCause, 'metrics.reset'));

  // The server clears the conversation: revalidating on demand shows it missing.
  await cache.clearConversation('chat-1');
  await act(async () => whole.controls.revalidate());
  await until(whole, 'missing');
  await act(async () => list.controls.revalidate());
  await waitFor(() => assert.deepEqual(list.last().data, []));

  // A conversation the route refuses: an error, no data.
  const refused = renderHook(() => useCachedResult(uri), { endpoint, convId: 'chat-2' });
  await until(refused, 'error');
  assert.match(String(refused.last().error), /403/);
});

test('server rendering reads nothing and shows loading', async () => {
  let reads = 0;
  const cache = new ResultCache({ storage: 'memory' });
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', table(300), { convId: 'chat-1' }))._cache_uri;
  const counting = Object.assign(Object.create(cache), { lookup: (/** @type {Parameters<typeof cache.lookup>} */ ...a) => (reads++, cache.lookup(...a)), subscribe: (/** @type {Parameters<typeof cache.subscribe>[0]} */ l) => cache.subscribe(l) });
  function Show() {
    return h('span', null, useCachedResult(uri).status);
  }
  const html = renderToString(h(ResultCacheProvider, { cache: counting, convId: 'chat-1' }, h(Show)));
  assert.equal(html, '<span>loading</span>');
  const viaEndpoint = renderToString(h(ResultCacheProvider, { endpoint: '/api/cache', convId: 'chat-1', fetch: () => { reads++; } }, h(Show)));
  assert.equal(viaEndpoint, '<span>loading</span>');
  assert.equal(reads, 0);
});
