// wrapMcpClient: the whole by-reference pipeline around the official MCP TypeScript SDK's
// `Client`, for servers that never heard of references. Shared by the browser and Node entries
// (js/mcp-client.mjs, js/mcp-client.node.mjs), which pass in their own package API.
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const RESOURCE_UPDATED = 'notifications/resources/updated';
const URI_SUFFIX = '_uri';
const CACHE_SCHEME = 'mcp+cache://';
/** Where a client's notification chain lives (one per client, whichever copy of us wrapped it). */
const CHAIN = Symbol.for('mcp-result-cache.resourceUpdatedChain');
/** As src/core/pointer.rs and src/core/uri.rs: `MAX_REF_MEMBER_CHARS`, `MAX_POINTER_BYTES`. */
const MAX_REF_MEMBER_CHARS = 64;
const MAX_POINTER_BYTES = 2048;
/** Most ready references a type-mismatch hint names (as `_cache_refs`, `MAX_CACHE_REFS`). */
const MAX_HINT_REFS = 8;

/** The envelope a blocked call answers with, as an MCP `CallToolResult`. */
function envelopeResult(envelope) {
  return { content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: true };
}

/** A reused LLM-visible value, as an MCP `CallToolResult`. */
function visibleResult(visible) {
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

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

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

/**
 * The method literal of a notification schema (`"notifications/resources/updated"`), read as the
 * SDK's `Protocol.setNotificationHandler` reads it (`getMethodLiteral`: the object shape from
 * `_zod.def.shape` on zod v4, `.shape` on zod v3, either possibly a function; the literal from
 * `def.value`, `def.values[0]`, then `.value`), so any copy of zod or of the SDK (ESM or
 * CommonJS) is recognized; `undefined` when it cannot be read (it is then not ours to take).
 */
export function notificationMethodOf(schema) {
  try {
    if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) return undefined;
    let shape = schema._zod ? schema._zod.def?.shape : schema.shape;
    if (typeof shape === 'function') shape = shape();
    const method = shape?.method;
    if (method === null || (typeof method !== 'object' && typeof method !== 'function')) return undefined;
    const literal = (def) => (def?.value !== undefined ? def.value : Array.isArray(def?.values) ? def.values[0] : undefined);
    const value = (method._zod ? literal(method._zod.def) : undefined) ?? literal(method._def) ?? method.value;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined; // a throwing getter or a hostile Proxy: not a schema we route
  }
}

/**
 * The one `notifications/resources/updated` handler of a client: every cache that wrapped it,
 * in wrapping order, then the host's handler. Installed once per client; `setNotificationHandler`
 * and `removeNotificationHandler` get own-property overrides on the client instance that route
 * that method to the host's slot (everything else goes to the original methods).
 */
function resourceUpdatedChain(client) {
  const existing = client[CHAIN];
  if (existing) return existing;
  const originalSet = client.setNotificationHandler;
  const originalRemove = client.removeNotificationHandler;
  const chain = {
    caches: [],
    host: client._notificationHandlers?.get?.(RESOURCE_UPDATED) ?? null,
    setNotificationHandler(schema, handler) {
      if (notificationMethodOf(schema) === RESOURCE_UPDATED) {
        chain.host = handler;
        return undefined;
      }
      return originalSet.call(client, schema, handler);
    },
    removeNotificationHandler(method) {
      if (method === RESOURCE_UPDATED) {
        chain.host = null;
        return undefined;
      }
      return originalRemove?.call(client, method);
    },
  };
  originalSet.call(client, ResourceUpdatedNotificationSchema, async (notification) => {
    for (const handle of chain.caches) {
      try {
        await handle(notification);
      } catch {
        // a storage failure is an `error` event of its cache; the next handler still runs
      }
    }
    // The host's failure reaches the client's `onerror`, as it would without the wrapper.
    if (chain.host) await chain.host(notification);
  });
  try {
    const own = (value) => ({ value, configurable: true, writable: true, enumerable: false });
    Object.defineProperty(client, CHAIN, own(chain));
    Object.defineProperty(client, 'setNotificationHandler', own(chain.setNotificationHandler));
    if (typeof originalRemove === 'function') {
      Object.defineProperty(client, 'removeNotificationHandler', own(chain.removeNotificationHandler));
    }
  } catch {
    // A frozen client: the wrapped client still routes; the raw one cannot be taught to.
  }
  return chain;
}

export function createWrapMcpClient(api) {
  /**
   * Wraps an MCP SDK `Client` so that every tool gets by-reference arguments.
   *
   * - `listTools()` answers the tools with `<name>_uri` siblings for array parameters
   *   (`augmentTools`), and teaches the cache their `[Cache-Control]` directives. The original
   *   input schemas are remembered (a tool never listed is listed once on its first call).
   * - `callTool()` runs the whole pipeline: inline cap (`cap`, `cappedArgs`), reuse of immutable
   *   results, substitution of references, dispatch (never with a `_uri` key the server did not
   *   declare), then `afterToolCall` (`maxChars`, `mediaMaxBytes`); it resolves what the model
   *   should see. A blocked call resolves an `isError` result whose text is the envelope for the
   *   model; the server is not called. In particular:
   *   - a `<name>_uri` that is `null`, `""` or `undefined` (strict function-calling modes send
   *     every optional property) means "not given": it is removed before the pipeline runs, unless
   *     the server declared that property itself (then it is passed on untouched). Any other value
   *     that is not a reference is refused (`invalid_args: \`<name>_uri\` must hold …`);
   *   - a reference whose value is not of the type the original schema gives `<name>` (only
   *     checked when that is `array` or `object`, possibly nullable) is refused with
   *     `{error: "type_mismatch: …", fix_hint, _expected, _got, _uri}`; when the value is an
   *     object with members of the right type, the hint names ready references to them;
   *   - a retry carrying MCP input responses (`params.inputResponses` or `params.requestState`,
   *     multi round-trip requests) is never answered from a reused result and its result is not
   *     stored; an `input_required` result is handed back untouched.
   * - `notifications/resources/updated` reach `cache.handleNotification` first, then the handler
   *   the host set for that method (before wrapping, or after it: through the wrapped client or
   *   the raw one, with the SDK's ESM or CommonJS schema; the method literal is what counts, so
   *   the cache's handler is never replaced). A failing cache does not keep the host's handler
   *   from running. `removeNotificationHandler('notifications/resources/updated')` removes only
   *   the host's. Several caches may wrap one client; each gets the notifications.
   * - The server's name (`serverInfo.name`, once connected) goes with every call to the cache:
   *   entries remember which server they came from, and that server's invalidation signals and
   *   stale notifications touch only its own entries, even when another server has tools of the
   *   same names.
   * - Everything else is the original client's.
   *
   * @param client an `@modelcontextprotocol/sdk` `Client` (connected or not)
   * @param options `{ cache, convId, augment?, cap?, cappedArgs?, maxChars?, mediaMaxBytes? }`:
   *   `convId` is the conversation id, or a function returning the current one (for hosts that
   *   switch conversations); `augment` is passed to `augmentTools` (e.g. `{ objects: true }`);
   *   `cap` and `cappedArgs` to `beforeToolCall` (the inline-list cap); `maxChars` to both
   *   (reused and fresh results); `mediaMaxBytes` to `afterToolCall`.
   */
  return function wrapMcpClient(client, options) {
    if (client === null || typeof client !== 'object' || typeof client.callTool !== 'function') {
      throw new TypeError('wrapMcpClient expects an MCP SDK Client');
    }
    const { cache, convId, augment, cap, cappedArgs, maxChars, mediaMaxBytes } = options ?? {};
    if (cache === null || typeof cache !== 'object' || typeof cache.beforeToolCall !== 'function') {
      throw new TypeError('wrapMcpClient needs { cache: ResultCache }');
    }
    const conversation = () => {
      const id = typeof convId === 'function' ? convId() : convId;
      return id ?? 'default';
    };
    const given = (extra) => Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined));
    const beforeOptions = given({ cap, cappedArgs, maxChars });
    const afterOptions = given({ maxChars, mediaMaxBytes });
    // The server's own name (known once connected): entries remember it, and its invalidations
    // and stale notifications touch only its entries, whatever tool names other servers share.
    const origin = () => {
      const name = client.getServerVersion?.()?.name;
      return typeof name === 'string' && name !== '' && !name.includes('\u001f') ? { server: name } : {};
    };

    /** Tool name → the top-level properties of its original input schema (`null`: any). */
    const declared = new Map();
    let listing = null;

    const remember = (tools) => {
      for (const tool of tools ?? []) {
        const schema = tool?.inputSchema;
        const props = schema && typeof schema === 'object' ? schema.properties : undefined;
        declared.set(tool.name, isPlainObject(props) ? props : null);
      }
    };

    async function listTools(params, requestOptions) {
      const result = await client.listTools(params, requestOptions);
      remember(result.tools);
      await api.ready();
      cache.observeTools(result.tools, origin());
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

    const declares = (props, key) => Object.hasOwn(props, key);

    async function callTool(params, resultSchema, requestOptions) {
      const name = params?.name;
      let args = params?.arguments ?? {};
      const convId = conversation();
      // A retry of a multi round-trip call: its result depends on the answers it carries.
      const retry = params?.inputResponses != null || params?.requestState != null;
      // Closes the bookkeeping `beforeToolCall` opened for a dispatch (reuseImmutable) that will
      // not get a result to store.
      let noted = false;
      const close = () => {
        if (noted) cache.afterToolCall(name, { isError: true }, { convId, args, ...origin() }).catch(() => {});
      };

      // Unused `_uri` properties of strict modes: gone before the cap, reuse and substitution.
      let props = null;
      if (isPlainObject(args) && Object.keys(args).some((k) => k.endsWith(URI_SUFFIX) && isEmptyArg(args[k]))) {
        props = await declaredOf(name);
        if (props) {
          const unused = Object.keys(args).filter((k) => k.endsWith(URI_SUFFIX) && isEmptyArg(args[k]) && !declares(props, k));
          if (unused.length > 0) args = Object.fromEntries(Object.entries(args).filter(([k]) => !unused.includes(k)));
        }
      }

      const before = await cache.beforeToolCall(name, args, { convId, ...beforeOptions, ...origin() });
      let dispatched;
      if (before.dispatch) {
        noted = true;
        dispatched = before.args;
      } else if ('reused' in before && retry) {
        // Never answer a retry from an earlier result: resolve its references and dispatch.
        const substituted = await cache.substituteCacheUris(args, { convId });
        if (!substituted.ok) return envelopeResult(substituted.envelope);
        dispatched = substituted.args;
      } else {
        return 'reused' in before ? visibleResult(before.reused) : envelopeResult(before.envelope);
      }

      props ??= await declaredOf(name);
      if (props && isPlainObject(dispatched)) {
        // A `_uri` key left after substitution holds no reference; the server never declared it.
        const stray = Object.keys(dispatched).find((k) => k.endsWith(URI_SUFFIX) && !declares(props, k));
        if (stray) {
          close();
          return envelopeResult(strayReferenceEnvelope(name, stray));
        }
        // A resolved reference must fit the parameter it stands for.
        for (const key of Object.keys(args)) {
          if (!key.endsWith(URI_SUFFIX) || !isReferenceArg(args[key]) || Object.hasOwn(dispatched, key)) continue;
          const target = key.slice(0, -URI_SUFFIX.length);
          const expected = declares(props, target) ? containerTypeOf(props[target]) : null;
          if (!expected || !Object.hasOwn(dispatched, target)) continue;
          const value = dispatched[target];
          const got = jsonType(value);
          if (got === expected || (got === 'null' && admittedTypes(props[target]).has('null'))) continue;
          close();
          return envelopeResult(typeMismatchEnvelope(name, target, args[key], expected, value));
        }
      }

      let result;
      try {
        result = await client.callTool({ ...params, arguments: dispatched }, resultSchema, requestOptions);
      } catch (error) {
        close();
        throw error;
      }
      if (result?.resultType === 'input_required') {
        // The server asks for input first: the host answers it and retries; nothing to keep.
        close();
        return result;
      }
      if (retry) {
        close();
        return cache.afterToolCall(name, result, { convId, args, ...afterOptions, ...origin(), enabled: false });
      }
      return cache.afterToolCall(name, result, { convId, args, ...afterOptions, ...origin() });
    }

    // Stale notifications: every wrapping cache first, then the host's (set before or after).
    const chain = resourceUpdatedChain(client);
    chain.caches.push((notification) => cache.handleNotification(notification, origin()));

    const overrides = {
      listTools,
      callTool,
      setNotificationHandler: chain.setNotificationHandler,
      removeNotificationHandler: chain.removeNotificationHandler,
    };
    return new Proxy(client, {
      get(target, prop) {
        if (Object.hasOwn(overrides, prop)) return overrides[prop];
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
}
