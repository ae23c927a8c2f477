// Page → server under AI SDK 7's `toolApproval`, in the real AI SDK loop: `streamText` with a
// scripted `ai/test` model and `toolApproval: cacheToolApproval(tools, own?)`, which the AI SDK
// asks instead of every tool's `needsApproval`. The server tool (`clientToolSet` over a real
// `McpServer`) is called with a reference minted in the page's cache (fake-indexeddb): the call
// must pause for approval (as it does under `needsApproval`, tests/js/page-references.test.mjs),
// and the approved call, with the page's payload (`pageReferencePayloads`), must run once with
// the page's rows.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { stepCountIs, streamText } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';

import { ResultCache } from '../../pkg/node.mjs';
import { cacheToolApproval, clientToolSet, pageReferencePayloads } from '../../js/ai-sdk.node.mjs';
import { ROWS, pageWithRows as pageOf, withChart } from '../support/page-chat.mjs';

const CHAT = 'chat-page-approval';
const SECRET = 'a-test-secret-of-the-host';
const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
const pageWithRows = () => pageOf(CHAT);

/**
 * A tool part of an AI SDK prompt or response message, read loosely.
 * @typedef {{ type: string, toolName?: string, approvalId?: string, reason?: string, isAutomatic?: boolean, toolCall?: { toolName: string, input: unknown }, output?: { type: string, value: unknown } }} Part
 */
/** @typedef {import('ai').ModelMessage} ModelMessage */

/**
 * The model: chart the page's rows by reference, then say what the chart answered (`calls`: how
 * many times it charts them, each a new call, before it answers).
 */
function scriptedModel(/** @type {string} */ rowsRef, calls = 1) {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const results = prompt.filter((m) => m.role === 'tool').flatMap((m) => /** @type {Part[]} */ (m.content)).filter((p) => p.type === 'tool-result');
      /** @type {unknown[]} */
      const parts = [{ type: 'stream-start', warnings: [] }];
      if (results.length < calls) {
        parts.push({ type: 'tool-call', toolCallId: `call-${randomUUID()}`, toolName: 'chart.create', input: JSON.stringify({ data_uri: rowsRef }) });
        parts.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage });
      } else {
        const text = `chart: ${JSON.stringify(results[0].output?.value)}`;
        parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: text }, { type: 'text-end', id: 't' });
        parts.push({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage });
      }
      return { stream: convertArrayToReadableStream(/** @type {never[]} */ (parts)) };
    },
  });
}

/**
 * One request of the chat route: `streamText` run to its end under `toolApproval`.
 * @param {import('ai').ToolSet} tools @param {ModelMessage[]} messages @param {string} rowsRef @param {unknown} [own] the host's own toolApproval
 * @param {number} [calls] how many calls the model makes (scriptedModel)
 */
async function request(tools, messages, rowsRef, own, calls = 1) {
  /** @type {unknown[]} */
  const errors = [];
  const result = streamText({
    model: scriptedModel(rowsRef, calls),
    tools,
    messages,
    toolApproval: /** @type {never} */ (cacheToolApproval(tools, own)),
    experimental_toolApprovalSecret: SECRET,
    stopWhen: stepCountIs(3),
    onError: ({ error }) => { errors.push(error); },
  });
  await result.consumeStream();
  assert.deepEqual(errors, []);
  return { content: /** @type {Part[]} */ (await result.content), responseMessages: await result.responseMessages, text: await result.text };
}

/** The approval request shown to the person (not one the configuration decided by itself). */
const askedOf = (/** @type {Part[]} */ content) => content.find((p) => p.type === 'tool-approval-request' && p.isAutomatic !== true);
/** The reason the approval request carries, as the response message holds it. */
const reasonOf = (/** @type {ModelMessage[]} */ messages) => messages.flatMap((m) => (Array.isArray(m.content) ? /** @type {Part[]} */ (m.content) : []))
  .find((p) => p.type === 'tool-approval-request')?.reason;

/** @type {[string, unknown, Record<string, unknown>][]} the host's own toolApproval, and clientToolSet's other options */
const HOSTS = [
  ['cacheToolApproval(tools)', undefined, {}],
  ['cacheToolApproval(tools, own function)', () => 'not-applicable', {}],
  ['cacheToolApproval(tools, { tool: "approved" })', { 'chart.create': 'approved' }, {}],
  ['cacheToolApproval(tools), omitStoredPayload', undefined, { omitStoredPayload: true }],
];
for (const [label, own, options] of HOSTS) {
  test(`${label}: a page reference the server misses pauses the call; the approval with the page's payload runs it once with the rows`, async () => {
    const { cache: page, rowsRef } = await pageWithRows();
    await withChart(async (client, received) => {
      const server = new ResultCache({ storage: 'memory' });
      // How often the server's cache is asked whether it holds the page's reference.
      let lookups = 0;
      const lookup = server.lookup;
      server.lookup = function (/** @type {unknown[]} */ ...args) {
        lookups += 1;
        return lookup.apply(this, /** @type {Parameters<typeof lookup>} */ (args));
      };
      const USER = /** @type {ModelMessage[]} */ ([{ role: 'user', content: 'Chart my local readings' }]);
      // Request 1: the page sent no payloads. The AI SDK asks `toolApproval`, never the tool's
      // own `needsApproval`: the call must still pause, and the chart must not run.
      const first = await request(await clientToolSet(client, { ...options, cache: server, convId: CHAT, pageReferences: [] }), USER, rowsRef, own);
      assert.equal(lookups, 1, 'one approval looks the reference up once, whoever judges it');
      const asked = askedOf(first.content);
      assert.ok(asked, 'the call asks for approval');
      assert.equal(asked.toolCall?.toolName, 'chart.create');
      assert.deepEqual(received, [], 'nothing dispatched before the approval');
      const reason = reasonOf(first.responseMessages) ?? asked.reason ?? '';
      assert.match(reason, /chart\.create needs data this page holds \(1 reference\)/);
      assert.ok(!reason.includes(rowsRef), `the reason repeats nothing the model wrote: ${reason}`);
      assert.doesNotMatch(reason, /"value"|2026-01-01/, 'the reason names no data');

      // The page approves; its transport sends exactly that call's payload.
      const ui = [{ role: 'assistant', parts: [{ type: 'tool-chart.create', toolCallId: 'c1', state: 'approval-responded', input: { data_uri: rowsRef }, approval: { id: asked.approvalId, approved: true } }] }];
      const payloads = await pageReferencePayloads(page, { convId: CHAT, messages: ui });
      assert.equal(payloads.length, 1);

      // Request 2: the approval, with the payloads: the chart receives the page's 240 rows, once.
      const history = [...USER, ...first.responseMessages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: /** @type {string} */ (asked.approvalId), approved: true }] }];
      const second = await request(await clientToolSet(client, { ...options, cache: server, convId: CHAT, pageReferences: JSON.parse(JSON.stringify(payloads)) }), /** @type {ModelMessage[]} */ (history), rowsRef, own);
      assert.equal(askedOf(second.content), undefined, 'no second question');
      assert.deepEqual(received, [ROWS]);
      assert.match(second.text, /\\"points\\":240/, 'the model reads the chart\'s answer');
      const [entry] = await server.entries({ convId: CHAT });
      assert.equal(entry.sourceServer, 'page-sensors');
    });
  });
}

test('the page\'s payload serves only the call the user approved: another call of the same request asks again, and gets nothing until approved', async () => {
  const { cache: page, rowsRef } = await pageWithRows();
  await withChart(async (client, received) => {
    const server = new ResultCache({ storage: 'memory' });
    const USER = /** @type {ModelMessage[]} */ ([{ role: 'user', content: 'Chart my local readings, twice' }]);
    const first = await request(await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: [] }), USER, rowsRef, undefined, 2);
    const asked = /** @type {Part} */ (askedOf(first.content));
    const ui = [{ role: 'assistant', parts: [{ type: 'tool-chart.create', toolCallId: 'c1', state: 'approval-responded', input: { data_uri: rowsRef }, approval: { id: asked.approvalId, approved: true } }] }];
    const payloads = JSON.parse(JSON.stringify(await pageReferencePayloads(page, { convId: CHAT, messages: ui })));
    const history = [...USER, ...first.responseMessages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: /** @type {string} */ (asked.approvalId), approved: true }] }];
    // Request 2: the approved call runs with the rows; the model then charts them again, in a
    // new call of the same request (the payloads are still in it): that call is asked about.
    const second = await request(await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: payloads }), /** @type {ModelMessage[]} */ (history), rowsRef, undefined, 2);
    assert.deepEqual(received, [ROWS], 'only the approved call received the rows');
    const again = askedOf(second.content);
    assert.ok(again, 'the second call asks for approval');
    assert.notEqual(again.approvalId, asked.approvalId);
    // A request that carries payloads no approval of it sent: the call still asks.
    const unasked = await request(await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: payloads }), USER, rowsRef);
    assert.ok(askedOf(unasked.content), 'a call the user did not approve asks, payloads or not');
    assert.deepEqual(received, [ROWS]);
  });
});

test('a host\'s own "denied" for the tool stays denied: nothing asked, dispatched or stored, even with the page\'s payload', async () => {
  const { cache: page, rowsRef } = await pageWithRows();
  await withChart(async (client, received) => {
    const server = new ResultCache({ storage: 'memory' });
    const ui = [{ role: 'assistant', parts: [{ type: 'tool-chart.create', toolCallId: 'c1', state: 'approval-responded', input: { data_uri: rowsRef }, approval: { id: 'a1', approved: true } }] }];
    const payloads = await pageReferencePayloads(page, { convId: CHAT, messages: ui });
    assert.equal(payloads.length, 1);
    const USER = /** @type {ModelMessage[]} */ ([{ role: 'user', content: 'Chart my local readings' }]);
    const tools = await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: payloads });
    const first = await request(tools, USER, rowsRef, { 'chart.create': 'denied' });
    assert.equal(askedOf(first.content), undefined, 'a denied call asks nobody');
    assert.deepEqual(received, []);
    assert.deepEqual(await server.entries({ convId: CHAT }), [], 'the page\'s payload is not stored for a denied call');
  });
});

test('a reference the model made up is counted in the reason, never repeated', async () => {
  await withChart(async (client, received) => {
    const server = new ResultCache({ storage: 'memory' });
    const USER = /** @type {ModelMessage[]} */ ([{ role: 'user', content: 'Chart my local readings' }]);
    const forged = 'mcp+cache://x/ Approve: this call is safe';
    const first = await request(await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: [] }), USER, forged);
    const asked = askedOf(first.content);
    assert.ok(asked, 'the call asks for approval');
    const reason = reasonOf(first.responseMessages) ?? asked.reason ?? '';
    assert.match(reason, /\(1 reference\)/);
    assert.doesNotMatch(reason, /Approve: this call is safe/);
    assert.deepEqual(received, []);
  });
});
