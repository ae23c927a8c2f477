// `mcp-result-cache/ai-sdk`: the by-reference pipeline around AI SDK tools (`ai` 7: a `ToolSet`
// from `@ai-sdk/mcp`'s `createMCPClient(...).tools()`, hand-written `tool({...})`s, or one built
// from any MCP-client-shaped object). Shared by the browser and Node entries (js/ai-sdk.mjs,
// js/ai-sdk.node.mjs), which pass in their own package API. `ai` is an optional peer dependency:
// only this entry imports it, and nothing of it is bundled into the package.
import { asSchema, jsonSchema } from 'ai';
import { createToolPipeline, declaredProperties, eachToolPage, isPlainObject } from './tool-pipeline.mjs';
import { URI_ARG_SUFFIX, invalidArgs, isServerName } from './protocol.mjs';
import { omitStoredPayloads, wantsStoredPayloadOmitted } from './ai-sdk-wire.mjs';
import { checkPageReferences, withPageReferences } from './page-references.mjs';

/** Most tool calls remembered as sent to the AI SDK's approval (`needsApproval` answered `true`). */
const MAX_PENDING_APPROVALS = 1024;

/** Longest base64 run an unknown content block may carry into a text part before it is elided. */
const MAX_INLINE_DATA_CHARS = 256;
/** Most characters of a validation error quoted back to the model. */
const MAX_VALIDATION_MESSAGE_CHARS = 600;

/**
 * AI SDK tools and MCP values are the caller's (typed by js/ai-sdk.d.ts): read as loose records here.
 * @typedef {Record<string, any>} Loose
 */

const isAsyncGeneratorFunction = (/** @type {unknown} */ f) => typeof f === 'function' && f.constructor?.name === 'AsyncGeneratorFunction';

/** An optional `{ objects?: boolean }` (`augmentTools`' options) or `server` name, checked. */
function checkCommonOptions(/** @type {Loose} */ options, /** @type {string} */ who) {
  const { augment, server } = options;
  if (augment !== undefined && !isPlainObject(augment)) throw new TypeError(`${who}: augment must be an object ({ objects?: boolean })`);
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
 * text as `error-text`); anything else as JSON.
 */
export function toModelOutput(/** @type {{ output: unknown }} */ { output }) {
  if (typeof output === 'string') return { type: 'text', value: output };
  if (isPlainObject(output) && Array.isArray(output.content)) {
    const blocks = output.content;
    if (blocks.length === 0 && output.structuredContent !== undefined) return { type: 'json', value: output.structuredContent };
    if (output.isError === true && blocks.every((b) => isPlainObject(b) && b.type === 'text' && typeof b.text === 'string')) {
      return { type: 'error-text', value: blocks.map((b) => b.text).join('\n') };
    }
    return { type: 'content', value: blocks.map(contentPart) };
  }
  return { type: 'json', value: output === undefined ? null : JSON.parse(JSON.stringify(output) ?? 'null') };
}

function invalidInputEnvelope(/** @type {string} */ name, /** @type {any} */ error) {
  const message = String(error?.message ?? error).slice(0, MAX_VALIDATION_MESSAGE_CHARS);
  return invalidArgs(
    `the arguments of ${name} (with references resolved) do not match its input schema: ${message}`,
    `Call ${name} again with arguments its schema accepts; pass references in the \`<name>${URI_ARG_SUFFIX}\` parameters.`,
  );
}

/** A small single-consumer queue: what a streaming tool yields while its pipeline runs. */
function channel() {
  /** @type {any[]} */
  const items = [];
  /** @type {(() => void) | null} */
  let wake = null;
  return {
    push(/** @type {unknown} */ item) {
      items.push(item);
      wake?.();
    },
    async next() {
      while (items.length === 0) await new Promise((resolve) => (wake = /** @type {() => void} */ (resolve)));
      wake = null;
      return items.shift();
    },
  };
}

/**
 * @param {{
 *   augmentTools(tools: unknown, options?: unknown): any,
 *   cacheTools(cache: unknown, options?: unknown): unknown,
 *   ready(): Promise<unknown>,
 * }} api the entry's package API
 */
export function createAiSdk(api) {
  /**
   * Wraps an AI SDK `ToolSet`; see js/ai-sdk.d.ts. Synchronous: schemas are resolved, converted
   * and augmented when the AI SDK first asks for them (it awaits `inputSchema.jsonSchema`).
   */
  function wrapAiSdkTools(/** @type {any} */ tools, /** @type {any} */ options) {
    if (tools === null || typeof tools !== 'object' || Array.isArray(tools)) {
      throw new TypeError('wrapAiSdkTools expects an AI SDK ToolSet (an object of tools by name)');
    }
    const pipeline = createToolPipeline(options, 'wrapAiSdkTools');
    checkCommonOptions(options, 'wrapAiSdkTools');
    const omitStored = wantsStoredPayloadOmitted(options, 'wrapAiSdkTools');
    const pageReferences = checkPageReferences(options, 'wrapAiSdkTools');
    const { augment, server } = options;
    const origin = () => (server ? { server } : {});

    // The tool calls whose `needsApproval` answered `true`: the AI SDK runs them only once the
    // user approved (it asks `needsApproval` again right before it does), so `execute` lets a
    // flow the policy asks about through for these calls alone, once. Any other call (`execute`
    // run directly, or by a page's `onToolCall` before an approval) is refused such a flow.
    /** @type {Set<string>} */
    const approvals = new Set();
    const sentToApproval = (/** @type {unknown} */ id) => {
      if (typeof id !== 'string') return;
      approvals.delete(id);
      approvals.add(id);
      if (approvals.size > MAX_PENDING_APPROVALS) approvals.delete(/** @type {string} */ (approvals.values().next().value));
    };
    const approved = (/** @type {any} */ id) => approvals.delete(id);

    // `[Cache-Control: …]` directives in the tools' descriptions, taught to the cache once.
    /** @type {{ name: string, description: string }[]} */
    const described = [];
    /** @type {Promise<void> | null} */
    let observed = null;
    const observe = () =>
      (observed ??= api.ready().then(() => {
        if (described.length > 0) pipeline.cache.observeTools(described, origin());
      }));

    /** @type {Loose} */
    const wrapped = {};
    for (const [name, tool] of Object.entries(/** @type {Loose} */ (tools))) {
      if (tool === null || typeof tool !== 'object') throw new TypeError(`wrapAiSdkTools: \`${name}\` is not an AI SDK tool`);
      // Provider tools have provider-defined schemas (and provider-run execution): left alone.
      if (tool.type === 'provider') {
        wrapped[name] = tool;
        continue;
      }
      if (typeof tool.description === 'string') described.push({ name, description: tool.description });
      wrapped[name] = wrapTool(name, tool);
    }
    const resolving = pageReferences ? withPageReferences(wrapped, { cache: options.cache, conversation: pipeline.conversation, received: pageReferences }) : wrapped;
    return omitStored ? omitStoredPayloads(resolving) : resolving;

    /** @param {string} name @param {Loose} tool */
    function wrapTool(name, tool) {
      /** @type {any} */
      let original;
      try {
        original = asSchema(tool.inputSchema);
      } catch (error) {
        const message = /** @type {any} */ (error)?.message ?? error;
        throw new TypeError(`wrapAiSdkTools: the inputSchema of \`${name}\` is not a schema the AI SDK can read (${message})`, { cause: error });
      }
      /** @type {Promise<Loose> | null} */
      let resolved = null;
      const originalJson = () =>
        (resolved ??= Promise.resolve(original.jsonSchema).then((/** @type {unknown} */ json) => {
          if (!isPlainObject(json)) throw new TypeError(`wrapAiSdkTools: the JSON Schema of \`${name}\` is not an object`);
          return json;
        }));
      const inputSchema = jsonSchema(async () => {
        const json = await originalJson();
        await api.ready();
        return api.augmentTools([{ name, inputSchema: json }], augment)[0].inputSchema;
      });
      const validate = typeof original.validate === 'function'
        ? async (/** @type {unknown} */ args) => {
          const checked = await original.validate(args);
          return checked.success
            ? { ok: /** @type {const} */ (true), args: checked.value }
            : { ok: /** @type {const} */ (false), envelope: invalidInputEnvelope(name, checked.error) };
        }
        : undefined;

      // The tool's MCP annotations (`openWorldHint` for the `"guarded"` flow policy): its own
      // `annotations`, or where `@ai-sdk/mcp` tools carry them, `metadata.annotations`.
      const given = isPlainObject(tool.annotations) ? tool.annotations : tool.metadata?.annotations;
      const annotations = isPlainObject(given) ? { ...given } : {};
      const annotationsOf = async () => annotations;
      /** @type {(input: unknown, executeOptions: any, dispatch: (args: unknown) => Promise<unknown>) => Promise<unknown>} */
      const run = (input, executeOptions, dispatch) =>
        observe().then(() =>
          pipeline.run(name, input, {
            convId: pipeline.conversation(executeOptions),
            origin,
            declaredOf: async () => declaredProperties(await originalJson()),
            validate,
            annotationsOf,
            ask: async () => approved(executeOptions?.toolCallId),
            dispatch,
          }));
      // The AI SDK asks `needsApproval` before it runs the tool: `true` when the original tool
      // wants approval, or when this call would move referenced data the policy asks about.
      const ownApproval = tool.needsApproval;
      const needsApproval = async (/** @type {unknown} */ input, /** @type {any} */ approvalOptions) => {
        let ask = typeof ownApproval === 'function' ? await ownApproval.call(tool, input, approvalOptions) : ownApproval === true;
        if (ask !== true) {
          await observe();
          ask = await pipeline.needsApproval(name, input, { convId: pipeline.conversation(approvalOptions), origin, annotationsOf });
        }
        if (ask) sentToApproval(approvalOptions?.toolCallId);
        return ask === true;
      };

      // No outputSchema: the output is what the model should see (a reference, a summary, an
      // envelope), which the tool's own output schema does not describe.
      const { outputSchema: _outputSchema, ...rest } = tool;
      /** @type {Loose} */
      const out = { ...rest, inputSchema, toModelOutput };
      if (typeof tool.execute !== 'function') return out; // declared here, executed elsewhere
      out.needsApproval = needsApproval;
      const execute = tool.execute;
      if (isAsyncGeneratorFunction(execute)) {
        // A streaming tool: its outputs are passed on as they come (preliminary results for the
        // UI), then what the model should see of the last one is the final output.
        out.execute = async function* (/** @type {unknown} */ input, /** @type {any} */ executeOptions) {
          const queue = channel();
          run(input, executeOptions, async (/** @type {unknown} */ args) => {
            let last;
            for await (const output of execute.call(tool, args, executeOptions)) {
              last = output;
              queue.push({ output });
            }
            return last;
          }).then((visible) => queue.push({ visible, done: true }), (/** @type {unknown} */ error) => queue.push({ error, done: true }));
          for (;;) {
            const item = await queue.next();
            if ('error' in item) throw item.error;
            yield item.done ? item.visible : item.output;
            if (item.done) return;
          }
        };
      } else {
        out.execute = (/** @type {unknown} */ input, /** @type {any} */ executeOptions) =>
          run(input, executeOptions, (args) => execute.call(tool, args, executeOptions));
      }
      return out;
    }
  }

  /**
   * Lists a client's tools and answers them as an AI SDK `ToolSet`; see js/ai-sdk.d.ts.
   */
  /** @param {any} client @param {any} [options] */
  async function clientToolSet(client, options = {}) {
    if (client === null || typeof client !== 'object' || typeof client.listTools !== 'function' || typeof client.callTool !== 'function') {
      throw new TypeError('clientToolSet expects an MCP client: an object with listTools() and callTool({ name, arguments })');
    }
    if (!isPlainObject(options)) throw new TypeError('clientToolSet: options must be an object');
    checkCommonOptions(options, 'clientToolSet');
    wantsStoredPayloadOmitted(options, 'clientToolSet');
    checkPageReferences(options, 'clientToolSet');
    if (options.cache !== undefined) createToolPipeline(options, 'clientToolSet'); // the same checks, before any listing

    /** @type {any[]} */
    const listed = [];
    await eachToolPage(client, (page) => {
      if (!isPlainObject(page) || !Array.isArray(page.tools)) throw new TypeError('clientToolSet: listTools() must resolve { tools: [...] }');
      listed.push(...page.tools);
    });

    /** @type {Loose} */
    const tools = {};
    for (const tool of listed) {
      if (!isPlainObject(tool) || typeof tool.name !== 'string' || tool.name === '') {
        throw new TypeError('clientToolSet: listTools() answered a tool without a name');
      }
      const schema = isPlainObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' };
      const name = tool.name;
      tools[name] = {
        type: 'dynamic',
        ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
        ...(typeof tool.title === 'string' ? { title: tool.title } : {}),
        ...(isPlainObject(tool.annotations) ? { annotations: { ...tool.annotations } } : {}),
        inputSchema: jsonSchema({ ...schema, properties: isPlainObject(schema.properties) ? schema.properties : {} }),
        async execute(/** @type {unknown} */ args, /** @type {any} */ executeOptions) {
          const signal = executeOptions?.abortSignal;
          signal?.throwIfAborted();
          return client.callTool({ name, arguments: args }, undefined, signal ? { signal } : undefined);
        },
        toModelOutput,
      };
    }
    if (options.cache === undefined) return tools;
    const name = typeof client.getServerVersion === 'function' ? client.getServerVersion()?.name : undefined;
    const server = options.server ?? (isServerName(name) ? name : undefined);
    return wrapAiSdkTools(tools, { ...options, server });
  }

  /**
   * The read-back tools (`cacheTools`) as an AI SDK `ToolSet`; see js/ai-sdk.d.ts.
   */
  function cacheToolSet(/** @type {unknown} */ cache, /** @type {unknown} */ options) {
    return clientToolSet(api.cacheTools(cache, options));
  }

  return { wrapAiSdkTools, clientToolSet, cacheToolSet };
}
