// Short import and export names for a browser build's `.wasm` and its glue (step 1b of
// scripts/web-glue.mjs).
//
// wasm-bindgen names every function the `.wasm` imports from its glue after the JS it calls plus
// a 16-hex-digit hash (`__wbg_createObjectStore_f7cf854ebb8a2b7f`). The name is written twice,
// in the `.wasm`'s import section and as a key of the glue's import object, and the hashes do
// not compress: about 150 imports cost ~2.7 KB of gzip in the `.wasm` alone. This renames each
// import of the glue's module to a short name (`a`, `b`, … `aa`, …) in both places. Nothing else
// changes: exports, other modules' imports (none once snippets are inlined), code.
//
// The rename is checked: every import of the glue's module must be defined exactly once, as an
// object key, in the glue; anything else fails the build. Exports get the same treatment where
// the glue uses them as `wasm.<name>` (the export `memory`, and any export the glue
// never names as `wasm.<name>`, keep their names).

/** Reads an unsigned LEB128 at `at`: `[value, next offset]`. @param {Uint8Array} bytes @param {number} at @returns {[number, number]} */
export function uleb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

/** @param {number} value @returns {number[]} */
function encodeUleb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** @param {Uint8Array} bytes @param {number} at @returns {[string, number]} */
function readName(bytes, at) {
  const [length, start] = uleb(bytes, at);
  return [fromUtf8.decode(bytes.subarray(start, start + length)), start + length];
}

const encodeName = (/** @type {string} */ name) => {
  const encoded = utf8.encode(name);
  return [...encodeUleb(encoded.length), ...encoded];
};

/** The end of an import's description starting at `at` (kind byte included). @param {Uint8Array} bytes @param {number} at */
function skipImportDesc(bytes, at) {
  const kind = bytes[at++];
  const limits = (/** @type {number} */ p) => {
    const flags = bytes[p++];
    [, p] = uleb(bytes, p);
    if (flags & 1) [, p] = uleb(bytes, p);
    return p;
  };
  if (kind === 0) return uleb(bytes, at)[1]; // function: type index
  if (kind === 1) return limits(at + 1); // table: reftype, limits
  if (kind === 2) return limits(at); // memory: limits
  if (kind === 3) return at + 2; // global: valtype, mutability
  if (kind === 4) return uleb(bytes, at + 1)[1]; // tag: attribute, type index
  throw new Error(`unknown import kind ${kind}`);
}

/** `a`, `b`, … `z`, `A` … `Z`, `aa`, `ab`, …: the `n`-th short identifier. */
/** @param {number} n @returns {string} */
function shortName(n) {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let name = '';
  do {
    name = letters[n % letters.length] + name;
    n = Math.floor(n / letters.length) - 1;
  } while (n >= 0);
  return name;
}

const escapeRegExp = (/** @type {string} */ s) => s.replace(/[$]/g, '\\$&');

/**
 * `wasm` with section `id` rebuilt: `rewrite(bytes, p)` is called once per entry of that
 * section's vector, at the entry's offset, and answers `[the new entry's bytes, the next entry's
 * offset]`.
 * @param {Uint8Array} wasm @param {number} id @param {string} what
 * @param {(bytes: Uint8Array, p: number) => [Iterable<number>, number]} rewrite
 */
function rewriteVectorSection(wasm, id, what, rewrite) {
  const bytes = new Uint8Array(wasm);
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw new Error('not a WebAssembly module');
  for (let at = 8; at < bytes.length;) {
    const [size, start] = uleb(bytes, at + 1);
    const end = start + size;
    if (bytes[at] !== id) {
      at = end;
      continue;
    }
    const [count, first] = uleb(bytes, start);
    const body = [...encodeUleb(count)];
    let p = first;
    for (let i = 0; i < count; i += 1) {
      const [entry, next] = rewrite(bytes, p);
      body.push(...entry);
      p = next;
    }
    if (p !== end) throw new Error(`malformed ${what} section`);
    const section = [id, ...encodeUleb(body.length), ...body];
    const out = new Uint8Array(at + section.length + (bytes.length - end));
    out.set(bytes.subarray(0, at), 0);
    out.set(section, at);
    out.set(bytes.subarray(end), at + section.length);
    return out;
  }
  throw new Error(`no ${what} section`);
}

/**
 * Renames the imports `wasm` takes from `module` and the matching keys of `glue`. Returns the
 * new `.wasm` bytes, the new glue and how many imports were renamed.
 * @param {Uint8Array} wasm @param {string} glue @param {string} module
 */
export function shortenImports(wasm, glue, module) {
  let renamed = 0;
  let next = 0;
  // The short name given to each import function's glue (its text after the key), so that
  // imports whose functions are the same text (one JS method bound for two web-sys types, like
  // `count` of IDBObjectStore and IDBIndex) share one name and one function in the glue.
  /** @type {Map<string, string>} */
  const byFunction = new Map();
  const out = rewriteVectorSection(wasm, 2, 'import', (bytes, p) => {
    const [from, afterModule] = readName(bytes, p);
    const [field, afterField] = readName(bytes, afterModule);
    const descEnd = skipImportDesc(bytes, afterField);
    let name = field;
    if (from === module) {
      const key = new RegExp(`(?<=[{,\\s])${escapeRegExp(field)}(?=\\s*:)`, 'g');
      const found = glue.match(key)?.length ?? 0;
      if (found !== 1) throw new Error(`the glue defines import ${field} ${found} times, expected once`);
      // wasm-bindgen writes each import of its object on lines of its own, 8 spaces in:
      // `        <key>: function(…) {…},` up to the next key or the object's end.
      const entry = new RegExp(`\\n {8}${escapeRegExp(field)}: (function\\b[^]*?)(?:,(?=\\n {8}[\\w$]+: )|(?=\\n {4}\\};))`).exec(glue);
      const same = entry ? byFunction.get(entry[1]) : undefined;
      if (entry && same) {
        // The same function as an earlier import's: that name, and this entry left out.
        name = same;
        glue = glue.replace(entry[0], '');
      } else {
        // A short name the glue already uses as a key anywhere (closure state has `a`, `b`) is
        // skipped: the import object's keys stay unique.
        do name = shortName(next++);
        while (new RegExp(`(?<=[{,\\s])${name}(?=\\s*:)`).test(glue));
        glue = glue.replace(key, name);
        if (entry) byFunction.set(entry[1], name);
      }
      renamed += 1;
    }
    return [[...encodeName(from), ...encodeName(name), ...bytes.subarray(afterField, descEnd)], descEnd];
  });
  return { wasm: out, glue, renamed };
}

/**
 * Renames the exports of `wasm` that `glue` uses as `wasm.<name>` (never `memory`) to short
 * names (`$a`, `$b`, …: no clash with the glue's own identifiers or the import names) in both.
 * Returns the new bytes, the new glue and how many were renamed.
 * @param {Uint8Array} wasm @param {string} glue
 */
export function shortenExports(wasm, glue) {
  let renamed = 0;
  const out = rewriteVectorSection(wasm, 7, 'export', (bytes, p) => {
    const [name, afterName] = readName(bytes, p);
    const [, descEnd] = uleb(bytes, afterName + 1); // kind byte, then the index
    let next = name;
    // The glue reaches the module's exports as `wasm.<name>` only (its own functions of the
    // same names, like `matchGlob`, are other identifiers); an export it never names so is
    // left as it is.
    const member = new RegExp(`\\bwasm\\.${escapeRegExp(name)}\\b`, 'g');
    if (name !== 'memory' && member.test(glue)) {
      next = `$${shortName(renamed++)}`;
      if (glue.includes(`wasm.${next}`)) throw new Error(`the glue already uses wasm.${next}`);
      glue = glue.replace(member, `wasm.${next}`);
    }
    return [[...encodeName(next), ...bytes.subarray(afterName, descEnd)], descEnd];
  });
  return { wasm: out, glue, renamed };
}
