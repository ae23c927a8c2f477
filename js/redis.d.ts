/**
 * `mcp-result-cache/redis`: one cache shared by every server instance, in Redis.
 *
 * ```js
 * import { createClient } from 'redis';
 * import { ResultCache } from 'mcp-result-cache';
 * import { redisStorage } from 'mcp-result-cache/redis';
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const cache = new ResultCache({ storage: redisStorage(client, { ttlMs: 86_400_000 }) });
 * ```
 *
 * Node only (outside Node, `redisStorage` throws a `NotSupportedError`).
 */

import type { CacheStorage } from 'mcp-result-cache';

/** A connected node-redis 6 client (`createClient`) or cluster (`createCluster`), as `redisStorage` recognizes one. */
export interface NodeRedisClientLike {
  sendCommand(...args: never[]): unknown;
  readonly isOpen: boolean;
}

/** An ioredis 6 `Redis` or `Cluster`, as `redisStorage` recognizes one (without a `keyPrefix`). */
export interface IoRedisClientLike {
  call(...args: never[]): unknown;
  evalsha(...args: never[]): unknown;
  readonly status: string;
}

/**
 * What `redisStorage` accepts: a connected node-redis 6 client or cluster, or an ioredis 6 `Redis`
 * or `Cluster`. (A node-redis client pool, `createClientPool`, has the same methods and is
 * refused when the storage is made: its commands would not take effect in call order.)
 */
export type RedisClientLike = NodeRedisClientLike | IoRedisClientLike;

export interface RedisStorageOptions {
  /** Every key written starts with it (default `"mcp-result-cache:"`); no `{` or `}`. Caches with the same prefix share entries. */
  prefix?: string;
  /** Redis expires a conversation nobody read or wrote for this many milliseconds (default: never). */
  ttlMs?: number;
  /** Every operation settles within this many milliseconds, rejecting with a `TimeoutError` (default 3000). */
  timeoutMs?: number;
  /**
   * A write (and a `consumeOnce` that consumed, and a clear, age eviction or invalidation that
   * changed something) resolves only once `WAIT` confirms it on this many replicas of its master
   * (of every master, for one that walks them all); not confirmed within `timeoutMs`: a
   * `TimeoutError` (the change may or may not be seen later). Default 0: acknowledged by the
   * master alone.
   */
  replicas?: number;
}

/** A storage object: pass it as `new ResultCache({ storage })` (the contract: `CacheStorage`, docs/STORAGE.md). */
export interface RedisStorage extends CacheStorage {
  readonly kind: 'redis';
  readonly prefix: string;
}

/**
 * The storage of a cache over Redis or a Redis Cluster. Every `ResultCache` method works on it.
 * Each conversation lives in its own hash slot (conversations spread over every master); each
 * script call works on one conversation and does bounded work; `maxBytes` / `maxEntries` hold
 * per conversation (docs/REDIS.md). Payloads are stored as JSON: a value JSON cannot hold exactly is refused
 * with a `TypeError`. Redis unreachable or slow: operations reject with `NetworkError` /
 * `TimeoutError` (their `name`) within `timeoutMs`.
 *
 * @throws TypeError when `client` is not a supported client, or for a malformed option.
 */
export function redisStorage(client: RedisClientLike, options?: RedisStorageOptions): RedisStorage;

/** `"mcp-result-cache:"`. */
export const DEFAULT_PREFIX: string;
