// `referencesOf(output)`: the references a tool output carries, in every form this package
// produces, so no host parses text for them. Plain JS over the caller's value (nothing crosses
// into the `.wasm`), bundled into the browser entry, so it is kept small; nothing is mutated and
// nothing read can throw out of it. The scheme and the `_meta` key are the protocol's
// (js/protocol.mjs).
import { hasCacheScheme, META_URIS_KEY } from './protocol.mjs';

/**
 * The references a tool output carries, as reference strings, deduplicated, in order of
 * appearance: a stored result's `_cache_uri` and the values of its `_cache_refs` (a plain
 * object, or the JSON text of a `CallToolResult` block), a `CallToolResult`'s
 * `_meta["mcp-result-cache/uris"]` and its `resource_link` blocks, an AI SDK tool part
 * (`{ type: "tool-…" | "dynamic-tool" | "tool-result", output }`) or its `output`, a model
 * output (`{ type: "json" | "text" | "content", value }`), JSON text of these and arrays of
 * them. Anything else carries none. A value whose reading throws (a getter, a revoked Proxy)
 * carries none, and its siblings are still read.
 * @param {unknown} output
 * @returns {string[]}
 */
export function referencesOf(output) {
  /** @type {Set<string>} */
  const found = new Set();
  // Depth 9 covers the deepest form (a tool part → its output → a model output → a
  // CallToolResult → its blocks → a block → its JSON text → `_cache_refs` → a reference); a
  // self-referencing value ends there.
  const visit = (/** @type {unknown} */ value, /** @type {number} */ depth) => {
    try {
      if (hasCacheScheme(value)) found.add(/** @type {string} */ (value));
      else if (depth < 9 && value) {
        // Only text that is a JSON object is parsed: a preview or a note is not (`_meta` names them).
        if (typeof value === 'string') value.trimStart()[0] === '{' && visit(JSON.parse(value), depth + 1);
        else if (typeof value === 'object') {
          const o = /** @type {{ [key: string]: unknown, _meta?: Record<string, unknown>, _cache_refs?: object }} */ (value);
          const type = /** @type {string} */ (o.type);
          (Array.isArray(o) ? o : [
            o._cache_uri,
            Object.values(o._cache_refs ?? {}),
            o._meta?.[META_URIS_KEY],
            type === 'resource_link' && o.uri,
            /^(text|json|content)$/.test(type) && (o.text ?? o.value),
            /^(tool-|dynamic-tool$)/.test(type) && o.output,
            Array.isArray(o.content) && o.content,
          ]).forEach((item) => visit(item, depth + 1));
        }
      }
    } catch {
      // a value that cannot be read carries no reference
    }
  };
  visit(output, 0);
  return [...found];
}
