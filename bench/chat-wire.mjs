// The bytes on a chat's wire, per turn, for examples/ai-sdk-redis's 240-row flow: the route's
// answer streamed to the page, and the request `useChat` posts (every message so far), without
// and with `omitStoredPayload`.
//
//   node bench/chat-wire.mjs            (after `npm run build`; needs /usr/bin/redis-server)
//
// The example's own MCP servers and scripted model, its route's `streamText` (the same lines as
// examples/ai-sdk-redis/route.mjs) on a cache in a real redis-server, talked to by the AI SDK's
// `DefaultChatTransport` as `useChat` does (tests/support/chat-wire.mjs). Three turns: "query the
// series" (240 rows stored in Redis), "chart it" (by reference), "thanks". Prints a Markdown
// table; the numbers do not depend on the machine (byte counts, not timings).
import { convertToModelMessages, createUIMessageStreamResponse, stepCountIs, streamText, toUIMessageStream } from 'ai';
import { ResultCache } from '../pkg/node.mjs';
import { redisStorage } from '../js/redis.mjs';
import { clientToolSet } from '../js/ai-sdk.node.mjs';
import { startServers } from '../examples/ai-sdk-redis/mcp-servers.mjs';
import { scriptedModel } from '../examples/ai-sdk-redis/scripted-model.mjs';
import { startRedis, nodeRedisClient, closeClient } from '../tests/support/redis-servers.mjs';
import { converse, toolParts } from '../tests/support/chat-wire.mjs';

const TURNS = ['query the series', 'chart it', 'thanks'];

/**
 * One conversation through the example's route, the option given or not.
 * @param {import('../js/redis.js').RedisClientLike} redis @param {{ omitStoredPayload?: boolean }} options
 */
async function measure(redis, options) {
  const cache = new ResultCache({ storage: redisStorage(redis) });
  const servers = await startServers();
  const { model } = scriptedModel();
  /** @param {Request} request @returns {Promise<Response>} */
  async function POST(request) {
    const { id, messages } = /** @type {{ id: string, messages: import('ai').UIMessage[] }} */ (await request.json());
    /** @type {import('ai').ToolSet} */
    const tools = {};
    for (const client of Object.values(servers.clients)) Object.assign(tools, await clientToolSet(client, { cache, convId: id, ...options }));
    const result = streamText({ model, tools, messages: await convertToModelMessages(messages, { tools }), stopWhen: stepCountIs(5) });
    return createUIMessageStreamResponse({ stream: toUIMessageStream({ stream: result.stream, tools, originalMessages: messages }) });
  }
  try {
    const { turns } = await converse(POST, `chat-wire-${options.omitStoredPayload ? 'b' : 'a'}`, TURNS);
    const charted = servers.charts.at(-1)?.rows;
    if (charted !== 240) throw new Error(`the chart server received ${charted} rows, not 240`);
    const [query] = toolParts(turns[0].message);
    return { turns, output: Buffer.byteLength(JSON.stringify(query.output)) };
  } finally {
    await Promise.all(Object.values(servers.clients).map((c) => c.close()));
  }
}

const server = await startRedis();
const redis = await nodeRedisClient(server.url);
try {
  const before = await measure(redis, {});
  const after = await measure(redis, { omitStoredPayload: true });
  const total = (/** @type {Awaited<ReturnType<typeof measure>>} */ m) => m.turns.reduce((sum, t) => sum + t.posted + t.streamed, 0);
  console.log(`timeseries.query's tool output in the tool part: ${before.output} B without the option, ${after.output} B with it\n`);
  console.log('| turn | posted (before → after) | streamed (before → after) |');
  console.log('|---|---:|---:|');
  for (const [i, turn] of before.turns.entries()) {
    const now = after.turns[i];
    console.log(`| ${i + 1}. "${turn.text}" | ${turn.posted} → ${now.posted} | ${turn.streamed} → ${now.streamed} |`);
  }
  console.log(`| all three | | ${total(before)} → ${total(after)} (both ways) |`);
} finally {
  await closeClient(redis);
  await server.stop();
}
