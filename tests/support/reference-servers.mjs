// Three MCP reference servers nobody on this team wrote — npm `@modelcontextprotocol/server-everything`,
// `server-filesystem` and `server-memory`, pinned devDependencies — run over stdio through
// `wrapMcpClient`. Shared by tests/js/node-reference-servers.test.mjs (Node, fake-indexeddb) and
// tests/e2e/reference-servers.mjs (headless Chromium, real IndexedDB, the stdio servers relayed to
// the page). This module holds what both share: the servers' command lines (`node <bin>`, resolved
// from node_modules, never npx), the fixtures (a temporary folder the filesystem server may read,
// the memory servers' MEMORY_FILE_PATHs), the checks every result gets (Ajv against the tool's
// declared outputSchema, the text budget, `_meta` references, untouched links and small media:
// tests/support/reference-server-checks.mjs, re-exported here) and the scenarios, written against
// a small `host` interface that each side implements:
//
//   host.label                         'node' | 'chromium'
//   host.convId                        the conversation every call is made in
//   host.tools(server)                 { raw: tools of the plain Client, shown: tools of the wrapper }
//   host.call(server, name, args)      { result: what wrapMcpClient().callTool resolved,
//                                        raw: a copy of the server's own result, or null when the
//                                        wrapper did not call the server }
//   host.read(uri)                     cache.substituteCacheUris({ x_uri: uri }, { convId })
//   host.lookup(uri)                   cache.lookup(uri, { convId })
//   host.stats()                       cache.stats()
//   host.subscribe(server, uri)        the plain Client's resources/subscribe
//   host.seen()                        { host: [...], cache: [...] }: the `uri` of every
//                                      notifications/resources/updated the host handler (set through
//                                      the wrapper) and cache.handleNotification received
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  MARKER_SLACK, MAX_CHARS, META_URIS, URI_RE, decodedBytes, jsonTexts, mintedUris, short, softChecks, visibleChars,
} from './reference-server-checks.mjs';

export { MAX_CHARS, MEDIA_MAX_BYTES, MARKER_SLACK, META_URIS, URI_RE, createContext, mintedUris, visibleChars } from './reference-server-checks.mjs';

const require = createRequire(import.meta.url);

/**
 * @typedef {import('@modelcontextprotocol/sdk/types.js').CallToolResult} CallToolResult
 * @typedef {import('@modelcontextprotocol/sdk/types.js').Tool} Tool
 * @typedef {import('@modelcontextprotocol/sdk/types.js').TextContent} TextContent
 * @typedef {import('@modelcontextprotocol/sdk/types.js').ResourceLink} ResourceLink
 * @typedef {import('@modelcontextprotocol/sdk/types.js').EmbeddedResource} EmbeddedResource
 * @typedef {import('@modelcontextprotocol/sdk/types.js').BlobResourceContents} BlobResourceContents
 * @typedef {import('../../pkg/node/mcp_result_cache.js').SubstitutionResult} SubstitutionResult
 * @typedef {import('../../pkg/node/mcp_result_cache.js').LookupResult} LookupResult
 * @typedef {import('../../pkg/node/mcp_result_cache.js').CacheStats} CacheStats
 */
/** The servers every host connects to (the keys of `serverSpecs`). @typedef {'everything' | 'filesystem' | 'memoryA' | 'memoryB'} ServerName */
/**
 * How to start one server: its npm package (run as `node <bin>`), arguments and environment.
 * @typedef {{ pkg: string, args?: string[], env?: Record<string, string> }} ServerSpec
 */
/**
 * `host.tools(server)`: the tools of the plain Client (`raw`) and of the wrapper (`shown`).
 * @typedef {{ raw: Tool[], shown: Tool[] }} HostTools
 */
/**
 * `host.call(server, name, args)`: what `wrapMcpClient().callTool` resolved, and a copy of the
 * server's own result (`null` when the wrapper did not call the server). The SDK's `callTool`
 * also types the pre-2024 `{ toolResult }` form, which these servers never answer: a host casts
 * its results to `CallToolResult`.
 * @typedef {{ result: CallToolResult, raw: CallToolResult | null }} HostCall
 */
/**
 * The host interface the scenarios are written against (see the top of this file); each side
 * (Node, Chromium) implements it.
 * @typedef {object} Host
 * @property {string} label 'node' | 'chromium'
 * @property {string} convId the conversation every call is made in
 * @property {(server: ServerName) => Promise<HostTools>} tools
 * @property {(server: ServerName, name: string, args: Record<string, unknown>) => Promise<HostCall>} call
 * @property {(uri: string) => Promise<SubstitutionResult>} read `cache.substituteCacheUris({ x_uri: uri }, { convId })`
 * @property {(uri: string) => Promise<LookupResult>} lookup `cache.lookup(uri, { convId })`
 * @property {() => Promise<CacheStats>} stats `cache.stats()`
 * @property {(server: ServerName, uri: string) => Promise<unknown>} subscribe the plain Client's resources/subscribe
 * @property {() => Promise<{ host: unknown[], cache: unknown[] }>} seen the `uri` of every notifications/resources/updated the host handler and cache.handleNotification received
 */
/** A memory-server entity. @typedef {{ name: string, entityType: string, observations: string[] }} Entity */
/** The fixtures `makeFixtures` wrote. @typedef {Awaited<ReturnType<typeof makeFixtures>>} Fixtures */
/** The per-host context `createContext` makes. @typedef {import('./reference-server-checks.mjs').Context} Context */
/**
 * A scenario: its name, and the run given the host's context and the fixtures.
 * @typedef {[name: string, run: (ctx: Context, fx: Fixtures) => Promise<void>]} Scenario
 */
/** A content block of any kind read without narrowing it. @typedef {import('./reference-server-checks.mjs').BlockView} BlockView */
/** An embedded resource holding a blob. @typedef {EmbeddedResource & { resource: BlobResourceContents }} EmbeddedBlob */
/** What the memory servers' read_graph, create_entities and open_nodes answer as structuredContent. @typedef {{ entities: Entity[], relations?: unknown[] }} Graph */

/** The version every reference server is pinned at (package.json devDependencies). */
export const SERVER_VERSION = '2026.8.31';

/**
 * The servers a host connects to: name → package, arguments, environment.
 * @param {Pick<Fixtures, 'files' | 'memoryA' | 'memoryB'>} fx
 * @returns {Record<ServerName, ServerSpec>}
 */
export function serverSpecs(fx) {
  return {
    everything: { pkg: '@modelcontextprotocol/server-everything', args: ['stdio'] },
    filesystem: { pkg: '@modelcontextprotocol/server-filesystem', args: [fx.files] },
    memoryA: { pkg: '@modelcontextprotocol/server-memory', env: { MEMORY_FILE_PATH: fx.memoryA } },
    memoryB: { pkg: '@modelcontextprotocol/server-memory', env: { MEMORY_FILE_PATH: fx.memoryB } },
  };
}

/**
 * Absolute path of a package's (single) bin script, from node_modules; checks the pinned version.
 * @param {string} pkg
 * @returns {string}
 */
export function serverBin(pkg) {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  /** @type {{ version: string, bin: string | Record<string, string> }} */
  const manifest = require(manifestPath);
  assert.equal(manifest.version, SERVER_VERSION, `${pkg} is pinned at ${SERVER_VERSION}`);
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  return join(dirname(manifestPath), bin);
}

/**
 * An SDK StdioClientTransport spawning `node <bin> ...args` (not started: `Client.connect`
 * starts it). The server's stderr is kept (last 8 KB) for failure messages: `stderr()`.
 * @param {ServerSpec} spec
 * @param {string} cwd
 * @returns {{ transport: StdioClientTransport, stderr: () => string }}
 */
export function stdioTransport(spec, cwd) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverBin(spec.pkg), ...(spec.args ?? [])],
    env: { ...getDefaultEnvironment(), ...(spec.env ?? {}) },
    cwd,
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (/** @type {Buffer} */ chunk) => { log = (log + chunk).slice(-8192); });
  return { transport, stderr: () => log };
}

// ---------------------------------------------------------------------------------------------
// Fixtures

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
/** @param {Uint8Array} buf */
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
/**
 * @param {string} type
 * @param {Buffer} data
 */
function pngChunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/**
 * A valid RGBA PNG of random pixels (~4·w·h bytes: noise does not compress).
 * @param {number} width
 * @param {number} height
 */
function noisePng(width, height) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const rows = [];
  for (let y = 0; y < height; y++) rows.push(Buffer.from([0]), randomBytes(width * 4));
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(Buffer.concat(rows))), pngChunk('IEND', Buffer.alloc(0))]);
}

/**
 * `count` lines of `width` characters, numbered, joined by `\n` (no trailing newline).
 * @param {number} count
 * @param {number} width
 * @param {string} tag
 */
function textLines(count, width, tag) {
  return Array.from({ length: count }, (_, i) => `${tag} line ${String(i + 1).padStart(5, '0')}: `.padEnd(width, String.fromCharCode(97 + (i % 26)))).join('\n');
}

/**
 * `count` memory-server entities, big enough that their JSON exceeds MAX_CHARS.
 * @param {number} count
 * @param {string} [tag]
 * @returns {Entity[]}
 */
export function makeEntities(count, tag = 'e') {
  return Array.from({ length: count }, (_, i) => ({
    name: `${tag}-entity-${String(i).padStart(4, '0')}`,
    entityType: ['person', 'project', 'place'][i % 3],
    observations: [`${tag} observation ${i}: first seen in the reference-server test`, `ordinal ${i} of ${count}`],
  }));
}

/**
 * A temporary folder: `files/` (the filesystem server's only allowed directory) with
 * small.png (valid, ~16 KB), big.png (1.5 MB: PNG signature + random bytes), blob.bin (80 KB
 * random), small.txt, mid.txt (12 KB, within maxChars), big.txt (~200 KB, 2 500 lines); and the
 * two memory servers' MEMORY_FILE_PATHs. `cleanup()` removes it all.
 */
export async function makeFixtures() {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-rc-refservers-'));
  const files = join(dir, 'files');
  await mkdir(files);
  const smallPng = noisePng(64, 64);
  const bigPng = Buffer.concat([PNG_SIGNATURE, randomBytes(1_572_864 - PNG_SIGNATURE.length)]);
  const blob = randomBytes(81_920);
  const gzipInput = randomBytes(81_920);
  const smallText = textLines(8, 60, 'small');
  const midText = textLines(150, 79, 'mid');
  const bigText = textLines(2_500, 80, 'big');
  const fx = {
    dir,
    files,
    memoryA: join(dir, 'memory-a.jsonl'),
    memoryB: join(dir, 'memory-b.jsonl'),
    smallPng: { path: join(files, 'small.png'), bytes: smallPng },
    bigPng: { path: join(files, 'big.png'), bytes: bigPng },
    blob: { path: join(files, 'blob.bin'), bytes: blob },
    gzipInput,
    smallText: { path: join(files, 'small.txt'), text: smallText },
    midText: { path: join(files, 'mid.txt'), text: midText },
    bigText: { path: join(files, 'big.txt'), text: bigText },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
  await Promise.all([
    writeFile(fx.smallPng.path, smallPng), writeFile(fx.bigPng.path, bigPng), writeFile(fx.blob.path, blob),
    writeFile(fx.smallText.path, smallText), writeFile(fx.midText.path, midText), writeFile(fx.bigText.path, bigText),
  ]);
  return fx;
}

// ---------------------------------------------------------------------------------------------
// What the scenarios share

/**
 * Polls `fn` (every 10 ms) until it returns truthy or `ms` pass.
 * @template T
 * @param {() => Promise<T>} fn
 * @param {number} ms
 * @returns {Promise<T>}
 */
async function until(fn, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A number as the model may see it: 202499, 202,499, 202 499, 202_499. */
/** @type {(n: number) => RegExp} */
const numberPattern = (n) => new RegExp(`(?<![0-9])${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '[,.\\s_\\u202f]?')}(?![0-9])`);

/**
 * Reads a reference back; asserts it resolves; returns the value.
 * @param {Host} host
 * @param {string} uri
 * @returns {Promise<unknown>}
 */
async function readBack(host, uri) {
  const out = await host.read(uri);
  assert.equal(out?.ok, true, `${uri} resolves (got ${short(out)})`);
  return /** @type {{ x: unknown }} */ (out.args).x;
}

// ---------------------------------------------------------------------------------------------
// Scenarios: `[name, async (ctx, fx) => …]`, run in this order by both hosts.

/** @type {Scenario[]} */
export const scenarios = [
  ['the three servers list their tools over stdio; every outputSchema compiles; the cache is on IndexedDB', async (ctx) => {
    const tools = await ctx.loadTools(['everything', 'filesystem', 'memoryA', 'memoryB']);
    /** @type {(s: string) => string[]} */
    const names = (s) => tools[s].raw.map((t) => t.name);
    for (const t of ['get-tiny-image', 'get-resource-links', 'get-resource-reference', 'get-structured-content', 'gzip-file-as-resource', 'toggle-subscriber-updates']) assert.ok(names('everything').includes(t), `everything has ${t}`);
    for (const t of ['read_text_file', 'read_media_file', 'read_multiple_files', 'list_directory']) assert.ok(names('filesystem').includes(t), `filesystem has ${t}`);
    for (const t of ['create_entities', 'read_graph', 'search_nodes', 'open_nodes']) assert.ok(names('memoryA').includes(t), `memory has ${t}`);
    for (const [s, t] of [['filesystem', 'read_text_file'], ['filesystem', 'read_media_file'], ['memoryA', 'read_graph'], ['memoryA', 'create_entities'], ['everything', 'get-structured-content']]) {
      assert.ok(ctx.schemaOf(s, t), `${s}/${t} declares an outputSchema`);
    }
    const shown = /** @type {Tool} */ (tools.memoryB.shown.find((t) => t.name === 'create_entities'));
    assert.equal(/** @type {Record<string, { type?: unknown } | undefined>} */ (shown.inputSchema.properties).entities_uri?.type, 'string', 'the model is offered entities_uri');
    assert.equal((await ctx.host.stats()).storage, 'indexeddb');
  }],

  ['small media, links, embedded resources and structured content from everything pass unchanged', async (ctx) => {
    const soft = softChecks();
    const tiny = await ctx.call(soft, 'everything', 'get-tiny-image', {});
    soft.check('get-tiny-image: [text, image, text] unchanged (the image block reaches the model)', () => {
      assert.deepEqual(tiny.raw.content.map((b) => b.type), ['text', 'image', 'text']);
      assert.deepEqual(tiny.result.content, tiny.raw.content);
    });
    const links = await ctx.call(soft, 'everything', 'get-resource-links', { count: 4 });
    soft.check('get-resource-links: text + 4 resource_link blocks unchanged', () => {
      assert.deepEqual(links.raw.content.map((b) => b.type), ['text', 'resource_link', 'resource_link', 'resource_link', 'resource_link']);
      assert.deepEqual(links.result.content, links.raw.content);
    });
    for (const resourceType of ['Text', 'Blob']) {
      const ref = await ctx.call(soft, 'everything', 'get-resource-reference', { resourceType, resourceId: 2 });
      soft.check(`get-resource-reference ${resourceType}: a small embedded resource passes unchanged`, () => {
        assert.equal(ref.raw.content[1].type, 'resource');
        assert.deepEqual(ref.result.content, ref.raw.content);
      });
    }
    const weather = await ctx.call(soft, 'everything', 'get-structured-content', { location: 'Chicago' });
    soft.check('get-structured-content: small structuredContent returned as the server sent it', () => {
      assert.deepEqual(weather.result.structuredContent, weather.raw.structuredContent);
      assert.deepEqual(weather.result.content, weather.raw.content);
    });
    soft.done();
  }],

  ['filesystem read_media_file: a small PNG reaches the model as an image block', async (ctx, fx) => {
    const soft = softChecks();
    const { result, raw } = await ctx.call(soft, 'filesystem', 'read_media_file', { path: fx.smallPng.path });
    const expected = { type: 'image', data: fx.smallPng.bytes.toString('base64'), mimeType: 'image/png' };
    assert.deepEqual(raw.content, [expected], 'the server sends one image block');
    soft.check('the image block is in the result, unchanged', () => assert.deepEqual(result.content.filter((b) => b.type === 'image'), [expected]));
    soft.check('and nothing is linked instead', () => assert.ok(!result.content.some((b) => b.type === 'resource_link')));
    soft.done();
  }],

  ['filesystem read_media_file: a 1.5 MB image is stored, linked, and round-trips byte for byte', async (ctx, fx) => {
    const soft = softChecks();
    const { result, raw } = await ctx.call(soft, 'filesystem', 'read_media_file', { path: fx.bigPng.path });
    const block = { type: 'image', data: fx.bigPng.bytes.toString('base64'), mimeType: 'image/png' };
    assert.deepEqual(raw.content, [block], 'the server sends the image');
    soft.check('no image block and no base64 reach the model', () => {
      assert.ok(!result.content.some((b) => b.type === 'image'), 'an image block is still there');
      assert.ok(!JSON.stringify(result.content).includes(block.data.slice(1000, 1100)), 'the base64 is still shown');
    });
    // What the contract expects there (checked first).
    const link = /** @type {ResourceLink} */ (result.content[0]);
    soft.check('the image is replaced in place by a resource_link {uri, name, mimeType, size}', () => {
      assert.equal(link?.type, 'resource_link', `first block: ${short(link)}`);
      assert.match(link.uri, URI_RE);
      assert.equal(typeof link.name, 'string');
      assert.equal(link.mimeType, 'image/png');
      assert.equal(link.size, fx.bigPng.bytes.length, 'size = decoded bytes');
    });
    soft.check('followed by one short text block naming the reference', () => {
      const note = result.content[1];
      assert.equal(note?.type, 'text');
      assert.ok(note.text.includes(link?.uri), `${short(note.text)} names ${link?.uri}`);
      assert.ok(note.text.length < 600, `${note.text.length} chars`);
    });
    soft.check('anything after it only stands for stored data (a summary or link of structuredContent)', () => {
      for (const b of result.content.slice(2)) {
        if (b.type === 'resource_link') assert.match(b.uri, URI_RE);
        else assert.equal(b.type, 'text', short(b));
      }
    });
    soft.check('structuredContent (which repeats the base64) is not returned', () => assert.equal(result.structuredContent, undefined));
    soft.check(`_meta lists the image's reference`, () => assert.ok(/** @type {string[] | undefined} */ (result._meta?.[META_URIS])?.includes(link?.uri), short(result._meta)));
    if (link?.type === 'resource_link' && URI_RE.test(link.uri)) {
      await soft.checkAsync('the stored entry is exactly the image block, byte for byte', async () => {
        const back = await readBack(ctx.host, link.uri);
        assert.deepEqual(back, block);
        assert.ok(Buffer.from(back.data, 'base64').equals(fx.bigPng.bytes));
        assert.equal((await ctx.host.lookup(link.uri)).status, 'hit');
      });
    }
    soft.done();
  }],

  ['an 80 KB blob (embedded resource) is stored and linked; the text the model sees stays capped', async (ctx, fx) => {
    const soft = softChecks();
    /** @type {Array<[ServerName, string, Record<string, unknown>, string]>} */
    const cases = [
      ['filesystem', 'read_media_file', { path: fx.blob.path }, 'application/octet-stream'],
      ['everything', 'gzip-file-as-resource', { name: 'noise.bin.gz', data: `data:application/octet-stream;base64,${fx.gzipInput.toString('base64')}`, outputType: 'resource' }, 'application/gzip'],
    ];
    for (const [server, tool, args, mimeType] of cases) {
      const { result, raw } = await ctx.call(soft, server, tool, args);
      // What the servers send (asserted next).
      const block = /** @type {EmbeddedBlob} */ (raw.content.find((b) => b.type === 'resource'));
      assert.ok(block?.resource?.blob?.length > MAX_CHARS, `${tool} sends a blob longer than maxChars (${block?.resource?.blob?.length})`);
      assert.equal(block.resource.mimeType, mimeType);
      if (tool === 'read_media_file') assert.ok(Buffer.from(block.resource.blob, 'base64').equals(fx.blob.bytes));
      const at = raw.content.indexOf(block);
      const link = /** @type {ResourceLink} */ (result.content[at]);
      soft.check(`${tool}: the blob is gone from what the model sees`, () => {
        assert.ok(!result.content.some((/** @type {BlockView} */ b) => b.type === 'resource' && b.resource?.blob), 'an embedded blob is still there');
        assert.ok(visibleChars(result) <= MAX_CHARS + MARKER_SLACK, `${visibleChars(result)} chars shown`);
      });
      soft.check(`${tool}: replaced in place by a resource_link with the decoded size, then a note`, () => {
        assert.equal(link?.type, 'resource_link', short(result.content));
        assert.match(link.uri, URI_RE);
        assert.equal(link.mimeType, mimeType);
        assert.equal(link.size, decodedBytes(block.resource.blob));
        assert.equal(typeof link.name, 'string');
        assert.equal(result.content[at + 1]?.type, 'text');
        assert.ok(/** @type {TextContent} */ (result.content[at + 1]).text.includes(link.uri));
      });
      soft.check(`${tool}: _meta lists the blob's reference`, () => assert.ok(/** @type {string[] | undefined} */ (result._meta?.[META_URIS])?.includes(link?.uri), short(result._meta)));
      if (link?.type === 'resource_link' && URI_RE.test(link.uri)) {
        await soft.checkAsync(`${tool}: the stored entry is exactly the resource block`, async () => assert.deepEqual(await readBack(ctx.host, link.uri), block));
      }
    }
    soft.done();
  }],

  ['filesystem read_text_file: small and 12 KB files are shown whole', async (ctx, fx) => {
    const soft = softChecks();
    for (const file of [fx.smallText, fx.midText]) {
      const { result, raw } = await ctx.call(soft, 'filesystem', 'read_text_file', { path: file.path });
      assert.deepEqual(raw.structuredContent, { content: file.text });
      soft.check(`${file.path}: the text block is the whole file, in place`, () => assert.deepEqual(result.content[0], raw.content[0]));
      soft.check(`${file.path}: any block added links stored data`, () => {
        for (const b of result.content.slice(1)) assert.ok(b.type === 'resource_link' && URI_RE.test(b.uri), short(b));
      });
      if (file === fx.smallText) soft.check('small.txt: unchanged, with its structuredContent', () => assert.deepEqual(result, raw));
      const minted = mintedUris(result);
      if (minted.length) {
        await soft.checkAsync(`${file.path}: its reference reads back the server's data`, async () => assert.deepEqual(await readBack(ctx.host, minted[0]), raw.structuredContent));
      }
    }
    soft.done();
  }],

  ['filesystem read_text_file of ~200 KB: a bounded preview with the reference; #/content reads back the whole text', async (ctx, fx) => {
    const soft = softChecks();
    const text = fx.bigText.text;
    const { result, raw } = await ctx.call(soft, 'filesystem', 'read_text_file', { path: fx.bigText.path });
    assert.deepEqual(raw.structuredContent, { content: text });
    const uri = mintedUris(result)[0];
    assert.match(uri ?? '', URI_RE, `a reference was minted (${short(result)})`);
    const shown = /** @type {BlockView | undefined} */ (result.content[0])?.text ?? '';
    soft.check('a text block in place of the file text; anything added links stored data', () => {
      assert.equal(result.content[0].type, 'text');
      for (const b of result.content.slice(1)) assert.ok(b.type === 'resource_link' && URI_RE.test(b.uri), short(b));
    });
    soft.check('the preview shows the file\'s first lines, not only key names', () => {
      const firstLines = text.split('\n').slice(0, 20).join('\n');
      assert.ok(shown.startsWith(firstLines), `shown begins ${short(shown.slice(0, 120))}`);
    });
    soft.check('then total characters and lines, and the reference <uri>#/content', () => {
      assert.match(shown, numberPattern(text.length), `total chars ${text.length}`);
      assert.match(shown, numberPattern(text.split('\n').length), `total lines ${text.split('\n').length}`);
      assert.ok(shown.includes(`${uri}#/content`), `mentions ${uri}#/content`);
    });
    soft.check('the whole file is not shown, and structuredContent is not returned', () => {
      assert.ok(shown.length < text.length / 2);
      assert.equal(result.structuredContent, undefined);
    });
    await soft.checkAsync('<uri>#/content reads back the whole text', async () => assert.equal(await readBack(ctx.host, `${uri}#/content`), text));
    soft.done();
  }],

  ['memory: a 300-entity graph passes from server A to server B by reference; B\'s read_graph agrees', async (ctx, fx) => {
    const soft = softChecks();
    const entities = makeEntities(300, 'ab');
    const created = await ctx.call(soft, 'memoryA', 'create_entities', { entities });
    assert.deepEqual(created.raw.structuredContent, { entities }, 'A created the 300 entities');
    const graphA = await ctx.call(soft, 'memoryA', 'read_graph', {});
    assert.deepEqual(/** @type {Graph} */ (graphA.raw.structuredContent).entities, entities);
    const visible = jsonTexts(graphA.result).find((v) => typeof v._cache_uri === 'string');
    assert.ok(visible, `A's read_graph shows a JSON text with _cache_uri: ${short(graphA.result.content)}`);
    soft.check('A\'s graph is shown as a truncation summary in place of the JSON text', () => {
      assert.equal(graphA.result.content.length, 1);
      assert.equal(visible._truncated, true);
      assert.equal(typeof visible._cache_shape, 'object');
      assert.equal(typeof visible._truncation_hint, 'string');
      assert.equal(graphA.result.structuredContent, undefined, 'the model was not shown the whole graph');
    });
    await soft.checkAsync('A\'s reference reads back A\'s graph', async () => assert.deepEqual(await readBack(ctx.host, /** @type {string} */ (visible._cache_uri)), graphA.raw.structuredContent));
    const ref = visible._cache_refs?.entities ?? `${visible._cache_uri}#/entities`;
    const toB = await ctx.call(soft, 'memoryB', 'create_entities', { entities_uri: ref });
    assert.deepEqual(toB.raw.structuredContent, { entities }, `B received the 300 entities through ${ref}`);
    const graphB = await ctx.call(soft, 'memoryB', 'read_graph', {});
    assert.deepEqual(graphB.raw.structuredContent, graphA.raw.structuredContent, 'B\'s read_graph equals A\'s');
    const uriB = jsonTexts(graphB.result).find((v) => typeof v._cache_uri === 'string')?._cache_uri ?? mintedUris(graphB.result)[0];
    await soft.checkAsync('B\'s reference reads back the same graph', async () => assert.deepEqual(await readBack(ctx.host, uriB), graphA.raw.structuredContent));
    const lines = (await readFile(fx.memoryB, 'utf8')).split('\n').filter(Boolean);
    assert.equal(lines.length, 300, 'B\'s MEMORY_FILE_PATH holds 300 entities');
    soft.done();
  }],

  ['memory create_entities with entities_uri: null (and "") next to real entities dispatches', async (ctx) => {
    const soft = softChecks();
    for (const [i, empty] of [null, ''].entries()) {
      const entities = makeEntities(1, `probe${i}`);
      const { result, raw } = await ctx.call(soft, 'memoryA', 'create_entities', { entities, entities_uri: empty }, { expectDispatch: false });
      assert.ok(raw, `entities_uri: ${JSON.stringify(empty)} — the call was blocked: ${short(/** @type {BlockView[]} */ (result.content)?.[0]?.text)}`);
      assert.notEqual(result.isError, true, short(result));
      assert.deepEqual(raw.structuredContent, { entities });
    }
    const found = await ctx.call(soft, 'memoryA', 'open_nodes', { names: ['probe0-entity-0000', 'probe1-entity-0000'] });
    assert.equal(/** @type {Graph} */ (found.raw.structuredContent).entities.length, 2);
    soft.done();
  }],

  ['a string reference (read_text_file #/content) passed as entities_uri is blocked with type_mismatch; the graph is unchanged', async (ctx, fx) => {
    const soft = softChecks();
    const file = await ctx.call(soft, 'filesystem', 'read_text_file', { path: fx.bigText.path });
    const uri = mintedUris(file.result)[0];
    assert.match(uri ?? '', URI_RE, 'the text file has a reference');
    assert.equal(await readBack(ctx.host, `${uri}#/content`), fx.bigText.text, 'it resolves to a string');
    const before = await ctx.call(soft, 'memoryB', 'read_graph', {});
    const fileBefore = await readFile(fx.memoryB, 'utf8').catch(() => '');
    const { result, raw } = await ctx.call(soft, 'memoryB', 'create_entities', { entities_uri: `${uri}#/content` }, { expectDispatch: false });
    const after = await ctx.call(soft, 'memoryB', 'read_graph', {});
    assert.deepEqual(after.raw.structuredContent, before.raw.structuredContent, 'memory B\'s graph is unchanged');
    assert.equal(await readFile(fx.memoryB, 'utf8').catch(() => ''), fileBefore, 'and so is its file');
    assert.equal(result.isError, true, `an error result (got ${short(result)})`);
    /** @type {{ error?: unknown }} */
    let envelope;
    try { envelope = JSON.parse(/** @type {TextContent} */ (result.content.at(-1)).text); } catch { envelope = { error: /** @type {BlockView[]} */ (result.content)?.at(-1)?.text }; }
    assert.match(String(envelope.error), /^type_mismatch/, `the envelope's error starts with type_mismatch (got ${short(envelope.error, 200)})`);
    assert.equal(raw, null, 'the server was not called');
    soft.done();
  }],

  ['notifications/resources/updated from everything reach the host handler (set through the wrapper) and the cache', async (ctx) => {
    const resource = 'demo://resource/dynamic/text/1';
    await ctx.host.subscribe('everything', resource);
    const soft = softChecks();
    // toggle-subscriber-updates sends one update at once for each subscribed resource, then one
    // every 5 s; toggled off again right after.
    await ctx.call(soft, 'everything', 'toggle-subscriber-updates', {});
    let seen;
    try {
      seen = await until(async () => {
        const s = await ctx.host.seen();
        return s.host.includes(resource) && s.cache.includes(resource) ? s : null;
      }, 3_000) ?? await ctx.host.seen();
    } finally {
      await ctx.call(soft, 'everything', 'toggle-subscriber-updates', {});
    }
    assert.ok(seen.host.includes(resource), `the host's handler saw ${resource} (saw ${short(seen.host)})`);
    assert.ok(seen.cache.includes(resource), `cache.handleNotification saw ${resource} (saw ${short(seen.cache)})`);
    soft.done();
  }],

  ['every structuredContent returned was validated against its tool\'s declared outputSchema', async (ctx) => {
    const { validated, failures } = ctx.ledger;
    assert.deepEqual(failures, []);
    const covered = new Set(validated.filter((v) => v.what === 'server').map((v) => `${v.server}/${v.tool}`));
    for (const t of ['filesystem/read_media_file', 'filesystem/read_text_file', 'memoryA/create_entities', 'memoryA/read_graph', 'everything/get-structured-content']) {
      assert.ok(covered.has(t), `${t} was called and validated (${[...covered].join(', ')})`);
    }
  }],
];
