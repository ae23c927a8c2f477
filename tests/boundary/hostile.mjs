// Hostile and odd JavaScript values, and a driver that throws them at every export of the
// package. Shared by the Node test (a fixed sweep) and `npm run fuzz` (random combinations).
//
// The rule under test: the boundary never traps. A synchronous export returns or throws an
// Error; an asynchronous one returns a promise that settles; afterwards the module still works.

export function revokedProxy() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

export function revokedArrayProxy() {
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  return proxy;
}

const boom = () => {
  throw new Error('hostile getter');
};

/**
 * Named factories: each call builds a fresh value (proxies are revoked per value).
 * @type {Record<string, () => unknown>}
 */
export const HOSTILE = {
  revokedProxy,
  revokedArrayProxy,
  throwingGetters: () => new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, getPrototypeOf: boom }),
  throwingOwnKeys: () => new Proxy({ a: 1 }, { ownKeys: boom }),
  getterObject: () => Object.defineProperty({}, 'convId', { get: boom, enumerable: true }),
  everyKeyThrows: () => ({
    get convId() { return boom(); }, get payload() { return boom(); }, get method() { return boom(); },
    get params() { return boom(); }, get uri() { return boom(); }, get cause() { return boom(); },
    get policies() { return boom(); }, get separator() { return boom(); }, get now() { return boom(); },
    get onEvent() { return boom(); }, get name() { return boom(); }, get description() { return boom(); },
    get content() { return boom(); }, get data_uri() { return boom(); }, get data() { return boom(); },
  }),
  arrayWithThrowingIndex: () => Object.defineProperty([1, 2, 3], 1, { get: boom }),
  arrayProxyThrowingLength: () => new Proxy([1, 2], { get: (t, k) => (k === 'length' ? boom() : /** @type {Record<PropertyKey, unknown>} */ (/** @type {unknown} */ (t))[k]) }),
  hugeLength: () => ({ length: 3e9 }),
  hugeArrayLike: () => ({ length: 2 ** 32 - 1, 0: 'a' }),
  symbol: () => Symbol('x'),
  bigint: () => 10n ** 30n,
  fn: () => () => 1,
  nullProto: () => Object.create(null),
  nan: () => NaN,
  negative: () => -1,
  infinity: () => Infinity,
  emptyString: () => '',
  loneSurrogate: () => 'a.\uD800',
  longString: () => 'x'.repeat(100_000),
  nul: () => null,
  undef: () => undefined,
  date: () => new Date(0),
  arrayBuffer: () => new ArrayBuffer(8),
  map: () => new Map([[1, 2]]),
  cyclic: () => { const o = /** @type {{ a: number, self?: object }} */ ({ a: 1 }); o.self = o; return o; },
  deepArray: () => { let v = /** @type {unknown[]} */ ([]); for (let i = 0; i < 3000; i++) v = [v]; return v; },
  toJsonThrows: () => ({ toJSON: boom }),
  contentWithHostileBlocks: () => ({ content: [{ type: 'text', get text() { return boom(); } }, revokedProxy()] }),
  argsWithHostileUri: () => ({ get data_uri() { return boom(); }, data: [1] }),
};

export const HOSTILE_NAMES = Object.keys(HOSTILE);

/**
 * The three entries' exports together, as the boundary tests build them from the release
 * modules (`{ ...lists, ...server, ...host }`).
 * @typedef {typeof import('../../pkg/node.mjs') & typeof import('../../pkg/server.node.mjs')
 *   & typeof import('../../pkg/lists.node.mjs')} Api
 */

/**
 * One export (or method, or constructor) as the tests call it: with any values at all.
 * @typedef {(...args: unknown[]) => unknown} Target
 */

/**
 * The kind of outcome `classify` reports, and the outcome itself (`error` for the kinds that
 * throw or reject).
 * @typedef {'returned' | 'threw' | 'resolved' | 'rejected' | 'unsettled' | 'trap'} OutcomeKind
 * @typedef {{ kind: OutcomeKind, error?: unknown }} Outcome
 */

/**
 * Every export, as a function taking three argument values. Classes are exercised through
 * their constructors and each method of a well-formed instance.
 * @param {Api} api
 * @returns {Record<string, Target>}
 */
export function targets(api) {
  const fresh = () => new api.ResultCache({ storage: 'memory' });
  const cache = fresh();
  const sync = new api.StateSync({ policies: [{ match: 'a.*', cacheControl: 'immutable' }] });
  const list = new api.ListCache({});
  // Typed `never`, the arguments pass for whatever type each export declares: the values thrown
  // at the boundary are meant not to match it (what `targets` returns takes any values at all).
  /** @type {Record<string, (...args: never[]) => unknown>} */
  const t = {
    sanitizeConvId: (a) => api.sanitizeConvId(a),
    mintCacheUri: (a) => api.mintCacheUri(a),
    parseCacheUri: (a) => api.parseCacheUri(a),
    estimateSize: (a) => api.estimateSize(a),
    checkInlineListCap: (a, b, c) => api.checkInlineListCap(a, b, c),
    cacheToolResult: (a) => api.cacheToolResult(a),
    readCachedPayload: (a, b) => api.readCachedPayload(a, b),
    lookup: (a, b) => api.lookup(a, b),
    clearConversation: (a) => api.clearConversation(a),
    evictOlderThan: (a) => api.evictOlderThan(a),
    substituteCacheUris: (a, b) => api.substituteCacheUris(a, b),
    beforeToolCall: (a, b, c) => api.beforeToolCall(a, b, c),
    afterToolCall: (a, b, c) => api.afterToolCall(a, b, c),
    'new ResultCache': (a) => new api.ResultCache(a),
    'ResultCache#cacheToolResult': (a) => cache.cacheToolResult(a),
    'ResultCache#readCachedPayload': (a, b) => cache.readCachedPayload(a, b),
    'ResultCache#lookup': (a, b) => cache.lookup(a, b),
    'ResultCache#clearConversation': (a) => cache.clearConversation(a),
    'ResultCache#evictOlderThan': (a) => cache.evictOlderThan(a),
    'ResultCache#substituteCacheUris': (a, b) => cache.substituteCacheUris(a, b),
    'ResultCache#beforeToolCall': (a, b, c) => cache.beforeToolCall(a, b, c),
    'ResultCache#afterToolCall': (a, b, c) => cache.afterToolCall(a, b, c),
    'ResultCache#afterToolCall(result)': (a) => cache.afterToolCall('t', a, { convId: 'c' }),
    'ResultCache#beforeToolCall(args)': (a) => cache.beforeToolCall('t', a, { convId: 'c' }),
    'ResultCache#invalidate': (a, b) => cache.invalidate(a, b),
    'ResultCache#handleNotification': (a) => cache.handleNotification(a),
    'ResultCache#observeTools': (a) => cache.observeTools(a),
    'ResultCache#entries': (a) => cache.entries(a),
    'StateSync#matchGlob': (a, b, c) => api.matchGlob(a, b, c),
    validatePattern: (a, b) => api.validatePattern(a, b),
    detectOverlaps: (a) => api.detectOverlaps(a),
    parseCacheControl: (a) => api.parseCacheControl(a),
    parseInvalidations: (a) => api.parseInvalidations(a),
    listCacheMeta: (a) => api.listCacheMeta(a),
    matchUriTemplate: (a, b) => api.matchUriTemplate(a, b),
    augmentTools: (a, b) => api.augmentTools(a, b),
    'new StateSync': (a) => new api.StateSync(a),
    'StateSync#resolve': (a) => sync.resolve(a),
    'StateSync#decorateTools': (a) => sync.decorateTools(a),
    'StateSync#decorateResult': (a, b) => sync.decorateResult(a, b),
    'new ListCache': (a) => new api.ListCache(a),
    'ListCache#put': (a, b, c) => list.put(a, b, c),
    'ListCache#get': (a, b, c) => list.get(a, b, c),
    'ListCache#invalidateList': (a) => list.invalidateList(a),
    'ListCache#handleNotification': (a) => list.handleNotification(a),
  };
  if (api.configureDefaultCache) t.configureDefaultCache = (a) => api.configureDefaultCache(a);
  return /** @type {Record<string, Target>} */ (t);
}

/**
 * Calls `fn(...args)` and classifies what happened: `returned`, `threw` (an Error or TypeError),
 * `resolved` / `rejected` (a promise settled within `timeoutMs`), `unsettled`, or `trap`
 * (a WebAssembly.RuntimeError, or a non-Error thrown).
 * @param {Target} fn
 * @param {unknown[]} args
 * @param {number} [timeoutMs]
 * @returns {Promise<Outcome>}
 */
export async function classify(fn, args, timeoutMs = 5000) {
  let value;
  try {
    value = fn(...args);
  } catch (error) {
    return isTrap(error) ? { kind: 'trap', error } : { kind: 'threw', error };
  }
  if (!(value instanceof Promise)) return { kind: 'returned' };
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {Promise<Outcome>} */
  const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve({ kind: 'unsettled' }), timeoutMs); });
  /** @type {Promise<Outcome>} */
  const settled = value.then(
    () => ({ kind: 'resolved' }),
    (error) => (isTrap(error) ? { kind: 'trap', error } : { kind: 'rejected', error }),
  );
  const outcome = await Promise.race([settled, timeout]);
  clearTimeout(timer);
  return outcome;
}

/** @param {unknown} error */
function isTrap(error) {
  return error instanceof WebAssembly.RuntimeError || !(error instanceof Error) ||
    /unreachable|memory access out of bounds|recursive use of an object|already borrowed/i.test(String(error?.message));
}

/**
 * The module still answers correctly (checked after a storm of hostile calls).
 * @param {Api} api
 * @returns {Promise<boolean>}
 */
export async function stillWorks(api) {
  const cache = new api.ResultCache({ storage: 'memory', threshold: 10 });
  const uri = await cache.cacheToolResult({ payload: { rows: [1, 2, 3, 4] }, convId: 'ok' });
  const back = await cache.readCachedPayload(uri, { convId: 'ok' });
  // The server and lists modules too (each its own WebAssembly instance).
  const sync = new api.StateSync({ policies: [{ match: 'a.*', cacheControl: 'immutable' }] });
  const lists = new api.ListCache({ now: () => 0 });
  const listed = { tools: [], ttlMs: 1000, cacheScope: 'public' };
  lists.put('tools/list', {}, listed, 'u');
  return api.matchGlob('a.*', 'a.b') === true && api.sanitizeConvId('ok') === 'ok' &&
    JSON.stringify(back) === '{"rows":[1,2,3,4]}' &&
    sync.resolve('a.b')?.cacheControl === 'immutable' &&
    lists.get('tools/list', {}, 'u')?.result === listed &&
    api.matchUriTemplate('users/{id}', 'users/7')?.id === '7';
}
