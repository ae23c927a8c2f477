import { useEffect, useState } from 'react';
import { startServers } from './mcpServers.js';
import { nextModelStep } from './scriptedModel.js';
import { cache, connectHost, modelText } from './host.js';

// One set of in-page MCP servers and one host for the page (not per render or per effect run).
let conversation = 'react-chat';
let started = null;
function servers() {
  started ??= startServers().then(async (s) => ({ ...s, host: await connectHost(s.clients, () => conversation) }));
  return started;
}

const QUESTION = 'Chart cpu.load for the last 4 hours.';
const preview = (s, n = 220) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

// What the model was given for a tool result: the head of the JSON, its size, and the reference.
function ToolText({ text }) {
  const uri = text.match(/"_cache_uri":"([^"]+)"/)?.[1];
  return (
    <>
      {preview(text, 160)}
      {uri && (
        <>
          {'\n'}_cache_uri: <code className="uri">{uri}</code>
        </>
      )}
    </>
  );
}

function Sparkline({ values }) {
  if (!values?.length) return null;
  const min = Math.min(...values);
  const span = Math.max(...values) - min || 1;
  const d = values.map((v, i) => `${(i / (values.length - 1)) * 100},${40 - ((v - min) / span) * 38}`).join(' ');
  return (
    <svg viewBox="0 -1 100 42" preserveAspectRatio="none" aria-label={`chart of ${values.length} points`}>
      <polyline points={d} fill="none" stroke="#3b6fd8" strokeWidth="0.6" vectorEffect="non-scaling-stroke" />
    </svg>
  );
}

function useWorkerRoundTrip() {
  const [status, setStatus] = useState({ state: 'running' });
  useEffect(() => {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    let cancelled = false;
    (async () => {
      const convId = 'react-chat-worker';
      // The unwrapped SDK client: the raw payload, as the server sent it.
      const { clients } = await servers();
      const { structuredContent: payload } = await clients.data.callTool({
        name: 'timeseries.query',
        arguments: { metric: 'worker.demo' },
      });
      worker.onerror = (e) => setStatus({ state: 'error', error: e.message || 'worker error' });
      worker.onmessage = async ({ data: reply }) => {
        if (cancelled) return;
        if (!reply.ok) return setStatus({ state: 'error', error: reply.error });
        // The page's own cache reads the reference the worker minted: one shared database.
        const fromPage = await cache.readCachedPayload(reply.uri, { convId });
        setStatus({
          state: 'done',
          uri: reply.uri,
          storage: reply.storage,
          count: reply.data.rows.length,
          equal: JSON.stringify(reply.data) === JSON.stringify(payload),
          pageCount: fromPage?.rows?.length ?? 0,
        });
      };
      worker.postMessage({ payload, convId });
    })().catch((e) => setStatus({ state: 'error', error: String(e) }));
    return () => {
      cancelled = true;
      worker.terminate();
    };
  }, []);
  return status;
}

export function App() {
  const [messages, setMessages] = useState([]);
  const [status, setStatus] = useState({ state: 'idle' });
  const [chart, setChart] = useState(null);
  const worker = useWorkerRoundTrip();

  async function runTurn() {
    const log = [{ role: 'user', text: QUESTION }];
    const found = {};
    setMessages([...log]);
    setStatus({ state: 'running' });
    try {
      const { host, received } = await servers();
      conversation = `chat-${Date.now().toString(36)}`;
      for (let step = 0; step < 5; step++) {
        const action = nextModelStep(log);
        if (action.type === 'text') {
          log.push({ role: 'assistant', text: action.text });
          break;
        }
        const call = JSON.stringify({ name: action.name, arguments: action.arguments });
        log.push({ role: 'assistant', text: `tool call → ${call}`, call });
        setMessages([...log]);
        const calls = received.length;
        const text = modelText(await host.callTool(action.name, action.arguments));
        log.push({ role: 'tool', name: action.name, text });
        setMessages([...log]);
        if (action.name === 'timeseries.query') found.uri = JSON.parse(text)._cache_uri;
        if (action.name === 'chart.create') {
          const result = JSON.parse(text);
          found.modelArgs = call;
          // What the chart server itself received: `data`, never the reference.
          const dispatched = received.length > calls ? received.at(-1) : null;
          found.dispatchedKeys = dispatched ? Object.keys(dispatched).join(',') : '';
          found.points = result.points;
          if (result.ok) setChart(result.values);
        }
      }
      setMessages([...log]);
      // `storage` is a synchronous getter: fine here, the awaited calls above loaded the wasm.
      setStatus({
        state: found.points ? 'done' : 'error',
        storage: cache.storage,
        error: found.points ? undefined : log.at(-1).text,
        ...found,
      });
    } catch (error) {
      setStatus({ state: 'error', error: `${error?.name}: ${error?.message}` });
    }
  }

  return (
    <main>
      <h1>React chat · results by reference</h1>
      <section className="panel">
        <ol className="messages">
          {messages.map((m, i) => (
            <li key={i} className={`msg ${m.role}`}>
              <span className="who">{m.role === 'tool' ? `tool result · ${m.name}` : m.role}</span>
              {m.role === 'tool' ? <ToolText text={m.text} /> : m.text}
            </li>
          ))}
        </ol>
        {chart && <Sparkline values={chart} />}
        <button id="send" onClick={runTurn} disabled={status.state === 'running'}>
          {QUESTION}
        </button>
        <output
          id="status"
          data-state={status.state}
          data-uri={status.uri ?? ''}
          data-points={status.points ?? ''}
          data-model-args={status.modelArgs ?? ''}
          data-dispatched-keys={status.dispatchedKeys ?? ''}
          data-storage={status.storage ?? ''}
          data-error={status.error ?? ''}
        >
          {status.state === 'done'
            ? `chart.create received ${status.points} points; the model typed ${status.modelArgs.length} characters (${status.uri})`
            : status.state === 'error'
              ? `error: ${status.error}`
              : status.state}
        </output>
        <output
          id="worker-status"
          data-state={worker.state}
          data-uri={worker.uri ?? ''}
          data-count={worker.count ?? ''}
          data-equal={String(worker.equal ?? '')}
          data-page-count={worker.pageCount ?? ''}
          data-storage={worker.storage ?? ''}
          data-error={worker.error ?? ''}
        >
          {worker.state === 'done'
            ? `worker: cached ${worker.count} rows in IndexedDB and resolved ${worker.uri} (page read ${worker.pageCount})`
            : `worker: ${worker.state}${worker.error ? ` (${worker.error})` : ''}`}
        </output>
      </section>
    </main>
  );
}
