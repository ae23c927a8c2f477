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
import { answeredFor, noteAnswer, noteText } from './layer-answers.mjs';
import {
  CACHE_URI_SCHEME, DEFAULT_CONV_SEGMENT, SIGNAL_LEGACY_OPENER, SIGNAL_TAG_OPENER, URI_ARG_SUFFIX, hasCacheScheme, invalidArgs, isToolPrefix, memberReference,
} from './protocol.mjs';
/** @typedef {import('./flows.mjs').Source} Source */
/**
 * What `beforeToolCall` answers: dispatch (with the substituted arguments and the references'
 * sources), an envelope, or a reused visible value.
 * @typedef {{ dispatch: true, args: unknown, sources?: Source[] } | { dispatch: false, envelope: object } | { dispatch: false, reused: unknown }} BeforeAnswer
 */
/** What `substituteCacheUris` answers. @typedef {{ ok: true, args: unknown, sources?: Source[] } | { ok: false, envelope: object }} SubstituteAnswer */
/** The substitutions one approval made, by the input they were made of (see `resolvedOnce`). @typedef {Map<unknown, Promise<SubstituteAnswer>>} Resolutions */
/**
 * The cache methods the pipeline calls (a `ResultCache`).
 * @typedef {{
 *   beforeToolCall(name: string, args: unknown, options: object): Promise<BeforeAnswer>,
 *   afterToolCall(name: string, result: unknown, options: object): Promise<unknown>,
 *   substituteCacheUris(args: unknown, options: object): Promise<SubstituteAnswer>,
 *   reportBlockedFlow?(flow: object): Promise<unknown> | undefined,
 *   observeTools(tools: unknown, origin: object): unknown,
 *   consumeOnce?(key: string, ttlMs: number): Promise<boolean>,
 *   storage?: unknown,
 *   flows?: unknown,
 * }} PipelineCache
 */
/**
 * What an integration passes to one call (see `run`).
 * @typedef {{
 *   convId?: unknown,
 *   origin?: () => { server?: string },
 *   declaredOf: () => Promise<Record<string, unknown> | null>,
 *   dispatch: (args: unknown) => Promise<unknown>,
 *   retry?: boolean,
 *   passThrough?: (result: unknown, args: unknown) => boolean,
 *   validate?: (args: unknown) => Promise<{ ok: true, args: unknown } | { ok: false, envelope: object }>,
 *   annotationsOf?: () => Promise<Record<string, unknown> | null>,
 *   ask?: (flow: import('./flows.mjs').Flow) => Promise<boolean | null>,
 *   aliases?: ReadonlyMap<string, string>,
 *   facts?: CallFacts,
 *   onRaw?: (raw: unknown) => void,
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

// Tool sets are keyed by tool name, `__proto__` included: set by definition (js/own.mjs).
export { setOwn } from './own.mjs';

/** @type {(v: unknown) => v is Record<string, unknown>} */
export const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `null`, `""` or `undefined`: what strict function-calling modes send for an unused reference argument. */
const isEmptyArg = (/** @type {unknown} */ v) => v === null || v === undefined || v === '';

/** What substitution resolves: a reference, or a non-empty array of references. */
const isReferenceArg = (/** @type {unknown} */ v) => hasCacheScheme(v) || (Array.isArray(v) && v.length > 0 && v.every(hasCacheScheme));

/**
 * The arguments substitution resolves (`core::substitute::Plan::new`): the top-level
 * `<name>_uri` keys (`<name>` not empty) holding a reference or a non-empty array of references,
 * as `[key, value]`. Every other value is the tool's own, never read as a reference.
 * @param {unknown} args
 * @returns {[string, string | string[]][]}
 */
export function referenceArgs(args) {
  if (!isPlainObject(args)) return [];
  return /** @type {[string, string | string[]][]} */ (Object.entries(args)
    .filter(([key, value]) => key.length > URI_ARG_SUFFIX.length && key.endsWith(URI_ARG_SUFFIX) && isReferenceArg(value)));
}

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
 * @param {{ listTools(params?: { cursor: string }): Promise<unknown> }} client
 * @param {(page: unknown) => void} onPage
 */
export async function eachToolPage(client, onPage) {
  /** @type {unknown} */
  let cursor;
  // A server that answers a cursor it gave before would be listed forever: that page ends it.
  const seen = new Set();
  do {
    const page = await client.listTools(typeof cursor === 'string' && cursor ? { cursor } : undefined);
    onPage(page);
    cursor = isPlainObject(page) ? page.nextCursor : undefined;
    if (seen.has(cursor)) throw new TypeError(`tools/list: the server answered the cursor ${JSON.stringify(String(cursor).slice(0, 80))} twice; listing stopped`);
    seen.add(cursor);
  } while (typeof cursor === 'string' && cursor);
}

/** The top-level properties a JSON Schema declares (`null`: it does not say, so any). */
export function declaredProperties(/** @type {unknown} */ schema) {
  const props = isPlainObject(schema) ? schema.properties : undefined;
  return isPlainObject(props) ? props : null;
}

/** `undefined` or a non-negative finite number: what the cache takes for its numeric options. */
export const optionalNonNegative = (/** @type {unknown} */ value) => value === undefined || (typeof value === 'number' && Number.isFinite(value) && value >= 0);

/**
 * A retry's result (or its task's final result) as the model sees it: only capped, nothing
 * stored (it depends on the answers the retry carried), but its invalidation signals applied, as
 * any result's are (a refund the user confirmed still makes the invoice stale). The blocks that
 * start as the cache reads a signal (`SIGNAL_TAG_OPENER`, `SIGNAL_LEGACY_OPENER`, after
 * whitespace) go first, on their own: the cache applies those that are signals and stores none.
 * @param {PipelineCache} cache @param {string} name @param {unknown} result @param {Record<string, unknown>} after
 */
async function cappedRetry(cache, name, result, after) {
  const blocks = isPlainObject(result) && Array.isArray(result.content) ? result.content : [];
  const signals = blocks.filter((block) => isPlainObject(block) && block.type === 'text' && typeof block.text === 'string' &&
    [SIGNAL_TAG_OPENER, SIGNAL_LEGACY_OPENER].some((opener) => /** @type {string} */ (block.text).trimStart().startsWith(opener)));
  // Without the call's arguments: no reuse bookkeeping for this part.
  const { args: _args, ...scope } = after;
  // Both called at once, in this order (they take effect so); either failing fails the call.
  const [, shown] = await Promise.all([
    signals.length > 0 ? cache.afterToolCall(name, { content: signals }, { ...scope, maxChars: Infinity }) : null,
    cache.afterToolCall(name, result, { ...after, enabled: false }),
  ]);
  return shown;
}

/**
 * An `augment` option (`augmentTools`' options, `{ objects?: boolean }`) as the integrations
 * take it, or none.
 * @param {unknown} augment
 */
export const isAugmentOption = (augment) =>
  augment === undefined || (isPlainObject(augment) && (augment.objects === undefined || typeof augment.objects === 'boolean'));

/**
 * The pipeline options every integration takes, checked: `{ cache, convId, cap, cappedArgs,
 * maxChars, mediaMaxBytes, view, readTools, flows }`. `who` names the caller in `TypeError`s.
 * @param {unknown} options
 * @param {string} who
 */
function checkOptions(options, who) {
  if (!isPlainObject(options)) throw new TypeError(`${who} needs { cache: ResultCache }`);
  const { cache, convId, cap, cappedArgs, maxChars, mediaMaxBytes, view, readTools, flows } = options;
  if (!isPlainObject(cache) || typeof cache.beforeToolCall !== 'function' || typeof cache.afterToolCall !== 'function') {
    throw new TypeError(`${who} needs { cache: ResultCache }`);
  }
  if (convId !== undefined && convId !== null && typeof convId !== 'function' && typeof convId !== 'string' && typeof convId !== 'number') {
    throw new TypeError(`${who}: convId must be a string, a number or a function returning one`);
  }
  // What `beforeToolCall` and `afterToolCall` would refuse at each call (and `afterToolCall`
  // after the tool ran), refused here, before any call (tests/js/protocol-rules.test.mjs ties
  // each rule to theirs).
  const bad = /** @type {[string, boolean][]} */ ([
    ['cap must be a non-negative finite number', !optionalNonNegative(cap)],
    ['cappedArgs must be an array of strings', cappedArgs != null && !(Array.isArray(cappedArgs) && cappedArgs.every((name) => typeof name === 'string'))],
    ['maxChars must be a non-negative finite number (or Infinity)', maxChars !== Infinity && !optionalNonNegative(maxChars)],
    ['mediaMaxBytes must be a non-negative finite number', !optionalNonNegative(mediaMaxBytes)],
    ['view must be "full" or "preview"', view !== undefined && view !== 'full' && view !== 'preview'],
    ['readTools must be a boolean or a tool-name prefix (at most 32 of A-Z a-z 0-9 _ - .)', readTools !== undefined && typeof readTools !== 'boolean' && !isToolPrefix(readTools)],
  ]).find(([, wrong]) => wrong);
  if (bad) throw new TypeError(`${who}: ${bad[0]}`);
  const given = (/** @type {Record<string, unknown>} */ extra) => Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined));
  return {
    cache: /** @type {PipelineCache} */ (/** @type {unknown} */ (cache)),
    convId: /** @type {string | number | ((...context: unknown[]) => unknown) | null | undefined} */ (convId),
    // The integration's own policy, checked now; else the cache's (read once it is ready).
    ownFlows: flows === undefined ? undefined : checkFlows(flows, who),
    beforeOptions: given({ cap, cappedArgs, maxChars }),
    afterOptions: given({ maxChars, mediaMaxBytes, view, readTools }),
  };
}

/**
 * The flow policy of a pipeline (js/flows.mjs) applied to calls: `judge` (the verdicts of a
 * call's flows), `refusal` (the envelope refusing a call, asking the user first where the
 * policy says so) and `askedFlows` (the flows an approval UI must ask about).
 * @param {PipelineCache} cache
 * @param {() => import('./flows.mjs').FlowPolicy} policy
 */
function flowGate(cache, policy) {
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
    // The flows name each reference as the model passed it (`aliases`: what the call carries
    // instead, such as a page reference's server copy → the page reference).
    const { aliases } = hooks;
    const named = aliases ? sources.map((source) => ({ ...source, uri: aliases.get(source.uri) ?? source.uri })) : sources;
    return judgeFlows(rule, flowsOf(named, hooks.origin?.().server, name, annotations));
  }

  /** Each refused flow is a `blocked` event of the cache; an observer's failure changes nothing. */
  const report = (/** @type {string} */ name, /** @type {import('./flows.mjs').Flow[]} */ refused) => {
    for (const flow of refused) {
      try {
        cache.reportBlockedFlow?.({ from: flow.from, to: flow.to, toolName: name, uris: [...flow.uris] })?.catch?.(() => {});
      } catch {
        // an observer's failure never changes the outcome
      }
    }
  };

  /**
   * The envelope refusing a call's referenced data, or `null` to dispatch: denied flows are
   * refused, flows to ask about go to `hooks.ask(flow)` one at a time (anything but `true`
   * refuses: `false` as declined by the user; `null`, or no `ask`, as denied, nobody asked).
   * `decided(decision)` hears the decision: `"allow"`, `"deny"` (the policy, or a flow nobody
   * was asked about), `"approved"` (asked, let through) or `"declined"` (asked, refused).
   * @param {string} name
   * @param {import('./flows.mjs').Source[] | undefined} sources
   * @param {Partial<CallHooks>} hooks
   * @param {(decision: string) => void} decided
   */
  async function refusal(name, sources, hooks, decided) {
    const verdicts = await judge(name, sources, hooks);
    if (!verdicts) return null;
    let refused = verdicts.deny;
    let declined = false;
    if (refused.length === 0) {
      for (const flow of verdicts.ask) {
        const answer = hooks.ask ? await hooks.ask({ ...flow, uris: [...flow.uris] }) : null;
        if (answer === true) continue;
        refused = [flow];
        // `false`: the user was asked and declined; anything else: nobody was asked (a denial).
        declined = answer === false;
        break;
      }
    }
    if (refused.length === 0) {
      decided(verdicts.ask.length > 0 ? 'approved' : 'allow');
      return null;
    }
    decided(declined ? 'declined' : 'deny');
    report(name, refused);
    return refusedEnvelope(name, refused, declined);
  }

  /**
   * The flows of a call the policy says to ask the user about, when it denies none (else, and
   * when the references do not resolve: `[]`, the call is answered with its envelope). Resolves
   * the references read-only (`substituteCacheUris`).
   * @param {string} name
   * @param {unknown} args
   * @param {{ convId?: unknown, memo?: Resolutions } & Partial<CallHooks>} hooks
   * @returns {Promise<import('./flows.mjs').Flow[]>}
   */
  async function askedFlows(name, args, hooks) {
    if (policy() === 'any' || !isPlainObject(args) || !Object.keys(args).some((k) => k.endsWith(URI_ARG_SUFFIX))) return [];
    const substituted = await resolvedOnce(cache, args, hooks);
    const verdicts = substituted.ok ? await judge(name, substituted.sources, hooks) : null;
    return verdicts !== null && verdicts.deny.length === 0 ? verdicts.ask : [];
  }

  return { refusal, askedFlows };
}

/**
 * The read-only substitution of a call's references (`substituteCacheUris`) as `run` makes it,
 * the unused empty references left out first (they name nothing: what resolves is the same),
 * made once per `hooks.memo`: the checks of one approval (the flows, the host's own judging the
 * dispatched input) read the referenced data once between them. A memo lives for one approval,
 * never until the call runs: the run reads again.
 * @param {PipelineCache} cache
 * @param {Record<string, unknown>} input
 * @param {{ convId?: unknown, memo?: Resolutions, declaredOf?: CallHooks['declaredOf'] }} hooks
 * @returns {Promise<SubstituteAnswer>}
 */
function resolvedOnce(cache, input, hooks) {
  const made = hooks.memo?.get(input);
  if (made) return made;
  const { declaredOf } = hooks;
  const answer = (declaredOf ? withoutUnusedReferences(input, declaredOf) : Promise.resolve({ args: input }))
    .then(({ args }) => cache.substituteCacheUris(args, { convId: hooks.convId }));
  hooks.memo?.set(input, answer);
  return answer;
}

/**
 * Strict-mode unused reference properties (`null`, `""`, `undefined` under a `<name>_uri` the
 * tool never declared) removed from `args`; `props` the declared properties once read.
 * @param {unknown} args
 * @param {() => Promise<Record<string, unknown> | null>} declaredOf
 */
async function withoutUnusedReferences(args, declaredOf) {
  if (!isPlainObject(args) || !Object.keys(args).some((k) => k.endsWith(URI_ARG_SUFFIX) && isEmptyArg(args[k]))) return { args, props: null };
  const props = await declaredOf();
  if (!props) return { args, props };
  const unused = Object.keys(args).filter((k) => k.endsWith(URI_ARG_SUFFIX) && isEmptyArg(args[k]) && !Object.hasOwn(props, k));
  return { args: unused.length > 0 ? Object.fromEntries(Object.entries(args).filter(([k]) => !unused.includes(k))) : args, props };
}

/**
 * The envelope of a substituted call whose references do not fit the tool's declared
 * properties (`props`), or `null`: a reference key left after substitution (it held no
 * reference, and the tool never declared it), or a resolved value not of its parameter's type.
 * @param {string} name
 * @param {Record<string, unknown>} args the call's arguments before substitution
 * @param {Record<string, unknown>} dispatched after substitution
 * @param {Record<string, unknown>} props
 * @param {ReadonlyMap<string, string>} [aliases] references the call carries in place of those the model passed (named as passed)
 */
function referenceMismatch(name, args, dispatched, props, aliases) {
  const stray = Object.keys(dispatched).find((k) => k.endsWith(URI_ARG_SUFFIX) && !Object.hasOwn(props, k));
  if (stray) return strayReferenceEnvelope(name, stray);
  for (const key of Object.keys(args)) {
    if (!key.endsWith(URI_ARG_SUFFIX) || !isReferenceArg(args[key]) || Object.hasOwn(dispatched, key)) continue;
    const target = key.slice(0, -URI_ARG_SUFFIX.length);
    const expected = Object.hasOwn(props, target) ? containerTypeOf(props[target]) : null;
    if (!expected || !Object.hasOwn(dispatched, target)) continue;
    const value = dispatched[target];
    const got = jsonType(value);
    if (got === expected || (got === 'null' && /** @type {Set<string>} */ (admittedTypes(props[target])).has('null'))) continue;
    const uri = args[key];
    return typeMismatchEnvelope(name, target, (typeof uri === 'string' && aliases?.get(uri)) || uri, expected, value);
  }
  return null;
}

/**
 * The arguments to dispatch after `beforeToolCall`, or the value to answer without dispatch:
 * `{ dispatched, sources, noted }` (`noted`: `beforeToolCall` opened bookkeeping that
 * `afterToolCall` must close) or `{ answer }`.
 * @param {PipelineCache} cache
 * @param {Record<string, unknown>} beforeOptions
 * @param {string} name
 * @param {unknown} args
 * @param {CallHooks} hooks
 * @param {CallFacts} facts
 */
async function prepare(cache, beforeOptions, name, args, hooks, facts) {
  const { convId: id, origin = () => ({}), retry = false } = hooks;
  const before = await cache.beforeToolCall(name, args, { convId: id, ...beforeOptions, ...origin() });
  if (before.dispatch) {
    if (facts !== UNREAD_FACTS) facts.lookups = { hit: uniqueUris(before.sources), miss: 0, stale: 0 };
    return { dispatched: before.args, sources: before.sources, noted: true };
  }
  if ('reused' in before && retry) {
    // Never answer a retry from an earlier result: resolve its references and dispatch.
    const substituted = await cache.substituteCacheUris(args, { convId: id });
    if (!substituted.ok) return { answer: blocked(facts, substituted.envelope) };
    if (facts !== UNREAD_FACTS) facts.lookups = { hit: uniqueUris(substituted.sources), miss: 0, stale: 0 };
    return { dispatched: substituted.args, sources: substituted.sources, noted: false };
  }
  if ('reused' in before) {
    facts.reused = true;
    return { answer: visibleResult(before.reused) };
  }
  return { answer: blocked(facts, before.envelope) };
}

/**
 * What one call reports of itself (`hooks.facts`, for telemetry): filled as the call goes.
 * @typedef {{
 *   references?: number,
 *   lookups?: { hit: number, miss: number, stale: number },
 *   flow?: string,
 *   blocked?: string,
 *   passedThrough?: boolean,
 *   task?: boolean,
 *   reused?: boolean,
 * }} CallFacts
 */

/**
 * The pipeline options every integration takes, checked once: `{ cache, convId, cap, cappedArgs,
 * maxChars, mediaMaxBytes, view, readTools, flows }` (`view` and `readTools` override the
 * cache's for afterToolCall, `flows` the cache's flow policy). `who` names the caller in
 * `TypeError`s. `convId` is a string or number, or a function returning one (called with what
 * the integration passes to it).
 * @param {unknown} options
 * @param {string} who
 */
export function createToolPipeline(options, who) {
  const { cache, convId, ownFlows, beforeOptions, afterOptions } = checkOptions(options, who);
  const conversation = (/** @type {unknown[]} */ ...context) => {
    const id = typeof convId === 'function' ? convId(...context) : convId;
    return id ?? DEFAULT_CONV_SEGMENT;
  };
  const gate = flowGate(cache, () => ownFlows ?? checkFlows(cache.flows, who));

  /**
   * Whether a call would move referenced data the policy says to ask the user about (and none
   * it denies): what an approval UI needs before the call runs.
   * @param {string} name
   * @param {unknown} args
   * @param {{ convId?: unknown } & Partial<CallHooks>} hooks
   */
  const needsApproval = async (name, args, hooks) => (await gate.askedFlows(name, args, hooks)).length > 0;

  /**
   * Runs one call. `hooks`:
   * - `convId`: the conversation of this call;
   * - `origin()`: `{ server }` when the tool's server is known, else `{}`;
   * - `declaredOf()`: resolves the top-level properties the tool's original schema declares
   *   (`null` when unknown);
   * - `dispatch(args)`: calls the tool with the substituted arguments, resolves its raw result;
   * - `retry`: a retry of a multi round-trip call (never answered from a reused result, its
   *   result not stored);
   * - `passThrough(result, args)`: `true` for a raw result handed back untouched (MCP
   *   `input_required`, a task);
   * - `validate(args)`: optional; resolves `{ ok: true, args }` or `{ ok: false, envelope }` for
   *   the substituted arguments before dispatch (the tool's own input validation);
   * - `annotationsOf()`: resolves the tool's MCP annotations (`openWorldHint`, …) or `null`;
   * - `ask(flow)`: resolves `true` when the user lets this flow's data through, `false` when
   *   the user declined it, `null` when nobody could be asked (without `ask`, a flow the policy
   *   asks about is refused as `null`);
   * - `aliases`: references `input` carries in place of those the model passed (carried → as
   *   passed: a page reference rewritten to its copy in this cache, js/page-references.mjs); the
   *   flows, the policy, `ask`, `blocked` events and the refusal name them as passed;
   * - `facts`: an object the call fills with what it did (js/telemetry.mjs reads it).
   * Resolves what the model should see: the value of `afterToolCall`, or for a blocked call an
   * `isError` `CallToolResult` holding the envelope (the tool is not called).
   * @param {string} name
   * @param {unknown} input
   * @param {CallHooks} hooks
   */
  async function run(name, input, hooks) {
    const { convId: id, origin = () => ({}), declaredOf, dispatch, retry = false, passThrough, validate } = hooks;
    const facts = hooks.facts ?? UNREAD_FACTS;
    const cleaned = await withoutUnusedReferences(input ?? {}, declaredOf);
    const args = cleaned.args;
    const prepared = await prepare(cache, beforeOptions, name, args, hooks, facts);
    if ('answer' in prepared) return prepared.answer;
    let { dispatched } = prepared;
    facts.references = Array.isArray(prepared.sources) ? prepared.sources.length : 0;
    // Closes the bookkeeping `beforeToolCall` opened for a dispatch (reuseImmutable) unless a
    // result is handed to `afterToolCall` with storing on.
    let closed = !prepared.noted;
    const close = () => {
      if (closed) return;
      closed = true;
      cache.afterToolCall(name, { isError: true }, { convId: id, args, ...origin() }).catch(() => {});
    };
    try {
      const props = cleaned.props ?? (await declaredOf());
      if (props && isPlainObject(dispatched) && isPlainObject(args)) {
        const mismatch = referenceMismatch(name, args, dispatched, props, hooks.aliases);
        if (mismatch) return blocked(facts, mismatch);
      }
      if (validate) {
        const checked = await validate(dispatched);
        if (!checked.ok) return blocked(facts, checked.envelope);
        dispatched = checked.args;
      }
      // The last check before dispatch: the target never receives data the host does not let
      // through (and the user is asked only about a call that would otherwise run).
      const refused = await gate.refusal(name, prepared.sources, hooks, (decision) => (facts.flow = decision));
      if (refused) return blocked(facts, refused);
      const result = await dispatch(dispatched);
      hooks.onRaw?.(result);
      if (passThrough?.(result, args) || answeredFor(result) === cache) {
        facts.passedThrough = true;
        return result;
      }
      const after = { convId: id, args, ...afterOptions, ...origin() };
      if (retry) {
        close();
        return cappedRetry(cache, name, result, after);
      }
      closed = true;
      return noteText(cache, result, await cache.afterToolCall(name, result, after));
    } finally {
      close();
    }
  }

  /**
   * A result that arrives apart from its call (the final result of a task the call answered
   * with) through `afterToolCall`, as the call's own result would have gone: stored,
   * referenced, invalidations applied; when the call was a `retry`, only capped with its
   * invalidations applied, as `run` treats its result. `args` are the call's (before substitution).
   * @param {string} name
   * @param {unknown} args
   * @param {unknown} result
   * @param {{ convId?: unknown, origin?: () => { server?: string }, retry?: boolean }} hooks
   */
  const complete = (name, args, result, { convId: id, origin = () => ({}), retry = false }) => {
    const after = { convId: id, args, ...afterOptions, ...origin() };
    return retry ? cappedRetry(cache, name, result, after) : cache.afterToolCall(name, result, after).then((shown) => noteText(cache, result, shown));
  };

  /**
   * The arguments a call would be dispatched with, for a check made before it runs (the tool's
   * own `needsApproval`): its references resolved read-only (`substituteCacheUris`) and the
   * tool's input validation applied (its defaults, transforms), as `run` does. `input` itself
   * when its references do not resolve or it does not validate (the call is then answered with
   * its envelope, and never reaches the tool).
   * @param {unknown} input
   * @param {{ convId?: unknown, declaredOf: CallHooks['declaredOf'], validate?: CallHooks['validate'], memo?: Resolutions }} hooks
   * @returns {Promise<unknown>}
   */
  async function dispatchedInput(input, hooks) {
    let args = input;
    if (isPlainObject(input) && Object.keys(input).some((k) => k.endsWith(URI_ARG_SUFFIX))) {
      const substituted = await resolvedOnce(cache, input, hooks);
      if (!substituted.ok) return input;
      args = substituted.args;
    }
    const checked = hooks.validate ? await hooks.validate(args) : { ok: true, args };
    return checked.ok ? checked.args : input;
  }

  return {
    cache,
    conversation,
    /** @type {typeof run} */
    run: async (name, input, hooks) => noteAnswer(cache, await run(name, input, hooks)),
    /** @type {typeof complete} */
    complete: async (name, args, result, hooks) => noteAnswer(cache, await complete(name, args, result, hooks)),
    needsApproval,
    askedFlows: gate.askedFlows,
    dispatchedInput,
  };
}

/** Where a call without telemetry writes its facts (never read: no object per call). @type {CallFacts} */
const UNREAD_FACTS = {};

/** The distinct references among resolved sources (a reference used twice is one lookup). */
function uniqueUris(/** @type {Source[] | undefined} */ sources) {
  return Array.isArray(sources) ? new Set(sources.map((s) => s.uri)).size : 0;
}

/**
 * An envelope answer; its kind (`error`'s first word) and the lookups it reports
 * (`_missing_uris`, `_stale_uris`) noted in `facts`.
 * @param {CallFacts} facts
 * @param {object} envelope
 */
function blocked(facts, envelope) {
  const { error, _missing_uris: missing, _stale_uris: stale } = /** @type {{ error?: unknown, _missing_uris?: unknown, _stale_uris?: unknown }} */ (envelope);
  facts.blocked = typeof error === 'string' ? error.split(/[:\s]/, 1)[0] : 'blocked';
  if (Array.isArray(missing) || Array.isArray(stale)) {
    facts.lookups = { hit: 0, miss: Array.isArray(missing) ? missing.length : 0, stale: Array.isArray(stale) ? stale.length : 0 };
  }
  return envelopeResult(envelope);
}

/**
 * `promise`, or a rejection with the signal's reason as soon as it aborts.
 * @template T @param {Promise<T>} promise @param {AbortSignal | undefined} signal @returns {Promise<T>}
 */
export function unlessAborted(promise, signal) {
  if (!signal) return promise;
  // A listener added to a signal that has aborted already never fires.
  if (signal.aborted) return Promise.reject(signal.reason);
  /** @type {() => void} */
  let stop = () => {};
  const aborted = new Promise((_resolve, reject) => {
    stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
  });
  return /** @type {Promise<T>} */ (Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', stop)));
}
