// The route handler: `POST /api/chat` of a `useChat` page, as a function from a web `Request` to
// a `Response` (what Next.js, Hono, Remix and others call; server.mjs adapts node:http to it).
//
// The cache lives in Redis, so every instance of this route shares it: a reference minted by the
// instance that ran turn 1 resolves on the instance that runs turn 2.
import { createClient } from 'redis';
import { convertToModelMessages, createUIMessageStreamResponse, stepCountIs, streamText, toUIMessageStream } from 'ai';
import { ResultCache } from 'mcp-result-cache';
import { redisStorage } from 'mcp-result-cache/redis';
import { clientToolSet } from 'mcp-result-cache/ai-sdk';
import { startServers } from './mcp-servers.mjs';
import { scriptedModel } from './scripted-model.mjs';

// One Redis client and one cache per process, shared by every request.
const redis = await createClient({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' })
  .on('error', (error) => console.error(`redis: ${error.message}`)) // reconnects by itself
  .connect();
export const cache = new ResultCache({ storage: redisStorage(redis, { ttlMs: 24 * 60 * 60 * 1000 }) });

// The MCP servers (in this process here; anywhere in a real app) and the scripted model.
export const servers = await startServers();
export const { model, calls: modelCalls } = scriptedModel();

export async function POST(request) {
  const { id, messages } = await request.json(); // DefaultChatTransport sends the chat's id
  const tools = {};
  for (const client of Object.values(servers.clients)) {
    // omitStoredPayload: the rows Redis holds are not streamed to the page nor posted back with
    // every later turn; the page reads them by reference (GET /api/cache).
    Object.assign(tools, await clientToolSet(client, { cache, convId: id, omitStoredPayload: true }));
  }
  const result = streamText({
    model,
    tools,
    messages: await convertToModelMessages(messages, { tools }),
    stopWhen: stepCountIs(5),
  });
  return createUIMessageStreamResponse({ stream: toUIMessageStream({ stream: result.stream, tools, originalMessages: messages }) });
}

/** Closes the Redis connection (the cache leaves it open: the app owns the client). */
export async function close() {
  await redis.close().catch(() => redis.destroy());
}
