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

/** What `redisStorage` accepts: a connected node-redis 6 client or cluster, or an ioredis 6 `Redis` or `Cluster`. */
export type RedisClientLike = object;

export interface RedisStorageOptions {
  /** Every key written starts with it (default `"mcp-result-cache:"`); no `{` or `}`. Caches with the same prefix share entries. */
  prefix?: string;
  /** Redis expires a conversation nobody read or wrote for this many milliseconds (default: never). */
  ttlMs?: number;
  /** Every operation settles within this many milliseconds, rejecting with a `TimeoutError` (default 3000). */
  timeoutMs?: number;
}

/** A storage object: pass it as `new ResultCache({ storage })`. Its methods are the cache's, not an API. */
export interface RedisStorage {
  readonly kind: 'redis';
  readonly prefix: string;
}

/**
 * The storage of a cache over Redis. Every `ResultCache` method works on it; each operation is one
 * atomic Lua script call. Payloads are stored as JSON: a value JSON cannot hold exactly is refused
 * with a `TypeError`. Redis unreachable or slow: operations reject with `NetworkError` /
 * `TimeoutError` (their `name`) within `timeoutMs`.
 *
 * @throws TypeError when `client` is not a supported client, or for a malformed option.
 */
export function redisStorage(client: RedisClientLike, options?: RedisStorageOptions): RedisStorage;

/** `"mcp-result-cache:"`. */
export const DEFAULT_PREFIX: string;
