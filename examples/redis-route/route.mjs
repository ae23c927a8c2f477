// The route handler, as a server framework runs it on every instance: POST /api/chat with the
// body useChat sends ({ id, messages }). Everything that makes references work across instances
// is the first ten lines: one ResultCache per process, over the Redis every instance shares.
import { createClient } from 'redis';
import { convertToModelMessages, stepCountIs, streamText } from 'ai';
import { ResultCache } from 'mcp-result-cache';
import { redisStorage } from 'mcp-result-cache/redis';
import { clientToolSet } from 'mcp-result-cache/ai-sdk';

const redis = await createClient({ url: process.env.REDIS_URL }).on('error', () => {}).connect();
export const cache = new ResultCache({ storage: redisStorage(redis, { ttlMs: 24 * 60 * 60 * 1000 }) });

/**
 * One chat turn: `clients` are this instance's MCP SDK clients, `model` its language model.
 * Resolves what `streamText` streams back (pipe it with `pipeUIMessageStreamToResponse`).
 */
export async function chatTurn({ id, messages }, { clients, model }) {
  const tools = {};
  for (const client of clients) Object.assign(tools, await clientToolSet(client, { cache, convId: id }));
  return streamText({
    model,
    tools,
    messages: await convertToModelMessages(messages, { tools }),
    stopWhen: stepCountIs(5),
  });
}
