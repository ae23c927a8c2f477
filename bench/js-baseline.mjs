// The plain-JS implementation a host has today, written the way such a module is usually
// written (and kept honest: no artificial slowness): size via Blob(JSON.stringify), default
// durability, one transaction per operation (one readonly transaction per URI, URIs resolved one
// after another), a conversation cleared by a value cursor over the `convId` index, no budget
// (nothing counted, nothing evicted).

const SCHEME = 'mcp+cache://';

/** @typedef {{ match: string, cacheControl?: string, invalidates?: string[] }} JsPolicy */
/** @typedef {Readonly<{ cacheControl: string | undefined, invalidates: string[] | undefined }>} JsResolvedPolicy */
/**
 * What substituteCacheUris answers: the arguments with their `*_uri` keys resolved, or the
 * envelope naming the URIs that could not be.
 * @typedef {{ ok: true, args: unknown } | { ok: false, envelope: { error: string, _missing_uris: string[] } }} JsSubstitution
 */

/**
 * Opens (creating at version 1) the JS module's database: `results` keyed by `uri`, indexes `convId`, `addedAt`.
 * @param {string} name @returns {Promise<IDBDatabase>}
 */
export function openDb(name) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(name, 1);
    req.onupgradeneeded = () => {
      const store = req.result.createObjectStore('results', { keyPath: 'uri' });
      store.createIndex('convId', 'convId');
      store.createIndex('addedAt', 'addedAt');
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** @param {IDBTransaction} tx @returns {Promise<void>} */
function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

function token() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** @param {unknown} payload @returns {number} */
export function estimateSize(payload) {
  try {
    const json = JSON.stringify(payload);
    return json === undefined ? 0 : new Blob([json]).size;
  } catch {
    return 0;
  }
}

export class JsBaselineCache {
  /** @param {string} dbName @param {number} [threshold] */
  constructor(dbName, threshold = 4096) {
    this.dbName = dbName;
    this.threshold = threshold;
    /** @type {IDBDatabase | null} */
    this.db = null;
    /** @type {Promise<IDBDatabase> | null} */
    this.opening = null;
  }

  // One connection, however many calls arrive before it is open.
  /** @returns {Promise<IDBDatabase>} */
  async #open() {
    this.opening ??= openDb(this.dbName).then((db) => (this.db = db));
    return this.opening;
  }

  /**
   * @param {{ payload: unknown, convId?: string | null, sourceToolName?: string }} input
   * @returns {Promise<string | null>}
   */
  async cacheToolResult({ payload, convId = 'default', sourceToolName = '<unknown>' }) {
    if (payload === null || typeof payload !== 'object') return null;
    const sizeBytes = estimateSize(payload);
    if (sizeBytes === 0 || sizeBytes < this.threshold) return null;
    const conv = String(convId ?? 'default').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'default';
    const uri = `${SCHEME}${conv}/${token()}`;
    const db = await this.#open();
    const tx = db.transaction('results', 'readwrite');
    tx.objectStore('results').put({ uri, payload, convId: conv, sourceToolName, addedAt: Date.now(), sizeBytes });
    await done(tx);
    return uri;
  }

  /** @param {unknown} uri @returns {Promise<unknown>} */
  async readCachedPayload(uri) {
    if (typeof uri !== 'string' || !uri.startsWith(SCHEME)) return null;
    const db = await this.#open();
    const tx = db.transaction('results', 'readonly');
    const req = tx.objectStore('results').get(uri);
    await done(tx);
    return req.result ? req.result.payload : null;
  }

  /** @param {unknown} args @returns {Promise<JsSubstitution>} */
  async substituteCacheUris(args) {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return { ok: true, args };
    /** @type {Record<string, unknown>} */
    const out = { ...args };
    /** @type {string[]} */
    const missing = [];
    let changed = false;
    for (const [key, value] of Object.entries(args)) {
      if (!key.endsWith('_uri') || key === '_uri') continue;
      const target = key.slice(0, -4);
      if (typeof value === 'string' && value.startsWith(SCHEME)) {
        const payload = await this.readCachedPayload(value);
        if (payload === null) missing.push(value);
        else { out[target] = payload; delete out[key]; changed = true; }
      } else if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v.startsWith(SCHEME))) {
        /** @type {unknown[]} */
        const resolved = [];
        for (const uri of value) {
          const payload = await this.readCachedPayload(uri);
          if (payload === null) missing.push(uri);
          resolved.push(payload);
        }
        out[target] = resolved;
        delete out[key];
        changed = true;
      }
    }
    if (missing.length) {
      return { ok: false, envelope: { error: `invalid_args: ${missing.length} cache URIs could not be resolved`, _missing_uris: missing } };
    }
    return { ok: true, args: changed ? out : args };
  }

  /** @param {unknown} convId @returns {Promise<void>} */
  async clearConversation(convId) {
    const db = await this.#open();
    const tx = db.transaction('results', 'readwrite');
    const req = tx.objectStore('results').index('convId').openCursor(IDBKeyRange.only(String(convId)));
    req.onsuccess = () => {
      const cursor = req.result;
      if (cursor) { cursor.delete(); cursor.continue(); }
    };
    await done(tx);
  }

  close() {
    this.db?.close();
    this.db = null;
    this.opening = null;
  }
}

/**
 * MCP Fusion-style glob matching (regex per pattern, cached), as a JS host would write it.
 * @type {Map<string, RegExp>}
 */
const globCache = new Map();
/** @param {string} pattern @param {string} name @returns {boolean} */
export function matchGlob(pattern, name) {
  let re = globCache.get(pattern);
  if (!re) {
    const parts = pattern.split('.').map((seg) => (seg === '**' ? '(?:[^.]*(?:\\.[^.]*)*)?' : seg === '*' ? '[^.]*'
      : seg.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^.]*')));
    let src = '';
    parts.forEach((p, i) => {
      src += i === 0 ? p : (pattern.split('.')[i] === '**' ? `(?:\\.${p})?` : `\\.${p}`);
    });
    re = new RegExp(`^${src}$`);
    globCache.set(pattern, re);
  }
  return re.test(name);
}

/** First-match-wins policy resolution with a Map memo, as MCP Fusion's PolicyEngine does. */
export class JsPolicyEngine {
  /** @param {readonly JsPolicy[]} policies */
  constructor(policies) {
    this.policies = policies;
    /** @type {Map<string, JsResolvedPolicy | null>} */
    this.memo = new Map();
  }
  /** @param {string} name @returns {JsResolvedPolicy | null | undefined} */
  resolve(name) {
    if (this.memo.has(name)) return this.memo.get(name);
    const policy = this.policies.find((p) => matchGlob(p.match, name));
    const resolved = policy ? Object.freeze({ cacheControl: policy.cacheControl, invalidates: policy.invalidates }) : null;
    this.memo.set(name, resolved);
    return resolved;
  }
}
