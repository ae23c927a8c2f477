// Types of `mcp-result-cache/react` (js/react.mjs). `react` (18 or 19) is an optional peer
// dependency: only this entry imports it.
import type { ReactNode, ReactElement } from 'react';
import type { CacheEntryInfo, CacheRouteEntry, ResultCache } from './index.js';
export { referencesOf } from './index.js';

/** What a hook holds: where it stands, the data, and the error of a failed read. */
export interface CachedResult<T = unknown> {
  /**
   * - `"loading"`: not read yet (always so during server rendering);
   * - `"ready"`: `data` is what the reference holds (or the page asked for);
   * - `"missing"`: no such entry in this conversation (never stored, cleared, evicted, or of
   *   another conversation), or a tool output that carries no reference;
   * - `"stale"`: invalidated — `data` is what was shown before, when there was any; call the
   *   source tool again for fresh data (`stale` names it, and why);
   * - `"error"`: the read failed (`error` says why: a {@link CacheEndpointError} when the
   *   endpoint answered with a failure, an `Error` named `"TimeoutError"` after
   *   `requestTimeout`, else what the read threw); `data` is what was shown before when the
   *   read failed on its way or the endpoint failed (5xx), none after a refusal (4xx).
   */
  status: 'loading' | 'ready' | 'missing' | 'stale' | 'error';
  data: T | undefined;
  error: unknown;
  /** Why a `"stale"` result is stale and which tool to call again; `undefined` for any other status. */
  stale: StaleReason | undefined;
}

/**
 * Why a result is stale: `cause` is what invalidated it (the tool or notification that did), and
 * `sourceToolName` the tool whose result it is (with `sourceServer`, its server, when the entry
 * was stored with one): the call that gets fresh data. A field the endpoint did not send is `""`.
 */
export interface StaleReason {
  cause: string;
  sourceToolName: string;
  sourceServer?: string;
}

/**
 * A hook's `error` when the endpoint answered with a failure: `status` is the HTTP status (401 or
 * 403: the user is not allowed, sign in again; 400: a bad request; 5xx: the server failed), `body`
 * the JSON it sent (`cacheRoute`'s `{ error, message? }`), `undefined` when it sent none.
 */
export declare class CacheEndpointError extends Error {
  readonly name: 'CacheEndpointError';
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown, message: string);
}

/** Props of `ResultCacheProvider`: exactly one of `cache` and `endpoint`. */
export type ResultCacheProviderProps = {
  /** The conversation the hooks read (a hook's own `convId` wins). */
  convId?: string | number;
  children?: ReactNode;
} & (
  | {
      /** A cache in the page (IndexedDB or memory): hooks follow it with `cache.subscribe`. */
      cache: ResultCache;
      endpoint?: undefined;
    }
  | {
      cache?: undefined;
      /**
       * The URL of a `cacheRoute` handler (`"/api/cache"`). Hooks read with `GET` and learn of
       * changes by revalidating (`If-None-Match`, so an unchanged entry costs a 304): when the
       * window gains focus or the page becomes visible (`revalidateOnFocus`), every
       * `refreshInterval` ms, and when `useCacheRevalidate()`'s function is called.
       */
      endpoint: string;
      /**
       * Milliseconds between revalidations while a hook is mounted; `0` (default) for none. At
       * most 2 147 483 647 (about 24.8 days, the longest a timer holds): more, or `Infinity`, is
       * a `TypeError` (`setInterval` would run it every millisecond). A hook sends one request at
       * a time: a revalidation while its read is under way reads again once that read lands.
       * Changing it (or `revalidateOnFocus`) restarts the timer; the hooks keep what they show.
       */
      refreshInterval?: number;
      /**
       * Revalidate when the window gains focus or the page becomes visible (default `true`); a
       * return to the tab, which fires both, is one revalidation.
       */
      revalidateOnFocus?: boolean;
      /**
       * Milliseconds a request may take, its body included, before it is given up (its `fetch`
       * aborted): the hook is `"error"`, what it showed kept, and the next revalidation asks
       * again. Default 30 000; from 1 to 2 147 483 647. A request whose answer no hook wants any
       * more (the last reader unmounted, another page asked for) is aborted at once.
       */
      requestTimeout?: number;
      /**
       * The `fetch` to use (to add credentials or headers); default `globalThis.fetch`. Each
       * request uses the newest one passed, so an inline function (a new one each render) resets
       * nothing. Pass `init` on (its `signal` above all): a wrapper that drops the signal is
       * still given up after `requestTimeout`, but its request runs on until it ends.
       */
      fetch?: typeof fetch;
    }
);

/**
 * Makes `cache` (results stored in the page) or `endpoint` (results stored on the server,
 * served by `cacheRoute`) the source of the hooks below it. Throws a `TypeError` for bad props
 * (both or neither of `cache` and `endpoint`, a cache without `subscribe`, a `refreshInterval`
 * that is not a number of milliseconds from 0 to 2 147 483 647, …). Safe under
 * server rendering: nothing is read until a hook's component is mounted.
 *
 * ```jsx
 * <ResultCacheProvider cache={cache} convId={chatId}><Chat /></ResultCacheProvider>
 * <ResultCacheProvider endpoint="/api/cache" convId={chatId}><Chat /></ResultCacheProvider>
 * ```
 */
export declare function ResultCacheProvider(props: ResultCacheProviderProps): ReactElement;

/** Options of `useCachedResult`. */
export interface UseCachedResultOptions {
  /** The conversation (default: the provider's; then `"default"`). */
  convId?: string | number;
  /**
   * With `offset` and/or `limit`, `data` is one page of the array behind the reference. A whole
   * number from 0 (default) to `Number.MAX_SAFE_INTEGER`.
   */
  offset?: number;
  /**
   * Items per page: 1 to 10 000, as `cacheRoute` takes it, whichever the source (default 100
   * when only `offset` is given).
   */
  limit?: number;
}

/**
 * What a reference holds, followed live: `uriOrOutput` is a reference (a string starting
 * `mcp+cache://`; a `#` pointer selects) or a tool output, a string of text included (its first
 * reference, as `referencesOf` finds it, JSON text too; an output with none, such as
 * `"done: 3 rows written"`, is `"missing"`; `null`/`undefined`, an output not there yet, is
 * `"loading"`). A clear of the conversation makes it `"missing"`; an invalidation or stale
 * notification makes it `"stale"` after a read (which says why, in `stale`), keeping the last
 * data (a derived result, from `cache_select` or `derivedFrom`, turns stale with its source). An
 * eviction reads it again; a stale result read again keeps its data, and a
 * result still there keeps the very data it showed. With `offset`/`limit`, `data` is that page,
 * `{ uri, total, offset, items, next_offset? }`, so a 5 000-row result never sits whole in React
 * state. Components reading the same thing share one read. Throws a `TypeError` for a bad
 * option (`options` not an object, an `offset` or `limit` out of its range), and an `Error`
 * outside a `ResultCacheProvider`.
 *
 * ```jsx
 * // `offset`/`limit` page an array: the stored `{ ok, rows }`'s `rows`, by its pointer.
 * const [uri] = referencesOf(part.output);
 * const { status, data } = useCachedResult(uri ? `${uri}#/rows` : part.output, { offset: 0, limit: 50 });
 * ```
 */
export declare function useCachedResult<T = unknown>(uriOrOutput: unknown, options?: UseCachedResultOptions): CachedResult<T>;

/**
 * The entries of a conversation (`convId`, else the provider's), oldest first (by `addedAt`;
 * those of the same millisecond by reference), followed live
 * (writes, clears, stale marks, evictions): metadata, never payloads. From a cache, its
 * `entries()`; from an endpoint, the route's list.
 */
export declare function useCacheEntries(convId?: string | number): CachedResult<CacheEntryInfo[] | CacheRouteEntry[]>;

/**
 * A function that reads again everything the hooks under the provider show. With an endpoint,
 * call it when the page knows the server changed something (after a tool call of the chat
 * ended, say): each read is conditional, so what did not change costs a 304.
 */
export declare function useCacheRevalidate(): () => void;
