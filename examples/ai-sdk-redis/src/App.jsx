// The chat: `useChat` over `DefaultChatTransport` to `/api/chat`. The MCP tools run on the server
// (route.mjs); the page renders what the stream says. Behind balancer.mjs, the first turn and the
// second land on different instances. The rows the route stored in Redis are shown from
// `GET /api/cache` (`useCachedResult` under `<ResultCacheProvider endpoint>`), not from the chat's
// messages, and turn "stale" once "backfill the series" invalidated them.
//
// One tool runs here, in the page: `sensors.read` (this browser's readings), stored in the page's
// IndexedDB cache. When the model passes its reference to a server tool, the route asks for it
// (the call's tool approval); the user's "Allow" sends exactly that payload with the next request
// (`pageReferencePayloads` in the transport), and the route resolves it (`pageReferences`).
import { useEffect, useMemo, useState } from 'react';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, jsonSchema, lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls, tool } from 'ai';
import { ResultCache, referencesOf } from 'mcp-result-cache';
import { ResultCacheProvider, useCacheRevalidate, useCachedResult } from 'mcp-result-cache/react';
import { pageReferencePayloads, wrapAiSdkTools } from 'mcp-result-cache/ai-sdk';

/** The page's own cache (IndexedDB) and its client-side tool. */
const pageCache = new ResultCache({ dbName: 'ai-sdk-redis-page' });
let activeChat = 'chat';
const pageTools = wrapAiSdkTools({
  'sensors.read': tool({
    inputSchema: jsonSchema({ type: 'object', properties: {} }),
    async execute() {
      const start = Date.UTC(2026, 1, 1);
      const rows = Array.from({ length: 240 }, (_, i) => ({ t: new Date(start + i * 60_000).toISOString(), value: (i * 13) % 97 }));
      const value = { ok: true, sensor: 'this-browser', rows };
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    },
  }),
}, { cache: pageCache, convId: () => activeChat, server: 'page-sensors', omitStoredPayload: true });

/** Continue the turn once every page tool call has its output, or every approval its answer. */
const continueWhen = (options) => lastAssistantMessageIsCompleteWithToolCalls(options) || lastAssistantMessageIsCompleteWithApprovalResponses(options);

/** `DefaultChatTransport`'s request, plus the page payloads the approved calls reference. */
async function withPagePayloads({ id, messages, body, trigger, messageId }) {
  const pageReferences = await pageReferencePayloads(pageCache, { convId: id, messages });
  return { body: { ...body, id, messages, trigger, messageId, pageReferences } };
}

const QUERY = 'query the series';
const CHART = 'chart it';
const LOCAL = 'chart my local readings';
const BACKFILL = 'backfill the series';
const ROWS_SHOWN = 10;
const toolName = (part) => part.toolName ?? part.type.slice(5);
const isToolPart = (part) => part.type === 'dynamic-tool' || part.type.startsWith('tool-');
const preview = (s, n = 240) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
/** The references a call passes: the values of its `<name>_uri` arguments (a string, or an array of them). */
const passedReferences = (input) => Object.entries(input ?? {})
  .filter(([key]) => key.endsWith('_uri'))
  .flatMap(([, value]) => (Array.isArray(value) ? value : [value]))
  .filter((value) => typeof value === 'string' && value.startsWith('mcp+cache://'));

/** The text of a tool's output (an MCP CallToolResult's text blocks). */
function outputText(output) {
  if (Array.isArray(output?.content)) return output.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
  return typeof output === 'string' ? output : JSON.stringify(output ?? null);
}

/**
 * The rows the route stored in Redis, read by reference through `GET /api/cache` (cacheRoute):
 * the tool part carries the reference, not the rows (`omitStoredPayload`). One page of them;
 * "stale" once an invalidation marked them out of date (the last rows stay shown, with what
 * invalidated them and the tool to call again).
 */
function StoredRows({ output }) {
  const [uri] = referencesOf(output);
  const { status, data, error, stale } = useCachedResult(uri ? `${uri}#/rows` : output, { offset: 0, limit: ROWS_SHOWN });
  return (
    <section id="stored-rows" data-status={status} data-total={data?.total ?? ''} data-uri={uri ?? ''}>
      <h2>{`Rows stored in Redis${data ? ` (${data.total})` : ''}`}</h2>
      {stale && <p className="stale">{`These rows are out of date (${stale.cause}): ask for ${stale.sourceToolName} again.`}</p>}
      {status === 'missing' && <p>This result is no longer stored.</p>}
      {status === 'error' && <p>{`Could not read the rows: ${error?.message ?? error}`}</p>}
      {data?.items && (
        <table className={status === 'stale' ? 'stale' : ''}>
          <thead><tr><th>t</th><th>value</th></tr></thead>
          <tbody>{data.items.map((row) => <tr key={row.t}><td>{row.t}</td><td>{row.value}</td></tr>)}</tbody>
        </table>
      )}
    </section>
  );
}

export function App() {
  // An unguessable id: the example's cacheRoute lets whoever knows a chat's id read it.
  const chatId = useMemo(() => `chat-${crypto.randomUUID()}`, []);
  return (
    <ResultCacheProvider endpoint="/api/cache" convId={chatId}>
      <Chat chatId={chatId} />
    </ResultCacheProvider>
  );
}

function Chat({ chatId }) {
  const [transport] = useState(() => new DefaultChatTransport({ api: '/api/chat', prepareSendMessagesRequest: withPagePayloads }));
  activeChat = chatId;
  const { messages, sendMessage, addToolOutput, addToolApprovalResponse, status, error } = useChat({
    id: chatId,
    transport,
    sendAutomaticallyWhen: continueWhen,
    async onToolCall({ toolCall }) {
      const pageTool = pageTools[toolCall.toolName];
      if (!pageTool) return; // a server tool: the route runs it
      try {
        const output = await pageTool.execute(toolCall.input, { toolCallId: toolCall.toolCallId, messages: [], context: {} });
        addToolOutput({ tool: toolCall.toolName, toolCallId: toolCall.toolCallId, output });
      } catch (e) {
        addToolOutput({ state: 'output-error', tool: toolCall.toolName, toolCallId: toolCall.toolCallId, errorText: String(e?.message ?? e) });
      }
    },
  });
  const busy = status === 'submitted' || status === 'streaming';
  // A turn is done when its assistant message is complete: one per answered user message.
  const count = (role) => messages.filter((m) => m.role === role).length;
  const turns = busy ? count('user') - 1 : count('assistant');
  const tools = messages.flatMap((m) => m.parts.filter(isToolPart));
  const query = tools.findLast((p) => toolName(p) === 'timeseries.query' && p.state === 'output-available');
  // The hooks learn of the server's changes by revalidating: when a turn ends, ask again (an
  // unchanged entry costs a 304).
  const revalidate = useCacheRevalidate();
  useEffect(() => {
    if (status === 'ready') revalidate();
  }, [status, revalidate]);

  return (
    <main>
      <h1>Two instances, one cache in Redis</h1>
      <section className="panel">
        <ol className="messages">
          {messages.flatMap((m) =>
            m.parts.map((part, i) =>
              part.type === 'text' ? (
                <li key={`${m.id}-${i}`} className={`msg ${m.role}`}>
                  <span className="who">{m.role}</span>
                  {part.text}
                </li>
              ) : isToolPart(part) ? (
                <li key={`${m.id}-${i}`} className="msg tool" data-tool={toolName(part)} data-state={part.state}>
                  <span className="who">{`tool · ${toolName(part)} · ${part.state}`}</span>
                  {`model typed: ${JSON.stringify(part.input)}\n`}
                  {part.state === 'output-available' ? preview(outputText(part.output)) : part.errorText ?? '…'}
                  {part.state === 'approval-requested' && (
                    <span className="approval">
                      {`\n${toolName(part)} needs data stored in this page (${passedReferences(part.input).join(', ')}): send it? `}
                      <button id="approve-allow" onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: true })}>Allow</button>
                      <button id="approve-deny" onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: false, reason: 'The user did not allow it.' })}>Deny</button>
                    </span>
                  )}
                </li>
              ) : null,
            ),
          )}
        </ol>
        <button id="query" onClick={() => sendMessage({ text: QUERY })} disabled={busy}>{QUERY}</button>
        <button id="chart" onClick={() => sendMessage({ text: CHART })} disabled={busy || turns < 1}>{CHART}</button>
        <button id="local" onClick={() => sendMessage({ text: LOCAL })} disabled={busy}>{LOCAL}</button>
        <button id="backfill" onClick={() => sendMessage({ text: BACKFILL })} disabled={busy || !query}>{BACKFILL}</button>
        {query && <StoredRows output={query.output} />}
        <output
          id="status"
          data-state={error ? 'error' : status}
          data-turns={Math.max(turns, 0)}
          data-chat-id={chatId}
          data-tools={tools.map((p) => `${toolName(p)}:${p.state}`).join(',')}
          data-error={error ? String(error.message ?? error) : ''}
        >
          {error ? `error: ${error.message ?? error}` : `${status} · ${Math.max(turns, 0)} turn(s) answered`}
        </output>
      </section>
    </main>
  );
}
