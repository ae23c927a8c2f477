// What the byte budget can count: plain JSON data. The cache sizes a payload by its JSON, but
// IndexedDB stores the structured clone of the object itself; the two agree only for plain JSON
// data. An ArrayBuffer, typed array, Map, Set or Blob serializes to `{}` (or a fraction of its
// bytes) yet is stored whole; a prototype `toJSON` hides what is stored. Such payloads are
// refused, as is nesting deeper than the limit (it cannot be read back reliably).
//
// Returns 0 for plain JSON data, 1 for a value whose stored form differs from its JSON, 2 for
// nesting deeper than `maxDepth`. Iterative (no recursion limit), one pass, no allocation per
// primitive.
export function payloadShape(value, maxDepth) {
  const values = [value];
  const depths = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop();
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
