// Helpers shared by the browser entries (pkg/browser.mjs, pkg/server.mjs, pkg/lists.mjs): lazy
// instantiation of an entry's WebAssembly module, and the bounded memos in front of the calls
// hosts and servers make per tool name. Importing this module has no side effects.

/**
 * One entry's lazy module: `ready()` instantiates it on first call (a failed fetch is retried
 * by the next call), `requireReady(name)` guards the synchronous exports, `syncExport(fn,
 * name)` wraps one of them (the export itself, handed over alone: a bundle then needs no
 * namespace object for the glue).
 */
/**
 * @typedef {{
 *   initialized: boolean,
 *   ready: () => Promise<void>,
 *   requireReady: (name: string) => void,
 *   syncExport: <F extends (...args: never[]) => unknown>(fn: F, name: string) => F,
 * }} LazyModule
 */

/**
 * @param {() => Promise<unknown>} init
 * @returns {LazyModule}
 */
export function lazyModule(init) {
  /** @type {Promise<void> | null} */
  let initialization = null;
  const state = /** @type {LazyModule} */ ({ initialized: false });
  state.ready = () => {
    if (!initialization) {
      initialization = init().then(
        () => {
          state.initialized = true;
        },
        (/** @type {unknown} */ error) => {
          initialization = null;
          throw error;
        },
      );
    }
    return initialization;
  };
  state.requireReady = (name) => {
    if (!state.initialized) {
      throw new Error(`mcp-result-cache: ${name}() needs the WebAssembly module; await ready() once before calling it`);
    }
  };
  /** The synchronous export `fn` (named `name`), guarded by `requireReady`. */
  state.syncExport = (fn, name) => /** @type {typeof fn} */ (/** @type {unknown} */ ((/** @type {never[]} */ ...args) => {
    state.requireReady(name);
    return fn(...args);
  }));
  return state;
}

// Hot-path memo for the calls made per tool name: the answers are pure functions of their
// arguments, so a bounded JS Map in front of the wasm call returns identical results without
// paying the boundary crossing (string copies) on every call.
const MEMO_LIMIT = 4096;
/**
 * @template V
 * @param {Map<string, V>} map
 * @param {string} key
 * @param {V} value
 */
export function memoSet(map, key, value) {
  if (map.size >= MEMO_LIMIT) map.clear();
  map.set(key, value);
  return value;
}

// Bounds of the wasm matcher (see matchGlob's docs): longer strings are answered there in
// constant time, and are not kept here, where one memo entry would hold them alive.
export const MAX_NAME_LENGTH = 4096;
const MAX_PATTERN_LENGTH = 1024;

/**
 * A memoized `matchGlob(pattern, name, { separator }?)` over an entry's wasm export `match`
 * (handed any arguments: it answers, or throws the TypeError; typed as a method, so the export's
 * declared parameters are accepted).
 * @param {LazyModule} lazy
 * @param {{ match(pattern: unknown, name: unknown, options?: unknown): boolean }['match']} match
 */
export function memoizedMatchGlob(lazy, match) {
  /** @type {Map<string, boolean>} */
  const memo = new Map();
  return function matchGlob(/** @type {unknown} */ pattern, /** @type {unknown} */ name, /** @type {unknown} */ options) {
    lazy.requireReady('matchGlob');
    if (
      typeof pattern !== 'string' || typeof name !== 'string' ||
      pattern.length > MAX_PATTERN_LENGTH || name.length > MAX_NAME_LENGTH ||
      (options != null && typeof options !== 'object')
    ) {
      return match(pattern, name, options); // answers, or throws the TypeError
    }
    // Read the separator once: a getter could answer differently for the key and for the match.
    // A read that throws is left to the wasm export, which reports it as a TypeError.
    let separator;
    try {
      // An object or nullish here (checked above).
      separator = /** @type {{ separator?: unknown } | null | undefined} */ (options)?.separator;
    } catch {
      return match(pattern, name, options);
    }
    if (separator !== undefined && typeof separator !== 'string') return match(pattern, name, { separator });
    const sep = separator ?? '.';
    // Length prefixes make the key collision-free whatever the strings contain.
    const key = `${sep.length}:${sep}${pattern.length}:${pattern}${name}`;
    const hit = memo.get(key);
    return hit !== undefined ? hit : memoSet(memo, key, match(pattern, name, { separator: sep }));
  };
}
