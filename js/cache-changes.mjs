// What a change of a cache is, for `ResultCache#subscribe` (docs/REACT.md, "Following a cache"):
// js/src/cache-flows.mjs keeps the listeners and hands over, in order, the cache's `onEvent`
// events and the clears it made, and this module (loaded on the first change anybody listens
// to, so the browser entry does not carry it) tells each as a change with its conversation and
// references. A write's event has both; a clear's `evict` event has neither (the clear itself
// brings them: the conversation it was given and the entries listed in the same run); an
// invalidation's event has neither, so the entries are listed after it to find the stale ones.

/**
 * @typedef {import('../pkg/web/mcp_result_cache.js').CacheChange} CacheChange
 * @typedef {{ uri: string, convId: string, staleCause: string | null }} Row
 * @typedef {{ kind: string, count?: number, convId?: unknown, uri?: string, reason?: string, rows?: Row[] | null }} Happening
 *   an `onEvent` event, or `{ kind: "cleared", convId, rows }` (the clear's argument and the rows listed before it)
 */

/**
 * Tells `listeners` the change `happening` is, if it is one; `cache` is the cache (its `entries`).
 * A listener that throws changes nothing.
 * @param {Happening} happening
 * @param {Set<(change: CacheChange) => void>} listeners
 * @param {{ entries(options?: { convId?: string }): Promise<Row[]> }} cache
 */
export async function tell(happening, listeners, cache) {
  const emit = (/** @type {CacheChange} */ change) => listeners.forEach((listener) => {
    try {
      listener(change);
    } catch {
      // a listener's failure is not the cache's
    }
  });
  const { kind, count = 0, convId, uri, reason, rows } = happening;
  if (kind === 'write') emit({ kind, convId: String(convId), uris: [String(uri)] });
  // As the cache takes a conversation id: `String(id)`, `"default"` when absent.
  else if (kind === 'cleared') emit({ kind: 'clear', convId: String(convId), uris: rows ? rows.map((row) => row.uri) : null });
  // A clear's own `evict` event: its change is the `cleared` one.
  else if (kind === 'evict' && count > 0 && reason !== 'clearConversation') emit({ kind, convId: null, uris: null });
  else if (kind === 'invalidate' && count > 0) {
    /** @type {Map<string, string[]>} */
    const stale = new Map();
    for (const row of await cache.entries().catch(() => [])) if (row.staleCause !== null) stale.set(row.convId, [...(stale.get(row.convId) ?? []), row.uri]);
    stale.forEach((uris, id) => emit({ kind: 'stale', convId: id, uris }));
  }
}
