// The protocol's JS home (js/protocol.mjs: hand-written rules over the constants that
// scripts/constants.mjs writes from the Rust declarations) against the Rust rules it mirrors, observed through the release package: thousands of
// generated inputs, hostile ones included (lone surrogates, control characters, `~` and `/`,
// astral characters, strings around the length limits, non-strings). Also: no hand-written JS file
// restates the scheme or the `_uri` suffix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as api from '../../pkg/node.mjs';
import * as protocol from '../../js/protocol.mjs';
import { referenceArgs } from '../../js/tool-pipeline.mjs';

const { ResultCache, cacheTools, parseCacheUri } = api;
const {
  CACHE_URI_SCHEME, DEFAULT_CONV_SEGMENT, DEFAULT_READ_TOOLS_PREFIX, INVALID_ARGS, MAX_POINTER_BYTES, MAX_REF_MEMBER_CHARS,
  READ_TOOLS, UNKNOWN_SOURCE_TOOL, URI_ARG_SUFFIX, childReference, isServerName, isToolName, memberReference,
} = protocol;

/**
 * A small deterministic PRNG (mulberry32): the same inputs on every run.
 * @param {number} seed
 * @returns {() => number}
 */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Pieces a hostile key is made of: plain text, RFC 6901 escapes, every kind of control character,
// lone and paired surrogates, astral and multi-byte characters, the server mark, `#`, `%`.
const PIECES = ['a', 'rows', '~', '/', '~0', '~1', '#', '%2F', ' ', 'é', '会', '😀', '\uD800', '\uDFFF', '\u0000', '\n', '\u001f',
  '\u007f', '\u0085', '\u009f', '\u00a0', '\u2028', '\u200b', '\uFEFF', 'x'.repeat(30), '\\', '"', '_uri'];

/** @param {() => number} next */
function keyOf(next) {
  const parts = Math.floor(next() * 8);
  let key = '';
  for (let i = 0; i < parts; i++) key += PIECES[Math.floor(next() * PIECES.length)];
  // Around the 64-character limit, counted in code points and in UTF-16 units.
  if (next() < 0.2) key += (next() < 0.5 ? '😀' : 'k').repeat(56 + Math.floor(next() * 12));
  return key;
}

const memory = (options = {}) => new ResultCache({ storage: 'memory', threshold: 0, ...options });

test('the constants are the ones the package uses', async () => {
  assert.equal(CACHE_URI_SCHEME, api.CACHE_URI_SCHEME);
  const cache = memory();
  const uri = /** @type {string} */ (await cache.cacheToolResult({ payload: { rows: [1] }, convId: null }));
  assert.ok(uri.startsWith(`${CACHE_URI_SCHEME}${DEFAULT_CONV_SEGMENT}/`), uri);
  assert.equal(/** @type {import('../../pkg/node/index.mjs').ParsedCacheUri} */ (parseCacheUri(uri)).convId, DEFAULT_CONV_SEGMENT);
  // A result stored without a tool name is reported under UNKNOWN_SOURCE_TOOL.
  const [entry] = await cache.entries();
  assert.equal(entry.sourceToolName, UNKNOWN_SOURCE_TOOL);
  // `_uri` arguments are the ones beforeToolCall resolves.
  const resolved = await cache.substituteCacheUris({ [`data${URI_ARG_SUFFIX}`]: uri }, { convId: null });
  assert.deepEqual(/** @type {{ args?: unknown }} */ (resolved).args, { data: { rows: [1] } });
});

test('the read-back tools listed are the ones core/view.rs names, with its default prefix', async () => {
  const { tools } = await cacheTools(memory(), { convId: 'c' }).listTools();
  assert.deepEqual(tools.map((/** @type {import('../../pkg/node/index.mjs').CacheReadTool} */ t) => t.name), READ_TOOLS.map((t) => `${DEFAULT_READ_TOOLS_PREFIX}${t}`));
  for (const prefix of ['', 'mem.', 'a-b_c']) {
    const listed = await cacheTools(memory(), { prefix }).listTools();
    assert.deepEqual(listed.tools.map((/** @type {import('../../pkg/node/index.mjs').CacheReadTool} */ t) => t.name), READ_TOOLS.map((t) => `${prefix}${t}`));
  }
  // The hint of a stored result names the same tools (core::view::push_read_hint).
  const visible = await memory().afterToolCall('q', { rows: Array.from({ length: 50 }, (_, i) => ({ i })) }, { convId: 'c', view: 'preview', readTools: true });
  const text = JSON.stringify(visible);
  for (const name of READ_TOOLS) assert.ok(text.includes(`${DEFAULT_READ_TOOLS_PREFIX}${name}`), `${name} in ${text.slice(0, 400)}`);
});

test('memberReference writes exactly the _cache_refs of Rust (member_reference), which resolve to the member', async () => {
  const next = random(1);
  const cache = memory();
  let compared = 0;
  let written = 0;
  for (let round = 0; round < 1000; round++) {
    /** @type {Record<string, unknown>} */
    const payload = {};
    /** @type {Set<string>} */
    const keys = new Set();
    while (keys.size < 1 + Math.floor(next() * 8)) keys.add(keyOf(next));
    for (const key of keys) payload[key] = [round, key.length];
    const visible = /** @type {{ _cache_uri: string, _cache_refs?: Record<string, string> }} */ (await cache.afterToolCall('t', payload, { convId: 'c', maxChars: 100 }));
    const uri = visible._cache_uri;
    assert.equal(typeof uri, 'string');
    // In key order; none for a key with a lone surrogate (Rust skips it, memberReference is null).
    /** @type {Record<string, string>} */
    const expected = {};
    for (const key of Object.keys(payload)) {
      const reference = memberReference(uri, key);
      if (reference !== null) expected[key] = reference;
    }
    assert.deepEqual(visible._cache_refs ?? {}, expected, JSON.stringify([...keys]));
    compared += keys.size;
    for (const [key, reference] of Object.entries(expected)) {
      written += 1;
      if (!Object.hasOwn(payload, key) || round % 10) continue;
      const resolved = await cache.substituteCacheUris({ data_uri: reference }, { convId: 'c' });
      assert.equal(resolved.ok, true, reference);
      assert.deepEqual(/** @type {{ args: Record<string, unknown> }} */ (resolved).args.data, payload[key]);
    }
  }
  assert.ok(compared > 3000 && written > 1000, `${compared} keys, ${written} references`);
  // Non-strings are no members.
  for (const member of [undefined, null, 1, {}, [], Symbol.iterator]) assert.equal(memberReference('mcp+cache://c/AAAAAAAAAAA', member), null);
});

test('childReference answers null exactly when parse_cache_uri refuses the reference, and round-trips the token', () => {
  const next = random(2);
  const bases = ['mcp+cache://c/AAAAAAAAAAA', 'mcp+cache://conv_1/AbCd1234#/rows', `mcp+cache://c/AAAAAAAAAAA#/${'p'.repeat(2000)}`];
  let refused = 0;
  for (let i = 0; i < 20000; i++) {
    const base = bases[Math.floor(next() * bases.length)];
    let token = next() < 0.1 ? Math.floor(next() * 1000) : keyOf(next);
    if (typeof token === 'string' && next() < 0.1) token += 'é'.repeat(Math.floor(next() * 1100));
    const reference = childReference(base, token);
    const escaped = String(token).replace(/~/g, '~0').replace(/\//g, '~1');
    const naive = base.includes('#') ? `${base}/${escaped}` : `${base}#/${escaped}`;
    const parsed = parseCacheUri(naive);
    if (reference === null) {
      refused += 1;
      assert.equal(parsed, null, JSON.stringify(naive.slice(0, 80)));
      continue;
    }
    assert.equal(reference, naive);
    assert.notEqual(parsed, null, JSON.stringify(naive.slice(0, 80)));
    // The last token, unescaped, is the one given (well formed, as Rust sees it).
    const tokens = /** @type {string} */ (/** @type {import('../../pkg/node/index.mjs').ParsedCacheUri} */ (parsed).pointer).slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    assert.equal(tokens.at(-1), String(token));
  }
  assert.ok(refused > 1000 && refused < 19000, `${refused} refused`);
  // The limits themselves.
  const room = MAX_POINTER_BYTES - 1;
  assert.notEqual(childReference(bases[0], 'x'.repeat(room)), null);
  assert.equal(childReference(bases[0], 'x'.repeat(room + 1)), null);
  assert.notEqual(memberReference(bases[0], '😀'.repeat(MAX_REF_MEMBER_CHARS)), null);
  assert.equal(memberReference(bases[0], '😀'.repeat(MAX_REF_MEMBER_CHARS + 1)), null);
});

test('isServerName accepts exactly the server names Rust accepts (server_option)', async () => {
  const next = random(3);
  const cache = memory();
  const names = [undefined, null, '', 1, {}, [], true, 'alpha', 'a\u001fb', '\uD800', 'ok\uDFFF', '😀', ' '];
  for (let i = 0; i < 2000; i++) names.push(keyOf(next));
  let accepted = 0;
  for (const name of names) {
    // Hostile names on purpose: cast to `never`.
    const options = { convId: 'c', server: /** @type {never} */ (name) };
    const outcome = await cache.afterToolCall('t', { structuredContent: { v: 1 } }, options).then(() => true, (error) => {
      assert.ok(error instanceof TypeError, String(error));
      return false;
    });
    // `undefined` and `null` mean no server, which Rust accepts and isServerName does not name.
    if (name === undefined || name === null) continue;
    assert.equal(isServerName(name), outcome, JSON.stringify(name));
    if (outcome) accepted += 1;
  }
  assert.ok(accepted > 100 && accepted < names.length - 100, `${accepted} accepted`);
});

test('isToolName accepts exactly the tool names Rust accepts (afterToolCall\'s toolName)', async () => {
  const next = random(4);
  const cache = memory();
  const names = ['', 1, {}, null, 'alpha', 'a\u001fb', '\u001f', 'x.y-z_1', '😀', ' '];
  for (let i = 0; i < 2000; i++) names.push(keyOf(next));
  let accepted = 0;
  for (const name of names) {
    // Hostile names on purpose: cast to `never`.
    const outcome = await cache.afterToolCall(/** @type {never} */ (name), { structuredContent: { v: 1 } }, { convId: 'c' }).then(() => true, (error) => {
      assert.ok(error instanceof TypeError, String(error));
      return false;
    });
    assert.equal(isToolName(name), outcome, JSON.stringify(name));
    if (outcome) accepted += 1;
  }
  assert.ok(accepted > 100 && accepted < names.length - 100, `${accepted} accepted`);
});

test('invalidArgs is shaped as the envelopes of the cache', async () => {
  const cache = memory();
  const outcome = await cache.substituteCacheUris({ data_uri: 'mcp+cache://c/AAAAAAAAAAA' }, { convId: 'c' });
  assert.equal(outcome.ok, false);
  assert.ok(outcome.envelope.error.startsWith(INVALID_ARGS), outcome.envelope.error);
  const ours = protocol.invalidArgs('what', 'hint');
  assert.deepEqual(ours, { error: `${INVALID_ARGS}what`, fix_hint: 'hint' });
  const rust = Object.keys(outcome.envelope).filter((k) => k in ours);
  assert.deepEqual(rust, Object.keys(ours), 'the same keys in the same order');
});

/**
 * Every hand-written JS file of js/ and src/: the ones git tracks (the build writes its outputs
 * into pkg/, which git ignores).
 */
async function handWritten() {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const tracked = execFileSync('git', ['ls-files', '-z', '--', 'js', 'src'], { cwd: root, encoding: 'utf8' }).split('\0');
  const files = tracked.filter((path) => /\.(m|c)?js$/.test(path));
  return Promise.all(files.map(async (path) => ({ path, text: await readFile(join(root, path), 'utf8') })));
}

test('no hand-written JS restates the scheme or the suffix: js/protocol.mjs is their one home', async () => {
  const files = await handWritten();
  assert.ok(files.some((f) => f.path === 'js/tool-pipeline.mjs') && files.some((f) => f.path === 'src/store/idb_objects.js'));
  for (const { path, text } of files) {
    // Code only: comments may name them.
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const literal of [CACHE_URI_SCHEME, `'${URI_ARG_SUFFIX}'`, `"${URI_ARG_SUFFIX}"`, UNKNOWN_SOURCE_TOOL, `'${DEFAULT_READ_TOOLS_PREFIX}'`]) {
      assert.ok(!code.includes(literal), `${path} restates ${literal}`);
    }
  }
});

test('referenceArgs (which arguments page references and type checks read) names the references Rust substitution resolves', async () => {
  const cache = new api.ResultCache({ storage: 'memory' });
  const ref = (/** @type {number} */ i) => `mcp+cache://c/abcdefgh${String(i).padStart(4, '0')}`;
  const keys = ['data_uri', '_uri', 'x_uri', 'data', 'a_URI', 'rows_uri'];
  const values = [ref(1), [ref(2), ref(3)], [], [ref(4), 'x'], 'x', 5, null, [ref(5), 7], 'mcp+cache://', [ref(6)], 'MCP+cache://c/abcdefgh0007'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let i = 0; i < 2000; i++) {
    /** @type {Record<string, unknown>} */
    const args = {};
    for (const key of keys) if (next() % 2) args[key] = values[next() % values.length];
    const js = [...new Set(referenceArgs(args).flatMap(([, v]) => v))].sort();
    // Every reference is unknown to the empty cache: the ones Rust resolves are the ones it lists as missing.
    const out = /** @type {{ ok: boolean, envelope?: { _missing_uris?: string[] } }} */ (await cache.substituteCacheUris(args, { convId: 'c' }));
    const rust = out.ok ? [] : [...new Set(out.envelope?._missing_uris ?? [])].sort();
    assert.deepEqual(js, rust, JSON.stringify(args));
  }
});

test('the integrations refuse at once exactly the pipeline options beforeToolCall and afterToolCall refuse at each call', async () => {
  const { wrapMcpClient } = await import('../../js/mcp-client.node.mjs');
  const cache = memory();
  const client = { listTools: async () => ({ tools: [] }), callTool: async () => ({ content: [] }) };
  const numbers = [undefined, 0, 1, 20.5, Infinity, -0, -1, NaN, -Infinity, '4', null, true, {}, 2 ** 40];
  /** @type {Record<string, unknown[]>} */
  const values = {
    cap: numbers,
    maxChars: numbers,
    mediaMaxBytes: numbers,
    cappedArgs: [undefined, null, [], ['data'], ['a', 'b'], 'data', [1], [null], {}, ['ok', 2]],
    view: [undefined, 'full', 'preview', 'Full', '', null, 1],
    readTools: [undefined, true, false, '', 'cache_', 'a.b-c_1', 'x'.repeat(32), 'x'.repeat(33), 'a b', 'é', null, 1, {}],
  };
  // Where each option is checked at a call: before it (beforeToolCall) or after it (afterToolCall).
  const before = new Set(['cap', 'cappedArgs', 'maxChars']);
  for (const [key, list] of Object.entries(values)) {
    for (const value of list) {
      const options = { [key]: value };
      const atCall = await (before.has(key)
        ? cache.beforeToolCall('t', {}, /** @type {never} */ ({ convId: 'c', ...options }))
        : cache.afterToolCall('t', { content: [] }, /** @type {never} */ ({ convId: 'c', ...options })))
        .then(() => true, (error) => {
          assert.ok(error instanceof TypeError, `${key}: ${String(error)}`);
          return false;
        });
      let atWrap = true;
      try {
        wrapMcpClient(client, /** @type {never} */ ({ cache, convId: 'c', ...options }));
      } catch (error) {
        assert.ok(error instanceof TypeError && error.message.startsWith(`wrapMcpClient: ${key} must be`), `${key}: ${String(error)}`);
        atWrap = false;
      }
      assert.equal(atWrap, atCall, `${key}: ${String(value)}`);
    }
  }
});

test('isToolPrefix accepts exactly the read-back prefixes Rust accepts (afterToolCall\'s readTools)', async () => {
  const next = random(7);
  const cache = memory();
  const prefixes = ['', 'cache_', 'x'.repeat(32), 'x'.repeat(33), 'é', '\u{1F600}', 'a b', 'a/b'];
  for (let i = 0; i < 1000; i++) prefixes.push(keyOf(next));
  for (const prefix of prefixes) {
    const byRust = await cache.afterToolCall('t', { content: [] }, { convId: 'c', readTools: prefix }).then(() => true, () => false);
    assert.equal(protocol.isToolPrefix(prefix), byRust, JSON.stringify(prefix));
  }
});

test('page references accept exactly the source tool and server names cacheToolResult accepts (what they are stored with)', async () => {
  const { checkPageReferences } = await import('../../js/page-references.mjs');
  const next = random(11);
  const cache = memory();
  /** @type {unknown[]} */
  const names = [undefined, '', 'alpha', 'a\u001fb', '\u001f', 'x.y-z_1', '\ud800', '😀', ' ', 1, null];
  for (let i = 0; i < 500; i++) names.push(keyOf(next));
  for (const name of names) {
    for (const key of /** @type {const} */ (['sourceToolName', 'sourceServer'])) {
      const entry = { uri: 'mcp+cache://page/AAAAAAAAAAA', payload: { rows: [] }, [key]: name };
      let byJs = true;
      try {
        checkPageReferences({ cache, pageReferences: [entry] }, 'x');
      } catch (error) {
        assert.ok(error instanceof TypeError);
        byJs = false;
      }
      // As js/page-references.mjs stores an entry: its tool's name (the unknown tool's when
      // absent), and its server as `server` (none when absent or null).
      const input = key === 'sourceToolName' ? { sourceToolName: name ?? protocol.UNKNOWN_SOURCE_TOOL } : { server: name };
      const byRust = await cache.cacheToolResult(/** @type {never} */ ({ payload: { rows: [] }, convId: 'c', ...input })).then(() => true, () => false);
      assert.equal(byJs, byRust, `${key}: ${JSON.stringify(name)}`);
    }
  }
});
