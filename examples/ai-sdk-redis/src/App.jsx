// The chat: `useChat` over `DefaultChatTransport` to `/api/chat`. The tools run on the server
// (route.mjs); the page only renders what the stream says. Behind balancer.mjs, the first turn
// and the second land on different instances.
import { useMemo, useState } from 'react';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';

const QUERY = 'query the series';
const CHART = 'chart it';
const toolName = (part) => part.toolName ?? part.type.slice(5);
const isToolPart = (part) => part.type === 'dynamic-tool' || part.type.startsWith('tool-');
const preview = (s, n = 240) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/** The text of a tool's output (an MCP CallToolResult's text blocks). */
function outputText(output) {
  if (Array.isArray(output?.content)) return output.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
  return typeof output === 'string' ? output : JSON.stringify(output ?? null);
}

export function App() {
  const chatId = useMemo(() => `chat-${Date.now().toString(36)}`, []);
  const [transport] = useState(() => new DefaultChatTransport({ api: '/api/chat' }));
  const { messages, sendMessage, status, error } = useChat({ id: chatId, transport });
  const busy = status === 'submitted' || status === 'streaming';
  // A turn is done when its assistant message is complete: one per answered user message.
  const count = (role) => messages.filter((m) => m.role === role).length;
  const turns = busy ? count('user') - 1 : count('assistant');
  const tools = messages.flatMap((m) => m.parts.filter(isToolPart));

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
                </li>
              ) : null,
            ),
          )}
        </ol>
        <button id="query" onClick={() => sendMessage({ text: QUERY })} disabled={busy}>{QUERY}</button>
        <button id="chart" onClick={() => sendMessage({ text: CHART })} disabled={busy || turns < 1}>{CHART}</button>
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
