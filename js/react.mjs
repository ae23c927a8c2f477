// `mcp-result-cache/react`: what a reference holds, for the people in the chat. A provider names
// where entries live — a `ResultCache` in the page, or a `cacheRoute` endpoint on the server —
// and hooks read them as external stores (`useSyncExternalStore`), one store per thing read,
// shared by every component reading it, alive while one is mounted. They follow changes: a
// cache's own (`ResultCache#subscribe`), or for an endpoint, revalidation with `If-None-Match`
// on focus, on an interval and on demand (docs/REACT.md). `react` is an optional peer, imported
// only by this module; nothing runs at import or during server rendering (the server snapshot
// is "loading", and reading starts when a component subscribes, after it is mounted).
// `'use client'`: in a React Server Components tree (Next.js App Router) the provider and the
// hooks are client components; the server's own React has none of the hooks they use.
'use client';
import { createContext, createElement, useCallback, useContext, useEffect, useInsertionEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { DEFAULT_CONV_SEGMENT, hasCacheScheme } from './protocol.mjs';
import { referencesOf } from './references.mjs';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, pageOf } from './page.mjs';

// The references a tool part carries (js/references.mjs), for the components that show them.
export { referencesOf };

/**
 * @typedef {{ cause: string, sourceToolName: string, sourceServer?: string }} StaleReason
 * @typedef {{ status: 'loading' | 'ready' | 'missing' | 'stale' | 'error', data: unknown, error: unknown, stale: StaleReason | undefined }} Snapshot
 * @typedef {{ kind: string, convId?: string | null, uris?: string[] | null }} Change
 * @typedef {{ offset: number, limit: number } | null} PageRequest
 * @typedef {{ snapshot: Snapshot, etag?: string | null }} Loaded
 * @typedef {{
 *   read(convId: string | undefined, uri: string, page: PageRequest, last: Loaded | null, signal: AbortSignal): Promise<Loaded>,
 *   list(convId: string | undefined, last: Loaded | null, signal: AbortSignal): Promise<Loaded>,
 *   watch(listener: (change: Change) => void): () => void,
 *   revalidate(): void,
 *   retune?(): void,
 *   live: boolean,
 * }} Source
 * @typedef {{ source: Source, convId: string | undefined, stores: Map<string, Store> }} Context
 * @typedef {{ subscribe(onChange: () => void): () => void, getSnapshot(): Snapshot }} Store
 * @typedef {{
 *   lookup(uri: string, options: { convId: string }): Promise<{ status: string, payload?: unknown, cause?: unknown, sourceToolName?: unknown, sourceServer?: unknown }>,
 *   entries(options: { convId: string }): Promise<unknown[]>,
 *   subscribe(listener: (change: Change) => void): () => void,
 * }} HookCache the methods of a `ResultCache` the hooks use
 */

/** @type {Snapshot} */
const LOADING = Object.freeze({ status: 'loading', data: undefined, error: undefined, stale: undefined });
/** @type {(status: Snapshot['status'], data?: unknown, error?: unknown, stale?: StaleReason) => Snapshot} */
const snap = (status, data, error, stale) => Object.freeze({ status, data, error, stale });
/**
 * Why an entry is stale, from a lookup's outcome or the endpoint's 410 body (`cause`,
 * `sourceToolName`, `sourceServer` when it has one); a field of another type reads as `""`.
 * @param {unknown} said @returns {StaleReason}
 */
const staleReason = (said) => {
  const { cause, sourceToolName, sourceServer } = /** @type {Record<string, unknown>} */ (said ?? {});
  const text = (/** @type {unknown} */ value) => (typeof value === 'string' ? value : '');
  return Object.freeze({ cause: text(cause), sourceToolName: text(sourceToolName), ...(typeof sourceServer === 'string' ? { sourceServer } : {}) });
};
/** @param {StaleReason | undefined} a @param {StaleReason | undefined} b */
const sameReason = (a, b) => a?.cause === b?.cause && a?.sourceToolName === b?.sourceToolName && a?.sourceServer === b?.sourceServer;
/**
 * A read that found the result `"stale"` (for `stale`'s reason) or `"missing"`: `last` when it
 * says so already (read again, nothing changed, nothing re-renders), else a new snapshot (a stale
 * one keeps the data).
 * @param {Loaded | null} last @param {'stale' | 'missing'} status @param {StaleReason} [stale] @returns {Loaded}
 */
const still = (last, status, stale) => (last?.snapshot.status === status && sameReason(last.snapshot.stale, stale)
  ? last
  : { snapshot: status === 'stale' ? snap(status, last?.snapshot.data, undefined, stale) : snap(status) });
// The longest delay a timer holds (a signed 32-bit count of ms): setInterval runs a longer one,
// or Infinity, every millisecond.
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A return to the tab fires `visibilitychange` and `focus`: the pair this close is one revalidation. */
const FOCUS_TICK_MS = 1000;
/** An endpoint request unanswered this long is given up (an `error`, what was shown kept), by default. */
const REQUEST_TIMEOUT_MS = 30_000;

const ResultCacheContext = createContext(/** @type {Context | null} */ (null));

// ---------------------------------------------------------------------------------------------
// Sources: where entries are read, and how their changes are learned.

/** Entries of a `ResultCache` in the page: read with `lookup`/`entries`, followed with `subscribe`. */
function cacheSource(/** @type {HookCache} */ cache) {
  /** @type {Set<(change: Change) => void>} */
  const local = new Set();
  return /** @type {Source} */ ({
    live: true,
    async read(convId, uri, page, last) {
      const outcome = await cache.lookup(uri, { convId: convId ?? DEFAULT_CONV_SEGMENT });
      // Stale: the last data is kept (what the person was looking at), as over an endpoint.
      if (outcome.status === 'stale') return still(last, 'stale', staleReason(outcome));
      if (outcome.status !== 'hit') return still(last, 'missing');
      // An entry never changes (its reference is minted for it once): what was read stands, the
      // same data, as a 304 keeps it.
      if (last?.snapshot.status === 'ready') return last;
      if (!page) return { snapshot: snap('ready', outcome.payload) };
      if (!Array.isArray(outcome.payload)) return { snapshot: snap('error', undefined, new TypeError('offset and limit page an array; this entry is not one')) };
      return { snapshot: snap('ready', pageOf(uri, outcome.payload, page.offset, page.limit)) };
    },
    async list(convId) {
      const rows = await cache.entries({ convId: convId ?? DEFAULT_CONV_SEGMENT });
      return { snapshot: snap('ready', rows) };
    },
    watch(listener) {
      local.add(listener);
      const stop = cache.subscribe(listener);
      return () => {
        local.delete(listener);
        stop();
      };
    },
    revalidate() {
      local.forEach((listener) => listener({ kind: 'revalidate' }));
    },
  });
}

/**
 * What a hook's `error` is when the endpoint answered with a failure: its HTTP `status` and its
 * JSON `body` (`undefined` when it had none), so a page tells a refusal (401, 403: sign in again)
 * from the server failing (5xx) without reading the message. See js/react.d.ts.
 */
export class CacheEndpointError extends Error {
  /** @type {'CacheEndpointError'} */
  name = 'CacheEndpointError';

  /** @param {number} status @param {unknown} body @param {string} message */
  constructor(status, body, message) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/** What an endpoint's answer means for a hook (304 keeps what it had). */
async function answerOf(/** @type {Response} */ response, /** @type {Loaded | null} */ last) {
  const etag = response.headers.get('etag');
  if (response.status === 304 && last) return last;
  if (response.status === 200) return { snapshot: snap('ready', await response.json()), etag };
  if (response.status === 404) return still(last, 'missing');
  // Stale: the last data is kept (what the person was looking at). A stale entry never answers
  // 304, so each revalidation reads its state again (a small error body).
  if (response.status === 410) return still(last, 'stale', staleReason(await response.json().catch(() => null)));
  let message = `${response.status}`;
  /** @type {unknown} */
  let body;
  try {
    body = await response.json();
    const { error, message: said } = /** @type {{ error?: unknown, message?: unknown }} */ (body ?? {});
    message = `${response.status} ${error}${said ? `: ${said}` : ''}`;
  } catch {
    // no JSON body
  }
  // The server failing (5xx) keeps what was shown, as a failed read does; a refusal (4xx) shows nothing.
  return { snapshot: snap('error', response.status >= 500 ? last?.snapshot.data : undefined, new CacheEndpointError(response.status, body, `cache endpoint answered ${message}`)) };
}

/**
 * Entries served by `cacheRoute` at `endpoint`: read with `fetch()` (the provider's newest
 * `fetch`; revalidated with the last `ETag`; given up after `requestTimeout` ms), followed by
 * revalidating on focus, when the page becomes visible, every `refreshInterval` ms (when
 * positive) and on `revalidate()`. `settings()` answers the provider's newest settings;
 * `retune()` applies them to the timer and listeners (the stores, and what they show, carry on).
 * @param {string} endpoint
 * @param {{ fetch: () => typeof fetch, settings: () => { refreshInterval: number, revalidateOnFocus: boolean, requestTimeout: number } }} options
 */
function endpointSource(endpoint, { fetch: fetcherOf, settings }) {
  /** @type {Set<(change: Change) => void>} */
  const listeners = new Set();
  const tick = () => listeners.forEach((listener) => listener({ kind: 'revalidate' }));
  // The last focus or visibility tick: the other of the pair just after it is the same return.
  let last = { type: '', at: -Infinity };
  const focused = (/** @type {Event} */ event) => {
    if (globalThis.document?.visibilityState === 'hidden') return;
    const now = Date.now();
    if (event.type !== last.type && now - last.at < FOCUS_TICK_MS) {
      last = { type: '', at: -Infinity };
      return;
    }
    last = { type: event.type, at: now };
    tick();
  };
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  // In a page; a worker or a server has no window (and nothing to revalidate on focus).
  const start = () => {
    const { refreshInterval, revalidateOnFocus } = settings();
    if (revalidateOnFocus) {
      globalThis.window?.addEventListener('focus', focused);
      globalThis.document?.addEventListener('visibilitychange', focused);
    }
    if (refreshInterval > 0) timer = setInterval(tick, refreshInterval);
  };
  const stop = () => {
    globalThis.window?.removeEventListener('focus', focused);
    globalThis.document?.removeEventListener('visibilitychange', focused);
    clearInterval(timer);
    timer = undefined;
  };
  const get = async (/** @type {Record<string, string | undefined>} */ query, /** @type {Loaded | null} */ last, /** @type {AbortSignal} */ signal) => {
    const params = new URLSearchParams(/** @type {Record<string, string>} */ (Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined))));
    const url = `${endpoint}${endpoint.includes('?') ? '&' : '?'}${params}`;
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json' };
    if (last?.etag) headers['if-none-match'] = last.etag;
    // A request that never settles (a stalled connection, headers sent and the body never
    // finished) would hold the store's one load for good: later revalidations would wait behind
    // it. So the whole of it, the body read included, is given up after `requestTimeout` ms, or
    // when its store no longer wants it (`signal`: every reader gone, a newer answer); a `fetch`
    // prop that does not pass the signal on is given up all the same (its request runs out alone).
    const { requestTimeout } = settings();
    const controller = new AbortController();
    const abort = (/** @type {unknown} */ reason) => controller.abort(reason);
    const timeout = setTimeout(() => abort(Object.assign(new Error(`cache endpoint did not answer within ${requestTimeout} ms`), { name: 'TimeoutError' })), requestTimeout);
    signal.addEventListener('abort', () => abort(signal.reason), { once: true });
    const given = new Promise((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
    try {
      const answer = fetcherOf()(url, { headers, cache: 'no-store', credentials: 'same-origin', signal: controller.signal }).then((response) => answerOf(response, last));
      return await Promise.race([answer, given]);
    } finally {
      clearTimeout(timeout);
    }
  };
  return /** @type {Source} */ ({
    live: false,
    // No conversation named: "default", as over a cache (a route with convId(request) decides its own).
    read: (convId, uri, page, last, signal) => get({ uri, convId: convId ?? DEFAULT_CONV_SEGMENT, offset: page ? String(page.offset) : undefined, limit: page ? String(page.limit) : undefined }, last, signal),
    async list(convId, last, signal) {
      const loaded = await get({ convId: convId ?? DEFAULT_CONV_SEGMENT }, last, signal);
      const body = /** @type {{ entries?: unknown } | undefined} */ (loaded.snapshot.data);
      return loaded.snapshot.status === 'ready' && loaded !== last ? { ...loaded, snapshot: snap('ready', body?.entries) } : loaded;
    },
    watch(listener) {
      if (listeners.size === 0) start();
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stop();
      };
    },
    revalidate: tick,
    retune() {
      if (listeners.size === 0) return;
      stop();
      start();
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Stores: one per thing read, shared by the components reading it.

/**
 * A store over `load`, started by its first subscriber and stopped by its last: it loads, then
 * applies each change of the source (`react(change, snapshot)` answers the new snapshot, `"load"`
 * to load again, or `null` for no change). One load at a time: a change asking for a load while
 * one is under way loads once more when it lands (a source slower than its changes, an endpoint
 * slower than `refreshInterval`, still shows what it reads). A load whose answer nobody wants any
 * more (the last subscriber gone, a change answered without it) is aborted through its signal.
 * @param {Source} source
 * @param {(last: Loaded | null, signal: AbortSignal) => Promise<Loaded>} load
 * @param {(change: Change, snapshot: Snapshot) => Snapshot | 'load' | null} react
 * @param {() => void} forget called when the last subscriber leaves
 * @returns {Store}
 */
function makeStore(source, load, react, forget) {
  /** @type {Loaded | null} */
  let last = null;
  let snapshot = LOADING;
  /** @type {Set<() => void>} */
  const subscribers = new Set();
  let generation = 0;
  let loading = false;
  let again = false;
  /** The load under way's controller. */
  let current = new AbortController();
  // What a load under way answers now stands for nothing: it is aborted, and its answer dropped.
  const drop = () => {
    generation += 1;
    current.abort(new Error('no longer read'));
  };
  /** @type {(() => void) | undefined} */
  let unwatch;
  const set = (/** @type {Snapshot} */ next) => {
    if (next === snapshot) return;
    snapshot = next;
    subscribers.forEach((notify) => notify());
  };
  const run = () => {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    again = false;
    const mine = generation;
    const controller = new AbortController();
    current = controller;
    // A load that throws at once still ends the one under way (the next change may load again).
    new Promise((/** @type {(loaded: Promise<Loaded>) => void} */ resolve) => resolve(load(last, controller.signal))).then((loaded) => {
      if (mine !== generation) return;
      last = loaded;
      set(loaded.snapshot);
    }, (/** @type {unknown} */ error) => {
      // A read that failed on its way (the network, the cache) keeps what was shown.
      if (mine === generation) set(snap('error', snapshot.data, error));
    }).finally(() => {
      loading = false;
      if (again && unwatch) run();
    });
  };
  // Stopped a moment after the last subscriber leaves, not at once: React re-subscribes within
  // the same commit (a strict-mode remount, a new subscribe function), and the store, its read
  // and its place in the provider's map then carry on.
  const stop = () => {
    if (subscribers.size || !unwatch) return;
    unwatch();
    unwatch = undefined;
    drop();
    forget();
  };
  return {
    subscribe(onChange) {
      subscribers.add(onChange);
      if (!unwatch) {
        unwatch = source.watch((change) => {
          const next = react(change, snapshot);
          if (next === 'load') run();
          else if (next) {
            drop(); // a load under way answers what was, not what is
            last = { snapshot: next, etag: null };
            set(next);
          }
        });
        run();
      }
      return () => {
        subscribers.delete(onChange);
        if (subscribers.size === 0) setTimeout(stop, 0);
      };
    },
    getSnapshot: () => snapshot,
  };
}

/** The store of `key` in `context`, made by `make` when no mounted component holds it. */
function storeOf(/** @type {Context} */ context, /** @type {string} */ key, /** @type {(forget: () => void) => Store} */ make) {
  let store = context.stores.get(key);
  if (!store) {
    const made = make(() => {
      if (context.stores.get(key) === made) context.stores.delete(key);
    });
    context.stores.set(key, made);
    store = made;
  }
  return store;
}

/** Whether `change` is about the entry behind `uri` (a reference with or without a pointer). */
/**
 * A hook's own conversation id as the cache takes it (`String(id)`), or the provider's when absent;
 * anything but a string or a number is a `TypeError`, as for the provider's.
 * @param {unknown} convId @param {string | undefined} fallback @param {string} what
 */
function conversationOf(convId, fallback, what) {
  if (convId == null) return fallback;
  if (typeof convId !== 'string' && typeof convId !== 'number') throw new TypeError(`${what} must be a string or a number`);
  return String(convId);
}

const touches = (/** @type {Change} */ change, /** @type {string} */ convId, /** @type {string} */ uri) =>
  change.convId === convId && (change.uris == null || change.uris.includes(uri.split('#')[0]));

// ---------------------------------------------------------------------------------------------
// The provider and the hooks.

/**
 * Makes a cache in the page (`cache`) or a `cacheRoute` endpoint (`endpoint`) the source of the
 * hooks below it, for conversation `convId`. See js/react.d.ts.
 * @param {{ cache?: unknown, endpoint?: unknown, convId?: unknown, refreshInterval?: unknown, revalidateOnFocus?: unknown, requestTimeout?: unknown, fetch?: unknown, children?: unknown }} props
 */
export function ResultCacheProvider(props) {
  const { cache, endpoint, convId, refreshInterval = 0, revalidateOnFocus = true, requestTimeout = REQUEST_TIMEOUT_MS, fetch: fetcher, children } = props;
  if ((cache == null) === (endpoint == null)) throw new TypeError('ResultCacheProvider: pass either cache or endpoint');
  const methods = /** @type {Partial<Record<keyof HookCache, unknown>>} */ (cache ?? {});
  if (cache != null && (typeof cache !== 'object' || typeof methods.subscribe !== 'function' || typeof methods.lookup !== 'function' || typeof methods.entries !== 'function')) {
    throw new TypeError('ResultCacheProvider: cache must be a ResultCache (with subscribe)');
  }
  if (endpoint != null && typeof endpoint !== 'string') throw new TypeError('ResultCacheProvider: endpoint must be a URL string');
  if (typeof refreshInterval !== 'number' || !(refreshInterval >= 0 && refreshInterval <= MAX_TIMER_MS)) {
    throw new TypeError(`ResultCacheProvider: refreshInterval must be a number of milliseconds from 0 (off) to ${MAX_TIMER_MS}`);
  }
  if (typeof revalidateOnFocus !== 'boolean') throw new TypeError('ResultCacheProvider: revalidateOnFocus must be a boolean');
  if (typeof requestTimeout !== 'number' || !(requestTimeout >= 1 && requestTimeout <= MAX_TIMER_MS)) {
    throw new TypeError(`ResultCacheProvider: requestTimeout must be a number of milliseconds from 1 to ${MAX_TIMER_MS}`);
  }
  if (fetcher !== undefined && typeof fetcher !== 'function') throw new TypeError('ResultCacheProvider: fetch must be a function');
  const conversation = conversationOf(convId, undefined, 'ResultCacheProvider: convId');
  // The newest `fetch`, read at each request: an inline function (a new one each render) must not
  // make a new source, whose stores would start over empty.
  const fetchRef = useRef(/** @type {typeof fetch | undefined} */ (fetcher));
  // Likewise the timer's settings: a new `refreshInterval` restarts the timer, not the stores.
  const settingsRef = useRef({ refreshInterval, revalidateOnFocus, requestTimeout });
  useInsertionEffect(() => {
    fetchRef.current = /** @type {typeof fetch | undefined} */ (fetcher);
    settingsRef.current = { refreshInterval, revalidateOnFocus, requestTimeout };
  });
  const value = useMemo(() => /** @type {Context} */ ({
    source: cache != null
      ? cacheSource(/** @type {HookCache} */ (cache))
      : endpointSource(/** @type {string} */ (endpoint), { settings: () => settingsRef.current, fetch: () => fetchRef.current ?? ((...args) => globalThis.fetch(...args)) }),
    convId: conversation,
    stores: new Map(),
  }), [cache, endpoint, conversation]);
  useEffect(() => value.source.retune?.(), [value, refreshInterval, revalidateOnFocus]);
  return createElement(ResultCacheContext.Provider, { value }, /** @type {import('react').ReactNode} */ (children));
}

/** The provider's context, or a clear error outside one. */
function useSource(/** @type {string} */ hook) {
  const context = useContext(ResultCacheContext);
  if (!context) throw new Error(`${hook} must be used inside <ResultCacheProvider>`);
  return context;
}

/** A count option of a hook: absent, or a whole number from `min` to `max` (as `cacheRoute` takes it). */
function countOption(/** @type {unknown} */ value, /** @type {string} */ key, /** @type {number} */ min, /** @type {number} */ max) {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw new TypeError(`useCachedResult: ${key} must be a whole number from ${min} to ${max}`);
  return value;
}

const NOTHING = { subscribe: () => () => {}, getSnapshot: () => LOADING };

/**
 * How the store of an entry (`uri` in conversation `convId`) answers a change: a clear naming it
 * makes it missing, without a read. A stale mark of its conversation reads it again: naming it,
 * for the reason (the change does not carry the cause or the tool); naming others, because a
 * derived entry (`derivedFrom`, `cache_select`) is stale when its source is, which only a lookup
 * tells (the change names the source).
 * @param {string} convId @param {string} uri
 * @returns {(change: Change, now: Snapshot) => Snapshot | 'load' | null}
 */
const entryReaction = (convId, uri) => (change, now) => {
  if (change.kind === 'revalidate' || change.kind === 'evict') return 'load';
  if (change.kind === 'clear') return touches(change, convId, uri) ? snap('missing') : null;
  return change.kind === 'stale' && change.convId === convId && now.status !== 'stale' ? 'load' : null;
};

/** The reference `uriOrOutput` names: itself (a reference), its first (an output), `''` (none). */
const referenceOf = (/** @type {unknown} */ uriOrOutput) =>
  uriOrOutput == null ? null : hasCacheScheme(uriOrOutput) ? uriOrOutput : (referencesOf(uriOrOutput)[0] ?? '');

/**
 * What the reference `uriOrOutput` holds (a tool output, its text included: its first
 * reference), followed live. See js/react.d.ts.
 * @param {unknown} uriOrOutput
 * @param {{ convId?: string | number, offset?: number, limit?: number }} [options]
 * @returns {Snapshot}
 */
export function useCachedResult(uriOrOutput, options = {}) {
  const context = useSource('useCachedResult');
  if (options === null || typeof options !== 'object') throw new TypeError('useCachedResult: options must be an object ({ convId?, offset?, limit? }) or absent');
  const offset = countOption(options.offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const limit = countOption(options.limit, 'limit', 1, MAX_PAGE_LIMIT);
  const page = offset === undefined && limit === undefined ? null : { offset: offset ?? 0, limit: limit ?? DEFAULT_PAGE_LIMIT };
  const convId = conversationOf(options.convId, context.convId, 'useCachedResult: options.convId');
  // An output is searched once, not at every render (JSON text is parsed).
  const uri = useMemo(() => referenceOf(uriOrOutput), [uriOrOutput]);
  const key = JSON.stringify(['entry', convId ?? null, uri, page?.offset ?? null, page?.limit ?? null]);
  const store = uri === null
    ? NOTHING
    : uri === ''
      ? { subscribe: () => () => {}, getSnapshot: () => MISSING }
      : storeOf(context, key, (forget) => makeStore(context.source, (last, signal) => context.source.read(convId, uri, page, last, signal), entryReaction(convId ?? DEFAULT_CONV_SEGMENT, uri), forget));
  const subscribe = useCallback((/** @type {() => void} */ onChange) => store.subscribe(onChange), [store]);
  return useSyncExternalStore(subscribe, store.getSnapshot, () => LOADING);
}
/** An output that carries no reference: nothing stored to show. */
const MISSING = snap('missing');

/**
 * The entries of the conversation (`convId`, else the provider's), oldest first, followed live.
 * See js/react.d.ts.
 * @param {string | number} [convId]
 * @returns {Snapshot}
 */
export function useCacheEntries(convId) {
  const context = useSource('useCacheEntries');
  const conversation = conversationOf(convId, context.convId, 'useCacheEntries: convId');
  const key = JSON.stringify(['list', conversation ?? null]);
  const store = storeOf(context, key, (forget) => makeStore(context.source, (last, signal) => context.source.list(conversation, last, signal), (change) =>
    change.kind === 'revalidate' || change.convId === null || change.convId === (conversation ?? DEFAULT_CONV_SEGMENT) ? 'load' : null, forget));
  const subscribe = useCallback((/** @type {() => void} */ onChange) => store.subscribe(onChange), [store]);
  return useSyncExternalStore(subscribe, store.getSnapshot, () => LOADING);
}

/**
 * A function that reads again everything the hooks under the provider show (with an endpoint:
 * conditional requests, so what did not change costs a 304). See js/react.d.ts.
 * @returns {() => void}
 */
export function useCacheRevalidate() {
  const { source } = useSource('useCacheRevalidate');
  return useCallback(() => source.revalidate(), [source]);
}
