/**
 * `mcp-result-cache/storage-conformance`: the tests every `storage` of a `ResultCache` passes
 * (docs/STORAGE.md), for node:test. Run them against your own adapter:
 *
 * ```js
 * import { test } from 'node:test';
 * import { storageConformance } from 'mcp-result-cache/storage-conformance';
 * storageConformance(async () => myAdapter(), { test });
 * ```
 */
import type { CacheStorage, CacheStorageKind } from 'mcp-result-cache';

/** A storage value as `new ResultCache({ storage })` takes it: `"memory"`, `redisStorage(client)`, an adapter. */
export type StorageValue = CacheStorageKind | CacheStorage;

/** Makes a fresh storage for one test (a fresh key prefix, an empty table, …). */
export type StorageFactory = () => StorageValue | Promise<StorageValue>;

/** The `test` function of `node:test` (or one with its signature). */
export type TestFunction = (name: string, fn: (t: { skip(message?: string): void }) => void | Promise<void>) => unknown;

export interface StorageConformanceOptions {
  /** `node:test`'s `test`: every check is registered with it. */
  test: TestFunction;
  /** Starts every test's name (default `"storage"`). */
  name?: string;
}

/**
 * Registers the conformance tests of the storage `makeStorage` makes: exact round trips, reads of
 * several references, call order, the budget and least-recently-used order within a
 * conversation, clears (by the exact conversation id, also beside an id of the same URI
 * segment), age eviction, invalidation, derived entries, stale marks, listing, refusals that
 * change nothing, values JSON would change (`NaN`, `-0`, an `undefined` member, a `Date`) kept
 * exactly or refused, `evictOldest` and `consumeOnce` (these two skipped for a storage named by a
 * string).
 *
 * @throws TypeError when `makeStorage` is not a function or `options.test` is missing.
 */
export function storageConformance(makeStorage: StorageFactory, options: StorageConformanceOptions): void;
