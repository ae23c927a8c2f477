'use strict';
// The consume-once operation of `redisStorage` (js/redis.cjs): one `SET key 1 NX PX ttl`, atomic
// in Redis, so of every instance sharing the server exactly one sees a key as new within its ttl.
// Its key is the storage's prefix, `once:` and the caller's key, outside the cache's hash tag: a
// single-key command goes to its key's own slot. Independent of the cache's other operations
// (no order to keep with them), bounded by the same `timeoutMs`.

/**
 * `consumeOnce(key, ttlMs)` over a transport of js/redis.cjs (`send(routingKey, args)`,
 * `ready()`), with the storage's `prefix` and `timeoutMs`; `toError(error, what)` names a
 * client's failure as the storage's other operations do.
 * @param {{ send(key: string, args: string[]): Promise<unknown>, ready(): boolean }} link
 * @param {string} prefix
 * @param {number} timeoutMs
 * @param {(error: unknown, what: string) => Error} toError
 */
function redisConsumeOnce(link, prefix, timeoutMs, toError) {
  const what = 'consuming a record';
  const named = (/** @type {string} */ name, /** @type {string} */ message) => Object.assign(new Error(`redisStorage: ${what}: ${message}`), { name });
  /** @param {unknown} key @param {unknown} ttlMs @returns {Promise<boolean>} */
  return function consumeOnce(key, ttlMs) {
    if (typeof key !== 'string' || key === '') return Promise.reject(new TypeError('redisStorage: consumeOnce: key must be a non-empty string'));
    if (!(typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs > 0)) {
      return Promise.reject(new RangeError('redisStorage: consumeOnce: ttlMs must be a positive integer (milliseconds)'));
    }
    if (!link.ready()) return Promise.reject(named('NetworkError', 'the Redis client is not connected'));
    const full = `${prefix}once:${key}`;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(named('TimeoutError', `Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
      timer.unref?.();
    });
    const sent = link.send(full, ['SET', full, '1', 'NX', 'PX', String(ttlMs)]).then(
      (reply) => reply === 'OK',
      (error) => {
        throw toError(error, what);
      },
    );
    return Promise.race([sent, late]).finally(() => clearTimeout(timer));
  };
}

module.exports = { redisConsumeOnce };
