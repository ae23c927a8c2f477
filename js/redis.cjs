'use strict';
// `mcp-result-cache/redis`: the storage of a cache that several server instances share
// (docs/REDIS.md). `redisStorage(client, options)` goes into `new ResultCache({ storage })` of the
// Node entry. Every conversation lives in its own hash slot (the tag of its URI segment), so a
// Redis Cluster spreads conversations over all masters; each script call (js/redis-script.lua)
// works on one conversation and does bounded work. Operations that span conversations (stats,
// listing, age eviction, invalidation) walk every master with SCAN, one batch a call.
const { createHash } = require('node:crypto');
const { transport, segmentOf, segmentOfUri } = require('./redis-link.cjs');
const { encodePayload, typeError } = require('./redis-encode.cjs');
const { runner, BATCH } = require('./redis-ops.cjs');

/** The default key prefix: every key the storage writes starts with it. */
const DEFAULT_PREFIX = 'mcp-result-cache:';
/** The default bound on one operation, in ms. */
const DEFAULT_TIMEOUT_MS = 3000;
/** Conversations asked at once while walking a master. */
const SCAN_COUNT = 512;
/** Conversations `evictOldest` compares at most, by their least recently used entry. */
const EVICT_SAMPLE = 1024;
/** Keys of writes Redis refused for want of memory remembered until the next `evictOldest`. */
const MAX_REFUSED = 64;
const OPTIONS = ['prefix', 'ttlMs', 'timeoutMs', 'replicas'];

/**
 * @param {unknown} options
 * @returns {{ prefix: string, ttl: string, timeoutMs: number, replicas: number }}
 */
function readOptions(options) {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw typeError('options must be an object');
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) throw typeError(`unknown option ${JSON.stringify(key)} (${OPTIONS.join(', ')})`);
  }
  const get = (/** @type {string} */ name) => Reflect.get(options, name);
  const prefix = get('prefix') ?? DEFAULT_PREFIX;
  const ttlMs = get('ttlMs');
  const timeoutMs = get('timeoutMs') ?? DEFAULT_TIMEOUT_MS;
  const replicas = get('replicas') ?? 0;
  if (typeof prefix !== 'string' || prefix === '' || prefix.length > 256 || /[{}]/.test(prefix) || prefix !== prefix.toWellFormed?.()) {
    throw typeError('prefix must be a non-empty string of at most 256 characters without "{" or "}"');
  }
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && Number(ttlMs) > 0)) throw typeError('ttlMs must be a positive integer (milliseconds)');
  if (!(Number.isSafeInteger(timeoutMs) && Number(timeoutMs) > 0 && Number(timeoutMs) <= 2 ** 31 - 1)) throw typeError('timeoutMs must be a positive integer (milliseconds)');
  if (!(Number.isSafeInteger(replicas) && Number(replicas) >= 0 && Number(replicas) <= 64)) throw typeError('replicas must be an integer from 0 to 64');
  return { prefix, ttl: String(ttlMs ?? 0), timeoutMs: Number(timeoutMs), replicas: Number(replicas) };
}

/** `text` as a SCAN pattern matching itself. @param {string} text */
const globEscape = (text) => text.replace(/[*?[\]\\]/g, '\\$&');

/** A JSON string field of a reply (null/undefined: absent). @param {unknown} value */
const parsed = (value) => (value === null || value === undefined || value === false ? undefined : JSON.parse(String(value)));

/** @typedef {import('mcp-result-cache').StoredRow} StoredRow */

/**
 * A stored row from the script's four values (meta, payload, stale cause, lastUsedAt).
 * @param {unknown} meta @param {unknown} payload @param {unknown} stale @param {unknown} lastUsed
 * @returns {StoredRow}
 */
function rowOf(meta, payload, stale, lastUsed) {
  /** @type {StoredRow} */
  const row = JSON.parse(String(meta));
  row.payload = JSON.parse(String(payload));
  row.lastUsedAt = Number(lastUsed);
  const cause = parsed(stale);
  if (cause !== undefined) row.staleCause = cause;
  return row;
}

/** By URI, code-unit order. @param {{ uri?: unknown }} p @param {{ uri?: unknown }} q */
const byUri = (p, q) => (String(p.uri) < String(q.uri) ? -1 : String(p.uri) > String(q.uri) ? 1 : 0);

/**
 * What the operations share: the key names, the walk over every master, the runner.
 * @typedef {object} Context
 * @property {string} prefix
 * @property {string} ttl
 * @property {string} batch
 * @property {(segment: string) => string[]} keysOf The four keys of a conversation's bucket.
 * @property {(step: Step, visit: (segment: string) => Promise<void>, limit?: number, nodes?: import('./redis-link.cjs').RedisNode[]) => Promise<void>} walk
 * @property {ReturnType<typeof runner>['operation']} operation
 * @property {ReturnType<typeof turns>} turns Call order around a write that evicts in several calls.
 * @property {Set<string>} refused The first key of each write Redis refused for want of memory
 *   since the last `evictOldest` (the master that must free memory is the one holding it).
 * @typedef {import('./redis-ops.cjs').Step} Step
 */

/**
 * Call order around a write that evicts in several calls (a budget lowered below what a
 * conversation holds). Redis runs one conversation's calls in the order they arrive, but such a
 * write's later calls go out only after its first answer: a read or write called after it and
 * sent meanwhile would run between them (a read would see, and keep by using it, an entry that
 * write evicts). So a read or write called while a write of this instance into its conversation
 * is unsettled carries the flag '1', and the script answers it `['x']`, untouched, while a write's
 * evictions are under way. It is sent again, in the order it was called, the moment this
 * instance's evicting write is done and before the operations called since that write's first
 * answer (held back until then); without such a write here (another instance's is evicting), at
 * once — and the reads and writes of its conversation called after it wait until it settles, so
 * none of them reaches Redis before its resend. The flag costs nothing otherwise: the script
 * checks one field.
 * @param {() => () => void} hold
 */
function turns(hold) {
  /** Unsettled writes per conversation (segment). @type {Map<string, number>} */
  const writing = new Map();
  /**
   * Per conversation, while writes of this instance evict there: how many, and the resends to
   * make, in the order they were answered `['x']` (the order they were called), when the last
   * of them is done.
   * @type {Map<string, { writes: number, resends: (() => void)[] }>}
   */
  const waiting = new Map();
  /**
   * Per conversation, the settling of the last flagged operation sent and not yet settled: a
   * flagged operation may be answered `['x']` and sent again, so what is called after it waits
   * for it (the resend then reaches Redis first), whichever instance set the mark.
   * @type {Map<string, Promise<void>>}
   */
  const flaggedTail = new Map();
  const turns = {
    /** A write is called: its flag. Call `left(segment)` when it settles. @param {string} segment */
    write(segment) {
      const count = writing.get(segment) ?? 0;
      writing.set(segment, count + 1);
      return count > 0 ? '1' : '0';
    },
    /** @param {string} segment */
    left(segment) {
      const count = (writing.get(segment) ?? 1) - 1;
      if (count > 0) writing.set(segment, count);
      else writing.delete(segment);
    },
    /** A read is called: its flag. @param {string} segment */
    read: (segment) => (writing.has(segment) ? '1' : '0'),
    /**
     * Sends with `flag`; an `['x']` answer is sent again with '0' when this instance's evicting
     * write in `segment` is done (at once without one). A write's answer that says it evicts on
     * (`evicts`) holds the later operations back from the moment it arrives (`done` ends that):
     * checked here, at the same depth as the answers after it, so none of those is handled first.
     * @param {string} segment @param {string} flag @param {(flag: string) => Promise<unknown[]>} send
     * @param {(reply: unknown[]) => boolean} [evicts]
     * @returns {Promise<{ reply: unknown[], done: () => void }>}
     */
    async send(segment, flag, send, evicts) {
      const before = flaggedTail.get(segment);
      /** @type {() => void} */
      let settle = () => {};
      if (flag === '1') {
        const mine = new Promise((/** @type {(value: void) => void} */ resolve) => { settle = resolve; });
        const tail = before ? before.then(() => mine) : mine;
        flaggedTail.set(segment, tail);
        tail.then(() => {
          if (flaggedTail.get(segment) === tail) flaggedTail.delete(segment);
        });
      }
      try {
        if (before) await before;
        const answered = (/** @type {unknown[]} */ reply) => ({ reply, done: evicts?.(reply) ? evicting(segment) : () => {} });
        const reply = await send(flag);
        if (reply.length !== 1 || String(reply[0]) !== 'x') return answered(reply);
        const pending = waiting.get(segment);
        if (!pending) return await send('0').then(answered);
        return await new Promise((resolve, reject) => pending.resends.push(() => send('0').then(answered).then(resolve, reject)));
      } finally {
        settle();
      }
    },
  };

  /**
   * A write of this instance in `segment` evicts in more calls: later operations wait until the
   * function returned is called (when it is done or given up on; once), which, for the last
   * such write there, first sends again what was answered `['x']` meanwhile, in order.
   * @param {string} segment @returns {() => void}
   */
  function evicting(segment) {
    const release = hold();
    const entry = waiting.get(segment) ?? { writes: 0, resends: [] };
    entry.writes += 1;
    waiting.set(segment, entry);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.writes -= 1;
      if (entry.writes === 0) {
        waiting.delete(segment);
        for (const resend of entry.resends) resend();
      }
      release();
    };
  }
  return turns;
}

/**
 * A storage object for `new ResultCache({ storage })` over a connected Redis `client`
 * (node-redis 6 `createClient` / `createCluster`, ioredis 6 `Redis` / `Cluster`).
 *
 * @param {object} client The connected client; the host owns it (closing a cache leaves it open).
 * @param {{ prefix?: string, ttlMs?: number, timeoutMs?: number, replicas?: number }} [options]
 *   `prefix` (default `"mcp-result-cache:"`) starts every key written; `ttlMs` lets Redis expire a
 *   conversation nobody used for that long; `timeoutMs` (default 3000) bounds every operation;
 *   `replicas` (default 0): a write resolves only once `WAIT` confirms it on that many replicas.
 * @returns {import('./redis.d.ts').RedisStorage} The storage (pass it as `storage`).
 * @throws {TypeError} For anything but a supported client or a malformed option.
 */
function redisStorage(client, options) {
  const link = transport(client, typeError);
  const settings = readOptions(options);
  const { prefix, ttl } = settings;
  const { operation, hold } = runner(link, settings);
  /** @type {Context} */
  const ctx = {
    prefix,
    ttl,
    batch: String(BATCH),
    keysOf: (segment) => ['rows', 'lru', 'added', 'fresh'].map((name) => `${prefix}{${segment}}:${name}`),
    walk: walker(`${globEscape(prefix)}{*}:rows`, prefix),
    operation,
    turns: turns(hold),
    refused: new Set(),
  };
  return {
    kind: 'redis',
    prefix,
    write: (row, maxBytes, maxEntries, json) => write(ctx, row, maxBytes, maxEntries, json),
    read: (uris, now, depth) => read(ctx, uris, now, depth),
    ...spanning(ctx),
    ...invalidation(ctx, hold),
    consumeOnce(key, ttlMs) {
      if (typeof key !== 'string' || key === '') return Promise.reject(typeError('consumeOnce: key must be a non-empty string'));
      if (!(Number.isSafeInteger(ttlMs) && ttlMs > 0)) return Promise.reject(typeError('consumeOnce: ttlMs must be a positive integer (milliseconds)'));
      const name = `${prefix}once:{${createHash('sha256').update(key).digest('hex')}}`;
      return operation('consuming a key', async (step) => {
        const first = (await step.command(name, ['SET', name, '1', 'NX', 'PX', String(ttlMs)])) !== null;
        if (first) await step.replicate(name);
        return first;
      });
    },
    close() {},
  };
}

/**
 * One write: one script call on its conversation (more only when a lowered budget leaves more to
 * evict than one batch: each evicts down to the limits from the conversation's totals at that
 * moment, and never an entry a later write stored; reads and writes called after it take effect
 * after them, `turns`), then `WAIT` when the storage asks for replicas.
 * @param {Context} ctx @param {StoredRow} row @param {number} maxBytes @param {number} maxEntries
 * @param {string} [json] @returns {Promise<[number, number, number]>}
 */
function write({ ttl, batch, keysOf, operation, turns, refused }, row, maxBytes, maxEntries, json) {
  let args;
  try {
    const payload = encodePayload(row.payload, json);
    const { payload: _payload, lastUsedAt: _used, staleCause: _stale, ...rest } = row;
    args = ['w', ttl, String(row.uri), JSON.stringify(row.convId), String(row.sizeBytes), String(row.addedAt), String(row.lastUsedAt),
      JSON.stringify(row.sourceToolName), JSON.stringify(rest), payload, String(maxBytes), String(maxEntries), batch];
  } catch (error) {
    return Promise.reject(error);
  }
  const segment = segmentOfUri(String(row.uri));
  const keys = keysOf(segment);
  const flag = turns.write(segment);
  // Ends this write's hold on later operations: when its evictions are done, or when the
  // operation settles (a timeout included: a reply Redis never sends holds nothing back).
  let done = () => {};
  return operation('writing an entry', async (step) => {
    const first = await turns.send(segment, flag, async (f) => step.script(keys, [...args, f]), (reply) => Number(reply[3]) === 1);
    done = first.done;
    let [evicted, bytes, entries, more, seq] = first.reply.map(Number);
    try {
      while (more === 1) {
        const reply = (await step.script(keys, ['t', ttl, String(maxBytes), String(maxEntries), batch, String(row.uri), String(seq)])).map(Number);
        evicted += reply[0];
        [, more, bytes, entries] = reply;
      }
    } finally {
      done();
    }
    await step.replicate(keys[0]);
    /** @type {[number, number, number]} */
    const totals = [evicted, bytes, entries];
    return totals;
  }).catch((error) => {
    // The cache frees memory (`evictOldest`) and writes again: on this key's master.
    if (error instanceof Error && error.name === 'QuotaExceededError' && refused.size < MAX_REFUSED) refused.add(keys[0]);
    throw error;
  }).finally(() => {
    done();
    turns.left(segment);
  });
}

/**
 * The rows of `uris`: one script call per conversation, all sent at once. Then the present rows
 * of their `derivedFrom` chains (up to `depth` links) in their conversations, read by the same
 * calls (at the read's place in call order).
 * @param {Context} ctx @param {string[]} uris @param {number} now @param {unknown} [depth]
 */
function read({ ttl, keysOf, operation, turns }, uris, now, depth) {
  const links = String(Number.isSafeInteger(depth) && /** @type {number} */ (depth) > 0 ? depth : 0);
  /** @type {Map<string, string[]>} */
  const groups = new Map();
  for (const uri of uris) {
    const segment = segmentOfUri(uri);
    groups.set(segment, [...(groups.get(segment) ?? []), uri]);
  }
  const flags = [...groups.keys()].map(turns.read);
  return operation('reading entries', async (step) => {
    const answers = [...groups].map(([segment, list], i) => turns.send(segment, flags[i], async (flag) => step.script(keysOf(segment), ['r', ttl, String(now), links, flag, ...list])).then((sent) => sent.reply));
    // Awaited one after another: a later one's failure is this read's (below), never unhandled
    // while an earlier one waits for a write's evictions.
    for (const answer of answers) answer.catch(() => {});
    /** @type {Map<string, StoredRow | undefined>} */
    const found = new Map();
    /** @type {StoredRow[]} */
    const sources = [];
    for (const [i, [, list]] of [...groups].entries()) {
      const reply = await answers[i];
      list.forEach((uri, j) => {
        const at = j * 4;
        const present = reply[at + 1] !== null && reply[at + 1] !== undefined && reply[at + 1] !== false;
        found.set(uri, present ? rowOf(reply[at], reply[at + 1], reply[at + 2], reply[at + 3]) : undefined);
      });
      for (let at = list.length * 4; at + 4 < reply.length; at += 5) sources.push(rowOf(reply[at + 1], reply[at + 2], reply[at + 3], reply[at + 4]));
    }
    return [...uris.map((uri) => found.get(uri)), ...sources];
  });
}

/**
 * Calls the script on one conversation with a cursor until it answers cursor "0".
 * @param {Context} ctx @param {Step} step @param {string} segment
 * @param {(cursor: string) => string[]} argsOf @param {(reply: unknown[]) => void} take
 */
async function scanBucket(ctx, step, segment, argsOf, take) {
  let cursor = '0';
  do {
    const reply = await step.script(ctx.keysOf(segment), argsOf(cursor));
    take(reply);
    cursor = String(reply[0]);
  } while (cursor !== '0');
}

/**
 * Deletes the rows of conversation `conv` (JSON) in `segment`, or those added before `cutoff`
 * (conv ''), a batch a call.
 * @param {Context} ctx @param {Step} step @param {string} segment @param {string} conv @param {string} cutoff
 */
async function removeIn(ctx, step, segment, conv, cutoff) {
  let removed = 0;
  let cursor = '0';
  for (;;) {
    const reply = await step.script(ctx.keysOf(segment), ['d', ctx.ttl, conv, cutoff, ctx.batch, cursor]);
    removed += Number(reply[0]);
    if (Number(reply[1]) !== 1) return removed;
    if (reply[2] !== undefined) cursor = String(reply[2]);
  }
}

/**
 * The operations that may span conversations: totals, clears and age eviction, listing, and the
 * eviction after a quota error.
 * @param {Context} ctx
 */
function spanning(ctx) {
  const { ttl, batch, keysOf, walk, operation } = ctx;
  return {
    stats: () => operation('reading the totals', async (step) => {
      let entries = 0;
      let bytes = 0;
      let conversations = 0;
      await walk(step, async (segment) => {
        const [e, b] = (await step.script(keysOf(segment), ['s', ttl])).map(Number);
        if (e > 0) {
          entries += e;
          bytes += b;
          conversations += 1;
        }
      });
      /** @type {[number, number, number]} */
      const totals = [entries, bytes, conversations];
      return totals;
    }, { multi: true }),
    /** @param {string | undefined} convId @param {number} cutoff */
    remove: (convId, cutoff) => operation('deleting entries', async (step) => {
      if (typeof convId === 'string') {
        const segment = segmentOf(convId);
        const removed = await removeIn(ctx, step, segment, JSON.stringify(convId), '0');
        // A clear survives a failover as a write does (a chat deleted stays deleted).
        if (removed > 0) await step.replicate(ctx.keysOf(segment)[0]);
        return removed;
      }
      let removed = 0;
      // The segments of one SCAN page are visited at once: each adds its count when it has it.
      await walk(step, async (segment) => {
        const count = await removeIn(ctx, step, segment, '', String(cutoff));
        removed += count;
      });
      if (removed > 0) await step.replicateAll();
      return removed;
    }, { multi: true }),
    /** @param {string} [convId] */
    list: (convId) => operation('listing entries', async (step) => {
      /** @type {Map<string, StoredRow>} */
      const rows = new Map();
      const collect = (/** @type {string} */ segment, /** @type {string} */ conv) => scanBucket(ctx, step, segment, (cursor) => ['l', ttl, conv, cursor, batch], (reply) => {
        for (let i = 1; i + 4 < reply.length; i += 5) {
          const row = rowOf(reply[i + 1], reply[i + 2], reply[i + 3], reply[i + 4]);
          if (typeof convId !== 'string' || row.convId === convId) rows.set(String(reply[i]), row);
        }
      });
      if (typeof convId === 'string') await collect(segmentOf(convId), JSON.stringify(convId));
      else await walk(step, (segment) => collect(segment, ''));
      return [...rows.values()].sort(byUri);
    }, { multi: true }),
    /** @param {number} bytes */
    evictOldest: (bytes) => operation('evicting entries', (step) => evictOldest(ctx, step, bytes), { multi: true }),
  };
}

/**
 * `freshTools` and `markStale`: between the two, later operations wait (the marks take effect
 * where they were called; the cache calls markStale after every freshTools that answered).
 * @param {Context} ctx @param {() => () => void} hold
 */
function invalidation(ctx, hold) {
  const { ttl, batch, walk, operation } = ctx;
  let releaseStale = () => {};
  return {
    freshTools() {
      return operation('invalidating entries', async (step) => {
        /** @type {Set<string>} */
        const names = new Set();
        await walk(step, (segment) => scanBucket(ctx, step, segment, (cursor) => ['f', ttl, cursor, batch], (reply) => {
          for (const name of reply.slice(1)) names.add(String(name));
        }));
        return [...names].map((name) => String(JSON.parse(name)));
      }, {
        multi: true,
        onStart: () => {
          releaseStale = hold();
        },
      }).catch((error) => {
        releaseStale();
        throw error;
      });
    },
    /** @param {string[]} names @param {string} cause */
    markStale(names, cause) {
      const release = releaseStale;
      releaseStale = () => {};
      if (!Array.isArray(names) || names.length === 0) {
        release();
        return Promise.resolve(0);
      }
      const wanted = names.map((name) => JSON.stringify(String(name)));
      const causeJson = JSON.stringify(String(cause));
      const marked = operation('invalidating entries', async (step) => {
        let count = 0;
        await walk(step, (segment) => scanBucket(ctx, step, segment, (cursor) => ['k', ttl, causeJson, cursor, batch, ...wanted], (reply) => {
          count += Number(reply[1]);
        }));
        // Marks survive a failover as writes do (a stale entry is never served as fresh again).
        if (count > 0) await step.replicateAll();
        return count;
      }, { multi: true, first: true });
      release();
      return marked;
    },
  };
}

/**
 * Frees `bytes` from the conversations whose least recently used entry is oldest (compared
 * over at most EVICT_SAMPLE conversations): Redis Cluster keeps no global order. After writes
 * Redis refused for want of memory, on the masters that refused them only: memory freed on
 * another master would not let the write in.
 * @param {Context} ctx @param {Step} step @param {number} bytes
 */
async function evictOldest({ ttl, batch, keysOf, walk, refused }, step, bytes) {
  const keys = [...refused];
  refused.clear();
  // Each master once, however many of its keys were refused: a walk per key would scan it again.
  const nodes = keys.length > 0 ? [...new Set(await Promise.all(keys.map((key) => step.masterOf(key))))] : undefined;
  /** @type {{ segment: string, oldest: number }[]} */
  const sample = [];
  await walk(step, async (segment) => {
    const [oldest] = await step.script(keysOf(segment), ['q', ttl]);
    if (oldest !== false && oldest !== null && oldest !== undefined) sample.push({ segment, oldest: Number(oldest) });
  }, EVICT_SAMPLE, nodes);
  sample.sort((p, q) => p.oldest - q.oldest);
  let count = 0;
  for (const { segment } of sample) {
    while (bytes > 0) {
      const [evicted, freed, more] = (await step.script(keysOf(segment), ['e', ttl, String(bytes), '0', batch, ''])).map(Number);
      count += evicted;
      bytes -= freed;
      if (more !== 1) break;
    }
    if (bytes <= 0) break;
  }
  return count;
}

/**
 * Walks the conversations of every master (SCAN, one page a call), calling `visit` with each
 * segment; stops after `limit` conversations.
 * @param {string} pattern @param {string} prefix
 */
function walker(pattern, prefix) {
  const start = prefix.length + 1;
  /**
   * @param {import('./redis-ops.cjs').Step} step
   * @param {(segment: string) => Promise<void>} visit
   * @param {number} [limit]
   * @param {import('./redis-link.cjs').RedisNode[]} [nodes] the masters to walk (default: every one)
   */
  return async (step, visit, limit = Infinity, nodes = undefined) => {
    let seen = 0;
    /** @type {Set<string>} */
    const done = new Set();
    for (const node of nodes ?? await step.masters()) {
      let cursor = '0';
      do {
        const reply = await node.send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', String(SCAN_COUNT), 'TYPE', 'hash']);
        const [next, keys] = Array.isArray(reply) ? reply : ['0', []];
        cursor = String(next);
        const segments = (Array.isArray(keys) ? keys : []).map((key) => String(key).slice(start, -'}:rows'.length)).filter((s) => !done.has(s));
        for (const segment of segments) done.add(segment);
        await Promise.all(segments.map(visit));
        seen += segments.length;
        if (seen >= limit) return;
      } while (cursor !== '0');
    }
  };
}

module.exports = { redisStorage, DEFAULT_PREFIX };
