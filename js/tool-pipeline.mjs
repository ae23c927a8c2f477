// The by-reference pipeline of one tool call, shared by every integration that runs tools
// (`mcp-result-cache/mcp-client` around the MCP SDK's `Client`, `mcp-result-cache/ai-sdk` around
// AI SDK tools). It imports nothing: each integration brings its own dispatch.
//
// One call: strict-mode empty `<name>_uri` arguments dropped, then `beforeToolCall` (inline cap,
// reuse of immutable results, substitution), then the checks no core function can make without
// the tool's original schema (a reference key the tool never declared, a reference whose value is
// not of the parameter's type), then the flow policy (js/flows.mjs: may the data of each
// resolved reference reach this tool's server; the user may be asked), then the dispatch, then
// `afterToolCall`.
import { checkFlows, flowsOf, judgeFlows, refusedEnvelope } from './flows.mjs';
import { admittedTypes } from './schema-types.mjs';
import { CACHE_URI_SCHEME, DEFAULT_CONV_SEGMENT, URI_ARG_SUFFIX, hasCacheScheme, invalidArgs, memberReference } from './protocol.mjs';
/**
 * The cache methods the pipeline calls (a `ResultCache`): its answers are JSON-like values.
 * @typedef {{
 *   beforeToolCall(name: string, args: unknown, options: object): Promise<any>,
 *   afterToolCall(name: string, result: unknown, options: object): Promise<any>,
 *   substituteCacheUris(args: unknown, options: object): Promise<any>,
 *   reportBlockedFlow?(flow: object): Promise<unknown> | undefined,
 *   observeTools(tools: unknown, origin: object): unknown,
 *   flows?: unknown,
 * }} PipelineCache
 */
/**
 * What an integration passes to one call (see `run`).
 * @typedef {{
 *   convId?: unknown,
 *   origin?: () => { server?: string },
 *   declaredOf: () => Promise<Record<string, unknown> | null>,
 *   dispatch: (args: any) => Promise<unknown>,
 *   retry?: boolean,
 *   passThrough?: (result: unknown) => boolean,
 *   validate?: (args: any) => Promise<{ ok: true, args: any } | { ok: false, envelope: object }>,
 *   annotationsOf?: () => Promise<Record<string, unknown> | null>,
 *   ask?: (flow: import('./flows.mjs').Flow) => Promise<unknown>,
 * }} CallHooks
 */

/** Most ready references a type-mismatch hint names (as `_cache_refs`, `MAX_CACHE_REFS`). */
const MAX_HINT_REFS = 8;

/** The envelope a blocked call answers with, as an MCP `CallToolResult`. */
export function envelopeResult(/** @type {object} */ envelope) {
  return { content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: true };
}

/** A reused LLM-visible value, as an MCP `CallToolResult`. */
export function visibleResult(/** @type {unknown} */ visible) {
  // No structuredContent: the visible value carries `_cache_*` keys (or is a summary), which the
  // tool's outputSchema does not declare.
  return { content: [{ type: 'text', text: JSON.stringify(visible) }] };
}

function strayReferenceEnvelope(/** @type {string} */ toolName, /** @type {string} */ key) {
  return invalidArgs(
    `\`${key}\` must hold an ${CACHE_URI_SCHEME} reference copied verbatim from an earlier result`,
    `Copy the exact \`_cache_uri\` value (or an entry of \`_cache_refs\`) of an earlier tool result into \`${key}\` when calling ${toolName}, or pass \`${key.slice(0, -URI_ARG_SUFFIX.length)}\` itself.`,
  );
}

/** @type {(v: unknown) => v is Record<string, any>} */
export const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `null`, `""` or `undefined`: what strict function-calling modes send for an unused reference argument. */
const isEmptyArg = (/** @type {unknown} */ v) => v === null || v === undefined || v === '';

/** What substitution resolves: a reference, or a non-empty array of references. */
const isReferenceArg = (/** @type {unknown} */ v) => hasCacheScheme(v) || (Array.isArray(v) && v.length > 0 && v.every(hasCacheScheme));

/** The JSON type of a value, as JSON Schema names it (`integer` is a `number`). */
function jsonType(/** @type {unknown} */ value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** `"array"` or `"object"` when that (or `null`) is all a property schema admits, else `null`. */
function containerTypeOf(/** @type {unknown} */ schema) {
  const types = admittedTypes(schema);
  if (!types) return null;
  const kinds = [...types].filter((t) => t !== 'null');
  return kinds.length === 1 && (kinds[0] === 'array' || kinds[0] === 'object') ? kinds[0] : null;
}

const article = (/** @type {string} */ type) => (type === 'null' ? 'null' : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/**
 * The envelope for a reference whose value does not fit the parameter it was meant for.
 * @param {string} toolName
 * @param {string} name
 * @param {unknown} uri
 * @param {string} expected
 * @param {unknown} value
 */
function typeMismatchEnvelope(toolName, name, uri, expected, value) {
  const got = jsonType(value);
  const key = `${name}${URI_ARG_SUFFIX}`;
  /** @type {string[]} */
  const refs = [];
  if (typeof uri === 'string' && isPlainObject(value)) {
    for (const [member, v] of Object.entries(value)) {
      if (refs.length === MAX_HINT_REFS) break;
      if (jsonType(v) !== expected) continue;
      const ref = memberReference(uri, member);
      if (ref) refs.push(ref);
    }
  }
  const fix_hint = refs.length > 0
    ? `The reference points at an object; pass one of its ${expected} members instead, copied verbatim: ${refs.map((r) => `"${r}"`).join(', ')} (as \`${key}\`).`
    : `Pass in \`${key}\` a reference to ${article(expected)} (a \`_cache_refs\` value of an earlier result, or its \`_cache_uri\` followed by #/<member>), or pass \`${name}\` itself.`;
  return {
    error: `type_mismatch: \`${key}\` resolved to ${article(got)} but ${toolName} expects ${article(expected)} for \`${name}\``,
    fix_hint,
    _expected: expected,
    _got: got,
    _uri: uri,
  };
}

/**
 * Pages through a client's \`tools/list\`: \`onPage(page)\` for every page, following \`nextCursor\`
 * until a page has none.
 * @param {{ listTools(params?: { cursor: string }): Promise<any> }} client
 * @param {(page: any) => void} onPage
 */
export async function eachToolPage(client, onPage) {
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    onPage(page);
    cursor = page.nextCursor;
  } while (cursor);
}

/** The top-level properties a JSON Schema declares (`null`: it does not say, so any). */
export function declaredProperties(/** @type {unknown} */ schema) {
  const props = isPlainObject(schema) ? schema.properties : undefined;
  return isPlainObject(props) ? props : null;
}

/**
 * The pipeline options every integration takes, checked once: `{ cache, convId, cap, cappedArgs,
 * maxChars, mediaMaxBytes, view, readTools, flows }` (`view` and `readTools` override the
 * cache's for afterToolCall, `flows` the cache's flow policy). `who` names the caller in
 * `TypeError`s. `convId` is a string or number, or a function returning one (called with what
 * the integration passes to it).
 * @param {any} options
 * @param {string} who
 */
export function createToolPipeline(options, who) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${who} needs { cache: ResultCache }`);
  /** @type {{ cache: PipelineCache, [option: string]: any }} */
  const { cache, convId, cap, cappedArgs, maxChars, mediaMaxBytes, view, readTools, flows } = options;
  if (cache === null || typeof cache !== 'object' || typeof cache.beforeToolCall !== 'function' || typeof cache.afterToolCall !== 'function') {
    throw new TypeError(`${who} needs { cache: ResultCache }`);
  }
  if (convId !== undefined && convId !== null && typeof convId !== 'function' && typeof convId !== 'string' && typeof convId !== 'number') {
    throw new TypeError(`${who}: convId must be a string, a number or a function returning one`);
  }
  const conversation = (/** @type {unknown[]} */ ...context) => {
    const id = typeof convId === 'function' ? convId(...context) : convId;
    return id ?? DEFAULT_CONV_SEGMENT;
  };
  // The integration's own policy, checked now; else the cache's (read once it is ready).
  const ownFlows = flows === undefined ? undefined : checkFlows(flows, who);
  const policy = () => ownFlows ?? checkFlows(cache.flows, who);

  /**
   * The flows of a call and their verdicts, or `null` when the policy lets every reference's
   * data through without looking (`"any"`, or nothing resolved).
   * @param {string} name
   * @param {import('./flows.mjs').Source[] | undefined} sources
   * @param {Partial<CallHooks>} hooks
   */
  async function judge(name, sources, hooks) {
    const rule = policy();
    if (rule === 'any' || !Array.isArray(sources) || sources.length === 0) return null;
    const annotations = (await hooks.annotationsOf?.()) ?? {};
    return judgeFlows(rule, flowsOf(sources, hooks.origin?.().server, name, annotations));
  }

  /**
   * The envelope refusing a call's referenced data, or `null` to dispatch: denied flows are
   * refused, flows to ask about go to `hooks.ask(flow)` one at a time (a `false` refuses; no
   * `ask`: refused). Each refused flow is a `blocked` event of the cache.
   */
  /**
   * @param {string} name
   * @param {import('./flows.mjs').Source[] | undefined} sources
   * @param {Partial<CallHooks>} hooks
   */
  async function refusal(name, sources, hooks) {
    const verdicts = await judge(name, sources, hooks);
    if (!verdicts) return null;
    let refused = verdicts.deny;
    let declined = false;
    if (refused.length === 0) {
      for (const flow of verdicts.ask) {
        if (hooks.ask && (await hooks.ask({ ...flow, uris: [...flow.uris] })) === true) continue;
        refused = [flow];
        declined = Boolean(hooks.ask);
        break;
      }
    }
    if (refused.length === 0) return null;
    for (const flow of refused) {
      try {
        cache.reportBlockedFlow?.({ from: flow.from, to: flow.to, toolName: name, uris: [...flow.uris] })?.catch?.(() => {});
      } catch {
        // an observer's failure never changes the outcome
      }
    }
    return refusedEnvelope(name, refused, declined);
  }

  /**
   * Whether a call would move referenced data the policy says to ask the user about (and none
   * it denies): what an approval UI needs before the call runs. Resolves the references
   * read-only (`substituteCacheUris`); a call whose references do not resolve asks nothing (it
   * is answered with its envelope).
   */
  /**
   * @param {string} name
   * @param {unknown} args
   * @param {{ convId?: unknown } & Partial<CallHooks>} hooks
   */
  async function needsApproval(name, args, hooks) {
    if (policy() === 'any' || !isPlainObject(args) || !Object.keys(args).some((k) => k.endsWith(URI_ARG_SUFFIX))) return false;
    const substituted = await cache.substituteCacheUris(args, { convId: hooks.convId });
    const verdicts = substituted.ok ? await judge(name, substituted.sources, hooks) : null;
    return verdicts !== null && verdicts.deny.length === 0 && verdicts.ask.length > 0;
  }

  const given = (/** @type {Record<string, unknown>} */ extra) => Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined));
  const beforeOptions = given({ cap, cappedArgs, maxChars });
  const afterOptions = given({ maxChars, mediaMaxBytes, view, readTools });

  /**
   * Runs one call. `hooks`:
   * - `convId`: the conversation of this call;
   * - `origin()`: `{ server }` when the tool's server is known, else `{}`;
   * - `declaredOf()`: resolves the top-level properties the tool's original schema declares
   *   (`null` when unknown);
   * - `dispatch(args)`: calls the tool with the substituted arguments, resolves its raw result;
   * - `retry`: a retry of a multi round-trip call (never answered from a reused result, its
   *   result not stored);
   * - `passThrough(result)`: `true` for a raw result handed back untouched (MCP `input_required`);
   * - `validate(args)`: optional; resolves `{ ok: true, args }` or `{ ok: false, envelope }` for
   *   the substituted arguments before dispatch (the tool's own input validation);
   * - `annotationsOf()`: resolves the tool's MCP annotations (`openWorldHint`, …) or `null`;
   * - `ask(flow)`: resolves `true` when the user lets this flow's data through (without it, a
   *   flow the policy asks about is refused).
   * Resolves what the model should see: the value of `afterToolCall`, or for a blocked call an
   * `isError` `CallToolResult` holding the envelope (the tool is not called).
   */
  /**
   * @param {string} name
   * @param {any} args
   * @param {CallHooks} hooks
   */
  async function run(name, args, hooks) {
    const { convId: id, origin = () => ({}), declaredOf, dispatch, retry = false, passThrough, validate } = hooks;
    args ??= {};
    // Closes the bookkeeping `beforeToolCall` opened for a dispatch (reuseImmutable) that will
    // not get a result to store.
    let noted = false;
    const close = () => {
      if (noted) cache.afterToolCall(name, { isError: true }, { convId: id, args, ...origin() }).catch(() => {});
    };

    // Unused reference properties of strict modes: gone before the cap, reuse and substitution.
    /** @type {Record<string, unknown> | null} */
    let props = null;
    if (isPlainObject(args) && Object.keys(args).some((k) => k.endsWith(URI_ARG_SUFFIX) && isEmptyArg(args[k]))) {
      props = await declaredOf();
      const declared = props;
      if (declared) {
        const unused = Object.keys(args).filter((k) => k.endsWith(URI_ARG_SUFFIX) && isEmptyArg(args[k]) && !Object.hasOwn(declared, k));
        if (unused.length > 0) args = Object.fromEntries(Object.entries(args).filter(([k]) => !unused.includes(k)));
      }
    }

    const before = await cache.beforeToolCall(name, args, { convId: id, ...beforeOptions, ...origin() });
    let dispatched;
    let sources;
    if (before.dispatch) {
      noted = true;
      dispatched = before.args;
      sources = before.sources;
    } else if ('reused' in before && retry) {
      // Never answer a retry from an earlier result: resolve its references and dispatch.
      const substituted = await cache.substituteCacheUris(args, { convId: id });
      if (!substituted.ok) return envelopeResult(substituted.envelope);
      dispatched = substituted.args;
      sources = substituted.sources;
    } else {
      return 'reused' in before ? visibleResult(before.reused) : envelopeResult(before.envelope);
    }

    props ??= await declaredOf();
    if (props && isPlainObject(dispatched)) {
      // A reference key left after substitution holds no reference; the tool never declared it.
      const stray = Object.keys(dispatched).find((k) => k.endsWith(URI_ARG_SUFFIX) && !Object.hasOwn(props, k));
      if (stray) {
        close();
        return envelopeResult(strayReferenceEnvelope(name, stray));
      }
      // A resolved reference must fit the parameter it stands for.
      for (const key of Object.keys(args)) {
        if (!key.endsWith(URI_ARG_SUFFIX) || !isReferenceArg(args[key]) || Object.hasOwn(dispatched, key)) continue;
        const target = key.slice(0, -URI_ARG_SUFFIX.length);
        const expected = Object.hasOwn(props, target) ? containerTypeOf(props[target]) : null;
        if (!expected || !Object.hasOwn(dispatched, target)) continue;
        const value = dispatched[target];
        const got = jsonType(value);
        if (got === expected || (got === 'null' && /** @type {Set<string>} */ (admittedTypes(props[target])).has('null'))) continue;
        close();
        return envelopeResult(typeMismatchEnvelope(name, target, args[key], expected, value));
      }
    }

    if (validate) {
      const checked = await validate(dispatched);
      if (!checked.ok) {
        close();
        return envelopeResult(checked.envelope);
      }
      dispatched = checked.args;
    }

    // The last check before dispatch: the target never receives data the host does not let
    // through (and the user is asked only about a call that would otherwise run).
    let refused;
    try {
      refused = await refusal(name, sources, hooks);
    } catch (error) {
      close();
      throw error;
    }
    if (refused) {
      close();
      return envelopeResult(refused);
    }

    let result;
    try {
      result = await dispatch(dispatched);
    } catch (error) {
      close();
      throw error;
    }
    if (passThrough?.(result)) {
      close();
      return result;
    }
    const after = { convId: id, args, ...afterOptions, ...origin() };
    if (retry) {
      close();
      return cache.afterToolCall(name, result, { ...after, enabled: false });
    }
    return cache.afterToolCall(name, result, after);
  }

  return { cache, conversation, run, needsApproval };
}
