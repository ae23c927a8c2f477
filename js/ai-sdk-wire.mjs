// The `omitStoredPayload` option of `wrapAiSdkTools` / `clientToolSet` (js/ai-sdk-core.mjs):
// a stored result's tool output without its copy of the stored payload.
//
// A tool output is what the AI SDK puts into the chat's tool part: `toUIMessageStream` streams
// it to the page and `useChat` posts it back with every later turn. When the pipeline stored a
// result whose data the model was shown whole, the output is the model's text (the visible JSON
// with `_cache_uri`) plus `structuredContent`, the server's own copy of the very payload the
// cache now holds. Without that copy the model sees exactly what it saw before (`toModelOutput`
// reads the content blocks, never `structuredContent` beside them), the references stay (in the
// text and `_meta`), and a page that wants the data reads it by reference (`cacheRoute`).
import { META_URIS_KEY } from './protocol.mjs';
import { isPlainObject, setOwn } from './tool-pipeline.mjs';

/**
 * `true` when `options.omitStoredPayload` asks for it; `false` when it is absent or `false`.
 * @param {Record<string, unknown>} options
 * @param {string} who the function whose option it is, for the error
 * @throws {TypeError} when the option is not a boolean, or is `true` without a `cache`
 */
export function wantsStoredPayloadOmitted(options, who) {
  const { omitStoredPayload } = options;
  if (omitStoredPayload === undefined || omitStoredPayload === false) return false;
  if (omitStoredPayload !== true) throw new TypeError(`${who}: omitStoredPayload must be a boolean`);
  if (options.cache === undefined) {
    throw new TypeError(`${who}: omitStoredPayload needs a cache (without one nothing is stored, so there is no stored payload to omit)`);
  }
  return true;
}

/**
 * `true` for an MCP `CallToolResult` whose data (`structuredContent`) the pipeline stored: the
 * first reference it lists is the data's when the model is shown it, in the visible JSON (its
 * `_cache_uri`) or by the link to it (`… structuredContent`, `application/json`). A result that
 * stored only other blocks (an image) beside small data keeps that data.
 */
function storedItsData(/** @type {unknown} */ output) {
  if (!isPlainObject(output) || !Array.isArray(output.content) || output.isError === true) return false;
  const uris = isPlainObject(output._meta) ? output._meta[META_URIS_KEY] : undefined;
  if (!Array.isArray(uris) || typeof uris[0] !== 'string') return false;
  const data = uris[0];
  const visible = `"_cache_uri":${JSON.stringify(data)}`;
  return output.content.some((block) => isPlainObject(block) && (
    (block.type === 'text' && typeof block.text === 'string' && block.text.includes(visible)) ||
    (block.type === 'resource_link' && block.uri === data && block.mimeType === 'application/json' && String(block.name).endsWith(' structuredContent'))));
}

/**
 * A tool output without the stored payload's copy: a stored `CallToolResult` minus its
 * `structuredContent` (a new object; the output itself is not changed); any other output as is.
 * @param {unknown} output
 * @returns {unknown}
 */
export function withoutStoredPayload(output) {
  if (!storedItsData(output) || !('structuredContent' in /** @type {object} */ (output))) return output;
  const { structuredContent: _stored, ...rest } = /** @type {Record<string, unknown>} */ (output);
  return rest;
}

/**
 * The same tools, each `execute` answering {@link withoutStoredPayload} of what it answered (for
 * a streaming `execute`, of every output it yields: only what the model sees of the stored
 * result, which the wrapped tool yields in place of the tool's last output, changes).
 * Tools without `execute` are returned as they are.
 * @param {Record<string, Record<string, unknown>>} tools wrapped tools (`wrapAiSdkTools`' answer)
 * @returns {Record<string, Record<string, unknown>>}
 */
export function omitStoredPayloads(tools) {
  /** @type {Record<string, Record<string, unknown>>} */
  const out = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (typeof execute !== 'function') {
      setOwn(out, name, tool);
    } else if (execute.constructor?.name === 'AsyncGeneratorFunction') {
      setOwn(out, name, {
        ...tool,
        async* execute(/** @type {unknown[]} */ ...args) {
          for await (const output of execute.apply(tool, args)) yield withoutStoredPayload(output);
        },
      });
    } else {
      setOwn(out, name, { ...tool, execute: async (/** @type {unknown[]} */ ...args) => withoutStoredPayload(await execute.apply(tool, args)) });
    }
  }
  return out;
}
