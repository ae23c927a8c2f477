// Walks over caller JS values that are plain JS to write and cost far more as catching bindings
// in WebAssembly: the shape check of a payload (src/cache/payload.rs), the UTF-8 length of its
// JSON, the parse of a JSON text that must read back exactly (src/pipeline/content/split.rs), the canonical JSON of a call's arguments and the data properties it defines (src/js_args.rs), and the order of the objects
// `entries()` answers (src/bindings/result_cache.rs). One file: the test runner and the browser fetch each
// snippet file as a module of its own.

// ---- UTF-8 length ----
// A result's size is the UTF-8 byte length of its JSON (docs/PROTOCOL.md). An ASCII-only string
// (most JSON) costs one regular-expression scan; any other is encoded by `TextEncoder` (a lone
// surrogate becomes U+FFFD, 3 bytes, as `core::size::utf8_len_of_utf16` counts it). Measured
// and not kept: `encodeInto` a chunk at a time into one reused buffer, 10× faster in Node but
// not in Chromium, where every call copies the string it is given into the browser's own (an
// 8 MB write+read took 2.6× as long).
const NON_ASCII = /[\u0080-\uffff]/;
/** @type {TextEncoder | undefined} */
let utf8Encoder;
/** @param {string} text */
export function utf8Length(text) {
  if (!NON_ASCII.test(text)) return text.length;
  return (utf8Encoder ??= new TextEncoder()).encode(text).length;
}

// ---- Exact JSON ----
// A text block's JSON as the data it holds, or `undefined`: not JSON, or not read back exactly as
// the server sent it. `JSON.parse` rounds an integer literal past 2^53 (a 64-bit id) to the
// nearest double, so 60 distinct ids could read back as one; such a text stays text (the text
// rules store it as it is). Only a text with 16 digits in a row can hold one (an exponent
// form is a float, as approximate on the server as here); it is parsed with a reviver that
// counts any number from 2^53 on as rounded (2^53 itself is what 2^53 + 1 rounds to; an exact
// one, such as 2^60, too: a reviver's `context.source` is not in every engine yet).
/** @param {string} text @returns {unknown} */
export function mcpExactJson(text) {
  let exact = true;
  try {
    const value = JSON.parse(text, /\d{16}/.test(text) ? (_, v) => ((exact &&= typeof v != 'number' || Math.abs(v) < 2 ** 53), v) : undefined);
    return exact ? value : undefined;
  } catch {
    return undefined;
  }
}

// ---- Payload shape ----
// What the byte budget can count: plain JSON data. The cache sizes a payload by its JSON, but
// IndexedDB stores the structured clone of the object itself; the two agree only for plain JSON
// data. An ArrayBuffer, typed array, Map, Set or Blob serializes to `{}` (or a fraction of its
// bytes) yet is stored whole; a prototype `toJSON` hides what is stored. Such payloads are
// refused, as is nesting deeper than the limit (it cannot be read back reliably).
//
// Returns 0 for plain JSON data, 1 for a value whose stored form differs from its JSON, 2 for
// nesting deeper than `maxDepth`. Iterative (no recursion limit), one pass, no key array per
// object: the keys are listed by `for…in`, which also lists the enumerable properties an object
// inherits. The objects walked inherit only from `Object.prototype` (or nothing), which has none
// unless polluted; when it is, each key is also checked to be the object's own. (A getter on the
// way that pollutes it can only make the walk see more, so refuse a payload: it never counts less
// than is stored.) `for…in` takes half the time of `Object.keys` here (0.69 against 1.26 ms for
// a 1 MB payload of rows, Node).
/** @param {unknown} value @param {number} maxDepth @returns {0 | 1 | 2} */
export function payloadShape(value, maxDepth) {
  let polluted = false;
  for (const _ in Object.prototype) polluted = true;
  /** @type {unknown[]} */
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
    for (const key in v) {
      if (polluted && !Object.hasOwn(v, key)) continue;
      const item = /** @type {Record<string, unknown>} */ (v)[key];
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
  /** @param {unknown} item @returns {string} */
  function canonicalWrite(item, depth = 0) {
    if (depth > depthLimit) throw 0;
    /** @type {(inner: unknown) => string | undefined} */
    const next = (inner) => (inner === undefined || typeof inner === 'function' ? undefined : canonicalWrite(inner, depth + 1));
    if (Array.isArray(item)) {
      if (item.length > itemLimit) throw 0;
      return `[${Array.from(item, (/** @type {unknown} */ inner) => next(inner) ?? 'null').join()}]`;
    }
    if (typeof item === 'object' && item !== null && typeof (/** @type {{ toJSON?: unknown }} */ (item)).toJSON !== 'function') {
      /** @type {string[]} */
      const members = [];
      for (const key of Object.keys(item).sort()) {
        const text = next(/** @type {Record<string, unknown>} */ (item)[key]);
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

// ---- Entry lists ----
// `entries()` answers its objects oldest first. `Array.prototype.sort` is stable (ES2019): entries
// added in the same millisecond keep the store's order. A sort in Rust is code per element type
// (851 B gzip of the host `.wasm` for this one list); here it is one line.
/** @param {{ addedAt: number }[]} list @returns {void} */
export function mcpSortByAddedAt(list) {
  list.sort((a, b) => a.addedAt - b.addedAt);
}

// ---- Data properties ----
// A plain data property (enumerable, writable, configurable) defined by
// `Reflect.defineProperty`, with its descriptor written as a literal: one binding instead of the
// descriptor's four `Reflect.set` and the `defineProperty` (src/js_args.rs's `define_key`, −0.1 KB
// gzip of the host `.wasm`). A target that refuses it is left as it is, as before.
/** @param {object} target @param {PropertyKey} key @param {unknown} value @returns {void} */
export function mcpDefine(target, key, value) {
  try {
    Reflect.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } catch {
    // Not an object, or a Proxy whose trap throws: nothing is defined.
  }
}

// ---- Well-formed strings ----
// Whether a string has no lone surrogate (what ES2024's `String.prototype.isWellFormed` answers):
// in a `u` regular expression a surrogate pair is one code point, so only a lone surrogate is a
// `\p{Cs}`. One call instead of js-sys's `is_valid_utf16`, which crosses into JS once per UTF-16
// unit and decodes them in Rust (src/js_args.rs's `text`).
const LONE_SURROGATE = /\p{Cs}/u;
/** @param {string} text @returns {boolean} */
export function mcpWellFormed(text) {
  return !LONE_SURROGATE.test(text);
}
