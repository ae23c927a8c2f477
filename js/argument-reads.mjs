// Reading a caller's arguments in the JS exports (wrapMcpClient, wrapAiSdkTools,
// cacheToolApproval, toModelOutput, cacheRoute, cacheTools): a read that throws (a getter, a
// Proxy's trap, a revoked Proxy) is a `TypeError`, as docs/API.md promises for every export,
// never the caller's own error passing through.

/**
 * The `TypeError` of `who` for a read of `what` that threw `cause`.
 * @param {string} who @param {string} what @param {unknown} cause
 */
export const unreadable = (who, what, cause) =>
  new TypeError(`${who}: could not read ${what} (a getter threw, or the object is a revoked Proxy)`, { cause });

/**
 * `read()`, or `unreadable(who, what)` when it throws an error `passes` does not let through.
 * @template T
 * @param {string} who @param {() => T} read @param {string} what
 * @param {(error: unknown) => boolean} [passes] the reader's own errors, which stand
 * @returns {T}
 */
export function readable(who, read, what, passes = () => false) {
  try {
    return read();
  } catch (error) {
    if (passes(error)) throw error;
    throw unreadable(who, what, error);
  }
}

/**
 * Runs `check()`, an export's synchronous work over its arguments, and answers what it returns.
 * When it throws:
 * - a `TypeError` of its own (its message begins with `who`) stands;
 * - otherwise each of `probes` (`[value, what, keys?]`) is read again, its `keys` or without
 *   them its top level (`Array.isArray`, `Object.keys`, each own key): a read that throws there
 *   is a `TypeError` naming `what` and the key;
 * - otherwise any other `TypeError` stands, and anything else is a `TypeError` saying that the
 *   arguments could not be read.
 * The error `check` threw is the new one's `cause`.
 * @template T
 * @param {string} who the export, as its messages name it
 * @param {() => T} check
 * @param {[unknown, string, string[]?][]} probes
 * @returns {T}
 */
export function readingArguments(who, check, probes) {
  try {
    return check();
  } catch (error) {
    if (error instanceof TypeError && error.message.startsWith(who)) throw error;
    for (const [value, what, named] of probes) {
      if (value === null || (typeof value !== 'object' && typeof value !== 'function')) continue;
      let keys = named;
      try {
        keys ??= Array.isArray(value) ? [] : Object.keys(value);
      } catch {
        throw unreadable(who, `\`${what}\``, error);
      }
      for (const key of keys) {
        try {
          Reflect.get(value, key);
        } catch {
          throw unreadable(who, `\`${what}.${key}\``, error);
        }
      }
    }
    if (error instanceof TypeError) throw error;
    throw unreadable(who, 'its arguments', error);
  }
}
