// The route handler: `POST /api/chat` of a `useChat` page, as a function from a web `Request` to
// a `Response` (what Next.js, Hono, Remix and others call; server.mjs adapts node:http to it).
//
// The cache lives in Redis, so every instance of this route shares it: a reference minted by the
// instance that ran turn 1 resolves on the instance that runs turn 2.
import { createClient } from 'redis';
import { convertToModelMessages, createUIMessageStreamResponse, jsonSchema, stepCountIs, streamText, toUIMessageStream, tool } from 'ai';
import { ResultCache, cacheRoute } from 'mcp-result-cache';
import { redisStorage } from 'mcp-result-cache/redis';
import { cacheToolApproval, clientToolSet, wrapAiSdkTools } from 'mcp-result-cache/ai-sdk';
import { startServers } from './mcp-servers.mjs';
import { scriptedModel } from './scripted-model.mjs';

// The AI SDK signs each approval request with it and refuses an approval it did not issue, or one
// whose call was altered. An approval asked by one instance is answered on another: every instance
// needs the same secret (balancer.mjs gives both of its instances one).
const TOOL_APPROVAL_SECRET = process.env.TOOL_APPROVAL_SECRET;
if (!TOOL_APPROVAL_SECRET) throw new Error('route.mjs: set TOOL_APPROVAL_SECRET, the same on every instance');

// One Redis client and one cache per process, shared by every request.
const redis = await createClient({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' })
  .on('error', (error) => console.error(`redis: ${error.message}`)) // reconnects by itself
  .connect();
export const cache = new ResultCache({ storage: redisStorage(redis, { ttlMs: 24 * 60 * 60 * 1000 }) });

// The MCP servers (in this process here; anywhere in a real app) and the scripted model.
export const servers = await startServers();
export const { model, calls: modelCalls } = scriptedModel();

// A tool that runs in the page (src/App.jsx), declared here without `execute`: the model is given
// its schema, and the page runs it and stores its result in the page's own cache.
const pageTools = wrapAiSdkTools({
  'sensors.read': tool({ description: 'The readings of the sensors of this browser (runs in the page).', inputSchema: jsonSchema({ type: 'object', properties: {} }) }),
}, { cache });

/**
 * @param {Request} request
 * @returns {Promise<Response>}
 */
export async function POST(request) {
  // DefaultChatTransport sends the chat's id; the page adds `pageReferences`: the payloads of its
  // own references that the calls it just approved need (none on most requests).
  const { id, messages, pageReferences = [] } = await request.json();
  const tools = { ...pageTools };
  for (const client of Object.values(servers.clients)) {
    // omitStoredPayload: the rows Redis holds are not streamed to the page nor posted back with
    // every later turn; the page reads them by reference (GET /api/cache).
    // pageReferences: a reference minted in the page resolves here, once the page sent it.
    const served = await clientToolSet(client, { cache, convId: id, omitStoredPayload: true, pageReferences }).catch((error) => error);
    if (served instanceof TypeError) return Response.json({ error: served.message }, { status: 400 }); // a malformed pageReferences
    if (served instanceof Error) throw served;
    Object.assign(tools, served);
  }
  const result = streamText({
    model,
    tools,
    messages: await convertToModelMessages(messages, { tools }),
    stopWhen: stepCountIs(5),
    // The cache's approvals: a call carrying a reference minted in the page that this cache
    // misses (or a flow the policy asks about) waits for the user's answer; each approval is
    // used once, on whichever instance runs it.
    toolApproval: cacheToolApproval(tools),
    experimental_toolApprovalSecret: TOOL_APPROVAL_SECRET,
  });
  return createUIMessageStreamResponse({ stream: toUIMessageStream({ stream: result.stream, tools, originalMessages: messages }) });
}

// `GET /api/cache`: what the chat's references hold, for the page (`useCachedResult` under
// `<ResultCacheProvider endpoint="/api/cache">`). This example has no accounts: a chat's id is a
// random UUID only its page knows, so knowing it is the permission. A real app answers whether
// the session's user owns `convId`.
const CHAT_ID = /^chat-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const GET = cacheRoute(cache, { authorize: (_request, { convId }) => CHAT_ID.test(convId) });

/** Closes the Redis connection (the cache leaves it open: the app owns the client). */
export async function close() {
  await redis.close().catch(() => redis.destroy());
}
