// The demo: one scripted assistant turn against in-page mock MCP servers, driven through the
// package exactly as a chat host would use it (beforeToolCall / afterToolCall around dispatch).
import { ResultCache, StateSync, ready } from '../js/browser.mjs';

const DB_NAME = 'mcp-result-cache-demo';
const fast = new URLSearchParams(location.search).has('fast');
const $ = (id) => document.getElementById(id);
const pause = (ms) => (fast ? Promise.resolve() : new Promise((r) => setTimeout(r, ms)));
const json = (v) => JSON.stringify(v, null, 2);
/** A JSON text block pretty-printed; any other text as is. */
const pretty = (text) => {
  try { return json(JSON.parse(text)); } catch { return text; }
};

// ---------------------------------------------------------------- mock MCP servers (in-page)
const billingSync = await (async () => {
  await ready();
  return new StateSync({
    policies: [
      { match: 'billing.refund', invalidates: ['billing.get_*'] },
      { match: 'billing.get_*', cacheControl: 'no-store' },
      { match: 'timeseries.*', cacheControl: 'immutable' },
    ],
  });
})();

const TOOLS = [
  { name: 'timeseries.query', description: 'Hourly metric values.' },
  { name: 'chart.create', description: 'Draw a line chart. Pass rows in `data`, or `data_uri` with the `_cache_uri` of an earlier result.' },
  { name: 'billing.get_invoice', description: 'Read an invoice with its lines.' },
  { name: 'billing.refund', description: 'Refund part of an invoice.' },
  { name: 'report.render', description: 'Render a report from `data` / `data_uri`.' },
];

const servers = {
  'timeseries.query'({ metric, hours }) {
    const start = Date.UTC(2026, 10, 1);
    const rows = Array.from({ length: hours }, (_, i) => ({
      t: new Date(start + i * 3_600_000).toISOString(),
      value: Math.round(55 + 25 * Math.sin(i / 9) + 12 * Math.sin(i / 2.7) + (i % 5)),
    }));
    return { content: [{ type: 'text', text: `${rows.length} rows of ${metric}` }],
      structuredContent: { ok: true, metric, rows: rows.length, columns: ['t', 'value'], data: rows } };
  },
  'chart.create'({ data, title }) {
    const rows = Array.isArray(data) ? data : data?.data;
    if (!Array.isArray(rows)) return { isError: true, content: [{ type: 'text', text: 'no data' }] };
    drawChart(rows, title);
    return { content: [{ type: 'text', text: JSON.stringify({ ok: true, points: rows.length }) }] };
  },
  'billing.get_invoice'({ id }) {
    const lines = Array.from({ length: 120 }, (_, i) => ({ sku: `SKU-${1000 + i}`, qty: (i % 4) + 1, cents: 1250 + 37 * i }));
    return { content: [{ type: 'text', text: JSON.stringify({ ok: true, invoice: id, status: 'paid', lines }) }] };
  },
  'billing.refund'({ invoice, cents }) {
    const raw = { content: [{ type: 'text', text: JSON.stringify({ ok: true, invoice, refunded_cents: cents }) }] };
    return billingSync.decorateResult('billing.refund', raw); // server-side State Sync
  },
  'report.render'({ data }) {
    return { content: [{ type: 'text', text: JSON.stringify({ ok: true, lines: data?.lines?.length ?? 0 }) }] };
  },
};

// ---------------------------------------------------------------- rendering
// Tool results and model output are untrusted: they only ever reach the page as text
// (textContent, attributes set one by one), never through HTML parsing.

/** An element with a class and text content. */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function step(kind, who, what, body) {
  const li = el('li', `step ${kind}`);
  li.append(el('div', 'who', who), el('div', 'what', what));
  if (body !== undefined) li.append(el('pre', '', typeof body === 'string' ? body : json(body)));
  $('steps').append(li);
  return li;
}

const SVG = 'http://www.w3.org/2000/svg';
/** An SVG element with its attributes (and text, as text). */
function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Draws the rows as a line chart; `title` may come from a tool result, so it stays text. */
function drawChart(rows, title) {
  const w = 560, h = 200, pad = 28;
  const label = String(title ?? 'untitled');
  const values = rows.map((r) => r.value);
  const min = Math.min(...values), max = Math.max(...values);
  const x = (i) => pad + (i * (w - 2 * pad)) / Math.max(1, rows.length - 1);
  const y = (v) => h - pad - ((v - min) * (h - 2 * pad)) / Math.max(1, max - min);
  const points = rows.map((r, i) => `${x(i).toFixed(1)},${y(r.value).toFixed(1)}`).join(' ');
  const chart = svg('svg', { viewBox: `0 0 ${w} ${h}`, role: 'img', 'aria-label': label, 'data-points': rows.length });
  chart.append(
    svg('rect', { x: 0, y: 0, width: w, height: h, fill: '#fbfcfe' }),
    svg('line', { x1: pad, y1: h - pad, x2: w - pad, y2: h - pad, stroke: '#c5ccd8' }),
    svg('line', { x1: pad, y1: pad, x2: pad, y2: h - pad, stroke: '#c5ccd8' }),
    svg('text', { class: 'title', x: pad, y: 16, 'font-size': 12, fill: '#3b4454' }, `${label} — ${rows.length} points`),
    svg('text', { x: 4, y: pad + 4, 'font-size': 10, fill: '#6b7384' }, String(max)),
    svg('text', { x: 4, y: h - pad, 'font-size': 10, fill: '#6b7384' }, String(min)),
    svg('polyline', { fill: 'none', stroke: '#4a6fd1', 'stroke-width': 1.6, points }),
  );
  $('chart').replaceChildren(chart);
}

const cache = new ResultCache({ dbName: DB_NAME, reuseImmutable: true });

function age(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
}

async function renderEntries() {
  const entries = await cache.entries();
  const tbody = $('entries').querySelector('tbody');
  tbody.replaceChildren(...entries.map((e) => {
    const tr = document.createElement('tr');
    if (e.staleCause) tr.className = 'stale';
    for (const [cls, text] of [['uri', e.uri], ['', e.sourceToolName], ['', `${(e.sizeBytes / 1024).toFixed(1)} KB`],
      ['', age(Date.now() - e.addedAt)], ['', e.staleCause ?? '—']]) {
      tr.append(el('td', cls, text));
    }
    return tr;
  }));
  $('entries').dataset.count = String(entries.length);
  $('entries').dataset.stale = String(entries.filter((e) => e.staleCause).length);
  return entries;
}

// ---------------------------------------------------------------- the host's dispatch loop
let convId = '';
/** One tool call through the host's dispatch loop (exported for the end-to-end test). */
export async function callTool(name, args) {
  step('assistant', 'assistant → tool call', `${name}(…) as the model emits it`, { name, arguments: args });
  const before = await cache.beforeToolCall(name, args, { convId, maxChars: 3000 });
  if (!before.dispatch) {
    if (before.reused) {
      step('host', 'host', 'answered from the cache (identical call to an immutable tool)', before.reused);
      return before.reused;
    }
    step('host blocked', 'host → model (tool NOT called)', 'beforeToolCall blocked the call', before.envelope);
    return before.envelope;
  }
  if (before.args !== args) {
    const shown = Object.fromEntries(Object.entries(before.args).map(([k, v]) => [k,
      v && typeof v === 'object' ? `[resolved from the cache: ${JSON.stringify(v).length.toLocaleString()} chars]` : v]));
    step('host', 'host', 'beforeToolCall resolved the reference; the tool receives', shown);
  }
  const raw = await servers[name](before.args);
  const visible = await cache.afterToolCall(name, raw, { convId, maxChars: 3000 });
  const text = visible.content?.map((c) => c.text).join('\n') ?? JSON.stringify(visible);
  step('server', `${name} → model`, `what the model sees (${text.length.toLocaleString()} chars)`,
    visible.structuredContent ?? (visible.content ? visible.content.map((c) => pretty(c.text)).join('\n') : visible));
  await renderEntries();
  return visible;
}

async function playTurn() {
  $('status').dataset.state = 'running';
  $('status').textContent = 'running…';
  $('steps').replaceChildren();
  convId = `demo-${Date.now().toString(36)}`;
  const tools = billingSync.decorateTools(TOOLS);
  cache.observeTools(tools);
  $('tools').replaceChildren(...tools.map((t) => {
    const li = el('li');
    li.append(el('code', '', t.name), ' — ', el('span', '', t.description));
    return li;
  }));

  step('user', 'user', 'Chart the last 240 hours of CPU, then refund $10 on invoice INV-7 and re-render its report.');
  await pause(300);
  const series = await callTool('timeseries.query', { metric: 'cpu', hours: 240 });
  const seriesUri = series.structuredContent._cache_uri;
  localStorage.setItem('mcp-demo-last-series', seriesUri);
  await pause(400);

  const chartArgs = { data_uri: seriesUri, title: 'CPU, last 240 h' };
  await callTool('chart.create', chartArgs);
  const rows = (await cache.readCachedPayload(seriesUri)).data;
  const inline = JSON.stringify({ data: rows, title: chartArgs.title }).length;
  const byRef = JSON.stringify(chartArgs).length;
  const saved = inline - byRef;
  $('savings').dataset.savedChars = String(saved);
  $('saved-chars').textContent = saved.toLocaleString();
  $('saved-tokens').textContent = Math.round(saved / 4).toLocaleString();
  $('saved-seconds').textContent = (saved / 4 / 50).toFixed(0);
  $('savings-detail').textContent =
    `chart.create arguments: ${inline.toLocaleString()} chars inline vs ${byRef} chars by reference (tokens ≈ chars / 4).`;
  await pause(400);

  const invoice = await callTool('billing.get_invoice', { id: 'INV-7' });
  const invoiceUri = JSON.parse(invoice.content.at(-1).text)._cache_uri;
  await pause(300);
  await callTool('billing.refund', { invoice: 'INV-7', cents: 1000 });
  await pause(300);
  const refused = await callTool('report.render', { data_uri: invoiceUri });
  $('steps').lastElementChild.dataset.stale = refused._stale_uris ? 'true' : 'false';
  await pause(200);
  const again = await callTool('timeseries.query', { metric: 'cpu', hours: 240 });
  $('steps').lastElementChild.dataset.reused = String((again.structuredContent ?? again)._cache_uri === seriesUri);

  const entries = await renderEntries();
  const ok = document.querySelector('#chart svg')?.dataset.points === '240' && refused._stale_uris?.length === 1
    && entries.some((e) => e.staleCause === 'billing.refund');
  $('status').dataset.state = ok ? 'done' : 'error';
  $('status').textContent = ok ? 'done: by reference, then stale after the refund' : 'error: unexpected outcome';
}

async function reloadCheck() {
  const entries = await renderEntries();
  const last = localStorage.getItem('mcp-demo-last-series');
  const check = $('reload-check');
  check.dataset.survived = String(entries.length);
  if (last && entries.length) {
    const data = await cache.readCachedPayload(last);
    const verified = data?.data?.length === 240;
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
$('reload').addEventListener('click', () => location.reload());
$('clear').addEventListener('click', async () => {
  for (const e of await cache.entries()) await cache.clearConversation(e.convId);
  localStorage.removeItem('mcp-demo-last-series');
  await reloadCheck();
});

function fail(error) {
  $('status').dataset.state = 'error';
  $('status').textContent = `error: ${error.name}: ${error.message}`;
  console.error(error);
}

reloadCheck().then(playTurn).catch(fail);
