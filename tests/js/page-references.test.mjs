// Page → server (js/page-references.mjs): a reference minted by a client-side tool in the page's
// IndexedDB cache (fake-indexeddb) resolved by a server tool (`clientToolSet` over a real
// `McpServer`) on a server cache in memory — the server asks by `needsApproval`, the page answers
// with exactly the approved calls' payloads (`pageReferencePayloads`), the flow policy judges the
// page tool's server as the source, `maxEntryBytes` bounds both sides. The whole exchange through
// `useChat` in Chromium: tests/e2e/redis-route.mjs.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, cacheTools } from '../../pkg/node.mjs';
import { clientToolSet, pageReferencePayloads, wrapAiSdkTools } from '../../js/ai-sdk.node.mjs';
import { ROWS, pageWithRows as pageOf, withChart } from '../support/page-chat.mjs';
import { tool } from 'ai';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

/** @typedef {import('../support/page-chat.mjs').WrappedTool} WrappedTool */

const CHAT = 'chat-page-1';
const pageWithRows = () => pageOf(CHAT);

/** The UI message of a server tool call in a given state, as `useChat` holds it. */
const assistantWith = (/** @type {unknown[]} */ ...parts) => [{ id: 'a1', role: 'assistant', parts }];
/** @param {unknown} input @param {string} state @param {boolean} [approved] */
const chartPart = (input, state, approved) => ({
  type: 'tool-chart.create', toolCallId: 'c1', state, input, ...(state === 'approval-responded' ? { approval: { id: 'ap1', approved } } : {}),
});
/**
 * The AI SDK's options of the call `c1` in the request that carries its approval: the approval
 * request in the assistant message, the user's approved response in the last (tool) message.
 */
const approvedCall = (approvalId = 'ap1') => ({
  toolCallId: 'c1',
  messages: [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'chart.create', input: {} }, { type: 'tool-approval-request', approvalId, toolCallId: 'c1' }] },
    { role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: true }] },
  ],
});
const call = approvedCall();

test('a page reference: the server asks, the page sends exactly the approved call\'s payload, the chart gets the 240 rows', async () => {
  const { cache: page, rowsRef } = await pageWithRows();
  await withChart(async (client, received) => {
    const server = new ResultCache({ storage: 'memory' });
    // Request 1: the page sent no payloads; the server misses the page's reference and asks.
    const first = await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: [] });
    assert.equal(await /** @type {WrappedTool} */ (first['chart.create']).needsApproval({ data_uri: rowsRef }, call), true);

    // The page, before the user answered: nothing to send; after a denial: nothing either.
    assert.deepEqual(await pageReferencePayloads(page, { convId: CHAT, messages: assistantWith(chartPart({ data_uri: rowsRef }, 'approval-requested')) }), []);
    assert.deepEqual(await pageReferencePayloads(page, { convId: CHAT, messages: assistantWith(chartPart({ data_uri: rowsRef }, 'approval-responded', false)) }), []);
    // Approved: the entry of that reference (whole, without the fragment), once.
    const approved = assistantWith(chartPart({ data_uri: rowsRef, also: [rowsRef] }, 'approval-responded', true), { type: 'text', text: 'x' });
    const payloads = await pageReferencePayloads(page, { convId: CHAT, messages: approved });
    assert.equal(payloads.length, 1);
    assert.equal(payloads[0].uri, rowsRef.slice(0, rowsRef.indexOf('#')));
    assert.deepEqual(payloads[0].payload, { ok: true, rows: ROWS });
    assert.equal(payloads[0].sourceServer, 'page-sensors');
    assert.equal(payloads[0].sourceToolName, 'sensors.read');
    // Another conversation's messages name nothing the page holds for it.
    assert.deepEqual(await pageReferencePayloads(page, { convId: 'other-chat', messages: approved }), []);

    // Request 2 (the approval and the payloads): the call runs with the rows.
    const second = await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: JSON.parse(JSON.stringify(payloads)) });
    assert.equal(await /** @type {WrappedTool} */ (second['chart.create']).needsApproval({ data_uri: rowsRef }, call), false);
    const output = await /** @type {WrappedTool} */ (second['chart.create']).execute({ data_uri: rowsRef }, call);
    assert.equal(JSON.parse(output.content[0].text).points, 240);
    assert.equal(received.length, 1);
    assert.deepEqual(received[0], ROWS);
    // Stored on the server under the chat, with the page tool and its server as the source.
    const [entry] = await server.entries({ convId: CHAT });
    assert.equal(entry.sourceToolName, 'sensors.read');
    assert.equal(entry.sourceServer, 'page-sensors');

    // Another call of the same request (the model's next step), which nobody approved: the
    // payloads the page sent for `c1` do not serve it. It asks, and run anyway it misses.
    const other = { toolCallId: 'c2', messages: call.messages };
    assert.equal(await /** @type {WrappedTool} */ (second['chart.create']).needsApproval({ data_uri: rowsRef }, other), true);
    const refused = await /** @type {WrappedTool} */ (second['chart.create']).execute({ data_uri: rowsRef }, other);
    assert.equal(refused.isError, true);
    assert.match(JSON.parse(refused.content[0].text).error, /could not be resolved/);
    assert.equal(received.length, 1, 'the chart got the rows once, for the approved call');
  });
});

test('page payloads are judged by the flow policy with the page tool\'s server as the source, and bounded by maxEntryBytes', async () => {
  const { cache: page, rowsRef } = await pageWithRows();
  const messages = assistantWith(chartPart({ data_uri: rowsRef }, 'approval-responded', true));
  const payloads = await pageReferencePayloads(page, { convId: CHAT, messages });
  await withChart(async (client, received) => {
    // A policy that lets the page's data reach only another server: refused, the chart never called.
    const strict = new ResultCache({ storage: 'memory', flows: { 'page-sensors': ['elsewhere'] } });
    const refused = await /** @type {WrappedTool} */ ((await clientToolSet(client, { cache: strict, convId: CHAT, pageReferences: payloads }))['chart.create']).execute({ data_uri: rowsRef }, call);
    const envelope = JSON.parse(refused.content[0].text);
    assert.equal(refused.isError, true);
    assert.match(envelope.error, /reference_not_allowed/);
    assert.ok(JSON.stringify(envelope).includes('page-sensors'), JSON.stringify(envelope));
    // The same policy naming the chart server: allowed.
    const open = new ResultCache({ storage: 'memory', flows: { 'page-sensors': ['chart-server'] } });
    const drawn = await /** @type {WrappedTool} */ ((await clientToolSet(client, { cache: open, convId: CHAT, pageReferences: payloads }))['chart.create']).execute({ data_uri: rowsRef }, call);
    assert.equal(JSON.parse(drawn.content[0].text).points, 240);
    assert.equal(received.length, 1);

    // The page leaves out what is over its bound; the server does not store what is over its own.
    assert.deepEqual(await pageReferencePayloads(page, { convId: CHAT, messages, maxEntryBytes: 1000 }), []);
    const small = new ResultCache({ storage: 'memory', maxEntryBytes: 1000 });
    const tools = await clientToolSet(client, { cache: small, convId: CHAT, pageReferences: payloads });
    assert.equal(await /** @type {WrappedTool} */ (tools['chart.create']).needsApproval({ data_uri: rowsRef }, call), true);
    const missed = await /** @type {WrappedTool} */ (tools['chart.create']).execute({ data_uri: rowsRef }, call);
    assert.equal(missed.isError, true);
    assert.equal(received.length, 1, 'the chart server was called without the rows');
    assert.deepEqual(await small.entries({ convId: CHAT }), []);
  });
});

test('a flow the policy asks about ("guarded", an open-world tool) runs on the approval that brought the payload, and only then', async () => {
  const { cache: page, rowsRef } = await pageWithRows();
  const payloads = await pageReferencePayloads(page, { convId: CHAT, messages: assistantWith(chartPart({ data_uri: rowsRef }, 'approval-responded', true)) });
  await withChart(async (client, received) => {
    const server = new ResultCache({ storage: 'memory', flows: 'guarded' });
    // Run without asking first (as a page's onToolCall would): refused, nothing dispatched.
    const direct = await /** @type {WrappedTool} */ ((await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: payloads }))['chart.create']).execute({ data_uri: rowsRef }, { toolCallId: 'c0', messages: [] });
    assert.equal(direct.isError, true);
    assert.equal(received.length, 0);
    // The approved call: the AI SDK asks needsApproval again before running it; the policy's
    // question is answered by that approval, so the call runs once.
    const tools = await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: payloads });
    assert.equal(await /** @type {WrappedTool} */ (tools['chart.create']).needsApproval({ data_uri: rowsRef }, call), true);
    const drawn = await /** @type {WrappedTool} */ (tools['chart.create']).execute({ data_uri: rowsRef }, call);
    assert.equal(JSON.parse(drawn.content[0].text).points, 240);
    assert.deepEqual(received, [ROWS]);
  }, { openWorld: true });
});

test('a page payload under the server cache\'s threshold is stored all the same (a selection of 5 rows; 240 rows under threshold 16384)', async () => {
  const { cache: page, rowsRef } = await pageWithRows();
  // The page's read-back tool selects 5 rows: a derived entry of ~200 bytes, far under 4 096.
  const selected = await cacheTools(page, { convId: CHAT }).callTool({ name: 'cache_select', arguments: { uri: rowsRef, limit: 5 } });
  const few = /** @type {string} */ (JSON.parse(/** @type {{ text: string }} */ (selected.content[0]).text)._cache_uri);
  await withChart(async (client, received) => {
    for (const [ref, serverOptions, rows] of /** @type {const} */ ([[few, {}, ROWS.slice(0, 5)], [rowsRef, { threshold: 16384 }, ROWS]])) {
      const payloads = await pageReferencePayloads(page, { convId: CHAT, messages: assistantWith(chartPart({ data_uri: ref }, 'approval-responded', true)) });
      assert.equal(payloads.length, 1);
      const server = new ResultCache({ storage: 'memory', ...serverOptions });
      const tools = await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: JSON.parse(JSON.stringify(payloads)) });
      assert.equal(await /** @type {WrappedTool} */ (tools['chart.create']).needsApproval({ data_uri: ref }, call), false, ref);
      const output = await /** @type {WrappedTool} */ (tools['chart.create']).execute({ data_uri: ref }, call);
      assert.equal(output.isError, undefined, output.content[0].text);
      assert.equal(JSON.parse(output.content[0].text).points, rows.length);
      assert.deepEqual(received.at(-1), rows);
      // Stored with the source the page sent: its tool, and its server when it named one.
      const entries = await server.entries({ convId: CHAT });
      assert.equal(entries.length, 1);
      assert.equal(entries[0].sourceToolName, payloads[0].sourceToolName);
      assert.equal(entries[0].sourceServer, payloads[0].sourceServer);
    }
    assert.equal(received.length, 2);
  });
});

test('a refused page reference is named as the model passed it: in the policy\'s Flow.uris, the blocked event and _refused_uris', async () => {
  const { cache: page, rowsRef } = await pageWithRows();
  const payloads = await pageReferencePayloads(page, { convId: CHAT, messages: assistantWith(chartPart({ data_uri: rowsRef }, 'approval-responded', true)) });
  await withChart(async (client, received) => {
    /** @type {string[][]} */
    const seen = [];
    /** @type {unknown[]} */
    const blocked = [];
    const server = new ResultCache({
      storage: 'memory',
      flows: (/** @type {import('../../js/index.js').Flow} */ flow) => (seen.push(flow.uris), 'deny'),
      onEvent: (/** @type {import('../../js/index.js').CacheEvent} */ e) => { if (e.kind === 'blocked' && 'uris' in e) blocked.push(e.uris); },
    });
    const tools = await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: payloads });
    const refused = await /** @type {WrappedTool} */ (tools['chart.create']).execute({ data_uri: rowsRef }, call);
    assert.equal(refused.isError, true);
    assert.deepEqual(JSON.parse(refused.content[0].text)._refused_uris, [rowsRef]);
    assert.deepEqual(seen, [[rowsRef]]);
    assert.deepEqual(blocked, [[rowsRef]]);
    assert.equal(received.length, 0);
  });
});

test('a page reference of the wrong type is named as the model passed it in the type_mismatch envelope, its member references too', async () => {
  const { cache: page, rowsRef } = await pageWithRows();
  const whole = rowsRef.slice(0, rowsRef.indexOf('#'));
  const payloads = await pageReferencePayloads(page, { convId: CHAT, messages: assistantWith(chartPart({ data_uri: whole }, 'approval-responded', true)) });
  await withChart(async (client, received) => {
    const server = new ResultCache({ storage: 'memory' });
    const tools = await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: payloads });
    const refused = await /** @type {WrappedTool} */ (tools['chart.create']).execute({ data_uri: whole }, call);
    assert.equal(refused.isError, true);
    const envelope = JSON.parse(refused.content[0].text);
    assert.match(envelope.error, /^type_mismatch: /);
    assert.equal(envelope._uri, whole);
    assert.ok(envelope.fix_hint.includes(`"${whole}#/rows"`), envelope.fix_hint);
    assert.equal(received.length, 0);
  });
});

test('a page reference in an argument that is no `<name>_uri` is the tool\'s own string: not asked for, not sent, not rewritten', async () => {
  const { cache: page, rowsRef } = await pageWithRows();
  /** @type {unknown[]} */
  const got = [];
  const notes = new McpServer({ name: 'notes', version: '1.0.0' });
  notes.registerTool('note.add', {
    description: 'Saves a note, with rows if given.',
    inputSchema: { note: z.string(), data: z.array(z.object({ t: z.string(), value: z.number() })).optional() },
  }, async (args) => {
    got.push(args);
    return { content: [{ type: 'text', text: JSON.stringify({ ok: true }) }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await notes.connect(serverSide);
  const client = new Client({ name: 'route', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    const server = new ResultCache({ storage: 'memory' });
    const first = await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: [] });
    assert.equal(await /** @type {WrappedTool} */ (first['note.add']).needsApproval({ note: rowsRef }, call), false);
    // The page sends nothing for a call that quotes its reference in plain strings only.
    assert.deepEqual(await pageReferencePayloads(page, { convId: CHAT, messages: assistantWith({ type: 'tool-note.add', toolCallId: 'c1', state: 'approval-responded', input: { note: rowsRef, text: `see ${rowsRef}`, also: [rowsRef] }, approval: { id: 'ap1', approved: true } }) }), []);
    await /** @type {WrappedTool} */ (first['note.add']).execute({ note: rowsRef }, call);
    assert.deepEqual(got.at(-1), { note: rowsRef });
    assert.deepEqual(await server.entries({ convId: CHAT }), []);

    // With a `data_uri` the page sent the payload for, only that is resolved; `note` is untouched.
    const payloads = await pageReferencePayloads(page, { convId: CHAT, messages: assistantWith({ type: 'tool-note.add', toolCallId: 'c1', state: 'approval-responded', input: { note: rowsRef, data_uri: rowsRef }, approval: { id: 'ap1', approved: true } }) });
    const second = await clientToolSet(client, { cache: server, convId: CHAT, pageReferences: payloads });
    await /** @type {WrappedTool} */ (second['note.add']).execute({ note: rowsRef, data_uri: rowsRef }, approvedCall('ap2'));
    assert.deepEqual(got.at(-1), { note: rowsRef, data: ROWS });

    // A malformed reference (a lone surrogate the model escaped) is the pipeline's envelope, not
    // a rejection of the approval or the call (which would end the whole turn).
    const bad = `mcp+cache://${CHAT}/AAAAAAAAAA\ud800`;
    const plain = { toolCallId: 'c9', messages: [] };
    assert.equal(await /** @type {WrappedTool} */ (second['note.add']).needsApproval({ note: 'x', data_uri: bad }, plain), false);
    const refused = /** @type {{ content: { text: string }[] }} */ (await /** @type {WrappedTool} */ (second['note.add']).execute({ note: 'x', data_uri: bad }, plain));
    assert.match(JSON.parse(refused.content[0].text).error, /^invalid_args/);
    assert.equal(got.length, 2, 'never dispatched');
  } finally {
    await client.close();
    await notes.close();
  }
});

test('pageReferences and pageReferencePayloads: bad input is a TypeError', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const tools = { t: tool({ inputSchema: z.object({}), execute: async () => 'x' }) };
  for (const bad of [{}, 'x', [null], [{ uri: 'https://x', payload: {} }], [{ uri: 'mcp+cache://c/abcdefgh#/rows', payload: {} }],
    [{ uri: 'mcp+cache://c/abcdefgh', payload: 3 }], [{ uri: 'mcp+cache://c/abcdefgh', payload: {}, sourceServer: 1 }],
    // A server's name the cache cannot record: refused here (a 400 of the route), never inside
    // the AI SDK's approval, where a rejection ends the process.
    ...['', 'a\u001fb', 'x\uD800'].map((sourceServer) => [{ uri: 'mcp+cache://c/abcdefgh', payload: {}, sourceServer }]),
    [{ uri: 'mcp+cache://c/abcdefgh', payload: {}, sourceToolName: 'chart-server\u001fx' }]]) {
    assert.throws(() => wrapAiSdkTools(tools, { cache, pageReferences: bad }), { name: 'TypeError', message: /pageReferences must be an array/ });
  }
  await withChart(async (client) => {
    await assert.rejects(clientToolSet(client, { pageReferences: [] }), { name: 'TypeError', message: /pageReferences needs a cache/ });
    await assert.rejects(clientToolSet(client, { cache, pageReferences: {} }), TypeError);
  });
  // Deliberately wrong: no cache, then no convId (typed `never` to be passed at all).
  await assert.rejects(pageReferencePayloads(/** @type {never} */ (null), { convId: 'c', messages: [] }), TypeError);
  await assert.rejects(pageReferencePayloads(cache, /** @type {never} */ ({ messages: [] })), TypeError);
  await assert.rejects(pageReferencePayloads(cache, { convId: 'c', messages: [], maxEntryBytes: -1 }), TypeError);
  assert.deepEqual(await pageReferencePayloads(cache, { convId: 'c', messages: [] }), []);
});
