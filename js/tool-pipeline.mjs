// The by-reference pipeline of one tool call, shared by every integration that runs tools
// (`mcp-result-cache/mcp-client` around the MCP SDK's `Client`, `mcp-result-cache/ai-sdk` around
// AI SDK tools). It imports nothing: each integration brings its own dispatch.
//
// One call: strict-mode empty `<name>_uri` arguments dropped, then `beforeToolCall` (inline cap,
// reuse of immutable results, substitution), then the checks no core function can make without
// the tool's original schema (a `_uri` key the tool never declared, a reference whose value is
// not of the parameter's type), then the flow policy (js/flows.mjs: may the data of each
// resolved reference reach this tool's server; the user may be asked), then the dispatch, then
// `afterToolCall`.
import { checkFlows, flowsOf, judgeFlows, refusedEnvelope } from './flows.mjs';

export const URI_SUFFIX = '_uri';
const CACHE_SCHEME = 'mcp+cache://';
/** As src/core/pointer.rs and src/core/uri.rs: `MAX_REF_MEMBER_CHARS`, `MAX_POINTER_BYTES`. */
const MAX_REF_MEMBER_CHARS = 64;
const MAX_POINTER_BYTES = 2048;
/** Most ready references a type-mismatch hint names (as `_cache_refs`, `MAX_CACHE_REFS`). */
const MAX_HINT_REFS = 8;

/** The envelope a blocked call answers with, as an MCP `CallToolResult`. */
export function envelopeResult(envelope) {
  return { content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: true };
}

/** A reused LLM-visible value, as an MCP `CallToolResult`. */
export function visibleResult(visible) {
  // No structuredContent: the visible value carries `_cache_*` keys (or is a summary), which the
  // tool's outputSchema does not declare.
  return { content: [{ type: 'text', text: JSON.stringify(visible) }] };
}

function strayReferenceEnvelope(toolName, key) {
  return {
    error: `invalid_args: \`${key}\` must hold an mcp+cache:// reference copied verbatim from an earlier result`,
    fix_hint: `Copy the exact \`_cache_uri\` value (or an entry of \`_cache_refs\`) of an earlier tool result into \`${key}\` when calling ${toolName}, or pass \`${key.slice(0, -URI_SUFFIX.length)}\` itself.`,
  };
}

export const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `null`, `""` or `undefined`: what strict function-calling modes send for an unused `_uri`. */
const isEmptyArg = (v) => v === null || v === undefined || v === '';

/** What substitution resolves: a reference, or a non-empty array of references. */
const isReferenceArg = (v) =>
  (typeof v === 'string' && v.startsWith(CACHE_SCHEME)) ||
  (Array.isArray(v) && v.length > 0 && v.every((u) => typeof u === 'string' && u.startsWith(CACHE_SCHEME)));

/** The JSON type of a value, as JSON Schema names it (`integer` is a `number`). */
function jsonType(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/**
 * The JSON types a property schema admits, from `type` (string or list) and `anyOf` / `oneOf`
 * branches; `null` when the schema does not say (no `type`, a `$ref`, `true`, …).
 */
function admittedTypes(schema, depth = 0) {
  if (!isPlainObject(schema) || depth > 8) return null;
  if (typeof schema.type === 'string') return new Set([schema.type]);
  if (Array.isArray(schema.type)) return schema.type.every((t) => typeof t === 'string') ? new Set(schema.type) : null;
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  if (!branches || branches.length === 0) return null;
  const all = new Set();
  for (const branch of branches) {
    const types = admittedTypes(branch, depth + 1);
    if (!types) return null;
    for (const t of types) all.add(t);
  }
  return all;
}

/** `"array"` or `"object"` when that (or `null`) is all a property schema admits, else `null`. */
function containerTypeOf(schema) {
  const types = admittedTypes(schema);
  if (!types) return null;
  const kinds = [...types].filter((t) => t !== 'null');
  return kinds.length === 1 && (kinds[0] === 'array' || kinds[0] === 'object') ? kinds[0] : null;
}

/**
 * `<uri>#/<member>` (or `<uri>#/a/<member>` when the reference already points inside), the member
 * escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`), nothing percent-encoded: the reference
 * `member_reference` (src/core/pointer.rs) writes into `_cache_refs`. `null` for members it
 * writes none for (control characters, longer than 64 characters) and past the pointer limit.
 */
function memberReference(uri, member) {
  if ([...member].length > MAX_REF_MEMBER_CHARS || /\p{Cc}/u.test(member)) return null;
  const escaped = member.replace(/~/g, '~0').replace(/\//g, '~1');
  const hash = uri.indexOf('#');
  const reference = hash === -1 ? `${uri}#/${escaped}` : `${uri}/${escaped}`;
  const fragment = reference.slice(reference.indexOf('#') + 1);
  return new TextEncoder().encode(fragment).length <= MAX_POINTER_BYTES ? reference : null;
}

const article = (type) => (type === 'null' ? 'null' : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** The envelope for a reference whose value does not fit the parameter it was meant for. */
function typeMismatchEnvelope(toolName, name, uri, expected, value) {
  const got = jsonType(value);
  const key = `${name}${URI_SUFFIX}`;
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

/** The top-level properties a JSON Schema declares (`null`: it does not say, so any). */
export function declaredProperties(schema) {
  const props = isPlainObject(schema) ? schema.properties : undefined;
  return isPlainObject(props) ? props : null;
}

/**
 * The pipeline options every integration takes, checked once: `{ cache, convId, cap, cappedArgs,
 * maxChars, mediaMaxBytes, view, readTools, flows }` (`view` and `readTools` override the
 * cache's for afterToolCall, `flows` the cache's flow policy). `who` names the caller in
 * `TypeError`s. `convId` is a string or number, or a function returning one (called with what
 * the integration passes to it).
 */
export function createToolPipeline(options, who) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${who} needs { cache: ResultCache }`);
  const { cache, convId, cap, cappedArgs, maxChars, mediaMaxBytes, view, readTools, flows } = options;
  if (cache === null || typeof cache !== 'object' || typeof cache.beforeToolCall !== 'function' || typeof cache.afterToolCall !== 'function') {
    throw new TypeError(`${who} needs { cache: ResultCache }`);
  }
  if (convId !== undefined && convId !== null && typeof convId !== 'function' && typeof convId !== 'string' && typeof convId !== 'number') {
    throw new TypeError(`${who}: convId must be a string, a number or a function returning one`);
  }
  const conversation = (...context) => {
    const id = typeof convId === 'function' ? convId(...context) : convId;
    return id ?? 'default';
  };
  // The integration's own policy, checked now; else the cache's (read once it is ready).
  const ownFlows = flows === undefined ? undefined : checkFlows(flows, who);
  const policy = () => ownFlows ?? checkFlows(cache.flows, who);

  /**
   * The flows of a call and their verdicts, or `null` when the policy lets every reference's
   * data through without looking (`"any"`, or nothing resolved).
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
  async function needsApproval(name, args, hooks) {
    if (policy() === 'any' || !isPlainObject(args) || !Object.keys(args).some((k) => k.endsWith(URI_SUFFIX))) return false;
    const substituted = await cache.substituteCacheUris(args, { convId: hooks.convId });
    const verdicts = substituted.ok ? await judge(name, substituted.sources, hooks) : null;
    return verdicts !== null && verdicts.deny.length === 0 && verdicts.ask.length > 0;
  }

  const given = (extra) => Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined));
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
  async function run(name, args, hooks) {
    const { convId: id, origin = () => ({}), declaredOf, dispatch, retry = false, passThrough, validate } = hooks;
    args ??= {};
    // Closes the bookkeeping `beforeToolCall` opened for a dispatch (reuseImmutable) that will
    // not get a result to store.
    let noted = false;
    const close = () => {
      if (noted) cache.afterToolCall(name, { isError: true }, { convId: id, args, ...origin() }).catch(() => {});
    };

    // Unused `_uri` properties of strict modes: gone before the cap, reuse and substitution.
    let props = null;
    if (isPlainObject(args) && Object.keys(args).some((k) => k.endsWith(URI_SUFFIX) && isEmptyArg(args[k]))) {
      props = await declaredOf();
      if (props) {
        const unused = Object.keys(args).filter((k) => k.endsWith(URI_SUFFIX) && isEmptyArg(args[k]) && !Object.hasOwn(props, k));
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
      // A `_uri` key left after substitution holds no reference; the tool never declared it.
      const stray = Object.keys(dispatched).find((k) => k.endsWith(URI_SUFFIX) && !Object.hasOwn(props, k));
      if (stray) {
        close();
        return envelopeResult(strayReferenceEnvelope(name, stray));
      }
      // A resolved reference must fit the parameter it stands for.
      for (const key of Object.keys(args)) {
        if (!key.endsWith(URI_SUFFIX) || !isReferenceArg(args[key]) || Object.hasOwn(dispatched, key)) continue;
        const target = key.slice(0, -URI_SUFFIX.length);
        const expected = Object.hasOwn(props, target) ? containerTypeOf(props[target]) : null;
        if (!expected || !Object.hasOwn(dispatched, target)) continue;
        const value = dispatched[target];
        const got = jsonType(value);
        if (got === expected || (got === 'null' && admittedTypes(props[target]).has('null'))) continue;
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
