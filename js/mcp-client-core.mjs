// wrapMcpClient: the whole by-reference pipeline around the official MCP TypeScript SDK's
// `Client`, for servers that never heard of references. Shared by the browser and Node entries
// (js/mcp-client.mjs, js/mcp-client.node.mjs), which pass in their own package API.
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const RESOURCE_UPDATED = 'notifications/resources/updated';
const URI_SUFFIX = '_uri';

/** The envelope a blocked call answers with, as an MCP `CallToolResult`. */
function envelopeResult(envelope) {
  return { content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: true };
}

/** A reused LLM-visible value, as an MCP `CallToolResult`. */
function visibleResult(visible) {
  return { content: [{ type: 'text', text: JSON.stringify(visible) }], structuredContent: visible };
}

function strayReferenceEnvelope(toolName, key) {
  return {
    error: `invalid_args: \`${key}\` must hold an mcp+cache:// reference copied verbatim from an earlier result`,
    fix_hint: `Copy the exact \`_cache_uri\` value (or an entry of \`_cache_refs\`) of an earlier tool result into \`${key}\` when calling ${toolName}, or pass \`${key.slice(0, -URI_SUFFIX.length)}\` itself.`,
  };
}

export function createWrapMcpClient(api) {
  /**
   * Wraps an MCP SDK `Client` so that every tool gets by-reference arguments.
   *
   * - `listTools()` answers the tools with `<name>_uri` siblings for array parameters
   *   (`augmentTools`), and teaches the cache their `[Cache-Control]` directives.
   * - `callTool()` runs the whole pipeline: inline cap, reuse of immutable results,
   *   substitution of references, dispatch (never with a `_uri` key the server did not declare),
   *   then `afterToolCall`; it resolves what the model should see. A blocked call resolves an
   *   `isError` result whose text is the envelope for the model; the server is not called.
   * - `notifications/resources/updated` reach `cache.handleNotification` (then any handler the
   *   host set, before or after wrapping).
   * - Everything else is the original client's.
   *
   * @param client an `@modelcontextprotocol/sdk` `Client` (connected or not)
   * @param options `{ cache, convId, augment?, maxChars? }`: `convId` is the conversation id, or
   *   a function returning the current one (for hosts that switch conversations); `augment` is
   *   passed to `augmentTools` (e.g. `{ objects: true }`); `maxChars` to `afterToolCall`.
   */
  return function wrapMcpClient(client, options) {
    if (client === null || typeof client !== 'object' || typeof client.callTool !== 'function') {
      throw new TypeError('wrapMcpClient expects an MCP SDK Client');
    }
    const { cache, convId, augment, maxChars } = options ?? {};
    if (cache === null || typeof cache !== 'object' || typeof cache.beforeToolCall !== 'function') {
      throw new TypeError('wrapMcpClient needs { cache: ResultCache }');
    }
    const conversation = () => {
      const id = typeof convId === 'function' ? convId() : convId;
      return id ?? 'default';
    };
    /** Tool name → the top-level properties its original schema declares (`null`: any). */
    const declared = new Map();
    let listing = null;

    const remember = (tools) => {
      for (const tool of tools ?? []) {
        const schema = tool?.inputSchema;
        const props = schema && typeof schema === 'object' ? schema.properties : undefined;
        declared.set(tool.name, props && typeof props === 'object' ? new Set(Object.keys(props)) : null);
      }
    };

    async function listTools(params, requestOptions) {
      const result = await client.listTools(params, requestOptions);
      remember(result.tools);
      await api.ready();
      cache.observeTools(result.tools);
      return { ...result, tools: api.augmentTools(result.tools, augment) };
    }

    /** The declared properties of a tool, listing the server's tools once if needed. */
    async function declaredOf(name) {
      if (!declared.has(name)) {
        listing ??= (async () => {
          let cursor;
          do {
            const page = await client.listTools(cursor ? { cursor } : undefined);
            remember(page.tools);
            cursor = page.nextCursor;
          } while (cursor);
        })().finally(() => {
          listing = null;
        });
        await listing;
      }
      return declared.get(name) ?? null;
    }

    async function callTool(params, resultSchema, requestOptions) {
      const name = params?.name;
      const args = params?.arguments ?? {};
      const convId = conversation();
      const before = await cache.beforeToolCall(name, args, { convId });
      if (!before.dispatch) {
        return 'reused' in before ? visibleResult(before.reused) : envelopeResult(before.envelope);
      }
      const known = await declaredOf(name);
      if (known && before.args && typeof before.args === 'object') {
        // A `_uri` key left after substitution holds no reference; the server never declared it.
        const stray = Object.keys(before.args).find((k) => k.endsWith(URI_SUFFIX) && !known.has(k));
        if (stray) {
          cache.afterToolCall(name, { isError: true }, { convId, args }).catch(() => {});
          return envelopeResult(strayReferenceEnvelope(name, stray));
        }
      }
      const result = await client.callTool({ ...params, arguments: before.args }, resultSchema, requestOptions);
      return cache.afterToolCall(name, result, maxChars === undefined ? { convId, args } : { convId, args, maxChars });
    }

    // Stale notifications: ours first, then the host's (set before or after wrapping).
    const previous = client._notificationHandlers?.get?.(RESOURCE_UPDATED);
    let hostHandler = previous ?? null;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      try {
        await cache.handleNotification(notification);
      } catch {
        // a storage failure is an `error` event of the cache; the host's handler still runs
      }
      if (hostHandler) await hostHandler(notification);
    });
    function setNotificationHandler(schema, handler) {
      if (schema === ResourceUpdatedNotificationSchema) {
        hostHandler = handler;
        return;
      }
      client.setNotificationHandler(schema, handler);
    }

    const overrides = { listTools, callTool, setNotificationHandler };
    return new Proxy(client, {
      get(target, prop) {
        if (Object.hasOwn(overrides, prop)) return overrides[prop];
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
}
