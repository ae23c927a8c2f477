'use strict';
// The operation runner of `redisStorage` (js/redis.cjs): call order, timeouts, the script and
// `WAIT`. An operation is sent when it is called, unless the storage is held (by an operation of
// many steps, between an invalidation's two steps, or while a forgotten script is loaded again);
// then it waits in a queue and is sent, in order, when the hold ends. Every operation settles
// within `timeoutMs`.
const { readFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
const { join } = require('node:path');

const SCRIPT = readFileSync(join(__dirname, 'redis-script.lua'), 'utf8');
const SHA = createHash('sha1').update(SCRIPT).digest('hex');
/** The most entries one script call touches (besides a read's own URIs). */
const BATCH = 256;

/** The longest one `WAIT` blocks the connection it is sent on, in ms. */
const WAIT_SLICE_MS = 50;

/** @param {string} name @param {string} message */
const named = (name, message) => Object.assign(new Error(message), { name });

/** The message of anything thrown. @param {unknown} error */
const messageOf = (error) => String(error instanceof Error ? error.message : (error !== null && typeof error === 'object' ? Reflect.get(error, 'message') : error) ?? error);

/**
 * What a client error becomes: the name a host (and the cache) branches on. The message does not
 * name the operation: the cache puts its own name of it in front ("writing an entry: …").
 * @param {unknown} error
 * @param {boolean} [cluster] whether the client is a cluster client
 */
function storageError(error, cluster = true) {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'TypeError')) return error;
  const message = messageOf(error);
  // A standalone client sent a key to a cluster node that does not serve its slot: no retry
  // reaches the data, as the client does not follow redirections.
  if (!cluster && /^(MOVED|ASK)\b/.test(message)) {
    return new TypeError(`redisStorage: the server is a Redis Cluster node (it answered "${message}"), and the client is not a cluster client: pass createCluster({ rootNodes }) (node-redis) or new Redis.Cluster(nodes) (ioredis)`);
  }
  // Redis 7 answers `OOM …`; before 7.0 an error raised in a script came wrapped (`ERR Error
  // running script … @user_script:N: OOM command not allowed …`).
  if (/^OOM\b|OOM command not allowed/.test(message)) return named('QuotaExceededError', `redisStorage: ${message}`);
  if (/^(ERR|WRONGTYPE|NOPERM|READONLY|CROSSSLOT|BUSY|NOSCRIPT)\b/.test(message)) {
    return named('UnknownError', `redisStorage: ${message}`);
  }
  // MOVED/ASK/TRYAGAIN/CLUSTERDOWN (a failover under way), connection errors, redirection limits.
  return named('NetworkError', `redisStorage: ${message}`);
}

/**
 * @typedef {object} Step
 * @property {(keys: string[], args: string[]) => Promise<unknown[]>} script One script call on one
 *   conversation's four keys (its answer as an array).
 * @property {(key: string, args: string[]) => Promise<unknown>} command One plain command.
 * @property {(key: string) => Promise<void>} replicate `WAIT` for the replicas the storage asks for.
 * @property {() => Promise<void>} replicateAll `WAIT` on every master (after a walk that changed
 *   conversations anywhere).
 * @property {() => Promise<import('./redis-link.cjs').RedisNode[]>} masters
 * @property {(key: string) => Promise<import('./redis-link.cjs').RedisNode>} masterOf the master of `key`'s slot
 */

/**
 * The hold: while held, operations wait in a queue and are sent, in order, when it ends.
 * @returns {{ hold: () => () => void, held: () => boolean, enqueue: (run: () => void) => void }}
 */
function gate() {
  let held = 0;
  /** @type {(() => void)[]} */
  const queue = [];
  const drain = () => {
    while (held === 0 && queue.length > 0) queue.shift()?.();
  };
  return {
    hold: () => {
      held += 1;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        held -= 1;
        drain();
      };
    },
    held: () => held > 0 || queue.length > 0,
    enqueue: (run) => queue.push(run),
  };
}

/**
 * Script calls. A server restart (or SCRIPT FLUSH, or a promoted replica) forgot the script: EVAL
 * loads it. Every operation already sent failed the same way; each joins the load's retries, which
 * are sent (with the script itself) in the order they failed (the order they were sent: one
 * connection answers in order) the moment the load settles, before the hold ends: operations
 * called meanwhile wait in the hold's queue and go after them.
 * @param {import('./redis-link.cjs').Link} link @param {string} ttl @param {() => () => void} hold
 * @returns {(keys: string[], args: string[]) => Promise<unknown[]>}
 */
function scripts(link, ttl, hold) {
  /** The retries waiting for the load in progress, or `null`. @type {(() => void)[] | null} */
  let retries = null;
  /** `keys`/`args` sent again with the script once it is loaded. @param {string[]} keys @param {string[]} args */
  function retry(keys, args) {
    if (!retries) {
      const release = hold();
      const waiting = /** @type {(() => void)[]} */ ([]);
      retries = waiting;
      const settled = () => {
        retries = null;
        for (const send of waiting) send();
        release();
      };
      link.send(keys[0], ['EVAL', SCRIPT, String(keys.length), ...keys, 'o', ttl]).then(settled, settled);
    }
    const waiting = retries;
    return new Promise((resolve, reject) => {
      waiting.push(() => link.send(keys[0], ['EVAL', SCRIPT, String(keys.length), ...keys, ...args]).then(resolve, reject));
    });
  }
  return async (keys, args) => {
    const evalsha = ['EVALSHA', SHA, String(keys.length), ...keys, ...args];
    const reply = await link.send(keys[0], evalsha).catch((error) => {
      if (!/^NOSCRIPT\b/.test(messageOf(error))) throw error;
      return retry(keys, args);
    });
    return Array.isArray(reply) ? reply : [reply];
  };
}

/**
 * `WAIT numreplicas ms` on a master's connection, one at a time per connection and shared: a
 * `WAIT` answers for every write sent before it on its connection, so the writes waiting there
 * share the one in flight (when it was sent after theirs) or the next one, instead of queueing a
 * `WAIT` each. (WAIT blocks the connection, which every other command to that master shares: 40
 * writes waiting 50 ms slices each held it 2 s, and a read of another cache behind them timed out.)
 * @param {number} replicas
 * @returns {(node: import('./redis-link.cjs').RedisNode, ms: number) => Promise<number>}
 */
function waits(replicas) {
  /** Per connection: the `WAIT` in flight, and the one to send after it. @type {WeakMap<object, { now: Promise<number> | null, next: Promise<number> | null }>} */
  const of = new WeakMap();
  return (node, ms) => {
    const state = of.get(node) ?? { now: null, next: null };
    of.set(node, state);
    const send = () => {
      const sent = Promise.resolve(node.send(['WAIT', String(replicas), String(ms)])).then(Number);
      state.now = sent;
      const done = () => void (state.now === sent && (state.now = null));
      sent.then(done, done);
      return sent;
    };
    if (!state.now) return send();
    // The one in flight may have been sent before this write: the next one answers for it.
    state.next ??= state.now.then(() => undefined, () => undefined).then(() => {
      state.next = null;
      return send();
    });
    return state.next;
  };
}

/**
 * @param {import('./redis-link.cjs').Link} link
 * @param {{ ttl: string, timeoutMs: number, replicas: number }} options
 */
function runner(link, { ttl, timeoutMs, replicas }) {
  const waitOn = waits(replicas);
  /** The operations started and not yet settled (or given up on). @type {Set<Promise<unknown>>} */
  const inflight = new Set();
  const { hold, held, enqueue } = gate();
  const script = scripts(link, ttl, hold);

  /**
   * One operation. `body` sends its first command before its first `await` (call order).
   * `multi`: it sends several steps one after another, and later operations wait for all of them.
   * `first`: sent now, ahead of any operation waiting.
   * @template T
   * @param {string} _what what it does, for the reader of the call (the cache names the operation in its errors)
   * @param {(step: Step) => Promise<T>} body
   * @param {{ multi?: boolean, first?: boolean, onStart?: () => void }} [how]
   * @returns {Promise<T>}
   */
  function operation(_what, body, { multi = false, first = false, onStart } = {}) {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    let cancelled = false;
    let release = () => {};
    const deadline = Date.now() + timeoutMs;
    const alive = () => {
      if (cancelled) throw named('TimeoutError', `redisStorage: Redis did not answer within ${timeoutMs} ms`);
    };
    /**
     * Resolves once `wait(ms)` (one `WAIT` slice) answers that the replicas asked for have the
     * connection's writes; a `TimeoutError` when they have not by the operation's deadline.
     * @param {(ms: number) => Promise<unknown>} wait
     */
    const confirmed = async (wait) => {
      if (replicas === 0) return;
      let acked = 0;
      for (;;) {
        alive();
        const left = deadline - Date.now();
        if (left <= 0) break;
        acked = Number(await wait(Math.max(1, Math.min(WAIT_SLICE_MS, left))));
        if (acked >= replicas) return;
      }
      throw named('TimeoutError', `redisStorage: ${acked} of ${replicas} replicas confirmed the change within ${timeoutMs} ms (it may or may not be seen later)`);
    };
    /** @type {Step} */
    const step = {
      script: (keys, args) => {
        alive();
        return script(keys, args);
      },
      command: (key, args) => {
        alive();
        return link.send(key, args);
      },
      // WAIT blocks the connection it is sent on, which the client shares with every other
      // command to that master: it is sent in slices of at most WAIT_SLICE_MS, one at a time
      // per connection (`waits`), so a master whose replicas do not answer delays the others'
      // commands by a slice or two, not by timeoutMs nor by a slice per waiting write.
      replicate: (key) => confirmed(async (ms) => waitOn(await link.masterOf(key), ms)),
      replicateAll: async () => {
        if (replicas === 0) return;
        alive();
        const nodes = await link.masters();
        await Promise.all(nodes.map((node) => confirmed((ms) => waitOn(node, ms))));
      },
      masters: () => {
        alive();
        return link.masters();
      },
      masterOf: (key) => {
        alive();
        return link.masterOf(key);
      },
    };
    /** Ends this operation's place among those sent and not yet settled. */
    let finish = (/** @type {unknown} */ _value) => {};
    const sent = new Promise((resolve, reject) => {
      const start = () => {
        onStart?.();
        body(step).then(resolve, (error) => reject(storageError(error, link.cluster))).finally(() => release());
      };
      const run = () => {
        if (cancelled) return;
        if (!link.ready()) {
          reject(named('NetworkError', `redisStorage: the Redis client is not connected`));
          return;
        }
        const before = [...inflight];
        const done = new Promise((resolve) => {
          finish = resolve;
        });
        inflight.add(done);
        done.then(() => inflight.delete(done));
        if (!multi) {
          start();
          return;
        }
        // Steps on several connections (SCAN on every master): it starts once every operation
        // sent before it has settled, and later ones wait for it.
        release = hold();
        if (before.length === 0) start();
        else Promise.allSettled(before).then(() => (cancelled ? undefined : start()));
      };
      if (!first && held()) enqueue(run);
      else run();
    });
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => {
        // Still waiting in the queue: it is never sent. Already sent: Redis may still run it.
        cancelled = true;
        release();
        reject(named('TimeoutError', `redisStorage: Redis did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref?.();
    });
    sent.catch(() => {});
    // Settled, or given up on at its timeout (a reply Redis never sends holds nothing back).
    const result = /** @type {Promise<T>} */ (Promise.race([sent, late]).finally(() => {
      clearTimeout(timer);
      finish(undefined);
    }));
    return result;
  }

  return { operation, hold };
}

module.exports = { runner, storageError, named, SCRIPT, SHA, BATCH };
