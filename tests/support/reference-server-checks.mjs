// The checks every result of a reference server gets (tests/support/reference-servers.mjs runs the
// scenarios that use them): the contract's limits, soft checks that collect failures so a
// scenario's flow goes on, the readers of what a CallToolResult shows the model (visible text,
// minted and shown references, JSON texts), and the per-host context that compiles each tool's
// declared outputSchema with Ajv, validates every structuredContent against it and runs the
// common checks on every successful call.
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';

/**
 * @typedef {import('@modelcontextprotocol/sdk/types.js').CallToolResult} CallToolResult
 * @typedef {import('@modelcontextprotocol/sdk/types.js').Tool} Tool
 * @typedef {import('@modelcontextprotocol/sdk/types.js').TextContent} TextContent
 * @typedef {import('@modelcontextprotocol/sdk/types.js').ImageContent} ImageContent
 * @typedef {import('@modelcontextprotocol/sdk/types.js').AudioContent} AudioContent
 * @typedef {import('./reference-servers.mjs').ServerName} ServerName
 * @typedef {import('./reference-servers.mjs').HostTools} HostTools
 * @typedef {import('./reference-servers.mjs').HostCall} HostCall
 * @typedef {import('./reference-servers.mjs').Host} Host
 */
/** The per-host context `createContext` makes. @typedef {ReturnType<typeof createContext>} Context */
/** Collected soft checks (`softChecks()`). @typedef {ReturnType<typeof softChecks>} SoftChecks */
/**
 * A content block of any kind read without narrowing it: every kind's fields, each optional
 * (each of the SDK's content block types is one of these).
 * @typedef {{ type: string, text?: string, data?: string, mimeType?: string, uri?: string, name?: string, size?: number, resource?: { uri: string, mimeType?: string, text?: string, blob?: string } }} BlockView
 */
/**
 * What the checks read of a JSON text block (a truncation summary's fields, when it is one).
 * @typedef {{ _cache_uri?: string, _truncated?: unknown, _cache_shape?: unknown, _truncation_hint?: unknown, _cache_refs?: Record<string, string>, [key: string]: unknown }} JsonText
 */

/** `afterToolCall` defaults the contract is written against. */
export const MAX_CHARS = 20_000;
export const MEDIA_MAX_BYTES = 1_048_576;
/** Markers (preview line, notes after links) may add this much to the text budget. */
export const MARKER_SLACK = 300;
export const META_URIS = 'mcp-result-cache/uris';
/** A reference as minted (no fragment), and one anywhere in a text (fragment allowed). */
export const URI_RE = /^mcp\+cache:\/\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{8,16}$/;
const URI_IN_TEXT = /mcp\+cache:\/\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{8,16}(?:#[^\s"'`\]]*)?/g;

/** Collects failed contract checks so a scenario's flow goes on; `done()` throws them all. */
export function softChecks() {
  /** @type {string[]} */
  const failed = [];
  // One line per failure (the e2e harness prints only the first line of a message).
  /** @type {(label: string, error: unknown) => string} */
  const line = (label, error) => `${label}: ${short(String(/** @type {{ message?: unknown } | null | undefined} */ (error)?.message ?? error).replace(/\s*\n\s*/g, ' '), 400)}`;
  return {
    /**
     * Runs `fn`; a failure is recorded, not thrown.
     * @param {string} label
     * @param {() => void} fn
     */
    check(label, fn) {
      try {
        fn();
      } catch (error) {
        failed.push(line(label, error));
      }
    },
    /**
     * Awaits `fn`; a failure is recorded, not thrown.
     * @param {string} label
     * @param {() => Promise<unknown>} fn
     */
    async checkAsync(label, fn) {
      try {
        await fn();
      } catch (error) {
        failed.push(line(label, error));
      }
    },
    done() {
      if (failed.length) throw new assert.AssertionError({ message: `${failed.length} contract check(s) failed — ${failed.join(' | ')}` });
    },
  };
}

/** @type {(value: unknown, n?: number) => string} */
export const short = (value, n = 300) => {
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  return s === undefined ? 'undefined' : s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;
};
/** @type {(b64: string) => number} */
export const decodedBytes = (b64) => Buffer.from(b64, 'base64').length;
/** @type {(result: CallToolResult) => import('@modelcontextprotocol/sdk/types.js').TextContent[]} */
const textBlocks = (result) => /** @type {TextContent[]} */ ((result.content ?? []).filter((b) => b?.type === 'text' && typeof b.text === 'string'));
/**
 * Characters of text the model reads: text blocks, and embedded resources' text or base64.
 * @param {CallToolResult} result
 * @returns {number}
 */
export function visibleChars(result) {
  let n = 0;
  for (const b of /** @type {BlockView[]} */ (result.content ?? [])) {
    if (b?.type === 'text' && typeof b.text === 'string') n += b.text.length;
    if (b?.type === 'resource') n += (b.resource?.text?.length ?? 0) + (b.resource?.blob?.length ?? 0);
  }
  return n;
}
/**
 * References minted for a result: `_meta[META_URIS]`, else (older builds) those in its texts.
 * @param {CallToolResult} result
 * @returns {string[]}
 */
export function mintedUris(result) {
  const meta = result._meta?.[META_URIS];
  if (Array.isArray(meta)) return meta;
  /** @type {string[]} */
  const found = [];
  for (const b of result.content ?? []) {
    const texts = b?.type === 'text' ? [b.text] : b?.type === 'resource_link' ? [b.uri] : [];
    for (const t of texts) for (const m of String(t).matchAll(URI_IN_TEXT)) found.push(m[0].split('#')[0]);
  }
  return [...new Set(found)];
}
/**
 * Every `mcp+cache://` reference (without fragment) a result shows the model, in order.
 * @param {CallToolResult} result
 * @returns {string[]}
 */
function shownUris(result) {
  /** @type {string[]} */
  const found = [];
  /** @type {(v: unknown) => void} */
  const walk = (v) => {
    if (typeof v === 'string') for (const m of v.matchAll(URI_IN_TEXT)) found.push(m[0].split('#')[0]);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(result.content);
  return [...new Set(found)];
}
/**
 * The JSON objects among a result's text blocks.
 * @param {CallToolResult} result
 * @returns {JsonText[]}
 */
export function jsonTexts(result) {
  /** @type {JsonText[]} */
  const out = [];
  for (const b of textBlocks(result)) {
    try {
      const v = JSON.parse(b.text);
      if (v && typeof v === 'object') out.push(v);
    } catch { /* not JSON */ }
  }
  return out;
}

/**
 * Per-host context: the tools' declared outputSchemas (compiled with Ajv, draft 2020-12 where
 * the schema says so) and the ledger of every structuredContent validated.
 * @param {Host} host
 */
export function createContext(host) {
  /** @type {Map<string, { schema: Tool['outputSchema'], validate: import('ajv').ValidateFunction, draft: string }>} */
  const schemas = new Map(); // "server/tool" → { schema, validate }
  /** @type {{ validated: Array<{ server: string, tool: string, what: string, ok: boolean }>, failures: string[], calls: number }} */
  const ledger = { validated: [], failures: [], calls: 0 };
  // ajv's CommonJS export is the class itself (also its `.default`), which its types only say of `.default`.
  const ajv07 = new (/** @type {typeof import('ajv').default} */ (/** @type {unknown} */ (Ajv)))({ strict: false, allErrors: true });
  const ajv2020 = new (/** @type {typeof import('ajv/dist/2020.js').default} */ (/** @type {unknown} */ (Ajv2020)))({ strict: false, allErrors: true });
  const ctx = {
    host,
    ledger,
    /**
     * Lists each server's tools (`host.tools`) and compiles every declared outputSchema.
     * @param {ServerName[]} servers
     * @returns {Promise<Record<string, HostTools>>}
     */
    async loadTools(servers) {
      /** @type {Record<string, HostTools>} */
      const out = {};
      for (const server of servers) {
        const tools = await host.tools(server);
        out[server] = tools;
        for (const tool of tools.raw) {
          if (!tool.outputSchema) continue;
          const is2020 = String(tool.outputSchema.$schema ?? '').includes('2020-12');
          const validate = (is2020 ? ajv2020 : ajv07).compile(tool.outputSchema);
          schemas.set(`${server}/${tool.name}`, { schema: tool.outputSchema, validate, draft: is2020 ? '2020-12' : 'draft-07' });
        }
      }
      return out;
    },
    /** @type {(server: string, tool: string) => { schema: Tool['outputSchema'], validate: import('ajv').ValidateFunction, draft: string } | undefined} */
    schemaOf: (server, tool) => schemas.get(`${server}/${tool}`),
    /**
     * Validates `value` against the tool's outputSchema; records the outcome; throws on failure.
     * @param {string} server
     * @param {string} tool
     * @param {unknown} value
     * @param {string} what
     */
    validate(server, tool, value, what) {
      const entry = schemas.get(`${server}/${tool}`);
      if (!entry) return;
      const ok = entry.validate(value);
      ledger.validated.push({ server, tool, what, ok });
      if (!ok) {
        const why = `${server}/${tool} ${what} structuredContent fails its outputSchema: ${ajv07.errorsText(entry.validate.errors)} (value ${short(value, 160)})`;
        ledger.failures.push(why);
        throw new assert.AssertionError({ message: why });
      }
    },
    /**
     * Calls a tool through the wrapper and runs the checks every successful result gets.
     * @overload
     * @param {SoftChecks} soft
     * @param {ServerName} server
     * @param {string} tool
     * @param {Record<string, unknown>} args
     * @param {{ expectDispatch?: true }} [options]
     * @returns {Promise<{ result: CallToolResult, raw: CallToolResult }>}
     */
    /**
     * Calls a tool through the wrapper; with `expectDispatch: false` no check runs and `raw` is
     * `null` when the wrapper did not call the server.
     * @overload
     * @param {SoftChecks} soft
     * @param {ServerName} server
     * @param {string} tool
     * @param {Record<string, unknown>} args
     * @param {{ expectDispatch: boolean }} options
     * @returns {Promise<HostCall>}
     */
    /**
     * @param {SoftChecks} soft
     * @param {ServerName} server
     * @param {string} tool
     * @param {Record<string, unknown>} args
     * @param {{ expectDispatch?: boolean }} [options]
     * @returns {Promise<HostCall>}
     */
    async call(soft, server, tool, args, { expectDispatch = true } = {}) {
      ledger.calls++;
      const { result, raw } = await host.call(server, tool, args);
      if (!expectDispatch) return { result, raw };
      assert.ok(raw, `${server}/${tool} was dispatched (got ${short(result)})`);
      assert.notEqual(raw.isError, true, `${server}/${tool} failed on the server: ${short(raw.content)}`);
      commonChecks(ctx, soft, server, tool, result, raw);
      return { result, raw };
    },
  };
  return ctx;
}

/**
 * What the contract says of every successful CallToolResult the wrapper resolves.
 * @param {{ validate: (server: string, tool: string, value: unknown, what: string) => void }} ctx
 * @param {SoftChecks} soft
 * @param {string} server
 * @param {string} tool
 * @param {CallToolResult} result
 * @param {CallToolResult} raw
 */
function commonChecks(ctx, soft, server, tool, result, raw) {
  const where = `${server}/${tool}`;
  soft.check(`${where}: the result is a CallToolResult, not an error`, () => {
    assert.ok(Array.isArray(result.content), 'content is an array');
    assert.notEqual(result.isError, true, short(result.content));
  });
  if (raw.structuredContent !== undefined) {
    // The server's own data against its schema: proves the harness (and Ajv set-up) right.
    soft.check(`${where}: the server's structuredContent matches its outputSchema`, () => ctx.validate(server, tool, raw.structuredContent, 'server'));
  }
  if (result.structuredContent !== undefined) {
    soft.check(`${where}: returned structuredContent validates against the outputSchema (Ajv)`, () => ctx.validate(server, tool, result.structuredContent, 'returned'));
    soft.check(`${where}: returned structuredContent is the server's original, never modified`, () => {
      assert.ok(!JSON.stringify(result.structuredContent).includes('"_cache_'), `it carries _cache_* keys: ${short(result.structuredContent)}`);
      assert.deepEqual(result.structuredContent, raw.structuredContent);
    });
  }
  soft.check(`${where}: the text shown stays within maxChars + markers`, () => {
    const n = visibleChars(result);
    assert.ok(n <= MAX_CHARS + MARKER_SLACK, `${n} characters of text shown (budget ${MAX_CHARS} + ${MARKER_SLACK})`);
  });
  soft.check(`${where}: resource_link blocks pass unchanged, in order`, () => {
    const links = raw.content.filter((b) => b.type === 'resource_link');
    const kept = result.content.filter((b) => b.type === 'resource_link' && !URI_RE.test(b.uri));
    assert.deepEqual(kept, links);
  });
  soft.check(`${where}: image/audio blocks within mediaMaxBytes reach the model unchanged`, () => {
    for (const media of /** @type {Array<ImageContent | AudioContent>} */ (raw.content.filter((b) => (b.type === 'image' || b.type === 'audio') && decodedBytes(b.data) <= MEDIA_MAX_BYTES))) {
      assert.ok(result.content.some((/** @type {BlockView} */ b) => b.type === media.type && b.data === media.data && b.mimeType === media.mimeType), `a ${media.mimeType} ${media.type} block of ${decodedBytes(media.data)} bytes is missing`);
    }
  });
  soft.check(`${where}: _meta["${META_URIS}"] lists every reference shown`, () => {
    const shown = shownUris(result);
    const meta = result._meta?.[META_URIS];
    if (shown.length === 0 && meta === undefined) return;
    assert.ok(Array.isArray(meta), `references ${shown.join(', ')} shown but _meta["${META_URIS}"] is ${short(meta)}`);
    for (const uri of meta) assert.match(uri, URI_RE);
    for (const uri of shown) assert.ok(meta.includes(uri), `${uri} shown but not in _meta (${meta.join(', ')})`);
    assert.equal(new Set(meta).size, meta.length, 'each reference once');
  });
}
