// AI SDK 7 tool approval (`streamText({ toolApproval })`) for tools wrapped by
// js/ai-sdk-core.mjs: `cacheToolApproval(tools, own?)` answers the configuration that asks the
// user about a call the flow policy asks about, combined with the host's own; and the pieces the
// wrapped `execute` needs to let such a call through once: the approval of a call found in the
// messages the AI SDK hands it, and the key of its consume-once record.
import { asSchema } from 'ai';
import { isPlainObject, setOwn } from './tool-pipeline.mjs';
import { readingArguments } from './argument-reads.mjs';

/** The statuses of AI SDK 7's `ToolApprovalStatus`, from the most lenient to the strictest. */
const RANK = /** @type {const} */ ({ 'not-applicable': 0, approved: 1, 'user-approval': 2, denied: 3 });

/**
 * A status normalized as the AI SDK normalizes it.
 * @typedef {{ type: keyof typeof RANK, reason?: string }} Status
 */
/**
 * What a wrapped tool answers about one call: the flows the policy asks about (a reason naming
 * servers and tools, or `null`), the tool's own `needsApproval` as a status, and the input its
 * `execute` would pass on (references resolved, input validated; as given when that fails).
 * The checks of one approval pass the same `memo`: the references are resolved once for all.
 * @typedef {import('./tool-pipeline.mjs').Resolutions} Resolutions
 * @typedef {{
 *   flowReason(input: unknown, options: ApprovalOptions, memo: Resolutions): Promise<string | null>,
 *   ownStatus(input: unknown, options: ApprovalOptions, memo: Resolutions): Promise<Status>,
 *   dispatched(input: unknown, options: ApprovalOptions, memo: Resolutions): Promise<unknown>,
 * }} ApprovalHook
 */
/** @typedef {{ toolCallId?: unknown, messages?: unknown, context?: unknown }} ApprovalOptions */

/** Wrapped tool → its hook (set by js/ai-sdk-core.mjs). @type {WeakMap<object, ApprovalHook>} */
const hooks = new WeakMap();

/** Registers the approval hook of a wrapped tool. @param {object} tool @param {ApprovalHook} hook */
export function registerApprovalHook(tool, hook) {
  hooks.set(tool, hook);
}

/** The approval hook of a wrapped tool (`undefined` for any other). @param {unknown} tool */
export const approvalHookOf = (tool) => (isPlainObject(tool) ? hooks.get(tool) : undefined);

/**
 * `tools` (made from `wrapped` by another layer: each tool a new object) with the approval hook
 * of each `wrapped` tool carried over to the tool of the same name. Answers `tools`.
 * @template {Record<string, unknown>} T
 * @param {Record<string, unknown>} wrapped
 * @param {T} tools
 * @returns {T}
 */
export function carryApprovalHooks(wrapped, tools) {
  for (const [name, tool] of Object.entries(tools)) {
    const from = wrapped[name];
    const hook = approvalHookOf(from);
    if (hook && isPlainObject(tool) && tool !== from) hooks.set(tool, hook);
  }
  return tools;
}

/** A status as the AI SDK reads it (`undefined`: not-applicable); a `TypeError` for anything else. */
export function normalizeStatus(/** @type {unknown} */ status, /** @type {string} */ who) {
  if (status === undefined) return /** @type {Status} */ ({ type: 'not-applicable' });
  if (typeof status === 'string' && Object.hasOwn(RANK, status)) return /** @type {Status} */ ({ type: status });
  if (isPlainObject(status) && typeof status.type === 'string' && Object.hasOwn(RANK, status.type)) {
    return /** @type {Status} */ (typeof status.reason === 'string' ? { type: status.type, reason: status.reason } : { type: status.type });
  }
  throw new TypeError(`${who}: a tool approval status must be "not-applicable", "approved", "denied", "user-approval" or { type, reason? }`);
}

/** The stricter of two statuses (denied, then user-approval, then approved, then not-applicable); two user-approvals join their reasons. */
export function stricter(/** @type {Status} */ a, /** @type {Status} */ b) {
  if (RANK[a.type] !== RANK[b.type]) return RANK[a.type] > RANK[b.type] ? a : b;
  if (a.type === 'user-approval' && a.reason && b.reason && a.reason !== b.reason) return { type: a.type, reason: `${a.reason}; ${b.reason}` };
  return a.reason ? a : b;
}

/**
 * The approval response (`tool-approval-response`) of the AI SDK's last message for the call
 * `toolCallId`, paired with its request by `approvalId` (as the AI SDK collects approvals):
 * `{ approvalId, approved }`, or `null` when the messages hold none.
 * @param {unknown} messages
 * @param {unknown} toolCallId
 * @returns {{ approvalId: string, approved: boolean } | null}
 */
export function findApproval(messages, toolCallId) {
  if (!Array.isArray(messages) || typeof toolCallId !== 'string') return null;
  const last = messages.at(-1);
  if (!isPlainObject(last) || last.role !== 'tool' || !Array.isArray(last.content)) return null;
  /** @type {Map<string, unknown>} approvalId → toolCallId of its request */
  const requested = new Map();
  for (const message of messages) {
    if (!isPlainObject(message) || message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (isPlainObject(part) && part.type === 'tool-approval-request' && typeof part.approvalId === 'string') requested.set(part.approvalId, part.toolCallId);
    }
  }
  for (const part of last.content) {
    if (!isPlainObject(part) || part.type !== 'tool-approval-response' || typeof part.approvalId !== 'string') continue;
    if (requested.get(part.approvalId) === toolCallId) return { approvalId: part.approvalId, approved: part.approved === true };
  }
  return null;
}

/** The consume-once key of an approval (one run per approval, on every instance sharing the store). */
export const approvalKey = (/** @type {string} */ approvalId) => `ai-sdk-approval:${approvalId}`;

/**
 * What `ours` adds to `base` for one call of a wrapped tool: `user-approval` with its reason when
 * the flow asks. A call the host denies is denied without asking (nothing is resolved or stored).
 */
async function combine(/** @type {ApprovalHook} */ hook, /** @type {Status} */ base, /** @type {unknown} */ input, /** @type {ApprovalOptions} */ options, /** @type {Resolutions} */ memo) {
  if (base.type === 'denied') return base;
  const reason = await hook.flowReason(input, options, memo);
  return reason === null ? base : stricter(base, { type: 'user-approval', reason });
}

/** Checks the host's own configuration: a function, or an object of statuses or functions by tool name. */
function checkOwn(/** @type {unknown} */ own) {
  if (own === undefined || typeof own === 'function') return;
  if (!isPlainObject(own)) throw new TypeError('cacheToolApproval: own must be a toolApproval function or an object of statuses (or functions) by tool name');
  for (const [name, entry] of Object.entries(own)) {
    if (typeof entry !== 'function') normalizeStatus(entry, `cacheToolApproval: own.${name}`);
  }
}

/**
 * The AI SDK 7 `toolApproval` configuration for `tools`; see js/ai-sdk.d.ts.
 * @param {unknown} tools the tools given to `streamText` (wrapped ones among them)
 * @param {unknown} [own] the host's own `toolApproval`
 */
export function cacheToolApproval(tools, own) {
  return readingArguments('cacheToolApproval', () => approvalFor(tools, own), [[tools, 'tools'], [own, 'own']]);
}

/**
 * The context a tool's `execute` and `needsApproval` get from the AI SDK: `context` checked by the
 * tool's `contextSchema` (its defaults and transforms applied), as the SDK does before both; the
 * function form of `toolApproval` is handed the raw one. A context the schema refuses stays as
 * given (the SDK refuses that call itself).
 * @param {unknown} tool @param {unknown} context
 */
async function toolContext(tool, context) {
  const schema = isPlainObject(tool) ? tool.contextSchema : undefined;
  if (schema == null) return context;
  const checked = await asSchema(/** @type {Parameters<typeof asSchema>[0]} */ (schema)).validate?.(context);
  return checked?.success ? checked.value : context;
}

/** cacheToolApproval's work; a read of its arguments that throws is the TypeError of `readingArguments`. @param {unknown} tools @param {unknown} [own] */
function approvalFor(tools, own) {
  if (!isPlainObject(tools)) throw new TypeError('cacheToolApproval expects the ToolSet given to streamText (an object of tools by name)');
  checkOwn(own);
  /** @type {Map<string, ApprovalHook>} */
  const wrapped = new Map();
  for (const [name, tool] of Object.entries(tools)) {
    const hook = approvalHookOf(tool);
    if (hook) wrapped.set(name, hook);
  }
  if (wrapped.size === 0) throw new TypeError('cacheToolApproval: none of these tools is wrapped (wrapAiSdkTools, clientToolSet or cacheToolSet); pass the tools as wrapped, with their `execute`, not declarations stripped of it');

  if (typeof own === 'function') {
    // The host's function speaks for every call; ours adds the flow's question to wrapped tools.
    // For those, the host's function judges the input the tool would pass on (its references
    // resolved), as a tool's own `needsApproval` does: not `data_uri`, the data.
    return async (/** @type {Record<string, unknown>} */ options) => {
      const call = isPlainObject(options?.toolCall) ? options.toolCall : {};
      const hook = typeof call.toolName === 'string' ? wrapped.get(call.toolName) : undefined;
      if (!hook) return normalizeStatus(await own(options), 'cacheToolApproval: own');
      const name = /** @type {string} */ (call.toolName);
      const contexts = isPlainObject(options.toolsContext) ? options.toolsContext : {};
      const given = isPlainObject(options.tools) && Object.hasOwn(options.tools, name) ? options.tools[name] : tools[name];
      const context = await toolContext(given, Object.hasOwn(contexts, name) ? contexts[name] : undefined);
      const callOptions = { toolCallId: call.toolCallId, messages: options.messages, context };
      /** @type {Resolutions} */
      const memo = new Map();
      const input = await hook.dispatched(call.input, callOptions, memo);
      const status = normalizeStatus(await own(input === call.input ? options : { ...options, toolCall: { ...call, input } }), 'cacheToolApproval: own');
      return combine(hook, status, call.input, callOptions, memo);
    };
  }
  /** @type {Record<string, unknown>} */
  const map = own === undefined ? {} : { ...own };
  for (const [name, hook] of wrapped) {
    const entry = Object.hasOwn(map, name) ? map[name] : undefined;
    setOwn(map, name, async (/** @type {unknown} */ input, /** @type {Record<string, unknown>} */ options) => {
      const callOptions = { toolCallId: options?.toolCallId, messages: options?.messages, context: options?.toolContext };
      /** @type {Resolutions} */
      const memo = new Map();
      const base = entry === undefined
        ? await hook.ownStatus(input, callOptions, memo)
        : normalizeStatus(typeof entry === 'function' ? await entry(await hook.dispatched(input, callOptions, memo), options) : entry, `cacheToolApproval: own.${name}`);
      return combine(hook, base, input, callOptions, memo);
    });
  }
  return map;
}
