// The demo: one assistant turn against real MCP servers (scripts/mcp-servers.mjs, on
// Streamable HTTP under /mcp/…), reached with the official MCP SDK `Client` and wrapped with
// this package's `wrapMcpClient`, exactly as a chat host would. Only the model is scripted: it
// reads the text each tool result gives it and writes the next call, with no network. A second
// turn ("Mail the invoice") has the model try to move the invoice by reference into the
// mailer's open-world tool: the cache's flow policy ("guarded") asks the user in the page.
import * as browserEntry from '../pkg/browser.mjs';

// pkg/browser.mjs is a built bundle (not type-checked): its exports are typed by the entry's
// declarations.
const { ResultCache, cacheTools, ready, referencesOf, warmUp } =
  /** @type {typeof import('../js/index.js')} */ (/** @type {unknown} */ (browserEntry));
// www/vendor/mcp-sdk.js is the bundle of ./mcp-sdk.src.mjs that scripts/serve.mjs builds on
// first request (git-ignored): imported by a specifier tsc does not resolve (a string-typed
// expression, not a literal), so that the type check neither needs the generated file nor
// checks it, and typed as the module it is built from.
const { Client, ResourceUpdatedNotificationSchema, StreamableHTTPClientTransport, wrapMcpClient } =
  /** @type {typeof import('./mcp-sdk.src.mjs')} */ (await import(/** @type {string} */ ('./vendor/mcp-sdk.js')));

/** @typedef {import('../js/index.js').CacheEvent} CacheEvent */
/** @typedef {import('../js/index.js').Flow} Flow */
/** @typedef {import('@modelcontextprotocol/sdk/client/index.js').Client} McpClient */
/** @typedef {import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport} McpTransport */
/**
 * A tool result as the page reads it: an MCP `CallToolResult` (the wrapped clients and the
 * read-back tools both answer one).
 * @typedef {import('@modelcontextprotocol/sdk/types.js').CallToolResult} ToolResult
 */
/**
 * A tool as the page lists it (an MCP `tools/list` entry, a server's or a read-back tool).
 * @typedef {{ name: string, description?: string, inputSchema: { properties?: Record<string, object> } }} ListedTool
 */
/**
 * The chart spec chart.create answers (as data: each field is checked where it is drawn).
 * @typedef {{ title?: unknown, scaled?: unknown, id?: unknown, y?: { min?: unknown, max?: unknown } }} ChartSpec
 */

const DB_NAME = 'mcp-result-cache-demo';
const SERVERS = ['data', 'chart', 'billing', 'mailer'];
const fast = new URLSearchParams(location.search).has('fast');
/** The page's element of this id (every one the page names is in index.html). */
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @type {(ms: number) => Promise<unknown>} */
const pause = (ms) => (fast ? Promise.resolve() : new Promise((r) => setTimeout(r, ms)));

// ---------------------------------------------------------------- rendering
// Tool results and model output are untrusted: they only ever reach the page as text
// (textContent, attributes set one by one), never through HTML parsing.

/**
 * An element with a class and text content.
 * @param {string} tag @param {string} [className] @param {string} [text]
 */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * A transcript step: who, what, and a body shown as text (objects as one line of JSON).
 * @param {string} kind @param {string} who @param {string} what @param {unknown} [body]
 */
function step(kind, who, what, body) {
  const li = el('li', `step ${kind}`);
  const head = el('div', 'head');
  head.append(el('span', 'who', who), el('span', 'what', what));
  li.append(head);
  if (body !== undefined) li.append(el('pre', '', typeof body === 'string' ? body : JSON.stringify(body)));
  $('steps').append(li);
  return li;
}

/**
 * A one-line host step: what the cache did, and the reference it concerns.
 * @param {string} kind @param {string} what @param {string} [uri]
 */
function note(kind, what, uri) {
  const li = el('li', `step ${kind} note`);
  const head = el('div', 'head');
  head.append(el('span', 'who', 'host'), el('span', 'what', what));
  if (uri) head.append(el('code', 'uri', uri));
  li.append(head);
  $('steps').append(li);
  return li;
}

const SVG = 'http://www.w3.org/2000/svg';
/**
 * An SVG element with its attributes (and text, as text).
 * @param {string} tag @param {Record<string, string | number>} attributes @param {string} [text]
 */
function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Draws the chart spec chart.create answered: `scaled` values (0…1000) and their range.
 * @param {ChartSpec} spec
 */
function drawChart(spec) {
  const w = 560, h = 200, pad = 28;
  const label = String(spec.title ?? 'untitled');
  const values = Array.isArray(spec.scaled) ? spec.scaled.map(Number) : [];
  const x = (/** @type {number} */ i) => pad + (i * (w - 2 * pad)) / Math.max(1, values.length - 1);
  const y = (/** @type {number} */ v) => h - pad - (v * (h - 2 * pad)) / 1000;
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const chart = svg('svg', { viewBox: `0 0 ${w} ${h}`, role: 'img', 'aria-label': label, 'data-points': values.length,
    'data-chart-id': String(spec.id ?? '') });
  chart.append(
    svg('rect', { x: 0, y: 0, width: w, height: h, fill: '#fbfcfe' }),
    svg('line', { x1: pad, y1: h - pad, x2: w - pad, y2: h - pad, stroke: '#c5ccd8' }),
    svg('line', { x1: pad, y1: pad, x2: pad, y2: h - pad, stroke: '#c5ccd8' }),
    svg('text', { class: 'title', x: pad, y: 16, 'font-size': 12, fill: '#3b4454' }, `${label} — ${values.length} points`),
    svg('text', { x: 4, y: pad + 4, 'font-size': 10, fill: '#6b7384' }, String(spec.y?.max ?? '')),
    svg('text', { x: 4, y: h - pad, 'font-size': 10, fill: '#6b7384' }, String(spec.y?.min ?? '')),
    svg('polyline', { fill: 'none', stroke: '#4a6fd1', 'stroke-width': 1.6, points }),
  );
  $('chart').replaceChildren(chart);
}

/** @param {number} ms */
function age(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
}

// ---------------------------------------------------------------- the host
/** Cache events of the call in flight, shown as the host's steps. @type {CacheEvent[]} */
let events = [];
// `view: "preview"`: the model sees a stored result's shape, first rows and reference, and reads
// more with the read-back tools (`readTools`: the hints name them).
// `flows: "guarded"`: a reference's data reaches its own server, or a tool that declares
// `openWorldHint: false` (chart.create); anything else asks the user first (`approve`).
/** @type {import('../js/index.js').ResultCacheOptions} */
const CACHE_OPTIONS = { dbName: DB_NAME, reuseImmutable: true, view: 'preview', readTools: true, flows: 'guarded' };
const cache = new ResultCache({ ...CACHE_OPTIONS, onEvent: (e) => events.push(e) });
// At startup, while the servers connect: the module compiled, the database opened and written
// once without change, the pipeline run once in a scratch cache, so the first tool result pays
// for none of it (docs/HOSTS.md, *At startup*). A module that fails to load is reported by the
// calls that need it.
const started = ready().then(() => cache.stats()).then(() => warmUp(CACHE_OPTIONS)).catch(() => {});
let convId = '';

async function renderEntries() {
  const entries = await cache.entries();
  const tbody = /** @type {HTMLTableSectionElement} */ ($('entries').querySelector('tbody'));
  tbody.replaceChildren(...entries.map((e) => {
    const tr = document.createElement('tr');
    if (e.staleCause) tr.className = 'stale';
    for (const [cls, text] of [['uri', e.uri], ['tool', e.sourceToolName], ['size', `${(e.sizeBytes / 1024).toFixed(1)} KB`],
      ['', age(Date.now() - e.addedAt)], ['', e.staleCause ?? '—']]) {
      tr.append(el('td', cls, text));
    }
    return tr;
  }));
  $('entries').dataset.count = String(entries.length);
  $('entries').dataset.stale = String(entries.filter((e) => e.staleCause).length);
  return entries;
}

/**
 * Stale notifications that reached this page over a server's stream (see `connected`).
 * @type {({ server: string } & import('@modelcontextprotocol/sdk/types.js').ResourceUpdatedNotification)[]}
 */
const notifications = [];
/** @type {(value?: unknown) => void} */
let notified = () => {};

/** tool name -> the wrapped client of the server that lists it; the tools the model is shown,
 *  each with the parameters its server declares itself. */
/** @type {Map<string, McpClient | ReturnType<typeof cacheTools>>} */
const route = new Map();
/** @type {{ server: string, tool: ListedTool, declared: string[] }[]} */
const tools = [];

/**
 * The `fetch` of one server's transport. After initialize the SDK opens a standalone SSE stream
 * (a GET) for whatever the server may send unasked; a server that offers none answers 405, which
 * the SDK takes as "no stream" but the browser logs as a failed request (a console error). The
 * only message this page takes unasked is notifications/resources/updated, which a server sends
 * only when it declares `resources.subscribe` (the billing server): for any other server the GET
 * is answered here with that same 405, and never made. A browser also keeps few connections per
 * origin, and each open stream would hold one.
 * @param {McpClient} client
 * @returns {import('@modelcontextprotocol/sdk/shared/transport.js').FetchLike}
 */
function transportFetch(client) {
  return (url, init) => (init?.method === 'GET' && !client.getServerCapabilities()?.resources?.subscribe
    ? Promise.resolve(new Response(null, { status: 405, statusText: 'Method Not Allowed' }))
    : fetch(url, init));
}

/** Connects to the three servers over Streamable HTTP and lists their tools, once. */
const connected = (async () => {
  /** @type {{ name: string, client: McpClient, transport: McpTransport }[]} */
  const clients = [];
  for (const name of SERVERS) {
    const client = new Client({ name: 'mcp-result-cache-demo', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`/mcp/${name}`, location.origin),
      { fetch: transportFetch(client) });
    await client.connect(transport);
    const wrapped = wrapMcpClient(client, { cache, convId: () => convId, approve });
    // Runs after the wrapper has handed the notification to cache.handleNotification.
    wrapped.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      notifications.push({ server: name, ...n });
      const marked = events.filter((e) => e.kind === 'invalidate');
      events = events.filter((e) => e.kind !== 'invalidate');
      const count = marked.reduce((sum, e) => sum + e.count, 0);
      step('server notice', `${name} server → host`,
        `on its Streamable HTTP stream; cache.handleNotification marked ${nEntries(count)} stale${count ? '' : ' (the tag had already)'}:`, n);
      notified();
    });
    /** @type {Map<string, string[]>} */
    const own = new Map((await client.listTools()).tools.map((t) => [t.name, Object.keys(t.inputSchema?.properties ?? {})]));
    for (const tool of (await wrapped.listTools()).tools) {
      route.set(tool.name, wrapped);
      tools.push({ server: name, tool, declared: own.get(tool.name) ?? [] });
    }
    clients.push({ name, client, transport });
  }
  // The read-back tools, listed and routed like one more server's.
  const readBack = cacheTools(cache, { convId: () => convId });
  for (const tool of (await readBack.listTools()).tools) {
    route.set(tool.name, readBack);
    tools.push({ server: 'host, read-back', tool, declared: Object.keys(tool.inputSchema.properties) });
  }
  addEventListener('pagehide', () => clients.forEach(({ client }) => client.close()));
  $('servers').textContent = clients.map(({ name, client, transport }) =>
    `${name}: ${client.getServerVersion()?.name} on /mcp/${name} (session ${transport.sessionId?.slice(0, 8)}…)`).join('\n');
  $('servers').dataset.sessions = clients.map(({ transport }) => transport.sessionId).join(',');
  renderTools();
  return clients;
})();

function renderTools() {
  $('tools').replaceChildren(...tools.map(({ server, tool, declared }) => {
    const li = el('li');
    li.dataset.tool = tool.name;
    const params = Object.keys(tool.inputSchema?.properties ?? {});
    const list = el('span', 'params');
    params.forEach((p, i) => {
      if (i) list.append(', ');
      list.append(el('code', declared.includes(p) ? '' : 'augmented', p));
    });
    li.append(el('code', '', tool.name), el('span', 'muted', ` (${server})`), '(', list, ') — ',
      el('span', '', tool.description ?? ''));
    return li;
  }));
}

/**
 * What a tool result gives the model: its JSON (the last text block), or the text itself.
 * @param {ToolResult} result
 */
function modelView(result) {
  const text = (result?.content ?? []).filter((b) => b.type === 'text').map((b) => b.text);
  let value = null;
  try {
    value = JSON.parse(/** @type {string} */ (text.at(-1))); // none: a SyntaxError, caught
  } catch { /* not JSON */ }
  return { text: text.join('\n'), value, isError: result?.isError === true };
}

function showEvents() {
  const reused = events.some((e) => e.kind === 'reuse');
  for (const e of events) {
    if (e.kind === 'write') note('host', `afterToolCall stored the result in IndexedDB (${(e.sizeBytes / 1024).toFixed(1)} KB):`, e.uri);
    else if (e.kind === 'hit' && !reused) note('host', 'beforeToolCall resolved the reference from IndexedDB; the server gets the data itself:', e.uri);
    else if (e.kind === 'reuse') note('host', 'identical call to an immutable tool: answered from the cache, server not called:', e.uri);
    else if (e.kind === 'invalidate') note('host', `the result's invalidation tag: ${nEntries(e.count)} marked stale (${e.patterns.join(', ')})`);
    else if (e.kind === 'stale') note('host blocked', `stale reference (invalidated by ${e.cause}): the call is refused:`, e.uri);
    else if (e.kind === 'miss') note('host blocked', 'unknown reference: the call is refused:', e.uri);
    else if (e.kind === 'blocked' && 'from' in e) {
      note('host blocked', `flow policy: data of ${e.from ?? 'an unnamed server'} may not reach ${e.to ?? 'an unnamed server'}; ${e.toolName} is not called:`, e.uris[0]);
    }
  }
  events = [];
}

const nEntries = (/** @type {number} */ n) => `${n} entr${n === 1 ? 'y' : 'ies'}`;

/**
 * One tool call through the wrapped clients (exported for the end-to-end test).
 * @param {string} name @param {Record<string, unknown>} args @param {string} [what]
 */
export async function callTool(name, args, what = `${name}, as the model emits it`) {
  await Promise.all([connected, started]);
  const client = route.get(name);
  if (!client) throw new Error(`no server lists ${name}`);
  step('assistant', 'assistant (scripted) → tool call', what, { name, arguments: args }).dataset.call = name;
  events = [];
  // A `CallToolResult`: the SDK's type also allows the legacy `{ toolResult }` answer, which only
  // its CompatibilityCallToolResultSchema (not asked for here) yields.
  const result = /** @type {ToolResult} */ (await client.callTool({ name, arguments: args }));
  showEvents();
  const view = modelView(result);
  const li = step(view.isError ? 'host blocked' : 'server', view.isError ? 'host → model' : `${name} → model`,
    `${view.isError ? 'the tool was not called; the model is told why' : 'what the model sees'} (${view.text.length.toLocaleString()} chars):`,
    view.text);
  li.dataset.tool = name;
  if (view.isError) li.dataset.refused = 'true';
  // The host renders what the chart server answered (its spec, as data: never as markup).
  const spec = name === 'chart.create' && !view.isError ? result.structuredContent?.chart ?? view.value?.chart : null;
  if (spec) drawChart(/** @type {ChartSpec} */ (spec));
  await renderEntries();
  return { result, ...view };
}

/**
 * The flow policy asks (`approve` of `wrapMcpClient`): a step in the transcript naming the two
 * servers, the tool and the references, with Allow and Deny; resolves the user's answer. It
 * covers this one call.
 * @param {Flow} flow
 * @returns {Promise<boolean>}
 */
function approve(flow) {
  return new Promise((resolve) => {
    const li = step('host approval', 'host → user',
      `${flow.to ?? 'a server'}'s ${flow.toolName} would receive data from ${flow.from ?? 'an unnamed server'} (${flow.sourceToolName}), `
      + 'passed by reference. The tool is open-world: what it gets may leave this page. Send it?', flow.uris.join('\n'));
    li.id = 'approval';
    const buttons = el('div', 'buttons');
    const answer = (/** @type {boolean} */ allowed) => {
      li.dataset.answer = allowed ? 'allowed' : 'denied';
      buttons.replaceChildren(el('span', 'muted', allowed ? 'allowed once' : 'denied'));
      li.removeAttribute('id');
      $('status').dataset.state = 'running';
      resolve(allowed);
    };
    const allow = el('button', 'allow', 'Allow once');
    allow.id = 'approval-allow';
    allow.addEventListener('click', () => answer(true));
    const deny = el('button', 'deny', 'Deny');
    deny.id = 'approval-deny';
    deny.addEventListener('click', () => answer(false));
    buttons.append(allow, deny);
    li.append(buttons);
    $('status').dataset.state = 'approval';
    $('status').textContent = 'waiting for your answer…';
  });
}

/**
 * What a server last received for a tool (chart.create, send_report), as it reports it.
 * @param {string} server
 */
async function lastReceived(server) {
  const response = await fetch(`/mcp/${server}/last-call`, { cache: 'no-store' });
  return response.json();
}

/**
 * The second turn: the model is asked (or talked into it by text in a result) to mail the
 * invoice lines out, and passes them by reference: ~90 typed characters would move all 120
 * lines into the mailer. The flow policy asks first; the mailer's own log tells what it got.
 */
async function mailTurn() {
  $('status').dataset.state = 'running';
  $('status').textContent = 'running…';
  await connected;
  if (!convId) convId = `demo-${Date.now().toString(36)}`;
  step('user', 'user', 'Mail the lines of invoice INV-7 to reports@partner.example.');
  const invoice = await callTool('billing.get_invoice', { id: 'INV-7' });
  const before = await callsOfMailer();
  const mail = await callTool('send_report', { to: 'reports@partner.example', subject: 'INV-7 lines', lines_uri: invoice.value._cache_refs.lines },
    'send_report with lines_uri: the whole invoice in a few typed characters');
  const after = await callsOfMailer();
  const received = await lastReceived('mailer');
  const calls = (after.send_report ?? 0) - (before.send_report ?? 0);
  const log = step('server', 'mailer server', 'its own log of this session (GET /mcp/mailer/calls, /mcp/mailer/last-call):', {
    send_report: calls,
    lines: calls ? `${received?.arguments?.lines?.length} lines` : 'nothing received',
  });
  log.dataset.mailerCalls = String(calls);
  log.dataset.mailerLines = String(calls ? received?.arguments?.lines?.length ?? 0 : 0);
  const refused = mail.isError && mail.value?.error === 'reference_not_allowed';
  const ok = refused ? calls === 0 : calls === 1 && received?.arguments?.lines?.length === 120;
  step('assistant', 'assistant (scripted)', 'answers:', refused
    ? 'You did not allow sending the invoice lines to the mailer, so nothing was sent.'
    : `Sent: the ${received?.arguments?.lines?.length} lines of INV-7 went to reports@partner.example.`);
  $('status').dataset.state = ok ? 'done' : 'error';
  $('status').textContent = ok ? `done: mail ${refused ? 'refused, the mailer got nothing' : 'sent with your approval'}` : 'error: the mailer\'s log does not match the decision';
}

/** tools/call counts of the page's mailer session, by tool. */
async function callsOfMailer() {
  const session = /** @type {string} */ ($('servers').dataset.sessions).split(',')[SERVERS.indexOf('mailer')];
  return (await fetch(`/mcp/mailer/calls?session=${session}`, { cache: 'no-store' })).json();
}

/** What chart.create last received, as the chart server reports it. */
async function chartServerReceived() {
  const response = await fetch('/mcp/chart/last-call', { cache: 'no-store' });
  return response.json();
}

async function playTurn() {
  $('status').dataset.state = 'running';
  $('status').textContent = 'running…';
  $('steps').replaceChildren();
  $('chart').replaceChildren(el('p', 'muted', 'no chart yet'));
  await connected;
  convId = `demo-${Date.now().toString(36)}`;
  notifications.length = 0;

  step('user', 'user', 'Chart CPU for the 240 hours from Nov 1. Which hour peaked? Chart just the last 48 hours too. '
    + 'Then refund $10 on invoice INV-7 and render a report of its lines of 3 units or more.');
  await pause(300);
  const query = { metric: 'cpu', start: '2026-11-01T00:00:00Z', hours: 240 };
  const series = await callTool('timeseries.query', query);
  const seriesUri = series.value._cache_uri;
  localStorage.setItem('mcp-demo-last-series', seriesUri);
  await pause(400);

  // The model copies the ready reference to the rows from `_cache_refs` (~90 characters).
  const chartArgs = { title: 'CPU, 240 h', data_uri: series.value._cache_refs.rows };
  const chart = await callTool('chart.create', chartArgs, 'chart.create with data_uri copied from _cache_refs.rows');
  const spec = chart.value?.chart;
  const received = await chartServerReceived();
  const receivedKeys = Object.keys(received?.arguments ?? {});
  const info = step('server', 'chart server', 'what chart.create received over the wire (GET /mcp/chart/last-call):', {
    keys: receivedKeys,
    data: `${received?.arguments?.data?.length} rows`,
  });
  info.dataset.rows = String(received?.arguments?.data?.length ?? 0);
  info.dataset.keys = receivedKeys.join(',');
  const inline = JSON.stringify(received.arguments).length;
  const byRef = JSON.stringify(chartArgs).length;
  const saved = inline - byRef;
  $('savings').dataset.savedChars = String(saved);
  $('saved-chars').textContent = saved.toLocaleString();
  $('saved-tokens').textContent = Math.round(saved / 4).toLocaleString();
  $('saved-seconds').textContent = (saved / 4 / 50).toFixed(0);
  $('savings-detail').textContent =
    `chart.create arguments: ${inline.toLocaleString()} chars as the server received them vs ${byRef} chars the model typed (tokens ≈ chars / 4).`;
  await pause(400);

  // The preview showed the shape and first rows: the model reads the rest back, page by page,
  // instead of having the data re-sent or re-queried.
  const rowsUri = series.value._cache_refs.rows;
  /** @type {{ t: string, value: number }[]} */
  const seen = [];
  for (let offset = 0; offset !== undefined;) {
    const page = await callTool('cache_read', { uri: rowsUri, offset }, `cache_read of the stored rows from offset ${offset}`);
    seen.push(...page.value.items);
    offset = page.value.next_offset;
  }
  const peak = seen.reduce((best, row) => (row.value > best.value ? row : best));
  const found = await callTool('cache_search', { uri: rowsUri, query: String(peak.value) }, `cache_search for the peak value ${peak.value}`);
  const peakHours = found.value.matches.filter((/** @type {{ pointer: string }} */ m) => m.pointer.endsWith('/value'))
    .map((/** @type {{ pointer: string }} */ m) => seen[Number(m.pointer.split('/')[2])].t);
  const lastDay = await callTool('cache_select', { uri: rowsUri, where: [{ field: 't', op: '>=', value: seen[seen.length - 48].t }] },
    'cache_select of the last 48 hours, stored as a derived reference');
  await callTool('chart.create', { title: 'CPU, last 48 h', data_uri: lastDay.value._cache_uri }, 'chart.create with the derived reference');
  const received48 = await chartServerReceived();
  const info48 = step('server', 'chart server', 'what chart.create received for the last 48 hours:', {
    keys: Object.keys(received48?.arguments ?? {}),
    data: `${received48?.arguments?.data?.length} rows`,
  });
  info48.dataset.rows48 = String(received48?.arguments?.data?.length ?? 0);
  await pause(400);

  const invoice = await callTool('billing.get_invoice', { id: 'INV-7' });
  // The report wants the lines of 3 units or more: selected inside the cache, by reference.
  const bigLines = (/** @type {string} */ uri) => callTool('cache_select', { uri, where: [{ field: 'qty', op: '>=', value: 3 }] },
    'cache_select of the lines of 3 units or more');
  const linesUri = (await bigLines(invoice.value._cache_refs.lines)).value._cache_uri;
  await pause(300);
  const notice = new Promise((resolve) => {
    notified = resolve;
    setTimeout(resolve, 5_000); // bounded: the outcome check below tells whether it came
  });
  await callTool('billing.refund', { invoice: 'INV-7', cents: 1000 });
  await notice;
  await pause(300);
  const refused = await callTool('billing.render_report', { invoice: 'INV-7', lines_uri: linesUri },
    'billing.render_report with the lines selected before the refund (derived from the invoice, now stale)');
  const stale = refused.isError && Array.isArray(refused.value?._stale_uris);
  /** @type {HTMLElement} */ ($('steps').lastElementChild).dataset.stale = String(stale);
  await pause(300);
  // The envelope's fix_hint says to re-call billing.get_invoice: the scripted model does.
  const fresh = await callTool('billing.get_invoice', { id: 'INV-7' }, 'billing.get_invoice again, as the fix_hint says');
  const freshLines = (await bigLines(fresh.value._cache_refs.lines)).value._cache_uri;
  const report = await callTool('billing.render_report', { invoice: 'INV-7', lines_uri: freshLines },
    'billing.render_report with the lines selected from the fresh invoice');
  await pause(200);
  const again = await callTool('timeseries.query', query, 'the same query again');
  /** @type {HTMLElement} */ ($('steps').lastElementChild).dataset.reused = String(referencesOf(again.result)[0] === seriesUri);
  step('assistant', 'assistant (scripted)', 'answers:', `Here is CPU over 240 hours (${spec?.points} points); it peaked at `
    + `${peak.value} % (${peakHours.join(', ')}), and the last 48 hours are charted too. `
    + `I refunded $10 on INV-7; the report of its ${report.value?.lines} lines of 3+ units totals ${report.value?.total_cents} cents.`);

  const entries = await renderEntries();
  const outcome = {
    'chart server received 240 rows': received?.arguments?.data?.length === 240,
    'read back every row once': seen.length === 240 && new Set(seen.map((row) => row.t)).size === 240,
    'peak found by cache_search': peakHours.length > 0,
    'last 48 hours charted from the derived reference': received48?.arguments?.data?.length === 48
      && /** @type {SVGElement | null} */ (document.querySelector('#chart svg'))?.dataset.points === '48',
    'chart server received no _uri key': received !== null && !receivedKeys.some((k) => k.endsWith('_uri')),
    'stale reference refused': stale,
    'stale notification received': notifications.some((n) => n.params?.uri === 'mcpfusion://stale/billing.get_*'),
    'report rendered from the fresh reference': report.value?.ok === true,
    'the first invoice entry listed as stale': entries.some((e) => e.uri === referencesOf(invoice.result)[0] && e.staleCause),
  };
  const failed = Object.keys(outcome).filter((k) => !outcome[/** @type {keyof typeof outcome} */ (k)]);
  $('status').dataset.state = failed.length ? 'error' : 'done';
  $('status').textContent = failed.length ? `error: not ${failed.join('; not ')}` : 'done: by reference, then stale after the refund';
}

async function reloadCheck() {
  const entries = await renderEntries();
  const last = localStorage.getItem('mcp-demo-last-series');
  const check = $('reload-check');
  check.dataset.survived = String(entries.length);
  if (last && entries.length) {
    const data = /** @type {{ rows?: unknown[] } | null} */ (await cache.readCachedPayload(last));
    const verified = data?.rows?.length === 240;
    check.dataset.verified = String(verified);
    check.textContent = `${entries.length} entries were already in IndexedDB when this page loaded; `
      + `the previous series reference ${verified ? 'still resolves to 240 rows' : 'no longer resolves'}.`;
  } else {
    check.dataset.verified = 'false';
    check.textContent = 'Fresh database: reload the page to see the entries survive.';
  }
}

$('db-name').textContent = `(${DB_NAME})`;
$('play').addEventListener('click', () => playTurn().catch(fail));
$('mail').addEventListener('click', () => mailTurn().catch(fail));
$('reload').addEventListener('click', () => location.reload());
$('clear').addEventListener('click', async () => {
  for (const e of await cache.entries()) await cache.clearConversation(e.convId);
  localStorage.removeItem('mcp-demo-last-series');
  await reloadCheck();
});

/** @param {Error} error */
function fail(error) {
  $('status').dataset.state = 'error';
  $('status').textContent = `error: ${error.name}: ${error.message}`;
  console.error(error);
}

reloadCheck().then(playTurn).catch(fail);
