// The chat page: useChat against POST /api/chat, which the balancer sends to instance "a" and
// "b" in turn. Turn 1 asks for the series (stored in Redis by one instance); turn 2 asks for the
// chart (run by the other instance, which resolves the reference from Redis).
import { useState } from 'react';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';

const transport = new DefaultChatTransport({ api: '/api/chat' });
const TURNS = ['Query cpu.load for the last 4 hours.', 'Chart the rows.'];

function Part({ part }) {
  if (part.type === 'text') return <p>{part.text}</p>;
  if (part.type === 'dynamic-tool' || part.type.startsWith('tool-')) {
    const name = part.toolName ?? part.type.slice(5);
    return (
      <pre className="tool" data-tool={name} data-state={part.state}>
        {name}({JSON.stringify(part.input)}){'\n'}→ {JSON.stringify(part.output ?? null).slice(0, 240)}
      </pre>
    );
  }
  return null;
}

export function App() {
  const { messages, sendMessage, status } = useChat({ id: 'redis-route-chat', transport });
  const [turn, setTurn] = useState(0);
  const send = () => {
    sendMessage({ text: TURNS[turn] });
    setTurn(turn + 1);
  };
  const done = messages.filter((m) => m.role === 'assistant').length;
  return (
    <main>
      <h1>One cache in Redis, two instances</h1>
      <button id="send" disabled={turn >= TURNS.length || status !== 'ready'} onClick={send}>
        {TURNS[turn] ?? 'done'}
      </button>
      <p id="status" data-status={status} data-turns={done}>{status}</p>
      {messages.map((m) => (
        <section key={m.id} className={m.role}>
          <b>{m.role}</b>
          {m.parts.map((part, i) => <Part key={i} part={part} />)}
        </section>
      ))}
    </main>
  );
}
