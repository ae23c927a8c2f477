// Page → server: a reference minted in the page (a client-side tool's result, stored in the
// page's cache) resolved by a server-side tool of the same chat. Part of `mcp-result-cache/ai-sdk`.
//
// The server's cache does not hold the page's entries, and the page does not send them with
// every request. The exchange rides on the AI SDK's tool approval, which already pauses a
// server-side call until the page answers:
//
//   1. A server tool's call carries, in a `<name>_uri` argument (where substitution looks; any
//      other argument is the tool's own), a reference its cache misses. With the `pageReferences`
//      option (the request's `pageReferences` field, `[]` when the page sent none), the call
//      needs approval: the tool's `needsApproval` answers `true`, and under AI SDK 7's
//      `toolApproval` (which the AI SDK asks instead) `cacheToolApproval` answers
//      `user-approval`, through the approval hook each tool made here carries. The stream ends
//      with the call `approval-requested`.
//   2. The page answers the approval (`addToolApprovalResponse`). Its transport attaches, to
//      that one request, the payloads of exactly the references in the `<name>_uri` arguments
//      of the calls it approved that its own cache holds (`pageReferencePayloads`), each within
//      `maxEntryBytes`.
//   3. The route passes them as `pageReferences`. They serve only the calls approved in this
//      request (the approval response is in the AI SDK's messages of the call); any other call
//      of the request that passes the same reference asks for its own approval. Before the
//      approved call runs, each payload it references is stored in the server's cache under the conversation, with the page
//      entry's tool and server as its source, whatever its size (`cacheToolResult` with
//      `threshold: 0`: the cache's `maxEntryBytes` bounds it), and the
//      call's references are rewritten to the new entries (JSON Pointer fragments kept). The
//      pipeline then substitutes them as any reference, and the flow policy judges the flow
//      with the client tool's server as its source: a denied flow is refused, a flow the policy
//      asks about was answered by this very approval. The flows name the page's references as the
//      model passed them (`passedUris`, the pipeline's `aliases`), never the server's copies.
import { CACHE_URI_SCHEME, UNKNOWN_SOURCE_TOOL, hasCacheScheme, isServerName, isToolName } from './protocol.mjs';
import { isPlainObject, referenceArgs, setOwn } from './tool-pipeline.mjs';
import { approvalHookOf, findApproval, registerApprovalHook } from './approval.mjs';

/**
 * A payload the page sent for one of its references.
 * @typedef {{ uri: string, payload: object, sourceToolName?: string, sourceServer?: string }} PageReference
 */
/**
 * The cache methods used here (a `ResultCache`).
 * @typedef {{
 *   lookup(uri: string, options: object): Promise<{ status: string, payload?: unknown }>,
 *   cacheToolResult(input: object): Promise<string | null>,
 *   entries(options: object): Promise<Array<{ uri: string, sourceToolName: string, sourceServer?: string }>>,
 *   stats(): Promise<{ maxEntryBytes: number }>,
 * }} ReferenceCache
 */
/** A tool as `wrapAiSdkTools` answers it: read loosely, its functions called as they are. @typedef {Record<string, unknown>} LooseTool */

const ENTRY_TYPE = `pageReferences must be an array of { uri: "${CACHE_URI_SCHEME}…" without a fragment, payload: object or array, sourceToolName?: string without U+001F, sourceServer?: a server's name (non-empty, no U+001F, no lone surrogate) }`;

/**
 * An input whose page references were rewritten to the server's copies → those copies' references
 * back to what the model passed (the pipeline's `aliases`: the flow policy, its `Flow.uris` and
 * `_refused_uris` name references as the model passed them).
 * @type {WeakMap<object, ReadonlyMap<string, string>>}
 */
const passedAs = new WeakMap();

/**
 * The references of `input` that are a page reference's server copy, each → the page reference
 * the model passed; `undefined` for an input nothing was rewritten in.
 * @param {unknown} input
 * @returns {ReadonlyMap<string, string> | undefined}
 */
export const passedUris = (input) => (isPlainObject(input) ? passedAs.get(input) : undefined);

/** A reference without its `#/pointer` fragment. */
const baseOf = (/** @type {string} */ uri) => (uri.includes('#') ? uri.slice(0, uri.indexOf('#')) : uri);

/**
 * The `pageReferences` option checked: `null` when absent, else the payloads by reference.
 * @param {Record<string, unknown>} options
 * @param {string} who
 * @returns {Map<string, PageReference> | null}
 * @throws {TypeError} on anything but an array of well-formed entries
 */
export function checkPageReferences(options, who) {
  const given = options.pageReferences;
  if (given === undefined) return null;
  if (!Array.isArray(given)) throw new TypeError(`${who}: ${ENTRY_TYPE}`);
  if (options.cache === undefined) throw new TypeError(`${who}: pageReferences needs a cache (the server's, which stores the page's payloads)`);
  /** @type {Map<string, PageReference>} */
  const byUri = new Map();
  for (const entry of given) {
    const ok = isPlainObject(entry) && typeof entry.uri === 'string' && hasCacheScheme(entry.uri) && !entry.uri.includes('#') && entry.payload !== null
      && typeof entry.payload === 'object'
      && (entry.sourceToolName == null || entry.sourceToolName === '' || isToolName(entry.sourceToolName))
      && (entry.sourceServer == null || isServerName(entry.sourceServer));
    if (!ok) throw new TypeError(`${who}: ${ENTRY_TYPE}`);
    const { uri, payload, sourceToolName, sourceServer } = /** @type {PageReference} */ (/** @type {unknown} */ (entry));
    byUri.set(uri, { uri, payload, sourceToolName, sourceServer });
  }
  return byUri;
}

/**
 * The references a tool input passes: those substitution resolves, in its `<name>_uri` arguments
 * (`referenceArgs`). A reference in any other argument is the tool's own string: neither asked
 * for, sent, nor rewritten.
 * @param {unknown} input
 * @returns {string[]}
 */
export function referencesIn(input) {
  return referenceArgs(input).flatMap(([, value]) => value);
}

/**
 * The same tools, with page references resolved (see the top of this file). Tools without
 * `execute` are returned as they are.
 * @param {Record<string, LooseTool>} tools wrapped tools (`wrapAiSdkTools`' answer)
 * @param {{ cache: ReferenceCache, conversation: (options: unknown) => unknown, received: Map<string, PageReference> }} context
 * @returns {Record<string, LooseTool>}
 */
export function withPageReferences(tools, { cache, conversation, received }) {
  /** Page references stored in the server's cache in this request: page reference → server's. @type {Map<string, Promise<string | null>>} */
  const stored = new Map();
  // Stored whatever its size: the call references it, so the cache's `threshold` (which decides
  // whether a tool's result is worth a reference) does not apply; `maxEntryBytes` does.
  const store = (/** @type {PageReference} */ entry, /** @type {unknown} */ convId) => {
    let done = stored.get(entry.uri);
    if (!done) {
      done = cache.cacheToolResult({
        payload: entry.payload, convId, sourceToolName: entry.sourceToolName ?? UNKNOWN_SOURCE_TOOL, threshold: 0,
        ...(entry.sourceServer ? { server: entry.sourceServer } : {}),
      // Not stored (over maxEntryBytes, a payload the cache refuses, the storage failed: an
      // `error` event of the cache): the reference stays missing. What the page sent never
      // throws here, inside the AI SDK's approval, where a rejection ends the process.
      }).catch(() => null);
      stored.set(entry.uri, done);
    }
    return done;
  };

  /**
   * The input with every reference the server misses and the page sent rewritten to the server's
   * entry, and the references still missing. The page's payloads serve only a call the user
   * approved in this request (its approval response is in the AI SDK's `options.messages`): the
   * page sent them for that call, and any other call of the request asks for its own approval.
   * @param {unknown} input
   * @param {unknown} options the AI SDK's options of the call (`toolCallId`, `messages`)
   */
  async function resolve(input, options) {
    const convId = conversation(options);
    const call = isPlainObject(options) ? options : {};
    // Looked for once, and only when the page sent a payload for a reference the server misses.
    /** @type {boolean | undefined} */
    let approved;
    /** @type {Map<string, string>} */
    const rewrite = new Map();
    /** @type {string[]} */
    const missing = [];
    for (const uri of new Set(referencesIn(input))) {
      const base = baseOf(uri);
      // A reference the cache refuses (malformed: a lone surrogate) or cannot read now is not
      // the page's: the pipeline answers it with its envelope, never a rejection here (inside
      // the AI SDK's approval, a rejection fails the whole turn).
      const seen = await cache.lookup(base, { convId }).catch(() => null);
      if (seen?.status !== 'miss') continue;
      const sent = received.get(base);
      const entry = sent && (approved ??= findApproval(call.messages, call.toolCallId)?.approved === true) ? sent : undefined;
      const now = entry ? await store(entry, convId) : null;
      if (now) rewrite.set(uri, now + uri.slice(base.length));
      else missing.push(uri);
    }
    if (rewrite.size === 0) return { input, missing };
    const swap = (/** @type {string} */ v) => rewrite.get(v) ?? v;
    const out = { ...(/** @type {Record<string, unknown>} */ (input)) };
    for (const [key, value] of referenceArgs(input)) out[key] = Array.isArray(value) ? value.map(swap) : swap(value);
    passedAs.set(out, new Map([...rewrite].map(([passed, copy]) => [copy, passed])));
    return { input: out, missing };
  }

  /** @type {Record<string, LooseTool>} */
  const out = {};
  for (const [name, tool] of Object.entries(tools)) {
    const { execute, needsApproval } = tool;
    if (typeof execute !== 'function') {
      setOwn(out, name, tool);
      continue;
    }
    const wrapped = { ...tool };
    // Asked before the call runs, and again right before an approved call runs: then with the
    // page's payloads, which the tool's own approval (the flow policy) judges.
    wrapped.needsApproval = async (/** @type {unknown} */ input, /** @type {unknown} */ options) => {
      const { input: resolved, missing } = await resolve(input, options);
      const own = typeof needsApproval === 'function' ? await needsApproval.call(tool, resolved, options) : needsApproval === true;
      return own === true || missing.length > 0;
    };
    if (execute.constructor?.name === 'AsyncGeneratorFunction') {
      wrapped.execute = async function* (/** @type {unknown} */ input, /** @type {unknown} */ options) {
        const { input: resolved } = await resolve(input, options);
        yield* execute.call(tool, resolved, options);
      };
    } else {
      wrapped.execute = async (/** @type {unknown} */ input, /** @type {unknown} */ options) =>
        execute.call(tool, (await resolve(input, options)).input, options);
    }
    // `cacheToolApproval` asks the tool's approval hook instead of `needsApproval`: the same
    // two questions, with the page's payloads resolved first.
    // One approval's checks share `memo`: the page's references are looked up once for them
    // all, and the input they hand on is one object, so the tool's own hook resolves it once.
    const hook = approvalHookOf(tool);
    if (hook) {
      /** @type {WeakMap<object, ReturnType<typeof resolve>>} */
      const resolvedIn = new WeakMap();
      const resolveOnce = (/** @type {unknown} */ input, /** @type {unknown} */ options, /** @type {object} */ memo) => {
        let made = resolvedIn.get(memo);
        if (!made) resolvedIn.set(memo, made = resolve(input, options));
        return made;
      };
      registerApprovalHook(wrapped, {
        async flowReason(input, options, memo) {
          const { input: resolved, missing } = await resolveOnce(input, options, memo);
          const flows = await hook.flowReason(resolved, options, memo);
          const page = missing.length > 0 ? pageReason(name, missing) : null;
          return page && flows ? `${page} ${flows}` : page ?? flows;
        },
        async ownStatus(input, options, memo) {
          return hook.ownStatus((await resolveOnce(input, options, memo)).input, options, memo);
        },
        async dispatched(input, options, memo) {
          return hook.dispatched((await resolveOnce(input, options, memo)).input, options, memo);
        },
      });
    }
    setOwn(out, name, wrapped);
  }
  return out;
}

/**
 * What the person approving a call that needs the page's data is told: the tool (the host's name
 * for it) and how many references, never the data, nor the references themselves (strings the
 * model wrote: the approval shows the call's input anyway).
 */
const pageReason = (/** @type {string} */ tool, /** @type {string[]} */ missing) =>
  `${tool} needs data this page holds (${missing.length} reference${missing.length === 1 ? '' : 's'}); approving sends it to the server.`;

/**
 * In the page: the payloads a request must carry for the server — those of the references in
 * the inputs of the tool calls the page approved and that have not run yet (tool parts in the
 * `approval-responded` state, approved), that `cache` holds for `convId`, at most
 * `maxEntryBytes` bytes of JSON each (default: the cache's own `maxEntryBytes`). References the
 * page does not hold, or holds stale, are left out; each entry is sent once per request.
 * @param {ReferenceCache} cache
 * @param {{ convId: string | number, messages: ReadonlyArray<{ role?: string, parts?: ReadonlyArray<unknown> }>, maxEntryBytes?: number }} options
 * @returns {Promise<PageReference[]>}
 */
export async function pageReferencePayloads(cache, options) {
  if (cache === null || typeof cache !== 'object' || typeof cache.lookup !== 'function' || typeof cache.entries !== 'function') {
    throw new TypeError('pageReferencePayloads needs the page\'s ResultCache');
  }
  if (!isPlainObject(options) || (typeof options.convId !== 'string' && typeof options.convId !== 'number') || !Array.isArray(options.messages)) {
    throw new TypeError('pageReferencePayloads needs { convId: the chat\'s id, messages: the chat\'s UI messages }');
  }
  const { convId, messages } = options;
  if (options.maxEntryBytes !== undefined && !(typeof options.maxEntryBytes === 'number' && options.maxEntryBytes >= 0)) {
    throw new TypeError('pageReferencePayloads: maxEntryBytes must be a non-negative number');
  }
  const limit = options.maxEntryBytes ?? (await cache.stats()).maxEntryBytes;
  /** @type {Set<string>} */
  const wanted = new Set();
  for (const message of messages) {
    if (message?.role !== 'assistant' || !Array.isArray(message.parts)) continue;
    for (const part of message.parts) {
      if (!isPlainObject(part) || part.state !== 'approval-responded' || !isPlainObject(part.approval) || part.approval.approved !== true) continue;
      for (const uri of referencesIn(part.input)) wanted.add(baseOf(uri));
    }
  }
  if (wanted.size === 0) return [];
  const known = new Map((await cache.entries({ convId })).map((e) => [e.uri, e]));
  /** @type {PageReference[]} */
  const out = [];
  for (const uri of wanted) {
    const entry = known.get(uri);
    if (!entry) continue;
    const found = await cache.lookup(uri, { convId });
    if (found.status !== 'hit') continue;
    const { payload } = found;
    if (payload === null || typeof payload !== 'object') continue;
    if (new TextEncoder().encode(JSON.stringify(payload)).length > limit) continue;
    out.push({ uri, payload, sourceToolName: entry.sourceToolName, ...(entry.sourceServer ? { sourceServer: entry.sourceServer } : {}) });
  }
  return out;
}
