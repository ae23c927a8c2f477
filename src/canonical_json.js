// The canonical JSON of a call's arguments (src/js_args.rs, `canonical_json`): JSON with object
// keys sorted at every level, so two argument objects are "the same call" when their forms are
// equal. Walking a JS value and sorting its keys is plain JS; in WebAssembly every step was a
// catching binding.

// The form, or `undefined` when the value has none: a cycle or nesting deeper than `depthLimit`,
// a BigInt, an array longer than `itemLimit`, or anything on the way that throws (a revoked
// `Proxy`, a throwing getter). Object keys are the own enumerable ones (`Object.keys`); as in
// `JSON.stringify`, `undefined` and functions are left out of objects and are `null` in arrays,
// and a value with a `toJSON` method is what `JSON.stringify` makes of it.
export function mcpCanonicalJson(value, depthLimit, itemLimit) {
  function canonicalWrite(item, depth = 0) {
    if (depth > depthLimit) throw 0;
    const next = (inner) => (inner === undefined || typeof inner === 'function' ? undefined : canonicalWrite(inner, depth + 1));
    if (Array.isArray(item)) {
      if (item.length > itemLimit) throw 0;
      return `[${Array.from(item, (inner) => next(inner) ?? 'null').join()}]`;
    }
    if (typeof item === 'object' && item !== null && typeof item.toJSON !== 'function') {
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
