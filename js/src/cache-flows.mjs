// What every `ResultCache` keeps in JS around its WebAssembly core: the flow policy (the
// `flows` option, docs/SECURITY.md) and the `blocked` events of the flows it refused, and the
// subscribers to its changes (`subscribe`, docs/REACT.md), told from its `onEvent` events and
// from the clears the entries call through here. The policy
// is applied by the integrations (js/tool-pipeline.mjs), which are JS, so neither it nor its
// events cross into the `.wasm`; checking it with `checkFlows` (js/flows.mjs) keeps its one
// rule in one place. The browser entry's `ResultCache` (js/src/browser.mjs) and the Node
// entry's (js/node.cjs, through the CommonJS copy pkg/cache-flows.cjs) both hold one.
import { keptFlows } from '../flows.mjs';
import { DEFAULT_CONV_SEGMENT } from '../protocol.mjs';

/** @typedef {import('../../pkg/web/mcp_result_cache.js').CacheChange} CacheChange */
/** @typedef {{ uri: string, convId: string, staleCause: string | null }} Row */
/** @typedef {(options?: { convId?: string }) => Promise<Row[]>} ListEntries */
/**
 * @typedef {{ kind: string, count?: number, convId?: unknown, uri?: string, reason?: string }} Happening an `onEvent` event
 */

/**
 * The flow policy of a cache made with `options`, checked at once (a bad `flows` is a
 * `TypeError`, before any other option is looked at), the reporter of its refusals to the
 * `onEvent` observer of the same options, and the options to hand the WebAssembly constructor:
 * `onEvent` is read once, here, and that value is what the constructor reads too (a view of
 * `options` answering it; every other option is read from `options` itself, when the constructor
 * reads it). A getter of `options` that throws is a `TypeError` naming the option, as the
 * WebAssembly constructor says of the others.
 * @param {unknown} options the `ResultCache` constructor's
 * @param {() => { entries: ListEntries }} cache the cache being made (called after its construction), to list its entries
 */
export function cacheFlows(options, cache) {
  const read = (/** @type {string} */ key) => {
    try {
      return /** @type {Record<string, unknown> | null | undefined} */ (options)?.[key];
    } catch {
      throw new TypeError(`could not read \`${key}\` (a getter threw, or the object is a revoked Proxy)`);
    }
  };
  const flows = keptFlows(read('flows'), 'ResultCache');
  const onEvent = read('onEvent');
  const changes = cacheChanges(cache);
  // What the constructor reads as `onEvent`: an observer of the events that calls the caller's,
  // or the caller's value itself when it is no function (the constructor's TypeError says so).
  const observer = onEvent == null || typeof onEvent === 'function' ? (/** @type {Happening} */ event) => {
    changes.note(event);
    onEvent?.call(null, event);
  } : onEvent;
  return {
    ...changes,
    /** The `flows` option (checked above): an object as a frozen copy; `"any"` when absent. */
    flows: /** @type {import('../../pkg/web/mcp_result_cache.js').FlowPolicy} */ (flows ?? 'any'),
    /**
     * What the WebAssembly constructor is given: the caller's options, whatever they are (the
     * constructor checks them and throws the `TypeError`), typed as what it accepts.
     * @type {import('../../pkg/web/mcp_result_cache.js').ResultCacheOptions | undefined}
     */
    options: options == null
      ? /** @type {import('../../pkg/web/mcp_result_cache.js').ResultCacheOptions} */ ({ onEvent: observer })
      : typeof options === 'object'
      ? /** @type {import('../../pkg/web/mcp_result_cache.js').ResultCacheOptions} */ (new Proxy(options, { get: (target, key) => (key === 'onEvent' ? observer : Reflect.get(target, key)) }))
      // Not an object: handed on as given, for the constructor's TypeError.
      : /** @type {undefined} */ (/** @type {unknown} */ (options)),
    /**
     * Hands `onEvent` a new `blocked` event with the `from`, `to` (server names; `null` when
     * absent), `toolName` and `uris` of `flow`; a `flow` that is not one, or cannot be read, is a
     * `TypeError`. An observer that throws changes nothing, as for every other event.
     * @param {unknown} flow
     */
    report(flow) {
      let event;
      try {
        const { from = null, to = null, toolName, uris } = /** @type {Record<string, unknown>} */ (flow);
        event = { kind: 'blocked', from, to, toolName, uris: [.../** @type {string[]} */ (uris)] };
        if (!Array.isArray(uris) || [from ?? '', to ?? '', toolName, ...event.uris].some((name) => typeof name !== 'string')) throw 0;
      } catch {
        throw new TypeError('reportBlockedFlow expects { from, to, toolName, uris }');
      }
      try {
        if (typeof onEvent === 'function') onEvent.call(null, event);
      } catch {
        // the observer's failure is not the caller's
      }
    },
  };
}

/**
 * The subscribers of one cache, and what each change is: a write's event names its conversation
 * and reference; a clear's `evict` event names neither (the clear itself brings them: the
 * conversation it was given and the entries listed in the same run, see `clear`); an
 * invalidation's event names neither, so the entries are listed after it to find the stale ones.
 * Changes are told in the order they happened, each after the one before; nothing is done for a
 * change nobody subscribed to, and a listener that throws changes nothing.
 * @param {() => { entries: ListEntries }} cache the cache (after its construction)
 */
function cacheChanges(cache) {
  /** @type {Set<(change: CacheChange) => void>} */
  const listeners = new Set();
  // The listeners of the moment: one subscribed while a change is told hears the later ones only.
  const emit = (/** @type {CacheChange} */ change) => [...listeners].forEach((listener) => {
    try {
      if (listeners.has(listener)) listener(change);
    } catch {
      // a listener's failure is not the cache's
    }
  });
  /**
   * The clears called, not yet told, in call order (their `evict` events come in that order):
   * each with its conversation and, when someone listened, the listing of it made in the same run.
   * @type {{ convId: unknown, before: Promise<Row[] | null> | null }[]}
   */
  const clears = [];
  /** @param {Happening} happening @param {Promise<Row[]> | null} marked the listing of a stale mark, made where it happened */
  const tell = async ({ kind, count = 0, convId, uri, reason }, marked) => {
    // As the cache takes a conversation id: `String(id)`.
    if (kind === 'write') emit({ kind, convId: String(convId), uris: [String(uri)] });
    else if (kind === 'evict' && reason === 'clearConversation') {
      // A clear's own event, where the cache made the change: told with what was listed, or
      // `null` when the clear removed more than was listed (chatbox-core's database too).
      const clear = clears.shift();
      const rows = clear && await clear.before;
      if (clear) emit({ kind: 'clear', convId: String(clear.convId), uris: rows && rows.length === count ? rows.map((row) => row.uri) : null });
    } else if (kind === 'evict' && count > 0) emit({ kind, convId: null, uris: null });
    else if (kind === 'invalidate' && count > 0) {
      /** @type {Map<string, string[]>} */
      const stale = new Map();
      for (const row of (await marked) ?? []) if (row.staleCause !== null) stale.set(row.convId, [...(stale.get(row.convId) ?? []), row.uri]);
      stale.forEach((uris, id) => emit({ kind: 'stale', convId: id, uris }));
    }
  };
  let chain = Promise.resolve();
  const feed = (/** @type {Happening} */ happening) => {
    if (!listeners.size && !clears.length) return;
    // The stale entries are listed at once (out of the cache's call, in the next microtask: before
    // any call made after the invalidation's answer), so a later clear cannot hide them.
    const marked = happening.kind === 'invalidate' && (happening.count ?? 0) > 0 && listeners.size
      ? Promise.resolve().then(() => cache().entries()).catch(() => []) : null;
    chain = chain.then(() => tell(happening, /** @type {Promise<Row[]> | null} */ (marked))).catch(() => {});
  };
  return {
    /** An `onEvent` event, handed over. */
    note: feed,
    /**
     * `inner.clearConversation(convId)`, queued for its event; with listeners, first lists the conversation with
     * `inner.entries` in the same synchronous run (so in call order it sees exactly what the
     * clear removes). The clear is told at its own `evict` event, among the changes in the order
     * the cache made them. A bad `convId` rejects both: the clear's error is the caller's, and
     * nothing is told.
     * @template T @param {unknown} convId @param {{ entries: ListEntries, clearConversation(convId: unknown): Promise<T> }} inner
     */
    clear(convId, inner) {
      // A missing conversation is the default one (its exact id), as for every other call. Each
      // clear is queued, listened to or not: its event must not take a later clear's place.
      const id = convId ?? DEFAULT_CONV_SEGMENT;
      const clear = { convId: id, before: listeners.size ? inner.entries({ convId: /** @type {string} */ (id) }).catch(() => null) : null };
      clears.push(clear);
      const cleared = inner.clearConversation(convId);
      // Failed: no event will tell it.
      cleared.catch(() => clears.includes(clear) && clears.splice(clears.indexOf(clear), 1));
      return cleared;
    },
    /**
     * Calls `listener` with every later change of the cache; answers the function that stops it.
     * @param {unknown} listener
     * @returns {() => void}
     */
    subscribe(listener) {
      if (typeof listener !== 'function') throw new TypeError('subscribe expects a function');
      listeners.add(/** @type {(change: CacheChange) => void} */ (listener));
      return () => {
        listeners.delete(/** @type {(change: CacheChange) => void} */ (listener));
      };
    },
  };
}
