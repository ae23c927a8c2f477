'use strict';
// How `redisStorage` (js/redis.cjs) talks to a client: node-redis 6 (`createClient`,
// `createCluster`) or ioredis 6 (`Redis`, `Cluster`). A link sends one command routed by a key,
// lists the masters (to walk every conversation), and asks the master of a key's slot to `WAIT`
// for its replicas on the very connection that wrote. Also here: where a conversation's keys
// live (its URI segment, the crate's `sanitize_conv_id`, and the hash slot of that segment).

/**
 * A client's method bound to it, or `undefined`. Client objects come from two libraries whose
 * types are not ours: they are looked at as `unknown` and narrowed here.
 * @param {unknown} obj @param {string} name
 * @returns {((...args: unknown[]) => unknown) | undefined}
 */
function method(obj, name) {
  if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return undefined;
  const fn = Reflect.get(obj, name);
  return typeof fn === 'function' ? (...args) => fn.apply(obj, args) : undefined;
}

/** @param {unknown} obj @param {string} name @returns {unknown} */
const field = (obj, name) => (obj !== null && typeof obj === 'object' ? Reflect.get(obj, name) : undefined);

/** A promise of whatever `value` is (a client's reply). @param {unknown} value @returns {Promise<unknown>} */
const settle = (value) => Promise.resolve(value);

/**
 * One node of the deployment: the standalone server, or one master of a cluster.
 * @typedef {{ send(args: string[]): Promise<unknown> }} RedisNode
 */
/**
 * @typedef {object} Link
 * @property {(key: string, args: string[]) => Promise<unknown>} send One command, routed by `key`.
 * @property {() => boolean} ready Whether the client is connected now.
 * @property {() => Promise<RedisNode[]>} masters Every master (the server itself when standalone).
 * @property {(key: string) => Promise<RedisNode>} masterOf The master of `key`'s slot, on the
 *   connection that writes it (where a `WAIT` for its writes is sent).
 * @property {boolean} cluster
 */

const CLIENTS = 'client must be a connected node-redis client or cluster (createClient, createCluster) or an ioredis Redis or Cluster';

/**
 * The link over `client`, or a TypeError for anything that is not one of the four clients.
 * @param {unknown} client @param {(message: string) => TypeError} typeError
 * @returns {Link}
 */
function transport(client, typeError) {
  if (client === null || typeof client !== 'object') throw typeError(CLIENTS);
  const call = method(client, 'call');
  if (call && typeof field(client, 'status') === 'string' && method(client, 'evalsha')) {
    // ioredis prefixes the keys of a command, not the patterns of SCAN: the walks over every
    // conversation (stats, entries, invalidate, evictOlderThan) would find nothing.
    const keyPrefix = field(field(client, 'options'), 'keyPrefix');
    if (keyPrefix !== undefined && keyPrefix !== '') throw typeError('an ioredis client with a keyPrefix is not supported (SCAN patterns are not prefixed): give the prefix to redisStorage\'s `prefix` option instead');
    return ioredisLink(client, call);
  }
  const sendCommand = method(client, 'sendCommand');
  if (sendCommand && typeof field(client, 'isOpen') === 'boolean') {
    // A pool sends commands over several connections: they would not take effect in call order.
    if (typeof field(client, 'totalClients') === 'number') throw typeError('a node-redis client pool (createClientPool) is not supported: its commands go over several connections, so operations would not take effect in call order; pass a client (createClient) or a cluster (createCluster)');
    return nodeRedisLink(client, sendCommand);
  }
  throw typeError(CLIENTS);
}

/** @param {object} client @param {(...args: unknown[]) => unknown} call @returns {Link} */
function ioredisLink(client, call) {
  const ready = () => field(client, 'status') === 'ready';
  if (field(client, 'isCluster') !== true) {
    /** @type {RedisNode} */
    const node = { send: (args) => settle(call(...args)) };
    return standalone(node, ready);
  }
  const nodes = method(client, 'nodes');
  /** @returns {unknown[]} */
  const masters = () => {
    const list = nodes?.('master');
    return Array.isArray(list) ? list : [];
  };
  /** @param {unknown} node @returns {RedisNode} */
  const nodeOf = once((node) => {
    const nodeCall = method(node, 'call');
    if (!nodeCall) throw new TypeError('redisStorage: an ioredis Cluster node without call()');
    return { send: (args) => settle(nodeCall(...args)) };
  });
  /** The master of the key's slot, by the address ioredis routes that slot to. @param {string} key */
  const masterOf = async (key) => {
    const slots = field(client, 'slots');
    const owners = Array.isArray(slots) ? slots[slotOf(key)] : undefined;
    const address = Array.isArray(owners) ? owners[0] : undefined;
    const node = masters().find((m) => {
      const options = field(m, 'options');
      return `${field(options, 'host')}:${field(options, 'port')}` === address;
    });
    if (!node) throw Object.assign(new Error(`no master is known for slot ${slotOf(key)}`), { name: 'NetworkError' });
    return nodeOf(node);
  };
  return {
    send: (_key, args) => settle(call(...args)),
    ready,
    masters: async () => masters().map(nodeOf),
    masterOf,
    cluster: true,
  };
}

/**
 * `wrap` made once per client node: the same master is the same `RedisNode` (a set of the
 * masters that refused writes holds each once).
 * @param {(node: unknown) => RedisNode} wrap @returns {(node: unknown) => RedisNode}
 */
function once(wrap) {
  /** @type {WeakMap<object, RedisNode>} */
  const made = new WeakMap();
  return (node) => {
    if (typeof node !== 'object' || node === null) return wrap(node);
    let wrapped = made.get(node);
    if (!wrapped) made.set(node, (wrapped = wrap(node)));
    return wrapped;
  };
}

/** The link of one server: every key lives on `node`. @param {RedisNode} node @param {() => boolean} ready @returns {Link} */
function standalone(node, ready) {
  return {
    send: (_key, args) => node.send(args),
    ready,
    masters: async () => [node],
    masterOf: async () => node,
    cluster: false,
  };
}

/** @param {object} client @param {(...args: unknown[]) => unknown} sendCommand @returns {Link} */
function nodeRedisLink(client, sendCommand) {
  const ready = () => field(client, 'isReady') !== false && field(client, 'isOpen') === true;
  const isCluster = typeof field(client, 'getSlotRandomNode') === 'function' || Array.isArray(field(client, 'masters'));
  if (!isCluster) {
    /** @type {RedisNode} */
    const node = { send: (args) => settle(sendCommand(args)) };
    return standalone(node, ready);
  }
  const nodeClient = method(client, 'nodeClient');
  const forKey = method(client, 'getNodeClientForKey');
  /** @param {unknown} nodeClientValue @returns {RedisNode} */
  const nodeOf = once((nodeClientValue) => {
    const send = method(nodeClientValue, 'sendCommand');
    if (!send) throw new TypeError('redisStorage: a node-redis cluster node without sendCommand()');
    return { send: (args) => settle(send(args)) };
  });
  /** The client the cluster routes the key's writes through: the connection that wrote it. @param {string} key */
  const masterOf = async (key) => {
    if (!forKey) throw new TypeError('redisStorage: a node-redis cluster without getNodeClientForKey (node-redis 6 is needed)');
    return nodeOf(await settle(forKey(key, false)));
  };
  return {
    send: (key, args) => settle(sendCommand(key, false, args)),
    ready,
    masters: async () => {
      const masters = field(client, 'masters');
      const list = Array.isArray(masters) ? masters : [];
      return Promise.all(list.map(async (master) => nodeOf(await settle(nodeClient?.(master)))));
    },
    // The client the cluster routes the key's writes through: the connection that wrote it.
    masterOf,
    cluster: true,
  };
}

// ---- Where a conversation's keys live ----

/** Longest conversation segment a reference carries; lossy segments end with `-` and a digest. */
const MAX_SEGMENT = 64;
const DIGEST_CHARS = 8;
const URI_SEGMENT = /^mcp\+cache:\/\/([A-Za-z0-9_-]{1,64})\//;
/** The bucket of a reference that names no conversation segment. */
const NO_SEGMENT = '~';

/** @param {string} c */
const segmentChar = (c) => /^[A-Za-z0-9_-]$/.test(c);

/**
 * The URI segment of a conversation id, exactly as the crate mints it (`sanitize_conv_id`): the
 * id itself when it is 1–64 of `[A-Za-z0-9_-]`, else its first 55 UTF-16 units with every other
 * character as `_`, then `-` and 48 bits of FNV-1a over its UTF-16 units (little-endian), base64url.
 * @param {string} convId
 */
function segmentOf(convId) {
  // Rust sees the id after wasm-bindgen replaced lone surrogates with U+FFFD.
  const id = convId.toWellFormed ? convId.toWellFormed() : convId;
  if (id.length >= 1 && id.length <= MAX_SEGMENT && [...id].every(segmentChar)) return id;
  let head = '';
  for (let i = 0; i < Math.min(id.length, MAX_SEGMENT - DIGEST_CHARS - 1); i += 1) {
    const unit = id.charAt(i);
    head += segmentChar(unit) ? unit : '_';
  }
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < id.length; i += 1) {
    const unit = id.charCodeAt(i);
    for (const byte of [unit & 0xff, unit >> 8]) {
      hash ^= BigInt(byte);
      hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
    }
  }
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(hash);
  return `${head}-${bytes.subarray(0, 6).toString('base64url')}`;
}

/** The segment a reference carries (the bucket of its conversation). @param {string} uri */
const segmentOfUri = (uri) => URI_SEGMENT.exec(uri)?.[1] ?? NO_SEGMENT;

/** CRC16-XMODEM, Redis Cluster's key hash. @param {string} text */
function crc16(text) {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The hash slot of `key` (its `{…}` tag when it has one). @param {string} key */
function slotOf(key) {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % 16384;
  }
  return crc16(key) % 16384;
}

module.exports = { transport, method, field, segmentOf, segmentOfUri, slotOf, NO_SEGMENT };
