// `mcp-result-cache/ai-sdk`: the by-reference pipeline around AI SDK tools (`ai` 7: a `ToolSet`
// from `@ai-sdk/mcp`'s `createMCPClient(...).tools()`, hand-written `tool({...})`s, or one built
// from any MCP-client-shaped object). Shared by the browser and Node entries (js/ai-sdk.mjs,
// js/ai-sdk.node.mjs), which pass in their own package API. `ai` is an optional peer dependency:
// only this entry imports it, and nothing of it is bundled into the package.
import { asSchema, jsonSchema } from 'ai';
import { createToolPipeline, declaredProperties, eachToolPage, envelopeResult, isAugmentOption, isPlainObject, setOwn, unlessAborted } from './tool-pipeline.mjs';
import { URI_ARG_SUFFIX, invalidArgs, isServerName, isToolName } from './protocol.mjs';
import { approvalKey, carryApprovalHooks, findApproval, registerApprovalHook } from './approval.mjs';
import { boundToActive, instrumentToolCall } from './telemetry.mjs';
import { consumeOnceFor } from './consume-once.mjs';
import { readingArguments } from './argument-reads.mjs';
import { omitStoredPayloads, wantsStoredPayloadOmitted } from './ai-sdk-wire.mjs';
import { checkPageReferences, passedUris, withPageReferences } from './page-references.mjs';

export { cacheToolApproval } from './approval.mjs';

/** Most tool calls remembered as sent to the AI SDK's approval (`needsApproval` answered `true`). */
const MAX_PENDING_APPROVALS = 1024;
/**
 * How long the record of a used approval is kept (ms): a replay of it within this time never
 * runs the tool. The AI SDK's signed approvals do not expire; 90 days outlives any chat session.
 */
const APPROVAL_RECORD_TTL_MS = 90 * 24 * 60 * 60 * 1000;

/** Longest base64 run an unknown content block may carry into a text part before it is elided. */
const MAX_INLINE_DATA_CHARS = 256;
/** Most characters of a validation error quoted back to the model. */
const MAX_VALIDATION_MESSAGE_CHARS = 600;


const isAsyncGeneratorFunction = (/** @type {unknown} */ f) => typeof f === 'function' && f.constructor?.name === 'AsyncGeneratorFunction';

/**
 * What a plain `execute` answered, as the AI SDK takes its output: an `AsyncIterable` (a
 * function that returns a generator without being an `async function*`, a compiled one) read to
 * its last value, which is the tool's output (its earlier values are not streamed as progress).
 * An abort (`signal`) stops it, as it stops an `async function*`: the iterable is returned, and
 * the call, which did not finish, stores nothing.
 * @param {unknown} value @param {AbortSignal | undefined} signal @returns {Promise<unknown>}
 */
async function finalOutput(value, signal) {
  if (value === null || typeof value !== 'object' || typeof (/** @type {Record<symbol, unknown>} */ (value))[Symbol.asyncIterator] !== 'function') return value;
  const outputs = /** @type {AsyncIterable<unknown>} */ (value)[Symbol.asyncIterator]();
  /** @type {unknown} */
  let last;
  try {
    for (let step = await unlessAborted(outputs.next(), signal); !step.done; step = await unlessAborted(outputs.next(), signal)) last = step.value;
  } catch (error) {
    outputs.return?.()?.catch(() => {});
    throw error;
  }
  return last;
}

/** An optional `{ objects?: boolean }` (`augmentTools`' options) or `server` name, checked. */
function checkCommonOptions(/** @type {Record<string, unknown>} */ options, /** @type {string} */ who) {
  const { augment, server } = options;
  if (!isAugmentOption(augment)) throw new TypeError(`${who}: augment must be an object ({ objects?: boolean })`);
  if (server !== undefined && !isServerName(server)) {
    throw new TypeError(`${who}: server must be a non-empty string (the MCP server's name)`);
  }
}

/**
 * One MCP content block as an AI SDK tool-result content part: text stays text, images, audio
 * and embedded blobs become `file` parts (base64 data, never text), everything else is its JSON
 * text with any long `data` / `blob` string elided.
 */
function contentPart(/** @type {unknown} */ block) {
  if (!isPlainObject(block)) return { type: 'text', text: JSON.stringify(block) ?? '' };
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
  if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string') {
    return { type: 'file', mediaType: typeof block.mimeType === 'string' ? block.mimeType : block.type, data: { type: 'data', data: block.data } };
  }
  if (block.type === 'resource' && isPlainObject(block.resource)) {
    const { uri, mimeType, text, blob } = block.resource;
    if (typeof text === 'string') return { type: 'text', text: typeof uri === 'string' ? `${uri}\n${text}` : text };
    if (typeof blob === 'string') {
      return {
        type: 'file',
        mediaType: typeof mimeType === 'string' ? mimeType : 'application/octet-stream',
        data: { type: 'data', data: blob },
        ...(typeof uri === 'string' && uri.includes('/') && !uri.endsWith('/') ? { filename: uri.slice(uri.lastIndexOf('/') + 1) } : {}),
      };
    }
  }
  const elide = (/** @type {string} */ key, /** @type {unknown} */ value) =>
    (key === 'data' || key === 'blob') && typeof value === 'string' && value.length > MAX_INLINE_DATA_CHARS
      ? `[${value.length} characters of base64 not shown]`
      : value;
  return { type: 'text', text: JSON.stringify(block, elide) };
}

/**
 * What the model is given for an output: a string as text; an MCP `CallToolResult` (what MCP
 * tools and blocked calls answer) as `content` parts (an `isError` result whose blocks are all
 * text as `error-text`); anything else as JSON. A `CallToolResult` is what the cache reads as
 * one (docs/CONTENT.md): an object whose `content` array is empty or holds a typed block; a page
 * of rows under `content` is JSON, its `_cache_uri` with it.
 */
export function toModelOutput(/** @type {{ output: unknown }} */ options) {
  return readingArguments('toModelOutput', () => modelOutput(options.output), [[options, 'options', ['output']]]);
}

/** toModelOutput's answer for `output`. */
function modelOutput(/** @type {unknown} */ output) {
  if (typeof output === 'string') return { type: 'text', value: output };
  if (isPlainObject(output) && Array.isArray(output.content) &&
    (!output.content.length || output.content.some((b) => isPlainObject(b) && typeof b.type === 'string'))) {
    const blocks = output.content;
    if (blocks.length === 0 && output.structuredContent !== undefined) return { type: 'json', value: output.structuredContent };
    if (output.isError === true && blocks.every((b) => isPlainObject(b) && b.type === 'text' && typeof b.text === 'string')) {
      return { type: 'error-text', value: blocks.map((b) => b.text).join('\n') };
    }
    return { type: 'content', value: blocks.map(contentPart) };
  }
  return { type: 'json', value: output === undefined ? null : JSON.parse(JSON.stringify(output) ?? 'null') };
}

function invalidInputEnvelope(/** @type {string} */ name, /** @type {unknown} */ error) {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, MAX_VALIDATION_MESSAGE_CHARS);
  return invalidArgs(
    `the arguments of ${name} (with references resolved) do not match its input schema: ${message}`,
    `Call ${name} again with arguments its schema accepts; pass references in the \`<name>${URI_ARG_SUFFIX}\` parameters.`,
  );
}

/** A set of call ids that forgets its oldest past `MAX_PENDING_APPROVALS`; `take` removes and tells. */
function boundedSet() {
  /** @type {Set<string>} */
  const ids = new Set();
  return {
    add(/** @type {unknown} */ id) {
      if (typeof id !== 'string') return;
      ids.delete(id);
      ids.add(id);
      if (ids.size > MAX_PENDING_APPROVALS) ids.delete(/** @type {string} */ (ids.values().next().value));
    },
    has: (/** @type {string} */ id) => ids.has(id),
    take: (/** @type {string} */ id) => ids.delete(id),
  };
}

/** A function that runs `f` once and answers its promise to every call. @template T @param {() => Promise<T>} f */
function once(f) {
  /** @type {Promise<T> | null} */
  let promise = null;
  return () => (promise ??= f());
}

const quoted = (/** @type {string | null} */ server) => (server === null ? 'a server the host did not name' : `server ${JSON.stringify(server)}`);

/** Why the user is asked about a call: the servers and tools its referenced data moves between (never the data). */
function approvalReason(/** @type {string} */ toolName, /** @type {import('./flows.mjs').Flow[]} */ flows) {
  const from = flows.map((f) => `${f.sourceToolName} (${quoted(f.from)})`).join(', ');
  return `${toolName} (${quoted(flows[0].to)}) would receive data from ${from}.`;
}

/** What a call run again from an approval already used answers (the tool does not run). */
const replayedEnvelope = (/** @type {string} */ name) => ({
  error: 'approval_already_used',
  fix_hint: `This approval of ${name} was already used once, and an approval runs a call only once. Do not repeat the call by yourself; if it is still wanted, call ${name} again so that the user is asked again.`,
});

/**
 * What a wrapped tool set shares: the entry's API, the pipeline, the tools' server, the
 * approvals, and the teaching of `[Cache-Control: …]` directives to the cache.
 * @typedef {{
 *   api: AiSdkApi,
 *   pipeline: ReturnType<typeof createToolPipeline>,
 *   origin: () => { server?: string },
 *   observe: () => Promise<void>,
 *   gate: ReturnType<typeof approvalGate>,
 *   augment: unknown,
 *   telemetryCache: { bytesOf(uri: string): number | undefined },
 * }} ToolSetContext
 */
/**
 * The entry's package API.
 * @typedef {{
 *   augmentTools(tools: unknown, options?: unknown): unknown,
 *   cacheTools(cache: unknown, options?: unknown): unknown,
 *   ready(): Promise<unknown>,
 * }} AiSdkApi
 */

/** @typedef {import('./tool-pipeline.mjs').Resolutions} Resolutions */

/** Where a `ResultCache` answers the stored size of a recent write (js/src/cache-flows.mjs). */
const STORED_BYTES = Symbol.for('mcp-result-cache.storedBytes');

/**
 * The approvals of one wrapped tool set. The tool calls whose approval the cache asked for
 * (`needsApproval` answered `true`, or `cacheToolApproval` answered `user-approval`): the AI SDK
 * runs them only once the user approved, and asks again right before it does, so `execute` lets
 * a flow the policy asks about through for these calls alone, once. Any other call (`execute`
 * run directly, by a page's `onToolCall`, or by the AI SDK after a host `toolApproval` that
 * ignored the cache) is refused such a flow. With the approval in the messages (the AI SDK's
 * loop), the call also consumes it once in the cache's storage: a replayed approval, on this
 * instance or another sharing the storage, is refused.
 * @param {import('./tool-pipeline.mjs').PipelineCache} cache
 */
function approvalGate(cache) {
  const approvals = boundedSet();
  const consulted = boundedSet();
  let warned = false;
  /**
   * The approval the AI SDK runs this call from (an approved `tool-approval-response` for it in
   * the messages), consumed once in the cache's storage: `"none"` (no approval), `"fresh"` (its
   * first use) or `"replayed"` (used before, here or on another instance: the call never runs).
   * @param {unknown} executeOptions
   * @returns {Promise<'none' | 'fresh' | 'replayed'>}
   */
  const admit = async (executeOptions) => {
    const options = isPlainObject(executeOptions) ? executeOptions : {};
    const approval = findApproval(options.messages, options.toolCallId);
    if (!approval?.approved) return 'none';
    const key = approvalKey(approval.approvalId);
    // The Node entry's caches consume in their storage; the browser entry's (memory or IndexedDB,
    // no method: its bundle's size budget) through the same records, kept here.
    const fresh = typeof cache.consumeOnce === 'function'
      ? await cache.consumeOnce(key, APPROVAL_RECORD_TTL_MS)
      : await consumeOnceFor(cache, String(cache.storage), undefined, key, APPROVAL_RECORD_TTL_MS);
    return fresh === true ? 'fresh' : 'replayed';
  };
  /**
   * Whether the call of `executeOptions` (admitted as `admitted`) may let an asked flow through
   * (at most once): `true` when the user approved it (its approval in the messages, used for the
   * first time); `false` when the user declined it; `null` otherwise (refused all the same).
   */
  const approved = (/** @type {string} */ name, /** @type {unknown} */ executeOptions, /** @type {'none' | 'fresh'} */ admitted) => {
    const options = isPlainObject(executeOptions) ? executeOptions : {};
    const id = options.toolCallId;
    if (typeof id !== 'string') return null;
    const approval = findApproval(options.messages, id);
    const ours = approvals.take(id);
    if (approval?.approved === false) return false;
    if (!ours) {
      // Asked by nobody of ours, yet run by the AI SDK's loop: a host `toolApproval` decided.
      if (!consulted.has(id) && Array.isArray(options.messages) && options.messages.length > 0 && !warned) {
        warned = true;
        globalThis.console?.warn?.(`mcp-result-cache: ${name} was called with referenced data the flow policy asks about, but the cache was never asked for its approval (streamText's own \`toolApproval\` decided): the call was refused. Compose the cache's: \`toolApproval: cacheToolApproval(tools, yourToolApproval)\` from "mcp-result-cache/ai-sdk".`);
      }
      return null;
    }
    // Approved by the user in the messages (consumed just now). Being asked is not an approval:
    // an `execute` after `needsApproval` answered `true`, without the user's answer in its
    // messages (a page running the tool as soon as its input is known), is refused.
    return admitted === 'fresh' ? true : null;
  };
  const idOf = (/** @type {unknown} */ options) => (isPlainObject(options) ? options.toolCallId : undefined);
  return {
    admit,
    approved,
    /** The cache was asked about this call (whatever it answered). */
    consulted: (/** @type {unknown} */ options) => consulted.add(idOf(options)),
    /** The cache asked for the user's approval of this call. */
    asked: (/** @type {unknown} */ options) => approvals.add(idOf(options)),
  };
}

/**
 * The schemas of a wrapped tool: its original (as the AI SDK reads it), its JSON Schema once
 * resolved, the augmented `inputSchema`, and a validation of substituted arguments when the
 * original validates.
 * @param {ToolSetContext} ctx
 * @param {string} name
 * @param {Record<string, unknown>} tool
 */
function schemasOf(ctx, name, tool) {
  /** @type {import('ai').Schema<unknown>} */
  let original;
  try {
    original = asSchema(/** @type {Parameters<typeof asSchema>[0]} */ (tool.inputSchema));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new TypeError(`wrapAiSdkTools: the inputSchema of \`${name}\` is not a schema the AI SDK can read (${message})`, { cause: error });
  }
  /** @type {Promise<Record<string, unknown>> | null} */
  let resolved = null;
  const originalJson = () =>
    (resolved ??= Promise.resolve(original.jsonSchema).then((/** @type {unknown} */ json) => {
      if (!isPlainObject(json)) throw new TypeError(`wrapAiSdkTools: the JSON Schema of \`${name}\` is not an object`);
      return json;
    }));
  const inputSchema = jsonSchema(async () => {
    const json = await originalJson();
    await ctx.api.ready();
    const [augmented] = /** @type {{ inputSchema: import('ai').JSONSchema7 }[]} */ (ctx.api.augmentTools([{ name, inputSchema: json }], ctx.augment));
    return augmented.inputSchema;
  });
  const check = original.validate;
  const validate = typeof check === 'function'
    ? async (/** @type {unknown} */ args) => {
      const checked = await check.call(original, args);
      return checked.success
        ? { ok: /** @type {const} */ (true), args: /** @type {unknown} */ (checked.value) }
        : { ok: /** @type {const} */ (false), envelope: invalidInputEnvelope(name, checked.error) };
    }
    : undefined;
  return { inputSchema, originalJson, validate };
}

/** The abort signal of an execute options object, when it has one. */
const signalOf = (/** @type {unknown} */ options) =>
  (isPlainObject(options) && options.abortSignal instanceof AbortSignal ? options.abortSignal : undefined);

/** Why a streaming call that did not finish is refused its result: its signal's reason, or an `AbortError`. */
const stoppedError = (/** @type {AbortSignal | undefined} */ signal) =>
  (signal?.aborted ? signal.reason : new DOMException('The tool call was stopped before its last output', 'AbortError'));


/**
 * The original generator of a call, handed by the pipeline's dispatch to the wrapped one, which
 * pulls it; `finish(last)` answers the dispatch its last output, `fail(error)` refuses it one.
 * @typedef {{ outputs: AsyncIterator<unknown>, finish: (last: unknown) => void, fail: (error: unknown) => void }} Dispatched
 */

/**
 * A streaming tool's `execute` (an `async function*`). Its outputs but the last are passed on as
 * they come (preliminary results: the tool's progress), then, in place of the last (the result,
 * stored), what the model should see of it. The original is pulled as the AI SDK pulls, one
 * output ahead: when the wrapped generator is returned or the call's `abortSignal` fires, the
 * original is returned too, and the call, which did not finish, stores nothing.
 * @param {(input: unknown, executeOptions: unknown, dispatch: (args: unknown) => Promise<unknown>) => Promise<unknown>} run
 * @param {(args: unknown, executeOptions: unknown) => AsyncIterable<unknown>} execute the original, bound to its tool
 */
function streamingExecute(run, execute) {
  return async function* (/** @type {unknown} */ input, /** @type {unknown} */ executeOptions) {
    const signal = signalOf(executeOptions);
    /** @type {(dispatched: Dispatched) => void} */
    let hand = () => {};
    /** @type {Promise<Dispatched>} */
    const handed = new Promise((resolve) => (hand = resolve));
    const ran = run(input, executeOptions, (args) => new Promise((finish, fail) => {
      // Pulled later from the AI SDK's context: each step runs in the call's span, as a plain
      // tool's `execute` does.
      const outputs = execute(args, executeOptions)[Symbol.asyncIterator]();
      hand({ outputs: { next: boundToActive(() => outputs.next()), return: boundToActive((value) => outputs.return?.(value) ?? Promise.resolve({ done: true, value })) }, finish, fail });
    }));
    ran.catch(() => {}); // read below; a call stopped early rejects with none to read it
    const dispatched = await Promise.race([handed, ran.then(() => null)]);
    if (dispatched) {
      const { outputs, finish, fail } = dispatched;
      // Settled once the original finished or threw; until then `finally` stops the call.
      let settled = false;
      // The original is running a step (a `next()` it has not answered).
      let midStep = false;
      const pull = () => {
        signal?.throwIfAborted();
        midStep = true;
        const next = outputs.next();
        next.then(() => (midStep = false), () => (midStep = false));
        return unlessAborted(next, signal);
      };
      try {
        /** @type {unknown} */
        let last;
        for (let step = await pull(); !step.done;) {
          last = step.value;
          step = await pull();
          if (!step.done) yield last; // not the last: the tool's progress
        }
        settled = true;
        finish(last);
      } catch (error) {
        if (settled || signal?.aborted) throw error;
        // The original threw: the pipeline's error, thrown below once its span ended.
        settled = true;
        fail(error);
      } finally {
        if (!settled) {
          fail(stoppedError(signal));
          // Mid-step (its signal aborted), the original stops at its next `yield`, unwaited.
          const stopping = Promise.resolve(outputs.return?.()).catch(() => {});
          if (!midStep) await stopping;
        }
      }
    }
    yield await ran;
  };
}

/**
 * One wrapped tool (see js/ai-sdk.d.ts): the augmented schema, `toModelOutput`, and for a tool
 * with `execute`, `needsApproval` and an `execute` running the pipeline.
 * @param {ToolSetContext} ctx
 * @param {string} name
 * @param {Record<string, unknown>} tool
 */
function wrapTool(ctx, name, tool) {
  const { pipeline, origin, observe, gate } = ctx;
  const { inputSchema, originalJson, validate } = schemasOf(ctx, name, tool);
  // The tool's MCP annotations (`openWorldHint` for the `"guarded"` flow policy): its own
  // `annotations`, or where `@ai-sdk/mcp` tools carry them, `metadata.annotations`.
  const given = isPlainObject(tool.annotations) ? tool.annotations : isPlainObject(tool.metadata) ? tool.metadata.annotations : undefined;
  const annotations = isPlainObject(given) ? { ...given } : {};
  const annotationsOf = async () => annotations;
  /** @type {(input: unknown, executeOptions: unknown, dispatch: (args: unknown) => Promise<unknown>) => Promise<unknown>} */
  const run = (input, executeOptions, dispatch) =>
    observe().then(() => instrumentToolCall(name, ctx.telemetryCache, async (facts, onRaw) => {
      // An approval is used once: the same approval sent again never runs the tool.
      const admitted = await gate.admit(executeOptions);
      if (admitted === 'replayed') {
        if (facts) facts.blocked = 'approval_already_used';
        return envelopeResult(replayedEnvelope(name));
      }
      return pipeline.run(name, input, {
        convId: pipeline.conversation(executeOptions),
        origin,
        declaredOf: async () => declaredProperties(await originalJson()),
        validate,
        annotationsOf,
        ask: once(async () => gate.approved(name, executeOptions, admitted)),
        aliases: passedUris(input),
        dispatch,
        facts,
        onRaw,
      });
    }));
  // The AI SDK asks `needsApproval` before it runs the tool: `true` when the original tool
  // wants approval, or when this call would move referenced data the policy asks about. The
  // tool's own function is asked about the input its `execute` would get: references resolved,
  // its input validation applied (asked about `data_uri`, it never saw the data it would act on).
  // The checks of one approval share `memo` (js/tool-pipeline.mjs, `resolvedOnce`): the
  // referenced data is read once for the tool's own function and the flows together.
  const ownApproval = tool.needsApproval;
  const declaredOf = async () => declaredProperties(await originalJson());
  /** @type {(input: unknown, approvalOptions: unknown, memo?: Resolutions) => Promise<unknown>} */
  const dispatched = (input, approvalOptions, memo) =>
    pipeline.dispatchedInput(input, { convId: pipeline.conversation(approvalOptions), declaredOf, validate, memo });
  const ownAsks = async (/** @type {unknown} */ input, /** @type {unknown} */ approvalOptions, /** @type {Resolutions} */ memo) => {
    if (typeof ownApproval !== 'function') return ownApproval === true;
    return (await ownApproval.call(tool, await dispatched(input, approvalOptions, memo), approvalOptions)) === true;
  };
  /** The flows of this call the policy asks about (none: `[]`), the call marked as consulted (and as asked, when it asks). */
  const askedFlows = async (/** @type {unknown} */ input, /** @type {unknown} */ approvalOptions, /** @type {Resolutions} */ memo) => {
    gate.consulted(approvalOptions);
    await observe();
    const flows = await pipeline.askedFlows(name, input, { convId: pipeline.conversation(approvalOptions), origin, annotationsOf, aliases: passedUris(input), declaredOf, memo });
    if (flows.length > 0) gate.asked(approvalOptions);
    return flows;
  };
  const needsApproval = async (/** @type {unknown} */ input, /** @type {unknown} */ approvalOptions) => {
    gate.consulted(approvalOptions);
    /** @type {Resolutions} */
    const memo = new Map();
    if (await ownAsks(input, approvalOptions, memo)) {
      gate.asked(approvalOptions);
      return true;
    }
    return (await askedFlows(input, approvalOptions, memo)).length > 0;
  };

  // No outputSchema: the output is what the model should see (a reference, a summary, an
  // envelope), which the tool's own output schema does not describe.
  const { outputSchema: _outputSchema, ...rest } = tool;
  /** @type {Record<string, unknown>} */
  const out = { ...rest, inputSchema, toModelOutput };
  const execute = tool.execute;
  if (typeof execute !== 'function') return out; // declared here, executed elsewhere
  out.needsApproval = needsApproval;
  registerApprovalHook(out, {
    async flowReason(input, approvalOptions, memo) {
      const flows = await askedFlows(input, approvalOptions, memo);
      return flows.length > 0 ? approvalReason(name, flows) : null;
    },
    ownStatus: async (input, approvalOptions, memo) => ({ type: (await ownAsks(input, approvalOptions, memo)) ? 'user-approval' : 'not-applicable' }),
    dispatched,
  });
  out.execute = isAsyncGeneratorFunction(execute)
    ? streamingExecute(run, (args, executeOptions) => execute.call(tool, args, executeOptions))
    : (/** @type {unknown} */ input, /** @type {unknown} */ executeOptions) => run(input, executeOptions, async (args) => finalOutput(await execute.call(tool, args, executeOptions), signalOf(executeOptions)));
  return out;
}

/**
 * wrapAiSdkTools's work (a read of its arguments that throws is the TypeError of
 * `readingArguments`).
 * @param {AiSdkApi} api @param {unknown} tools @param {unknown} options
 */
function wrapToolSet(api, tools, options) {
  if (!isPlainObject(tools)) {
    throw new TypeError('wrapAiSdkTools expects an AI SDK ToolSet (an object of tools by name)');
  }
  const pipeline = createToolPipeline(options, 'wrapAiSdkTools');
  const { augment, server } = /** @type {Record<string, unknown>} */ (options);
  checkCommonOptions(/** @type {Record<string, unknown>} */ (options), 'wrapAiSdkTools');
  const omitStored = wantsStoredPayloadOmitted(/** @type {Record<string, unknown>} */ (options), 'wrapAiSdkTools');
  const pageReferences = checkPageReferences(/** @type {Record<string, unknown>} */ (options), 'wrapAiSdkTools');
  const origin = () => (typeof server === 'string' && server ? { server } : {});
  const cache = /** @type {import('./tool-pipeline.mjs').PipelineCache & { [STORED_BYTES]?: (uri: string) => number | undefined }} */ (pipeline.cache);

  // `[Cache-Control: …]` directives in the tools' descriptions, taught to the cache once.
  /** @type {{ name: string, description: string }[]} */
  const described = [];
  /** @type {Promise<void> | null} */
  let observed = null;
  const observe = () =>
    (observed ??= api.ready().then(() => {
      if (described.length > 0) pipeline.cache.observeTools(described, origin());
    }));
  /** @type {ToolSetContext} */
  const ctx = {
    api, pipeline, origin, observe, augment, gate: approvalGate(pipeline.cache),
    telemetryCache: { bytesOf: (uri) => cache[STORED_BYTES]?.(uri) },
  };

  /** @type {Record<string, Record<string, unknown>>} */
  const wrapped = {};
  for (const [name, tool] of Object.entries(tools)) {
    if (!isPlainObject(tool)) throw new TypeError(`wrapAiSdkTools: \`${name}\` is not an AI SDK tool`);
    // A name the cache records (`afterToolCall` refuses any other at each call): not empty,
    // and without U+001F, which separates a server's name from a tool's in an entry's source
    // (a tool named `vault\u001fx` would claim vault's results).
    if (!isToolName(name)) throw new TypeError(`wrapAiSdkTools: a tool's name must be non-empty and must not contain U+001F (${JSON.stringify(name)})`);
    // Provider tools have provider-defined schemas (and provider-run execution): left alone.
    if (tool.type === 'provider') {
      setOwn(wrapped, name, tool);
      continue;
    }
    if (typeof tool.description === 'string') described.push({ name, description: tool.description });
    setOwn(wrapped, name, wrapTool(ctx, name, tool));
  }
  const resolving = pageReferences ? withPageReferences(wrapped, { cache: /** @type {Parameters<typeof withPageReferences>[1]["cache"]} */ (/** @type {unknown} */ (pipeline.cache)), conversation: pipeline.conversation, received: pageReferences }) : wrapped;
  // Each tool made anew keeps its approval hook (`cacheToolApproval` finds it by the tool):
  // the page-resolving tools carry their own (js/page-references.mjs), the rest the wrapped tool's.
  return carryApprovalHooks(resolving, omitStored ? omitStoredPayloads(resolving) : resolving);
}

/**
 * The listed tools of `client` as AI SDK dynamic tools by name, each calling the client (a span
 * per call when `traced`).
 * @param {import('./ai-sdk.d.ts').ToolClient} client @param {unknown[]} listed @param {boolean} traced
 */
function dynamicTools(client, listed, traced) {
  /** @type {Record<string, unknown>} */
  const tools = {};
  for (const tool of listed) {
    if (!isPlainObject(tool) || typeof tool.name !== 'string' || tool.name === '') {
      throw new TypeError('clientToolSet: listTools() answered a tool without a name');
    }
    // A name the cache cannot record (U+001F separates a server's name from a tool's in an
    // entry's source: `vault\u001fx` would claim vault's results) is left out of the set, as
    // `wrapMcpClient` teaches the cache nothing of it: one such tool does not fail the others.
    if (!isToolName(tool.name)) continue;
    const schema = isPlainObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' };
    const name = tool.name;
    setOwn(tools, name, {
      type: 'dynamic',
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      ...(typeof tool.title === 'string' ? { title: tool.title } : {}),
      ...(isPlainObject(tool.annotations) ? { annotations: { ...tool.annotations } } : {}),
      // The server's JSON Schema, as it listed it (a foreign value: the AI SDK reads it as JSON Schema 7).
      inputSchema: jsonSchema(/** @type {import('ai').JSONSchema7} */ ({ ...schema, properties: isPlainObject(schema.properties) ? schema.properties : {} })),
      async execute(/** @type {unknown} */ args, /** @type {unknown} */ executeOptions) {
        const signal = signalOf(executeOptions);
        signal?.throwIfAborted();
        const call = () => client.callTool({ name, arguments: /** @type {Record<string, unknown>} */ (args) }, undefined, signal ? { signal } : undefined);
        return traced ? instrumentToolCall(name, {}, (_facts, onRaw) => call().then((raw) => (onRaw?.(raw), raw))) : call();
      },
      toModelOutput,
    });
  }
  return tools;
}

/**
 * @param {AiSdkApi} api the entry's package API
 */
export function createAiSdk(api) {
  /**
   * Wraps an AI SDK `ToolSet`; see js/ai-sdk.d.ts. Synchronous: schemas are resolved, converted
   * and augmented when the AI SDK first asks for them (it awaits `inputSchema.jsonSchema`).
   * @param {unknown} tools
   * @param {unknown} options
   */
  function wrapAiSdkTools(tools, options) {
    return readingArguments('wrapAiSdkTools', () => wrapToolSet(api, tools, options), [[tools, 'tools'], [options, 'options']]);
  }

  /**
   * Lists a client's tools and answers them as an AI SDK `ToolSet`; see js/ai-sdk.d.ts.
   */
  /** @param {unknown} given @param {unknown} [options] @returns {Promise<import('ai').ToolSet>} */
  async function clientToolSet(given, options = {}) {
    if (!isPlainObject(given) || typeof given.listTools !== 'function' || typeof given.callTool !== 'function') {
      throw new TypeError('clientToolSet expects an MCP client: an object with listTools() and callTool({ name, arguments })');
    }
    const client = /** @type {import('./ai-sdk.d.ts').ToolClient} */ (/** @type {unknown} */ (given));
    if (!isPlainObject(options)) throw new TypeError('clientToolSet: options must be an object');
    checkCommonOptions(options, 'clientToolSet');
    wantsStoredPayloadOmitted(options, 'clientToolSet');
    checkPageReferences(options, 'clientToolSet');
    if (options.cache !== undefined) createToolPipeline(options, 'clientToolSet'); // the same checks, before any listing

    /** @type {unknown[]} */
    const listed = [];
    await eachToolPage(client, (page) => {
      if (!isPlainObject(page) || !Array.isArray(page.tools)) throw new TypeError('clientToolSet: listTools() must resolve { tools: [...] }');
      listed.push(...page.tools);
    });
    // Without the pipeline (the read-back tools of `cacheToolSet`), each call is still a span.
    const traced = options.cache === undefined;

    const tools = dynamicTools(client, listed, traced);
    // Tools made here, in the AI SDK's shape (dynamic tools over the client).
    if (options.cache === undefined) return /** @type {import('ai').ToolSet} */ (/** @type {unknown} */ (tools));
    const name = client.getServerVersion?.()?.name;
    const server = options.server ?? (isServerName(name) ? name : undefined);
    return /** @type {import('ai').ToolSet} */ (/** @type {unknown} */ (wrapAiSdkTools(tools, { ...options, server })));
  }

  /**
   * The read-back tools (`cacheTools`) as an AI SDK `ToolSet`; see js/ai-sdk.d.ts.
   */
  function cacheToolSet(/** @type {unknown} */ cache, /** @type {unknown} */ options) {
    return clientToolSet(api.cacheTools(cache, options));
  }

  return { wrapAiSdkTools, clientToolSet, cacheToolSet };
}
