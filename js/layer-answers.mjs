// What the tool pipelines (js/tool-pipeline.mjs) answered, and over which cache, so that
// integrations layered over one cache (a wrapped client wrapped again, AI SDK tools made of a
// wrapped client) store a result once: a layer hands on what a layer below answered.

/** The cache a pipeline runs over (js/tool-pipeline.mjs `PipelineCache`): only its identity is used here. @typedef {object} Cache */

/**
 * What each pipeline answered, and for which cache: a layer below that already stored a result
 * (a wrapped client wrapped again, tools made of a wrapped client and wrapped again) hands it
 * back as it is, never stored a second time under a new reference. By identity, so no server
 * can make its own result pass for one (its `_meta` may name references: they are its words).
 * @type {WeakMap<object, Cache>}
 */
const answered = new WeakMap();
/**
 * The same for text (an AI SDK tool's string), which has no identity: the last few texts the
 * cache made of a result (stored, previewed, cut), never one it handed on unchanged, so a
 * server's text equal to an earlier answer of its own (its invalidation signals with it) is
 * still read. A layer above asks at once; a few cover the calls under way. Texts of more than
 * `TEXT_CHARS_KEPT` characters in all are let go, oldest first (only a `maxChars` far above the
 * default makes such answers).
 * @type {Map<string, Cache>}
 */
const answeredTexts = new Map();
const TEXTS_KEPT = 8;
const TEXT_CHARS_KEPT = 1 << 20;
let textChars = 0;

/** `value`, noted as what a pipeline over `cache` answered. @template T @param {Cache} cache @param {T} value @returns {T} */
export const noteAnswer = (cache, value) => {
  if (value !== null && typeof value === 'object') answered.set(value, cache);
  return value;
};

/** `shown`, the text the cache made of `raw` (when it changed it), noted as its answer. @param {Cache} cache @param {unknown} raw @param {unknown} shown */
export const noteText = (cache, raw, shown) => {
  if (typeof shown === 'string' && shown !== raw && shown.length <= TEXT_CHARS_KEPT) {
    if (!answeredTexts.delete(shown)) textChars += shown.length;
    answeredTexts.set(shown, cache);
    for (const oldest of answeredTexts.keys()) {
      if (answeredTexts.size <= TEXTS_KEPT && textChars <= TEXT_CHARS_KEPT) break;
      answeredTexts.delete(oldest);
      textChars -= oldest.length;
    }
  }
  return shown;
};

/** The cache a pipeline answered `value` for (a layer below), if any. @param {unknown} value */
export const answeredFor = (value) => (typeof value === 'string' ? answeredTexts.get(value) : value !== null && typeof value === 'object' ? answered.get(value) : undefined);
