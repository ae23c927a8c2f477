// A `useChat` conversation against a route handler, measured on the wire, without a browser.
//
// `useChat` talks to its route through the AI SDK's `DefaultChatTransport`: each turn POSTs the
// chat's id and every message so far as JSON, and reads the answer as a UI message stream
// (server-sent events). This drives that very transport, with a `fetch` that hands the request
// to the route handler in-process and counts the bytes both ways, and assembles each answer with
// the AI SDK's own `readUIMessageStream`, as `useChat` does. Nothing is mocked: the route's
// `streamText`, its tools and its model run as they do behind HTTP.
import { DefaultChatTransport, readUIMessageStream } from 'ai';

/**
 * @typedef {{ text: string, posted: number, streamed: number, message: import('ai').UIMessage }} Turn
 *   one turn: the user's text, the bytes of the request body (`posted`) and of the response body
 *   (`streamed`), and the assistant message the stream built
 */

/**
 * Runs a conversation of `texts`, one turn each, against `handler` (a route's `POST`).
 * @param {(request: Request) => Promise<Response>} handler
 * @param {string} chatId
 * @param {string[]} texts
 * @returns {Promise<{ turns: Turn[], messages: import('ai').UIMessage[] }>}
 */
export async function converse(handler, chatId, texts) {
  /** @type {{ posted: number, streamed: number }} */
  const counted = { posted: 0, streamed: 0 };
  const transport = new DefaultChatTransport({
    api: 'http://route.test/api/chat',
    fetch: async (url, init) => {
      const body = String(init?.body ?? '');
      counted.posted = Buffer.byteLength(body);
      const response = await handler(new Request(String(url), { method: 'POST', headers: init?.headers, body }));
      let streamed = 0;
      const counter = new TransformStream({
        transform(chunk, controller) {
          streamed += chunk.byteLength;
          counted.streamed = streamed;
          controller.enqueue(chunk);
        },
      });
      return new Response(response.body?.pipeThrough(counter), { status: response.status, headers: response.headers });
    },
  });
  /** @type {import('ai').UIMessage[]} */
  const messages = [];
  /** @type {Turn[]} */
  const turns = [];
  for (const [i, text] of texts.entries()) {
    messages.push({ id: `user-${i + 1}`, role: 'user', parts: [{ type: 'text', text }] });
    counted.streamed = 0;
    const chunks = await transport.sendMessages({
      chatId, messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined,
    });
    /** @type {import('ai').UIMessage | undefined} */
    let message;
    for await (const built of readUIMessageStream({ stream: chunks })) message = built;
    if (!message) throw new Error(`turn ${i + 1} ("${text}") streamed no message`);
    messages.push(message);
    turns.push({ text, posted: counted.posted, streamed: counted.streamed, message });
  }
  return { turns, messages };
}

/**
 * The tool parts of a message (`tool-<name>` or `dynamic-tool`).
 * @param {import('ai').UIMessage} message
 * @returns {Array<Record<string, unknown>>}
 */
export function toolParts(message) {
  return /** @type {Array<Record<string, unknown>>} */ (message.parts.filter((p) => p.type === 'dynamic-tool' || p.type.startsWith('tool-')));
}
