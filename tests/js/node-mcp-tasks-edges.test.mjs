// wrapMcpClient's retries and task answers at their edges, over hand-written clients (objects
// that list and call tools as the SDK's Client does, which wrapMcpClient takes): a retry
// (inputResponses) applies its invalidation signals; the final result of a task a retry answered
// is capped, never stored, as the retry's own result would be; the final result of a task the
// wrapper no longer remembers (past the most it keeps) or never saw is still capped to maxChars;
// a tool the server does not list costs one listing, not one per call.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache } from '../../pkg/node.mjs';
import { wrapMcpClient } from '../../js/mcp-client.node.mjs';

const ROWS = Array.from({ length: 120 }, (_, i) => ({ id: i, name: `entity-${i}`, note: 'x'.repeat(20) }));
/** A text result as the model is shown it. @typedef {{ content: { text: string }[], task?: { taskId: string } }} Shown */

/** A client whose every call answers a new task; each task's result is 120 rows. */
function taskClient() {
  let id = 0;
  return {
    listTools: async () => ({ tools: [{ name: 'job', inputSchema: { type: 'object', properties: { env: { type: 'string' } } } }] }),
    callTool: async () => ({ task: { taskId: `t${++id}`, status: 'working' } }),
    getTaskResult: async (/** @type {{ taskId: string }} */ { taskId }) => ({ content: [{ type: 'text', text: JSON.stringify({ ok: true, taskId, rows: ROWS }) }] }),
    getServerVersion: () => ({ name: 'ops' }),
  };
}

test('the final result of a task a retry answered is not stored, as the retry\'s own result would not be', async () => {
  const cache = new ResultCache({ storage: 'memory' });
  const mcp = /** @type {{ callTool(p: object): Promise<Shown>, getTaskResult(p: object): Promise<Shown> }} */ (/** @type {unknown} */ (wrapMcpClient(taskClient(), { cache, convId: 'c' })));
  const direct = await mcp.callTool({ name: 'job', arguments: { env: 'prod' } });
  const retry = await mcp.callTool({ name: 'job', arguments: { env: 'prod' }, inputResponses: { confirm: { content: { ok: true } } } });
  const stored = JSON.parse((await mcp.getTaskResult({ taskId: direct.task?.taskId })).content[0].text);
  const capped = JSON.parse((await mcp.getTaskResult({ taskId: retry.task?.taskId })).content[0].text);
  assert.equal(typeof stored._cache_uri, 'string');
  assert.equal(capped._cache_uri, undefined);
  assert.equal((await cache.entries({ convId: 'c' })).length, 1);
});

test('the final result of a task the wrapper does not remember is still capped to maxChars', async () => {
  const mcp = /** @type {{ callTool(p: object): Promise<Shown>, getTaskResult(p: object): Promise<Shown> }} */ (/** @type {unknown} */ (wrapMcpClient(taskClient(), { cache: new ResultCache({ storage: 'memory' }), convId: 'c', maxChars: 1000 })));
  const first = await mcp.callTool({ name: 'job', arguments: {} });
  for (let i = 0; i < 1024; i += 1) await mcp.callTool({ name: 'job', arguments: {} });
  for (const taskId of [first.task?.taskId, 'never-seen']) {
    const shown = await mcp.getTaskResult({ taskId });
    assert.ok(shown.content[0].text.length <= 1000, `${taskId}: ${shown.content[0].text.length} characters`);
  }
});

test('a retry\'s invalidation signals are applied, as a direct call\'s are: a confirmed refund makes the invoice stale', async () => {
  for (const asks of [false, true]) {
    const billing = {
      getServerVersion: () => ({ name: 'billing' }),
      listTools: async () => ({ tools: [
        { name: 'billing.get_invoice', inputSchema: { type: 'object', properties: {} } },
        { name: 'billing.refund', inputSchema: { type: 'object', properties: { amount: { type: 'number' } } } },
      ] }),
      callTool: async (/** @type {{ name: string, inputResponses?: unknown }} */ { name, inputResponses }) => {
        if (name === 'billing.get_invoice') return { content: [{ type: 'text', text: JSON.stringify({ ok: true, total: 100, lines: ROWS }) }] };
        if (asks && !inputResponses) return { resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Refund?' } } }, requestState: 'st' };
        return { content: [{ type: 'text', text: '<cache_invalidation cause="billing.refund" domains="billing.get_*" />' }, { type: 'text', text: JSON.stringify({ ok: true, refunded: 40 }) }] };
      },
    };
    const cache = new ResultCache({ storage: 'memory' });
    const mcp = /** @type {{ callTool(p: object): Promise<Shown & { requestState?: string }> }} */ (/** @type {unknown} */ (wrapMcpClient(billing, { cache, convId: 'c' })));
    const uri = JSON.parse((await mcp.callTool({ name: 'billing.get_invoice', arguments: {} })).content[0].text)._cache_uri;
    const first = await mcp.callTool({ name: 'billing.refund', arguments: { amount: 40 } });
    if (asks) await mcp.callTool({ name: 'billing.refund', arguments: { amount: 40 }, inputResponses: { confirm: { action: 'accept', content: {} } }, requestState: first.requestState });
    assert.equal((await cache.lookup(uri, { convId: 'c' })).status, 'stale', asks ? 'confirmed through a retry' : 'in one call');
    assert.equal((await cache.entries({ convId: 'c' })).length, 1, 'the refunds stored nothing');
  }
});

test('a tool the server does not list is listed for once, not on every call; a host listing lets the next call list again', async () => {
  let listings = 0;
  const client = {
    listTools: async () => {
      listings += 1;
      return { tools: [{ name: 'job', inputSchema: { type: 'object', properties: {} } }] };
    },
    callTool: async (/** @type {{ name: string }} */ { name }) => ({ content: [{ type: 'text', text: `no tool ${name}` }], isError: true }),
  };
  const mcp = /** @type {{ listTools(): Promise<unknown>, callTool(p: object): Promise<Shown> }} */ (/** @type {unknown} */ (wrapMcpClient(client, { cache: new ResultCache({ storage: 'memory' }), convId: 'c' })));
  for (let i = 0; i < 5; i += 1) await mcp.callTool({ name: 'guessed', arguments: {} });
  assert.equal(listings, 1, 'one listing for five calls to a name it does not have');
  await mcp.listTools();
  await mcp.callTool({ name: 'guessed', arguments: {} });
  assert.equal(listings, 3, 'the host listed (the server may have the tool now): the next call lists again');
  await mcp.callTool({ name: 'job', arguments: {} });
  assert.equal(listings, 3, 'a listed tool: no listing');
});
