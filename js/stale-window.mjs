// Stale notifications against calls still open: a server may answer a call and then report its
// data stale (or compute the answer from data it reports stale while the call runs), and the
// notification can be applied before the answer is written. Every call open when a notification
// arrives notes it; once the call's result is written, what it noted is applied again, so the
// new entry is stale too when it matches. Used by wrapMcpClient (js/mcp-client-core.mjs).

/** Most distinct notifications one open call notes (past it, later ones are applied once only). */
export const MAX_NOTED = 256;

/**
 * An open call: the notifications (by their `params.uri`) that arrived while it was open.
 * @typedef {{ noted: Map<string, unknown> }} OpenCall
 */

/**
 * The window of one wrapped client over its cache.
 * @param {(notification: unknown) => unknown} apply the cache's handling of one notification
 */
export function staleWindow(apply) {
  /** @type {Set<OpenCall>} */
  const open = new Set();
  return {
    /** A notification: noted by every open call, then applied. */
    notify(/** @type {unknown} */ notification) {
      const params = /** @type {{ params?: { uri?: unknown } } | null} */ (notification)?.params;
      const uri = typeof params === 'object' && params !== null ? params.uri : undefined;
      if (typeof uri === 'string') {
        for (const call of open) {
          if (call.noted.size < MAX_NOTED || call.noted.has(uri)) call.noted.set(uri, notification);
        }
      }
      return apply(notification);
    },
    /** A call opens (before it is dispatched). @returns {OpenCall} */
    open() {
      const call = { noted: new Map() };
      open.add(call);
      return call;
    },
    /**
     * The call closes: `written` when its result was stored, and then what it noted is applied
     * again. A storage failure there is an `error` event of the cache, as for the first time.
     * @param {OpenCall} call @param {boolean} written
     */
    async close(call, written) {
      if (!open.delete(call) || !written) return;
      for (const notification of call.noted.values()) {
        try {
          await apply(notification);
        } catch {
          // reported by the cache's `error` event; the result is still the caller's
        }
      }
    },
  };
}
