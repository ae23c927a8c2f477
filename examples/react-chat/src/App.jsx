import { useEffect, useMemo, useState } from 'react';
import { referencesOf } from 'mcp-result-cache';
import { ResultCacheProvider, useCachedResult } from 'mcp-result-cache/react';
import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls } from 'ai';
import { startServers } from './mcpServers.js';
import { AGENT_TOOLS, cache, connectTools, localTransport } from './host.js';

// One set of in-page MCP servers and their wrapped tools for the page (not per render). Each tool
// call is cached under the conversation it belongs to: the `useChat` chat's id.
let activeChat = 'react-chat';
let started = null;
function servers() {
  started ??= startServers().then(async (s) => ({ ...s, ...(await connectTools(s.clients, () => activeChat)) }));
  return started;
}

const QUESTION = 'Chart cpu.load for the last 4 hours.';
const MAIL = 'Mail these readings to ops@partner.example.';
const toolName = (part) => part.toolName ?? part.type.slice(5);
/** Continue the turn once every tool call has its output, or an approval its answer. */
const continueWhen = (options) => lastAssistantMessageIsCompleteWithToolCalls(options) || lastAssistantMessageIsCompleteWithApprovalResponses(options);
const preview = (s, n = 220) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
const isToolPart = (part) => part.type === 'dynamic-tool' || part.type.startsWith('tool-');

/** The text the model was given of a tool's output (a CallToolResult's text blocks). */
function outputText(output) {
  if (Array.isArray(output?.content)) return output.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
  return typeof output === 'string' ? output : JSON.stringify(output ?? null);
}

// What the model was given for a tool result: the head of the JSON, its size, and its reference
// (`referencesOf`: no text is searched for it).
function ToolText({ output }) {
  const [uri] = referencesOf(output);
  return (
    <>
      {preview(outputText(output), 160)}
      {uri && (
        <>
          {'\n'}_cache_uri: <code className="uri">{uri}</code>
        </>
      )}
    </>
  );
}

const ROWS_PER_PAGE = 20;

/**
 * The rows the chart was drawn from, read from the page's cache by the reference the model
 * passed (`useCachedResult`): one page at a time in a table, and the whole as a JSON download.
 * A clear of the conversation makes them "missing", with no reload.
 */
function ChartRows({ uri }) {
  const [offset, setOffset] = useState(0);
  const page = useCachedResult(uri, { offset, limit: ROWS_PER_PAGE });
  const whole = useCachedResult(uri);
  const download = useMemo(
    () => (whole.status === 'ready' ? URL.createObjectURL(new Blob([JSON.stringify(whole.data, null, 2)], { type: 'application/json' })) : null),
    [whole.status, whole.data],
  );
  useEffect(() => () => download && URL.revokeObjectURL(download), [download]);
  const total = page.data?.total ?? 0;
  return (
    <section id="chart-rows" data-status={page.status} data-total={page.data?.total ?? ''} data-offset={offset} data-uri={uri}>
      {page.status === 'missing' && <p>These rows are no longer stored.</p>}
      {page.status === 'error' && <p>{`Could not read the rows: ${page.error?.message ?? page.error}`}</p>}
      {page.data?.items && (
        <>
          <table>
            <thead><tr><th>t</th><th>value</th></tr></thead>
            <tbody>{page.data.items.map((row) => <tr key={row.t}><td>{row.t}</td><td>{row.value}</td></tr>)}</tbody>
          </table>
          <button id="rows-prev" onClick={() => setOffset(Math.max(0, offset - ROWS_PER_PAGE))} disabled={offset === 0}>previous</button>
          {`rows ${offset + 1}–${Math.min(offset + ROWS_PER_PAGE, total)} of ${total} `}
          <button id="rows-next" onClick={() => setOffset(offset + ROWS_PER_PAGE)} disabled={page.data.next_offset === undefined}>next</button>
        </>
      )}
      {download && <a id="download-json" href={download} download="cpu.load-rows.json">download JSON</a>}
    </section>
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
  const [setup, setSetup] = useState(null);
  const [failure, setFailure] = useState(null);
  const worker = useWorkerRoundTrip();
  useEffect(() => {
    servers().then(setSetup, (e) => setFailure(`${e?.name}: ${e?.message}`));
  }, []);
  return (
    <main>
      <h1>React chat · results by reference</h1>
      <section className="panel">
        {setup ? <ChatWithCache setup={setup} /> : <output id="status" data-state={failure ? 'error' : 'idle'} data-error={failure ?? ''}>{failure ?? 'starting…'}</output>}
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

/** The chat, its results read from the page's cache by reference (`mcp-result-cache/react`). */
function ChatWithCache({ setup }) {
  const chatId = useMemo(() => `chat-${Date.now().toString(36)}`, []);
  return (
    <ResultCacheProvider cache={cache} convId={chatId}>
      <Chat setup={setup} chatId={chatId} />
    </ResultCacheProvider>
  );
}

/**
 * The chat: `useChat` over a transport to the agent (in a real app, `DefaultChatTransport` to a
 * route handler running `streamText` with the same declared tools). The tools run here, in the
 * page: `onToolCall` executes the wrapped tool and `addToolOutput` hands the model its output.
 */
/** Runs a tool call in the page and hands its output (or its error) back to the chat. */
async function runPageTool(setup, toolCall, addToolOutput) {
  // The agent runs these itself, after the user's approval.
  if (AGENT_TOOLS.has(toolCall.toolName)) return;
  const tool = setup.tools[toolCall.toolName];
  try {
    const output = await tool.execute(toolCall.input, { toolCallId: toolCall.toolCallId, messages: [], context: {} });
    addToolOutput({ tool: toolCall.toolName, toolCallId: toolCall.toolCallId, output });
  } catch (e) {
    addToolOutput({ state: 'output-error', tool: toolCall.toolName, toolCallId: toolCall.toolCallId, errorText: String(e?.message ?? e) });
  }
}

function Chat({ setup, chatId }) {
  const [{ transport, calls }] = useState(() => localTransport(setup));
  activeChat = chatId;
  const { messages, sendMessage, addToolOutput, addToolApprovalResponse, status, error } = useChat({
    id: chatId,
    transport,
    sendAutomaticallyWhen: continueWhen,
    onToolCall: ({ toolCall }) => runPageTool(setup, toolCall, addToolOutput),
  });

  const parts = messages.flatMap((m) => m.parts.map((part) => ({ role: m.role, part })));
  const toolParts = parts.filter(({ part }) => isToolPart(part)).map(({ part }) => part);
  const answered = status === 'ready' && messages.at(-1)?.role === 'assistant' && messages.at(-1).parts.at(-1)?.type === 'text';
  const result = (() => {
    if (error) return { state: 'error', error: String(error.message ?? error) };
    if (!answered) return { state: messages.length ? 'running' : 'idle' };
    const [data, chart] = toolParts.filter((p) => toolName(p) !== 'send_report');
    const chartOutput = chart?.state === 'output-available' ? JSON.parse(outputText(chart.output)) : null;
    if (!chartOutput?.ok) return { state: 'error', error: messages.at(-1).parts.at(-1).text };
    const typed = calls.find((c) => c.name === 'chart.create');
    const received = setup.received.at(-1);
    return {
      state: 'done',
      uri: referencesOf(data.output)[0],
      // The reference the model passed to chart.create: the rows the chart was drawn from.
      rowsUri: typeof chart.input?.data_uri === 'string' ? chart.input.data_uri : null,
      points: chartOutput.points,
      values: chartOutput.values,
      // What the model typed, and what the chart server itself received: `data`, never the reference.
      modelArgs: JSON.stringify({ name: typed.name, arguments: JSON.parse(typed.input) }),
      dispatchedKeys: received ? Object.keys(received).join(',') : '',
      receivedPoints: received?.data?.length ?? 0,
      // `storage` is a synchronous getter: fine here, the tool calls above loaded the wasm.
      storage: cache.storage,
    };
  })();

  // The mailing turn: what the user was asked, and what the mailer itself received.
  const mailPart = toolParts.findLast((p) => toolName(p) === 'send_report');
  const mailing = (() => {
    if (!mailPart) return { state: 'idle' };
    if (mailPart.state === 'approval-requested') return { state: 'approval' };
    if (!answered) return { state: 'running' };
    return {
      state: 'done',
      answer: mailPart.state === 'output-available' ? 'allowed' : mailPart.state === 'output-denied' ? 'denied' : mailPart.state,
      calls: setup.mailed.length,
      rows: setup.mailed.at(-1)?.rows?.length ?? 0,
    };
  })();

  return (
    <>
      <ol className="messages">
        {parts.map(({ role, part }, i) =>
          part.type === 'text' ? (
            <li key={i} className={`msg ${role}`}>
              <span className="who">{role}</span>
              {part.text}
            </li>
          ) : isToolPart(part) ? (
            <li key={i} className="msg tool" data-tool={part.toolName ?? part.type.slice(5)} data-state={part.state}>
              <span className="who">{`tool · ${part.toolName ?? part.type.slice(5)} · ${part.state}`}</span>
              {`model typed: ${JSON.stringify(part.input)}\n`}
              {part.state === 'output-available' ? <ToolText output={part.output} /> : part.errorText ?? (part.state === 'output-denied' ? 'denied by the user' : '…')}
              {part.state === 'approval-requested' && (
                <span className="approval">
                  {`\nThe flow policy asks: send data passed by reference (${part.input?.rows_uri ?? 'a stored result'}) to ${toolName(part)}, an open-world tool of another server? `}
                  <button id="approve-allow" onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: true })}>Allow once</button>
                  <button id="approve-deny" onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: false, reason: 'The user did not allow it.' })}>Deny</button>
                </span>
              )}
            </li>
          ) : null,
        )}
      </ol>
      {result.values && <Sparkline values={result.values} />}
      {result.rowsUri && <ChartRows uri={result.rowsUri} />}
      {/* For tests: the rows the chart server itself received. */}
      <output id="chart-received" hidden>{JSON.stringify(setup.received.at(-1)?.data ?? null)}</output>
      <button id="clear" onClick={() => cache.clearConversation(chatId)} disabled={result.state !== 'done'}>clear this chat's stored results</button>
      <button id="send" onClick={() => sendMessage({ text: QUESTION })} disabled={status !== 'ready' || messages.length > 0}>
        {QUESTION}
      </button>
      <button id="mail" onClick={() => sendMessage({ text: MAIL })} disabled={status !== 'ready' || result.state !== 'done' || mailing.state === 'approval'}>
        {MAIL}
      </button>
      <output
        id="mail-status"
        data-state={mailing.state}
        data-answer={mailing.answer ?? ''}
        data-mailer-calls={mailing.calls ?? ''}
        data-mailer-rows={mailing.rows ?? ''}
      >
        {mailing.state === 'done'
          ? `mailer: ${mailing.answer}; it has received ${mailing.calls} call(s)${mailing.calls ? `, the last with ${mailing.rows} rows` : ''}`
          : `mailer: ${mailing.state}`}
      </output>
      <output
        id="status"
        data-state={result.state}
        data-chat-id={chatId}
        data-uri={result.uri ?? ''}
        data-points={result.points ?? ''}
        data-received-points={result.receivedPoints ?? ''}
        data-model-args={result.modelArgs ?? ''}
        data-dispatched-keys={result.dispatchedKeys ?? ''}
        data-storage={result.storage ?? ''}
        data-error={result.error ?? ''}
      >
        {result.state === 'done'
          ? `chart.create received ${result.receivedPoints} rows; the model typed ${result.modelArgs.length} characters (${result.uri})`
          : result.state === 'error'
            ? `error: ${result.error}`
            : result.state}
      </output>
    </>
  );
}
