// Walks over caller JS values that are plain JS to write and cost far more as catching bindings
// in WebAssembly: the shape check of a payload (src/cache/payload.rs), the UTF-8 length of its
// JSON, and the canonical JSON of a call's arguments (src/js_args.rs). One file: the test runner and the browser fetch each
// snippet file as a module of its own.

// ---- UTF-8 length ----
// A result's size is the UTF-8 byte length of its JSON (docs/PROTOCOL.md). `encodeInto` into one
// reused 64 KB buffer, a chunk at a time: nothing the size of the string is allocated, and it is
// 10× faster than scanning for a non-ASCII character (1 MB: 0.06 against 0.6 ms). It never
// splits a surrogate pair (a chunk ends before one that does not fit) and writes a lone
// surrogate as U+FFFD, 3 bytes, as `core::size::utf8_len_of_utf16` counts it. The glue itself
// needs `TextEncoder` with `encodeInto` (it adds the method where it is missing).
/** @type {Uint8Array | undefined} */
let utf8Chunk;
/** @type {TextEncoder | undefined} */
let utf8Encoder;
/** @param {string} text */
export function utf8Length(text) {
  utf8Chunk ??= new Uint8Array(65536);
  utf8Encoder ??= new TextEncoder();
  // An engine without `encodeInto` (none this package supports) measures by encoding whole.
  if (typeof utf8Encoder.encodeInto !== 'function') return utf8Encoder.encode(text).length;
  let total = 0;
  for (let at = 0; at < text.length;) {
    const { read, written } = utf8Encoder.encodeInto(at ? text.substring(at) : text, utf8Chunk);
    if (!read) return total + utf8Encoder.encode(text.substring(at)).length; // never: a chunk holds any code point
    total += /** @type {number} */ (written);
    at += read;
  }
  return total;
}

// ---- Payload shape ----
// What the byte budget can count: plain JSON data. The cache sizes a payload by its JSON, but
// IndexedDB stores the structured clone of the object itself; the two agree only for plain JSON
// data. An ArrayBuffer, typed array, Map, Set or Blob serializes to `{}` (or a fraction of its
// bytes) yet is stored whole; a prototype `toJSON` hides what is stored. Such payloads are
// refused, as is nesting deeper than the limit (it cannot be read back reliably).
//
// Returns 0 for plain JSON data, 1 for a value whose stored form differs from its JSON, 2 for
// nesting deeper than `maxDepth`. Iterative (no recursion limit), one pass, no allocation per
// primitive.
/** @param {unknown} value @param {number} maxDepth @returns {0 | 1 | 2} */
export function payloadShape(value, maxDepth) {
  /** @type {any[]} */
  const values = [value];
  /** @type {number[]} */
  const depths = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = /** @type {number} */ (depths.pop());
    if (v === null || typeof v !== 'object') continue;
    if (depth > maxDepth) return 2;
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) return 1;
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        if (item !== null && typeof item === 'object') {
          values.push(item);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto === Date.prototype) continue; // stored as a Date, shown as its ISO string: same size
    if (proto !== Object.prototype && proto !== null) return 1;
    if ('toJSON' in v) return 1;
    for (const key of Object.keys(v)) {
      const item = v[key];
      if (item !== null && typeof item === 'object') {
        values.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return 0;
}

// ---- Canonical JSON ----
// JSON with object keys sorted at every level, so two argument objects are "the same call" when
// their forms are equal (`reuseImmutable`).
// The form, or `undefined` when the value has none: a cycle or nesting deeper than `depthLimit`,
// a BigInt, an array longer than `itemLimit`, or anything on the way that throws (a revoked
// `Proxy`, a throwing getter). Object keys are the own enumerable ones (`Object.keys`); as in
// `JSON.stringify`, `undefined` and functions are left out of objects and are `null` in arrays,
// and a value with a `toJSON` method is what `JSON.stringify` makes of it.
/** @param {unknown} value @param {number} depthLimit @param {number} itemLimit @returns {string | undefined} */
export function mcpCanonicalJson(value, depthLimit, itemLimit) {
  /** @param {any} item @returns {string} */
  function canonicalWrite(item, depth = 0) {
    if (depth > depthLimit) throw 0;
    /** @type {(inner: unknown) => string | undefined} */
    const next = (inner) => (inner === undefined || typeof inner === 'function' ? undefined : canonicalWrite(inner, depth + 1));
    if (Array.isArray(item)) {
      if (item.length > itemLimit) throw 0;
      return `[${Array.from(item, (/** @type {unknown} */ inner) => next(inner) ?? 'null').join()}]`;
    }
    if (typeof item === 'object' && item !== null && typeof item.toJSON !== 'function') {
      /** @type {string[]} */
      const members = [];
      for (const key of Object.keys(item).sort()) {
        const text = next(item[key]);
        if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
      }
      return `{${members.join()}}`;
    }
    const text = JSON.stringify(item);
    if (typeof text !== 'string') throw 0;
    return text;
  }
  try {
    return canonicalWrite(value);
  } catch {
    return undefined;
  }
}
