// `mcp-result-cache/react` rendered by React 19 in jsdom (global-jsdom, Testing Library): hooks
// over a real IndexedDB cache (fake-indexeddb, as consumers' Node tests run it) — ready with the
// exact data, a page, a tool output as the argument, the live list, missing after
// `clearConversation`, stale after `invalidate` — and over an `endpoint` answered by
// `cacheRoute` from a real `node:http` server (revalidation on focus and on demand). Server
// rendering reads nothing. Then what was fixed: a stale result keeps its data when read again, a
// derived result turns stale with its source, a slow endpoint under `refreshInterval` loads, a
// `refreshInterval` no timer holds is refused, an inline `fetch` resets nothing, a string of
// text is a tool output, the options' bounds are the route's, a stalled request is given up
// (`requestTimeout`, a body that stops arriving too), a request nobody reads any more is aborted,
// a new `refreshInterval` restarts only the timer, and a return to the tab (visibilitychange and
// focus) is one revalidation.
/// <reference path="../types/react-subset.d.ts" />
import globalJsdom from 'global-jsdom';
import { test, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

import { createElement as h, StrictMode, useState } from 'react';
import { renderToString } from 'react-dom/server';

import { ResultCache, cacheRoute, cacheTools, referencesOf } from 'mcp-result-cache';
import { CacheEndpointError, ResultCacheProvider, useCachedResult, useCacheEntries, useCacheRevalidate } from 'mcp-result-cache/react';
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
 * @typedef {{ uri: string, staleCause: string | null, sourceToolName: string }[]} Listed
 */
/** Runs `fn` without React's console report of the error a render throws. */
const quiet = (/** @type {() => void} */ fn) => {
  const error = console.error;
  console.error = () => {};
  try {
    fn();
  } finally {
    console.error = error;
  }
};
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** A `fetch` answered by `route` in the process (no server), after `delay` ms. */
const routeFetch = (/** @type {(request: Request) => Promise<Response>} */ route, delay = 0) => /** @type {typeof fetch} */ (async (url, init) => {
  if (delay) await sleep(delay);
  return route(new Request(new URL(String(url), 'http://localhost/'), init));
});
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
  assert.equal(whole.last().stale, undefined);
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
  // The reason, from the lookup: what invalidated it and the tool to call again.
  assert.deepEqual(whole.last().stale, { cause: 'metrics.reset', sourceToolName: 'metrics.query' });
  await until(page, 'stale');
  assert.equal(/** @type {{ items: unknown[] }} */ (page.last().data).items.length, 5);
  assert.deepEqual(page.last().stale, { cause: 'metrics.reset', sourceToolName: 'metrics.query' });
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
  // The reason, from the route's 410 body.
  assert.deepEqual(whole.last().stale, { cause: 'metrics.reset', sourceToolName: 'metrics.query' });
  await waitFor(() => assert.equal(/** @type {Listed} */ (list.last().data)[0].staleCause, 'metrics.reset'));

  // The server clears the conversation: revalidating on demand shows it missing.
  await cache.clearConversation('chat-1');
  await act(async () => whole.controls.revalidate());
  await until(whole, 'missing');
  assert.equal(whole.last().stale, undefined);
  await act(async () => list.controls.revalidate());
  await waitFor(() => assert.deepEqual(list.last().data, []));

  // A conversation the route refuses: an error, no data.
  const refused = renderHook(() => useCachedResult(uri), { endpoint, convId: 'chat-2' });
  await until(refused, 'error');
  assert.match(String(refused.last().error), /403/);
});

test("the module is marked 'use client': a server component tree imports it as client components", async () => {
  const { default: ts } = await import('typescript');
  const file = new URL(import.meta.resolve('mcp-result-cache/react'));
  const source = ts.createSourceFile(file.pathname, await readFile(file, 'utf8'), ts.ScriptTarget.Latest);
  const [first] = source.statements;
  assert.ok(first && ts.isExpressionStatement(first) && ts.isStringLiteral(first.expression), 'the first statement is a directive');
  assert.equal(first.expression.text, 'use client');
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

test('a stale result keeps the data it showed when it is read again (revalidate, an eviction)', async () => {
  const cache = new ResultCache({ storage: 'memory', maxEntries: 3 });
  await cache.afterToolCall('other.tool', table(300), { convId: 'chat-2' });
  const data = table(300);
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', data, { convId: 'chat-1' }))._cache_uri;
  // The cache, its lookups counted (and answered once they are).
  let lookups = 0;
  const counting = Object.assign(Object.create(cache), {
    lookup: async (/** @type {Parameters<typeof cache.lookup>} */ ...a) => {
      const outcome = await cache.lookup(...a);
      lookups++;
      return outcome;
    },
    subscribe: (/** @type {Parameters<typeof cache.subscribe>[0]} */ l) => cache.subscribe(l),
  });
  const whole = renderHook(() => useCachedResult(uri), { cache: counting, convId: 'chat-1' });
  const page = renderHook(() => useCachedResult(`${uri}#/rows`, { offset: 0, limit: 5 }), { cache: counting, convId: 'chat-1' });
  await until(whole, 'ready');
  await until(page, 'ready');
  await act(() => cache.invalidate(['metrics.*'], { cause: 'metrics.reset' }));
  await until(whole, 'stale');
  await until(page, 'stale');
  const missing = renderHook(() => useCachedResult('mcp+cache://chat-1/AAAAAAAAAAA'), { cache: counting, convId: 'chat-1' });
  await until(missing, 'missing');
  const renders = () => [whole.seen.length, page.seen.length, missing.seen.length];
  const rendered = renders();

  // useCacheRevalidate reads every hook again (each probe has its provider): the lookup answers
  // stale (missing), the data stays, the very same snapshot: nothing re-renders.
  let before = lookups;
  await act(async () => {
    whole.controls.revalidate();
    page.controls.revalidate();
    missing.controls.revalidate();
  });
  await waitFor(() => assert.ok(lookups >= before + 3));
  await act(() => sleep(10));
  assert.deepEqual(renders(), rendered, 'renders of the stale, paged stale and missing hooks');
  assert.equal(whole.last().status, 'stale');
  assert.deepEqual(whole.last().data, data);
  assert.deepEqual(/** @type {{ items: unknown[] }} */ (page.last().data).items, data.rows.slice(0, 5));

  // An eviction elsewhere (the entry budget, another conversation) reads every hook again too.
  before = lookups;
  await act(async () => {
    await cache.afterToolCall('other.tool', table(301), { convId: 'chat-2' });
    await cache.afterToolCall('other.tool', table(302), { convId: 'chat-2' });
  });
  await waitFor(() => assert.ok(lookups >= before + 2));
  await act(() => sleep(10));
  assert.equal(whole.last().status, 'stale');
  assert.deepEqual(whole.last().data, data);
  assert.equal(page.last().status, 'stale');
  assert.deepEqual(/** @type {{ items: unknown[] }} */ (page.last().data).items, data.rows.slice(0, 5));
  assert.deepEqual(renders(), rendered, 'renders after the eviction');
});

test('over an endpoint, a stale or missing result read again re-renders nothing', async (t) => {
  const cache = new ResultCache({ storage: 'memory' });
  const data = table(300);
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', data, { convId: 'chat-1' }))._cache_uri;
  let requests = 0;
  const server = await serveRoute(async (request) => {
    requests++;
    return cacheRoute(cache, { authorize: () => true })(request);
  });
  t.after(() => server.close());
  const endpoint = `${server.url}/api/cache`;
  const stale = renderHook(() => useCachedResult(uri), { endpoint, convId: 'chat-1' });
  const missing = renderHook(() => useCachedResult('mcp+cache://chat-1/AAAAAAAAAAA'), { endpoint, convId: 'chat-1' });
  await until(stale, 'ready');
  await until(missing, 'missing');
  await cache.invalidate(['metrics.*'], { cause: 'metrics.reset' });
  await act(async () => stale.controls.revalidate());
  await until(stale, 'stale');
  const rendered = [stale.seen.length, missing.seen.length];
  for (let i = 0; i < 3; i++) {
    const before = requests;
    await act(async () => {
      stale.controls.revalidate();
      missing.controls.revalidate();
    });
    await waitFor(() => assert.ok(requests >= before + 2));
    await act(() => sleep(10));
  }
  assert.deepEqual([stale.seen.length, missing.seen.length], rendered);
  assert.equal(stale.last().status, 'stale');
  assert.deepEqual(stale.last().data, data);
});

test('a derived result (cache_select, derivedFrom) turns stale with its source; a fresh one keeps its data', async () => {
  const cache = new ResultCache({ storage: 'memory', readTools: true });
  const data = table(300);
  const source = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('invoices.list', data, { convId: 'chat-1' }))._cache_uri;
  const other = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('files.read', table(250), { convId: 'chat-1' }))._cache_uri;
  const selected = await cacheTools(cache, { convId: 'chat-1' }).callTool({ name: 'cache_select', arguments: { uri: `${source}#/rows`, where: [{ field: 'value', op: '>', value: 100 }] } });
  assert.equal(referencesOf(selected).length > 0, true);
  const part = { a: 1, rows: data.rows.slice(0, 200) };
  const derived = /** @type {string} */ (await cache.cacheToolResult({ payload: part, convId: 'chat-1', sourceToolName: 'reports.part', derivedFrom: source, threshold: 0 }));

  const fromSelect = renderHook(() => useCachedResult(selected, { offset: 0, limit: 5 }), { cache, convId: 'chat-1' });
  const fromDerived = renderHook(() => useCachedResult(derived), { cache, convId: 'chat-1' });
  const fresh = renderHook(() => useCachedResult(other), { cache, convId: 'chat-1' });
  const list = renderHook(() => useCacheEntries(), { cache, convId: 'chat-1' });
  await until(fromSelect, 'ready');
  assert.equal(/** @type {{ total: number }} */ (fromSelect.last().data).total, 199);
  await until(fromDerived, 'ready');
  await until(fresh, 'ready');
  const freshData = fresh.last().data;

  // The `stale` change names only the source: the hooks read the others again.
  await act(() => cache.invalidate(['invoices.*'], { cause: 'invoices.refund' }));
  await until(fromSelect, 'stale');
  assert.deepEqual(/** @type {{ items: unknown[] }} */ (fromSelect.last().data).items, data.rows.slice(101, 106));
  await until(fromDerived, 'stale');
  assert.deepEqual(fromDerived.last().data, part);
  // The list reads each entry as a lookup does: the parts are stale with their source's cause,
  // under its tool.
  const causes = () => Object.fromEntries(/** @type {Listed} */ (list.last().data).map((e) => [e.uri, [e.staleCause, e.sourceToolName]]));
  await waitFor(() => assert.deepEqual(causes()[derived], ['invoices.refund', 'invoices.list']));
  assert.deepEqual(causes()[source], ['invoices.refund', 'invoices.list']);
  assert.deepEqual(causes()[other], [null, 'files.read']);
  assert.equal(Object.values(causes()).filter(([cause]) => cause === 'invoices.refund').length, 3, 'the source, the selection and the part');
  await act(() => sleep(50));
  assert.equal(fresh.last().status, 'ready');
  assert.equal(fresh.last().data, freshData, 'a fresh entry read again keeps the very data it showed');
});

test('an endpoint slower than refreshInterval: the read under way lands, one at a time', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', table(300), { convId: 'chat-1' }))._cache_uri;
  const route = cacheRoute(cache, { authorize: () => true });
  let inFlight = 0;
  let most = 0;
  const slow = routeFetch(route, 250);
  /** @type {typeof fetch} */
  const counting = async (url, init) => {
    most = Math.max(most, ++inFlight);
    try {
      return await slow(url, init);
    } finally {
      inFlight--;
    }
  };
  const whole = renderHook(() => useCachedResult(uri), { endpoint: '/api/cache', convId: 'chat-1', refreshInterval: 60, fetch: counting });
  await waitFor(() => assert.equal(whole.last().status, 'ready'), { timeout: 3000 });
  assert.equal(most, 1);
});

test('a refreshInterval no timer can hold is a TypeError (setInterval would make it 1 ms)', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', table(300), { convId: 'chat-1' }))._cache_uri;
  let requests = 0;
  const fetcher = routeFetch((request) => (requests++, cacheRoute(cache, { authorize: () => true })(request)));
  for (const refreshInterval of [Infinity, 2 ** 31, 30 * 24 * 3600 * 1000]) {
    quiet(() => assert.throws(() => renderHook(() => useCachedResult(uri), { endpoint: '/api/cache', convId: 'chat-1', refreshInterval, fetch: fetcher }), /refreshInterval must be .* 2147483647/));
  }
  cleanup();
  // The longest a timer holds is accepted, and reads once.
  const longest = renderHook(() => useCachedResult(uri), { endpoint: '/api/cache', convId: 'chat-1', refreshInterval: 2 ** 31 - 1, fetch: fetcher });
  await until(longest, 'ready');
  await act(() => sleep(100));
  assert.equal(requests, 1);
});

test('an inline fetch prop: a re-render of the provider keeps the hooks, and the newest fetch is used', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const data = table(300);
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', data, { convId: 'chat-1' }))._cache_uri;
  const route = cacheRoute(cache, { authorize: () => true });
  /** @type {{ render: number, ifNoneMatch: string | null }[]} */
  const requests = [];
  /** @type {string[]} */
  const seen = [];
  let last = /** @type {import('mcp-result-cache/react').CachedResult<unknown>} */ ({ status: 'loading', data: undefined, error: undefined });
  const controls = { bump: () => {}, revalidate: () => {} };
  function Rows() {
    last = useCachedResult(uri);
    controls.revalidate = useCacheRevalidate();
    seen.push(last.status);
    return h('pre', null, last.status);
  }
  function App() {
    const [renders, setRenders] = useState(0);
    controls.bump = () => setRenders((r) => r + 1);
    /** @type {typeof fetch} */
    const inline = (url, init) => {
      requests.push({ render: renders, ifNoneMatch: new Headers(init?.headers).get('if-none-match') });
      return routeFetch(route)(url, init);
    };
    return h(ResultCacheProvider, { endpoint: '/api/cache', convId: 'chat-1', fetch: inline }, h('i', null, renders), h(Rows));
  }
  render(h(StrictMode, null, h(App)));
  await waitFor(() => assert.equal(last.status, 'ready'));
  seen.length = 0;
  for (let i = 0; i < 3; i++) await act(async () => controls.bump());
  await act(() => sleep(50));
  assert.ok(seen.length > 0 && seen.every((status) => status === 'ready'), seen.join());
  assert.equal(requests.length, 1);

  // Stale on demand, then another re-render: still stale, the data kept.
  await cache.invalidate(['metrics.*'], { cause: 'metrics.reset' });
  await act(async () => controls.revalidate());
  await waitFor(() => assert.equal(last.status, 'stale'));
  assert.equal(requests.at(-1)?.render, 3, 'the newest fetch');
  assert.ok(requests.at(-1)?.ifNoneMatch, 'conditional: the store kept its tag');
  await act(async () => controls.bump());
  await act(() => sleep(50));
  assert.equal(last.status, 'stale');
  assert.deepEqual(last.data, data);
});

test('a string that is not a reference is a tool output: JSON text finds its reference, other text is missing', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const data = table(300);
  const output = await cache.afterToolCall('metrics.query', data, { convId: 'chat-1' });
  const text = renderHook(() => useCachedResult('done: 3 rows written'), { cache, convId: 'chat-1' });
  const url = renderHook(() => useCachedResult('https://example.com'), { cache, convId: 'chat-1' });
  const json = renderHook(() => useCachedResult(JSON.stringify(output)), { cache, convId: 'chat-1' });
  assert.equal(text.last().status, 'missing');
  assert.equal(url.last().status, 'missing');
  await until(json, 'ready');
  assert.deepEqual(json.last().data, data);
});

test('options: limit and offset as the route takes them, over either source; null options a clear TypeError', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', table(300), { convId: 'chat-1' }))._cache_uri;
  const route = cacheRoute(cache, { authorize: () => true });
  const sources = [{ cache, convId: 'chat-1' }, { endpoint: '/api/cache', convId: 'chat-1', fetch: routeFetch(route) }];
  // The route's own bounds: limit 1–10 000, offset a safe integer.
  const status = async (/** @type {string} */ query) => (await route(new Request(`http://localhost/api/cache?convId=chat-1&uri=${encodeURIComponent(`${uri}#/rows`)}&${query}`))).status;
  assert.equal(await status('limit=10000'), 200);
  assert.equal(await status('limit=10001'), 400);
  assert.equal(await status(`offset=${2 ** 60}`), 400);
  for (const props of sources) {
    const most = renderHook(() => useCachedResult(`${uri}#/rows`, { limit: 10_000 }), props);
    await until(most, 'ready');
    assert.equal(/** @type {{ items: unknown[] }} */ (most.last().data).items.length, 300);
    quiet(() => assert.throws(() => renderHook(() => useCachedResult(`${uri}#/rows`, { limit: 10_001 }), props), /limit must be a whole number from 1 to 10000/));
    quiet(() => assert.throws(() => renderHook(() => useCachedResult(`${uri}#/rows`, { offset: 2 ** 60 }), props), /offset must be a whole number from 0 to/));
    // Wrong options on purpose: cast to `never`.
    quiet(() => assert.throws(() => renderHook(() => useCachedResult(uri, /** @type {never} */ (null)), props), /useCachedResult: options must be an object/));
    // A conversation id is a string or a number, as for the provider (an object is no id).
    quiet(() => assert.throws(() => renderHook(() => useCachedResult(uri, { convId: /** @type {never} */ ({}) }), props), /useCachedResult: options.convId must be a string or a number/));
    quiet(() => assert.throws(() => renderHook(() => useCacheEntries(/** @type {never} */ ({ id: 'chat-1' })), props), /useCacheEntries: convId must be a string or a number/));
  }
});

test('no conversation named anywhere: "default", over an endpoint as over a cache (entry and list)', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const data = table(300);
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', data, {}))._cache_uri;
  assert.match(uri, /^mcp\+cache:\/\/default\//);
  const route = cacheRoute(cache, { authorize: () => true });
  for (const props of [{ cache }, { endpoint: '/api/cache', fetch: routeFetch(route) }]) {
    const whole = renderHook(() => useCachedResult(uri), props);
    const list = renderHook(() => useCacheEntries(), props);
    await until(whole, 'ready');
    assert.deepEqual(whole.last().data, data);
    await until(list, 'ready');
    assert.deepEqual(/** @type {{ uri: string }[]} */ (list.last().data).map((e) => e.uri), [uri]);
  }
});

test('over an endpoint, a revalidation that fails on its way or on the server keeps what was shown; a refusal shows nothing', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const data = table(300);
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', data, { convId: 'chat-1' }))._cache_uri;
  const route = cacheRoute(cache, { authorize: () => true });
  /** @type {'ok' | 'offline' | 'down' | 'forbidden'} */
  let state = 'ok';
  const fetcher = /** @type {typeof fetch} */ (async (url, init) => {
    if (state === 'offline') throw new TypeError('Failed to fetch');
    if (state === 'down') return new Response(JSON.stringify({ error: 'internal_error' }), { status: 500 });
    if (state === 'forbidden') return new Response(JSON.stringify({ error: 'forbidden' }), { status: 403 });
    return route(new Request(new URL(String(url), 'http://localhost/'), init));
  });
  const whole = renderHook(() => useCachedResult(uri), { endpoint: '/api/cache', convId: 'chat-1', fetch: fetcher });
  await until(whole, 'ready');
  for (const failing of /** @type {const} */ (['offline', 'down'])) {
    state = failing;
    await act(async () => whole.controls.revalidate());
    await until(whole, 'error');
    assert.deepEqual(whole.last().data, data, `${failing}: what was shown stays`);
    const error = /** @type {unknown} */ (whole.last().error);
    if (failing === 'down') assert.ok(error instanceof CacheEndpointError && error.status === 500 && /** @type {{ error: string }} */ (error.body).error === 'internal_error', 'the server failing: its status and body');
    else assert.ok(error instanceof TypeError, 'failed on its way: what fetch threw');
    state = 'ok';
    await act(async () => whole.controls.revalidate());
    await until(whole, 'ready');
  }
  state = 'forbidden';
  await act(async () => whole.controls.revalidate());
  await until(whole, 'error');
  assert.equal(whole.last().data, undefined, 'a refusal shows nothing');
  const refused = whole.last().error;
  assert.ok(refused instanceof CacheEndpointError, 'a refusal is a CacheEndpointError');
  assert.deepEqual([refused.name, refused.status, refused.body], ['CacheEndpointError', 403, { error: 'forbidden' }]);
  assert.match(refused.message, /^cache endpoint answered 403 forbidden/);
});

/**
 * A memory cache holding `data` in conversation "chat-1", its reference, and a `cacheRoute` over it.
 * @param {unknown} data
 */
async function routed(data) {
  const cache = new ResultCache({ storage: 'memory' });
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', data, { convId: 'chat-1' }))._cache_uri;
  return { cache, uri, route: cacheRoute(cache, { authorize: () => true }) };
}

test('over an endpoint: a request that never answers is given up after requestTimeout, and the next revalidation reads', async () => {
  const data = table(300);
  const { uri, route } = await routed(data);
  let stalled = false;
  let aborted = 0;
  const fetcher = /** @type {typeof fetch} */ ((url, init) => {
    if (!stalled) return route(new Request(new URL(String(url), 'http://localhost/'), init));
    // A stalled connection: no answer, ever; only the request's signal ends it.
    return new Promise((_, reject) => init?.signal?.addEventListener('abort', () => {
      aborted += 1;
      reject(init.signal?.reason);
    }));
  });
  quiet(() => assert.throws(() => renderHook(() => useCachedResult(uri), { endpoint: '/api/cache', convId: 'chat-1', requestTimeout: 0 }), /requestTimeout must be .* from 1 to 2147483647/));
  cleanup();
  const whole = renderHook(() => useCachedResult(uri), { endpoint: '/api/cache', convId: 'chat-1', fetch: fetcher, requestTimeout: 100 });
  await until(whole, 'ready');
  stalled = true;
  await act(async () => whole.controls.revalidate());
  await until(whole, 'error');
  assert.ok(aborted >= 1, 'the request was aborted');
  assert.match(String(/** @type {Error} */ (whole.last().error).message), /did not answer within 100 ms/);
  assert.equal(/** @type {Error} */ (whole.last().error).name, 'TimeoutError');
  assert.deepEqual(whole.last().data, data, 'what was shown stays');
  stalled = false;
  await act(async () => whole.controls.revalidate());
  await until(whole, 'ready');
});

test('over an endpoint: a body that stops arriving is given up too, even through a fetch that drops the signal', async () => {
  const data = table(300);
  const { uri, route } = await routed(data);
  let stalled = false;
  let requests = 0;
  // A wrapper that adds a header and passes no signal on, as a hurried one would.
  const fetcher = /** @type {typeof fetch} */ (async (url) => {
    requests += 1;
    if (!stalled) return route(new Request(new URL(String(url), 'http://localhost/')));
    // Headers sent, the body begun and never finished.
    const body = new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"rows":[')) });
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  });
  const whole = renderHook(() => useCachedResult(uri), { endpoint: '/api/cache', convId: 'chat-1', fetch: fetcher, requestTimeout: 100 });
  await until(whole, 'ready');
  stalled = true;
  await act(async () => whole.controls.revalidate());
  await until(whole, 'error');
  assert.match(String(/** @type {Error} */ (whole.last().error).message), /did not answer within 100 ms/);
  assert.deepEqual(whole.last().data, data, 'what was shown stays');
  stalled = false;
  const before = requests;
  await act(async () => whole.controls.revalidate());
  await until(whole, 'ready');
  assert.equal(requests, before + 1, 'the next revalidation sends a request');
});

test('over an endpoint: a request nobody reads any more (a new page, an unmount) is aborted at once', async () => {
  const { uri, route } = await routed(table(300).rows);
  /** @type {{ offset: string | null, signal: AbortSignal }[]} */
  const sent = [];
  const fetcher = /** @type {typeof fetch} */ (async (url, init) => {
    const signal = /** @type {AbortSignal} */ (init?.signal);
    sent.push({ offset: new URL(String(url), 'http://localhost/').searchParams.get('offset'), signal });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, 300);
      signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); });
    });
    return route(new Request(new URL(String(url), 'http://localhost/'), init));
  });
  /** @type {(offset: number) => void} */
  let page = () => {};
  function Pager() {
    const [offset, setOffset] = useState(0);
    page = setOffset;
    const result = useCachedResult(uri, { offset, limit: 10 });
    return h('pre', null, `${result.status} ${offset}`);
  }
  const view = render(h(ResultCacheProvider, { endpoint: '/api/cache', convId: 'chat-1', fetch: fetcher }, h(Pager)));
  await waitFor(() => assert.equal(sent.length, 1));
  for (const offset of [10, 20, 30]) {
    await act(async () => page(offset));
    await waitFor(() => assert.equal(sent.at(-1)?.offset, String(offset)));
  }
  await waitFor(() => assert.deepEqual(sent.map((r) => r.signal.aborted), [true, true, true, false]));
  await waitFor(() => assert.match(view.container.textContent ?? '', /^ready 30$/));
  await act(async () => page(40));
  await waitFor(() => assert.equal(sent.at(-1)?.offset, '40'));
  view.unmount();
  await waitFor(() => assert.equal(sent.at(-1)?.signal.aborted, true, 'unmounted: its request is aborted'));
});

test('over an endpoint: a new refreshInterval restarts the timer, not the hooks; a return to the tab is one revalidation', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const data = table(300);
  const uri = /** @type {{ _cache_uri: string }} */ (await cache.afterToolCall('metrics.query', data, { convId: 'chat-1' }))._cache_uri;
  const route = cacheRoute(cache, { authorize: () => true });
  /** @type {(string | null)[]} */
  const requests = [];
  const fetcher = /** @type {typeof fetch} */ ((url, init) => {
    requests.push(new Headers(init?.headers).get('if-none-match'));
    return route(new Request(new URL(String(url), 'http://localhost/'), init));
  });
  /** @type {string[]} */
  const seen = [];
  const controls = { setInterval: (/** @type {number} */ _ms) => {} };
  function Rows() {
    const result = useCachedResult(uri);
    seen.push(result.status);
    return h('pre', null, result.status);
  }
  function App() {
    const [refreshInterval, setRefresh] = useState(0);
    controls.setInterval = setRefresh;
    return h(ResultCacheProvider, { endpoint: '/api/cache', convId: 'chat-1', fetch: fetcher, refreshInterval }, h(Rows));
  }
  render(h(App));
  await waitFor(() => assert.equal(seen.at(-1), 'ready'));
  assert.equal(requests.length, 1);
  seen.length = 0;
  await act(async () => controls.setInterval(40));
  await act(() => sleep(150));
  assert.ok(seen.every((status) => status === 'ready'), `never back to loading: ${seen.join()}`);
  assert.ok(requests.length >= 3, `the new timer revalidates (${requests.length} requests)`);
  assert.ok(requests.slice(1).every((tag) => tag !== null), 'conditional: the hook kept its tag');
  await act(async () => controls.setInterval(0));
  await act(() => sleep(50));
  const settled = requests.length;
  await act(() => sleep(150));
  assert.equal(requests.length, settled, 'timer off: no more requests');
  // Back to the tab: visibilitychange and focus, one request.
  await act(async () => {
    document.dispatchEvent(new window.Event('visibilitychange'));
    window.dispatchEvent(new window.Event('focus'));
  });
  await act(() => sleep(50));
  assert.equal(requests.length, settled + 1);
});
