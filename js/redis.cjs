'use strict';
// `mcp-result-cache/redis`: the storage of a cache that several server instances share
// (docs/REDIS.md). `redisStorage(client, options)` goes into `new ResultCache({ storage })` of the
// Node entry. Each logical operation is one call of one Lua script (js/redis-script.lua), atomic
// in Redis; this module only encodes rows, sends the script and decodes its answers, and keeps
// call order: an operation is sent when it is called, on the client's one connection.
const { readFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
const { join } = require('node:path');
const { redisConsumeOnce } = require('./redis-consume-once.cjs');

const SCRIPT = readFileSync(join(__dirname, 'redis-script.lua'), 'utf8');
const SHA = createHash('sha1').update(SCRIPT).digest('hex');

/** The default key prefix: every key the storage writes starts with it. */
const DEFAULT_PREFIX = 'mcp-result-cache:';
/** The default bound on one operation, in ms. */
const DEFAULT_TIMEOUT_MS = 3000;
/** The hash tag every key of one cache shares (one hash slot: Redis Cluster runs the script). */
const HASH_TAG = '{all}:';

const named = (/** @type {any} */ name, /** @type {any} */ message) => Object.assign(new Error(message), { name });
const typeError = (/** @type {any} */ message) => new TypeError(`redisStorage: ${message}`);

/**
 * How to talk to `client`: `send(key, args)` resolves the reply of one command routed by `key`;
 * `ready()` says whether the client is connected now. A TypeError for anything that is not a
 * node-redis 6 client or cluster or an ioredis 6 `Redis` or `Cluster`.
 */
function transport(/** @type {any} */ client) {
  if (client === null || typeof client !== 'object') {
    throw typeError('client must be a connected node-redis client or cluster (createClient, createCluster) or an ioredis Redis or Cluster');
  }
  // ioredis: `call` routes by the command's keys on a Cluster too; `status` is "ready" when connected.
  if (typeof client.call === 'function' && typeof client.status === 'string' && typeof client.evalsha === 'function') {
    return {
      send: (/** @type {any} */ _key, /** @type {any} */ args) => client.call(...args),
      ready: () => client.status === 'ready',
    };
  }
  // node-redis: a cluster routes by an explicit first key; a client sends as is.
  if (typeof client.sendCommand === 'function' && typeof client.isOpen === 'boolean') {
    const cluster = typeof client.getSlotRandomNode === 'function' || Array.isArray(client.masters);
    return {
      send: cluster ? (/** @type {any} */ key, /** @type {any} */ args) => client.sendCommand(key, false, args) : (/** @type {any} */ _key, /** @type {any} */ args) => client.sendCommand(args),
      ready: () => client.isReady !== false && client.isOpen,
    };
  }
  throw typeError('client must be a connected node-redis client or cluster (createClient, createCluster) or an ioredis Redis or Cluster');
}

function readOptions(/** @type {any} */ options) {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw typeError('options must be an object');
  for (const key of Object.keys(options)) {
    if (key !== 'prefix' && key !== 'ttlMs' && key !== 'timeoutMs') throw typeError(`unknown option ${JSON.stringify(key)} (prefix, ttlMs, timeoutMs)`);
  }
  const { prefix = DEFAULT_PREFIX, ttlMs, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
  if (typeof prefix !== 'string' || prefix === '' || prefix.length > 256 || /[{}]/.test(prefix) || prefix !== prefix.toWellFormed?.call(prefix)) {
    throw typeError('prefix must be a non-empty string of at most 256 characters without "{" or "}"');
  }
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs > 0)) throw typeError('ttlMs must be a positive integer (milliseconds)');
  if (!(Number.isSafeInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= 2 ** 31 - 1)) throw typeError('timeoutMs must be a positive integer (milliseconds)');
  return { prefix, ttl: String(ttlMs ?? 0), timeoutMs };
}

/** A value JSON keeps as it is: a string, a boolean, null, or a finite number other than -0. */
const plain = (/** @type {any} */ v) =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0));

/** Why JSON cannot hold the object `item` exactly, or `null` when it can (its members aside). */
function objectProblem(/** @type {any} */ item) {
  if (Array.isArray(item)) {
    for (let i = 0; i < item.length; i += 1) if (!(i in item)) return 'a sparse array';
    if (Object.keys(item).length !== item.length) return 'an array with extra properties';
  } else {
    const proto = Object.getPrototypeOf(item);
    if (proto !== Object.prototype && proto !== null) return `a ${proto?.constructor?.name ?? 'non-plain'} object`;
    if (typeof item.toJSON === 'function') return 'an object with a toJSON method';
  }
  if (Object.getOwnPropertySymbols(item).length > 0) return 'an object with a symbol key';
  return null;
}

/** What JSON would do to the primitive `v`. */
const primitiveProblem = (/** @type {any} */ v) => (typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`);

/**
 * The JSON of `value`, when parsing it gives back the same value: plain objects and dense arrays,
 * strings (lone surrogates included: JSON.stringify escapes them), booleans, null and finite
 * numbers other than -0. Anything else (undefined, a function, a Date, a Map, a typed array, a
 * sparse array, a symbol key, a cycle, a BigInt, …) is a TypeError naming where it is: JSON would
 * silently change or drop it. One walk without paths; the paths only for the message. `json`,
 * when given, is `JSON.stringify(value)` made by the cache a moment before (nothing ran since).
 */
function encodePayload(/** @type {any} */ value, /** @type {any} */ json) {
  const seen = new Set();
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== 'object' || item === null) {
      if (!plain(item)) throw refusal(value);
      continue;
    }
    // A value reached twice is checked once (and a cycle ends here: JSON.stringify reports it).
    if (seen.has(item)) continue;
    seen.add(item);
    if (objectProblem(item) !== null) throw refusal(value);
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i -= 1) stack.push(item[i]);
    } else {
      for (const key in item) if (Object.hasOwn(item, key)) stack.push(item[key]);
    }
  }
  if (typeof json === 'string') return json;
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw typeError(`the payload cannot be stored as JSON: ${/** @type {any} */ (error)?.message ?? error}`);
  }
}

/** The TypeError for a value `encodePayload` refused: walks again, with paths, to say where. */
function refusal(/** @type {any} */ value) {
  const open = new Set();
  /** @type {(item: any, path: any) => any} */
  const walk = (item, path) => {
    if (typeof item !== 'object' || item === null) return plain(item) ? null : `${path || 'the value'} is ${primitiveProblem(item)}`;
    if (open.has(item)) return `${path || 'the value'} is a cycle`;
    const problem = objectProblem(item);
    if (problem !== null) return `${path || 'the value'} is ${problem}`;
    open.add(item);
    for (const key of Object.keys(item)) {
      /** @type {any} */
      const found = walk(item[key], `${path}/${key}`);
      if (found !== null) return found;
    }
    open.delete(item);
    return null;
  };
  return typeError(`the payload cannot be stored exactly as JSON: ${walk(value, '') ?? 'it changes on the way'}`);
}

/** What a client error becomes: the name a host (and the cache) branches on. */
function storageError(/** @type {any} */ error, /** @type {any} */ what) {
  const message = String(error?.message ?? error);
  if (/^OOM\b/.test(message)) return named('QuotaExceededError', `redisStorage: ${what}: ${message}`);
  if (/^(ERR|WRONGTYPE|NOPERM|READONLY|MOVED|ASK|CROSSSLOT|CLUSTERDOWN|BUSY|NOSCRIPT)\b/.test(message)) {
    return named('UnknownError', `redisStorage: ${what}: ${message}`);
  }
  return named('NetworkError', `redisStorage: ${what}: ${message}`);
}

/**
 * A storage object for `new ResultCache({ storage })` over a connected Redis `client`
 * (node-redis 6 `createClient` / `createCluster`, ioredis 6 `Redis` / `Cluster`).
 *
 * @param {object} client The connected client; the host owns it (closing a cache leaves it open).
 * @param {{ prefix?: string, ttlMs?: number, timeoutMs?: number }} [options]
 *   `prefix` (default `"mcp-result-cache:"`) starts every key written; `ttlMs` lets Redis expire a
 *   conversation nobody used for that long; `timeoutMs` (default 3000) bounds every operation.
 * @returns {object} The storage (pass it as `storage`; its methods are the cache's, not an API).
 * @throws {TypeError} For anything but a supported client or a malformed option.
 */
function redisStorage(client, options) {
  const link = transport(client);
  const { prefix, ttl, timeoutMs } = readOptions(options);
  const key = `${prefix}${HASH_TAG}t`;
  // Call order: an operation is sent when it is called, unless the storage is held (between an
  // invalidation's two steps, or while a forgotten script is loaded again); then it waits in
  // `queue` and is sent, in order, when the hold ends.
  let held = 0;
  /** @type {any[]} */
  const queue = [];
  const drain = () => {
    while (held === 0 && queue.length > 0) queue.shift()();
  };
  const hold = () => {
    held += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      held -= 1;
      drain();
    };
  };

  function send(/** @type {any} */ args) {
    return link.send(key, ['EVALSHA', SHA, '1', key, ...args]).catch((/** @type {any} */ error) => {
      if (!/^NOSCRIPT\b/.test(String(error?.message))) throw error;
      return reload().then(() => link.send(key, ['EVALSHA', SHA, '1', key, ...args]));
    });
  }

  // A server restart (or SCRIPT FLUSH) forgot the script: EVAL loads it on the node of our slot.
  // Every operation already sent failed the same way and retries when it is loaded, in the order
  // it was sent; operations called meanwhile wait until those retries are sent.
  /** @type {any} */
  let reloading = null;
  function reload() {
    if (!reloading) {
      const release = hold();
      reloading = link.send(key, ['EVAL', SCRIPT, '1', key, 'o', ttl]);
      const settle = () => {
        reloading = null;
        // After the retries (reactions registered before this microtask runs).
        queueMicrotask(release);
      };
      reloading.then(settle, settle);
    }
    return reloading;
  }

  /** One operation; `first`: sent now, ahead of any operation waiting. */
  function call(/** @type {any} */ what, /** @type {any} */ args, first = false) {
    /** @type {any} */
    let timer;
    let cancelled = false;
    const sent = new Promise((resolve, reject) => {
      const run = () => {
        if (cancelled) return;
        if (!link.ready()) {
          reject(named('NetworkError', `redisStorage: ${what}: the Redis client is not connected`));
          return;
        }
        send(args).then(resolve, (/** @type {any} */ error) => reject(storageError(error, what)));
      };
      if (!first && (held > 0 || queue.length > 0)) queue.push(run);
      else run();
    });
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => {
        // Still waiting in the queue: it is never sent. Already sent: Redis may still run it.
        cancelled = true;
        reject(named('TimeoutError', `redisStorage: ${what}: Redis did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref?.();
    });
    return Promise.race([sent, late]).finally(() => clearTimeout(timer));
  }

  /** Ends the hold of an invalidation whose `freshTools` answered (set until `markStale`). */
  /** @type {any} */
  let releaseStale = null;

  const rowOf = (/** @type {any} */ meta, /** @type {any} */ payload, /** @type {any} */ stale, /** @type {any} */ lastUsed) => {
    const row = JSON.parse(meta);
    row.payload = JSON.parse(payload);
    row.lastUsedAt = Number(lastUsed);
    if (stale !== null && stale !== undefined) row.staleCause = JSON.parse(stale);
    return row;
  };

  return {
    kind: 'redis',
    prefix,
    write(/** @type {any} */ row, /** @type {any} */ maxBytes, /** @type {any} */ maxEntries, /** @type {any} */ json) {
      let payload;
      let meta;
      try {
        payload = encodePayload(row.payload, json);
        const { payload: _payload, lastUsedAt: _used, staleCause: _stale, ...rest } = row;
        meta = JSON.stringify(rest);
      } catch (error) {
        return Promise.reject(error);
      }
      const conv = JSON.stringify(row.convId);
      const args = ['w', ttl, row.uri, conv, String(row.sizeBytes), String(row.addedAt), String(row.lastUsedAt),
        JSON.stringify(row.sourceToolName), meta, payload, String(maxBytes), String(maxEntries)];
      return call('writing an entry', args).then((reply) => reply.map(Number));
    },
    read(/** @type {any} */ uris, /** @type {any} */ now) {
      return call('reading entries', ['r', ttl, String(now), ...uris]).then((reply) => {
        const rows = [];
        for (let i = 0; i < reply.length; i += 4) {
          rows.push(reply[i + 1] === null || reply[i + 1] === undefined ? undefined : rowOf(reply[i], reply[i + 1], reply[i + 2], reply[i + 3]));
        }
        return rows;
      });
    },
    evictOldest(/** @type {any} */ bytes) {
      return call('evicting entries', ['e', ttl, String(bytes)]).then(Number);
    },
    stats() {
      return call('reading the totals', ['s', ttl]).then((reply) => reply.map(Number));
    },
    remove(/** @type {any} */ convId, /** @type {any} */ cutoff) {
      const conv = typeof convId === 'string' ? JSON.stringify(convId) : '';
      return call('deleting entries', ['d', ttl, conv, String(cutoff)]).then(Number);
    },
    freshTools() {
      const names = call('invalidating entries', ['f', ttl]).then((reply) => reply.map((/** @type {any} */ name) => JSON.parse(name)));
      // Until markStale is called, later operations wait: the marks take effect where they were
      // called. The cache calls markStale after every freshTools that answered.
      const release = hold();
      releaseStale = release;
      names.catch(release);
      return names;
    },
    markStale(/** @type {any} */ names, /** @type {any} */ cause) {
      const release = releaseStale ?? (() => {});
      releaseStale = null;
      if (!Array.isArray(names) || names.length === 0) {
        release();
        return Promise.resolve(0);
      }
      const args = ['k', ttl, JSON.stringify(String(cause)), ...names.map((name) => JSON.stringify(String(name)))];
      // Sent ahead of whatever waits, then the hold ends.
      const marked = call('invalidating entries', args, true);
      release();
      return marked.then(Number);
    },
    list(/** @type {any} */ convId) {
      const conv = typeof convId === 'string' ? JSON.stringify(convId) : '';
      return call('listing entries', ['l', ttl, conv]).then((reply) => {
        const rows = [];
        for (let i = 0; i < reply.length; i += 5) {
          if (reply[i + 2] !== null && reply[i + 2] !== undefined) rows.push(rowOf(reply[i + 1], reply[i + 2], reply[i + 3], reply[i + 4]));
        }
        return rows.sort((p, q) => (p.uri < q.uri ? -1 : p.uri > q.uri ? 1 : 0));
      });
    },
    consumeOnce: redisConsumeOnce(link, prefix, timeoutMs, storageError),
    close() {},
  };
}

module.exports = { redisStorage, DEFAULT_PREFIX };
