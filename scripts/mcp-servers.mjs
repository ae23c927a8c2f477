// The demo's MCP servers: four real MCP servers built with the official TypeScript SDK
// (`McpServer`), each on Streamable HTTP (`StreamableHTTPServerTransport`), mounted by
// scripts/serve.mjs in the same Node process as the static files:
//
//   /mcp/data     timeseries.query → 240 hourly rows (immutable: a fixed historical window)
//   /mcp/chart    chart.create({data, title?}) → a chart spec the page draws. It declares only
//                 `data`, never `data_uri`: the host's augmentation adds the reference parameter.
//   /mcp/billing  billing.get_invoice, billing.refund, billing.render_report, decorated with this
//                 package's server-side StateSync: after a refund the result carries the
//                 <cache_invalidation …/> tag, and every session receives the stale notification
//                 (notifications/resources/updated, mcpfusion://stale/billing.get_*): the
//                 refunding one on the call's own stream, before the result; others on their
//                 standalone stream.
//   /mcp/mailer   send_report({to, subject, lines}) → "sent": an open-world tool (it reaches
//                 anyone), the target the page's flow policy ("guarded") asks the user about.
//                 chart.create declares `openWorldHint: false` (it only draws for the host).
//
//   GET /mcp/chart/last-call   what chart.create last received, exactly as it came over the wire;
//   GET /mcp/mailer/last-call  what send_report last received (null: never called);
//   GET /mcp/<server>/calls?session=<id>   how many times each tool was called in that session
//                              (diagnostics for the end-to-end test and the demo page).
//
// Only loopback requests are served: the Host header must name the server's own 127.0.0.1 /
// localhost address and a browser Origin, when sent, must be that same origin (no DNS
// rebinding, no cross-origin page driving the servers). One transport and one McpServer per
// session (`mcp-session-id`), at most MAX_SESSIONS per server (the oldest is closed).
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { StateSync } from '../pkg/server.node.mjs';

const MAX_SESSIONS = 32;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** @typedef {import('node:http').IncomingMessage} Request @typedef {import('node:http').ServerResponse} Response */
/** @typedef {{ sessionId: string | undefined, receivedAt: string, arguments: unknown }} LastCall */
/** @typedef {{ method?: string, params?: { name?: unknown, arguments?: unknown } }} Message */
/** @typedef {InstanceType<typeof StateSync>} Sync */

const json = (/** @type {unknown} */ value) => [{ type: /** @type {const} */ ('text'), text: JSON.stringify(value) }];
/** A CallToolResult whose structured content is also its JSON text. */
const result = (/** @type {Record<string, unknown>} */ value) => ({ content: json(value), structuredContent: value });

/**
 * StateSync's decoration of one tool description (`… [Cache-Control: …]`).
 * @param {Sync} sync @param {string} name @param {string} description
 */
function describe(sync, name, description) {
  return sync.decorateTools([{ name, description, inputSchema: { type: 'object' } }])[0].description;
}

// ---------------------------------------------------------------- data
const dataSync = new StateSync({ policies: [{ match: 'timeseries.*', cacheControl: 'immutable' }] });

/**
 * Hourly values of a metric from `start` on: deterministic, so a repeated query is identical.
 * @param {string} _metric @param {string} start @param {number} hours
 */
export function timeseries(_metric, start, hours) {
  const from = Date.parse(start);
  return Array.from({ length: hours }, (_, i) => ({
    t: new Date(from + i * 3_600_000).toISOString(),
    value: Math.round(55 + 25 * Math.sin(i / 9) + 12 * Math.sin(i / 2.7) + (i % 5)),
  }));
}

function dataServer() {
  const server = new McpServer({ name: 'demo-data', version: '1.0.0' });
  server.registerTool('timeseries.query', {
    description: describe(dataSync, 'timeseries.query',
      'Hourly values of a metric over a closed historical window (`start`, `hours`). Returns `rows` of {t, value}.'),
    inputSchema: z.strictObject({
      metric: z.string().describe('Metric name, e.g. cpu'),
      start: z.iso.datetime().describe('Start of the window (ISO 8601, UTC)'),
      hours: z.number().int().min(1).max(24 * 31).describe('Length of the window in hours'),
    }),
  }, async ({ metric, start, hours }) => result({
    ok: true, metric, columns: ['t', 'value'], rows: timeseries(metric, start, hours),
  }));
  return server;
}

// ---------------------------------------------------------------- chart
/**
 * chart.create's spec: the values scaled to 0…1000 (what the page draws) and their range.
 * @param {string} id @param {string} title @param {{ t: string, value: number }[]} rows
 */
function chartSpec(id, title, rows) {
  const values = rows.map((r) => r.value);
  const min = Math.min(...values), max = Math.max(...values);
  return {
    id, type: 'line', title, points: rows.length,
    x: { field: 't', from: rows[0].t, to: rows[rows.length - 1].t },
    y: { field: 'value', min, max },
    scaled: values.map((v) => Math.round(((v - min) * 1000) / Math.max(1, max - min))),
  };
}

/** @param {{ charts: number }} state */
function chartServer(state) {
  const server = new McpServer({ name: 'demo-chart', version: '1.0.0' });
  server.registerTool('chart.create', {
    description: 'Draw a line chart of rows {t, value}. Returns the chart spec the host renders.',
    // A closed world: the spec goes back to the host that drew it, nowhere else.
    annotations: { openWorldHint: false },
    // Only `data`: this server knows nothing of references (additionalProperties: false).
    inputSchema: z.strictObject({
      title: z.string().max(500).optional().describe('Chart title'),
      data: z.array(z.strictObject({ t: z.string(), value: z.number() })).min(1).max(10_000)
        .describe('The rows to draw, oldest first'),
    }),
  }, async ({ title, data }) => {
    state.charts += 1;
    return result({ ok: true, chart: chartSpec(`chart-${state.charts}`, title ?? 'untitled', data) });
  });
  return server;
}

// ---------------------------------------------------------------- billing
const invoiceLines = () => Array.from({ length: 120 }, (_, i) => ({
  sku: `SKU-${1000 + i}`, qty: (i % 4) + 1, cents: 1250 + 37 * i,
}));

/**
 * @param {Sync} sync
 * @param {{ refunded: Record<string, number>, answering: { sessionId?: string, requestId: string | number } | null }} state
 */
function billingServer(sync, state) {
  // `resources.subscribe`: the server may send notifications/resources/updated (the SDK checks
  // the capability before sending). Stale notifications go to every session of this server;
  // subscribing is accepted and changes nothing.
  const server = new McpServer({ name: 'demo-billing', version: '1.0.0' },
    { capabilities: { resources: { subscribe: true } } });
  server.server.setRequestHandler(SubscribeRequestSchema, () => ({}));
  server.server.setRequestHandler(UnsubscribeRequestSchema, () => ({}));
  const invoice = (/** @type {string} */ id) => {
    const lines = invoiceLines();
    const total = lines.reduce((sum, l) => sum + l.qty * l.cents, 0);
    return { ok: true, invoice: id, status: state.refunded[id] ? 'partially_refunded' : 'paid',
      refunded_cents: state.refunded[id] ?? 0, total_cents: total, lines };
  };
  server.registerTool('billing.get_invoice', {
    description: describe(sync, 'billing.get_invoice', 'Read an invoice with its lines.'),
    inputSchema: z.strictObject({ id: z.string().describe('Invoice id, e.g. INV-7') }),
  }, async ({ id }) => result(invoice(id)));
  server.registerTool('billing.refund', {
    description: describe(sync, 'billing.refund', 'Refund part of an invoice.'),
    inputSchema: z.strictObject({ invoice: z.string(), cents: z.number().int().positive() }),
  }, async ({ invoice: id, cents }, extra) => {
    state.refunded[id] = (state.refunded[id] ?? 0) + cents;
    // Server-side State Sync: the tag at content[0], and the stale notification to the sink,
    // which StateSync calls synchronously from decorateResult (see createMcpServers).
    state.answering = { sessionId: extra.sessionId, requestId: extra.requestId };
    try {
      return /** @type {ReturnType<typeof result>} */ (sync.decorateResult('billing.refund', result({ ok: true, invoice: id, refunded_cents: cents })));
    } finally {
      state.answering = null;
    }
  });
  server.registerTool('billing.render_report', {
    description: describe(sync, 'billing.render_report', 'Render an invoice report from its `lines`.'),
    inputSchema: z.strictObject({
      invoice: z.string(),
      lines: z.array(z.strictObject({ sku: z.string(), qty: z.number(), cents: z.number() })).min(1).max(10_000),
    }),
  }, async ({ invoice: id, lines }) => result({
    ok: true, invoice: id, lines: lines.length,
    total_cents: lines.reduce((sum, l) => sum + l.qty * l.cents, 0) - (state.refunded[id] ?? 0),
  }));
  return server;
}

// ---------------------------------------------------------------- mailer
/** @param {{ sent: number }} state */
function mailerServer(state) {
  const server = new McpServer({ name: 'demo-mailer', version: '1.0.0' });
  server.registerTool('send_report', {
    description: 'E-mail a report of invoice lines to any address.',
    // Open world: what it is sent leaves the host (MCP's default for a tool without the hint).
    annotations: { openWorldHint: true },
    inputSchema: z.strictObject({
      to: z.string().max(320).describe('Recipient address'),
      subject: z.string().max(200).describe('Subject line'),
      lines: z.array(z.strictObject({ sku: z.string(), qty: z.number(), cents: z.number() })).min(1).max(10_000),
    }),
  }, async ({ to, subject, lines }) => {
    state.sent += 1;
    return result({ ok: true, sent: `mail-${state.sent}`, to, subject, lines: lines.length });
  });
  return server;
}

// ---------------------------------------------------------------- HTTP mounting
/** Reads a JSON body of at most MAX_BODY_BYTES; `undefined` for an empty one. @param {Request} req @returns {Promise<unknown>} */
async function readJson(req) {
  /** @type {Buffer[]} */
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw Object.assign(new Error('request body too large'), { status: 413 });
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw Object.assign(new Error('Parse error: the body is not JSON'), { status: 400, code: -32700 });
  }
}

/** @param {Response} res @param {number} status @param {string} message @param {number} [code] */
function rpcError(res, status, message, code = -32000) {
  res.writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** One mounted MCP server: its sessions, each a transport and its own McpServer. */
class Mount {
  /**
   * @param {string} name @param {() => McpServer} create
   * @param {{ onMessage?: (message: Message, sessionId: string | undefined) => void, pushes?: boolean }} [options]
   */
  constructor(name, create, { onMessage, pushes = false } = {}) {
    this.name = name;
    this.create = create;
    this.onMessage = onMessage;
    this.pushes = pushes;
    /** @type {Map<string, { transport: StreamableHTTPServerTransport, server: McpServer, calls: Map<string, number> }>} */
    this.sessions = new Map(); // session id -> { transport, server, calls }, oldest first
  }

  /** tools/call requests per tool name, in one session (`{}` for an unknown one). @param {string | null} sessionId */
  callsOf(sessionId) {
    return Object.fromEntries(this.sessions.get(sessionId ?? '')?.calls ?? []);
  }

  /** @param {Request} req @param {Response} res */
  async handle(req, res) {
    const sessionId = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const session = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (session && req.method === 'GET' && !this.pushes) {
      // No standalone stream from a server that never sends anything unasked: a browser
      // holds few connections per origin, and each open stream would keep one.
      return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
    }
    if (session) return session.transport.handleRequest(req, res, body);
    if (sessionId !== undefined) return rpcError(res, 404, 'Session not found');
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return rpcError(res, 400, 'Bad Request: no valid session id (initialize first)');
    }
    const server = this.create();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server, calls: new Map() });
        while (this.sessions.size > MAX_SESSIONS) this.closeSession(/** @type {string} */ (this.sessions.keys().next().value));
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    // Observe each message as it came over the wire, before the SDK parses it.
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const seen = /** @type {Message} */ (message);
      if (seen?.method === 'tools/call') {
        const calls = this.sessions.get(transport.sessionId ?? '')?.calls;
        const name = String(seen.params?.name);
        calls?.set(name, (calls.get(name) ?? 0) + 1);
        this.onMessage?.(seen, transport.sessionId);
      }
      deliver?.(message, extra);
    };
    return transport.handleRequest(req, res, body);
  }

  /** @param {string} id */
  closeSession(id) {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    session?.server.close().catch(() => {});
  }

  /**
   * Sends a notification to every session: on the stream of the request being answered for
   * `answering` (it reaches that client before the result), on the standalone stream for the
   * others (skipped when they have none open).
   * @param {import('@modelcontextprotocol/sdk/types.js').ServerNotification} notification
   * @param {{ sessionId?: string, requestId: string | number } | null} answering
   */
  broadcast(notification, answering) {
    for (const [id, { server }] of this.sessions) {
      const related = id === answering?.sessionId ? { relatedRequestId: answering.requestId } : undefined;
      server.server.notification(notification, related).catch(() => {});
    }
  }

  async close() {
    await Promise.all([...this.sessions.values()].map(({ server }) => server.close().catch(() => {})));
    this.sessions.clear();
  }
}

/**
 * The four servers behind one request handler. `handle(req, res)` answers `/mcp/…` requests
 * and returns `true`, or returns `false` for any other path; `origin()` is the server's own
 * origin (`http://127.0.0.1:<port>`), known once it listens. `close()` ends every session.
 */
/** @param {{ origin: () => string | null }} options */
export function createMcpServers({ origin }) {
  /** @type {{ charts: number, lastCall: LastCall | null }} */
  const chartState = { charts: 0, lastCall: null };
  /** @type {Parameters<typeof billingServer>[1]} */
  const billingState = { refunded: {}, answering: null };
  /** @type {{ sent: number, lastCall: LastCall | null }} */
  const mailerState = { sent: 0, lastCall: null };
  /** @type {Sync} */
  const billingSync = new StateSync({
    policies: [
      { match: 'billing.refund', invalidates: ['billing.get_*'] },
      { match: 'billing.get_*', cacheControl: 'no-store' },
    ],
    defaults: { cacheControl: 'no-store' },
    // The wasm type of a notification is the SDK's (both are MCP's `notifications/*` messages).
    notificationSink: (notification) => {
      mounts.billing.broadcast(/** @type {import('@modelcontextprotocol/sdk/types.js').ServerNotification} */ (/** @type {unknown} */ (notification)), billingState.answering);
    },
  });
  /** @type {Record<'data' | 'chart' | 'billing' | 'mailer', Mount>} */
  const mounts = {
    data: new Mount('data', dataServer),
    chart: new Mount('chart', () => chartServer(chartState), {
      onMessage(message, sessionId) {
        if (message.params?.name === 'chart.create') {
          chartState.lastCall = { sessionId, receivedAt: new Date().toISOString(), arguments: message.params.arguments };
        }
      },
    }),
    billing: new Mount('billing', () => billingServer(billingSync, billingState), { pushes: true }),
    mailer: new Mount('mailer', () => mailerServer(mailerState), {
      onMessage(message, sessionId) {
        if (message.params?.name === 'send_report') {
          mailerState.lastCall = { sessionId, receivedAt: new Date().toISOString(), arguments: message.params.arguments };
        }
      },
    }),
  };
  /** @type {Record<string, { lastCall: LastCall | null } | undefined>} */
  const lastCalls = { chart: chartState, mailer: mailerState };
  /** @type {Record<string, Mount | undefined>} */
  const mounted = mounts;

  /** @param {Request} req */
  function allowed(req) {
    const own = new URL(origin() ?? 'http://127.0.0.1');
    const hosts = [own.host, `localhost:${own.port}`];
    if (!hosts.includes(req.headers.host ?? '')) return false;
    const from = req.headers.origin;
    return from === undefined || hosts.some((host) => from === `http://${host}`);
  }

  /** @param {Request} req @param {Response} res */
  async function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp' && !url.pathname.startsWith('/mcp/')) return false;
    const [, name, diagnostic] = /^\/mcp\/(data|chart|billing|mailer)(?:\/(last-call|calls))?$/.exec(url.pathname) ?? [];
    const reply = (/** @type {unknown} */ value) => res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(value));
    try {
      if (!name || (diagnostic && req.method !== 'GET') || (diagnostic === 'last-call' && !lastCalls[name])) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      } else if (!allowed(req)) {
        rpcError(res, 403, 'Forbidden: foreign Host or Origin');
      } else if (diagnostic === 'last-call') {
        reply(lastCalls[name]?.lastCall);
      } else if (diagnostic === 'calls') {
        reply(mounted[name]?.callsOf(url.searchParams.get('session')));
      } else {
        await mounted[name]?.handle(req, res);
      }
    } catch (error) {
      const failure = /** @type {{ status?: number, message?: string, code?: number }} */ (error);
      if (!res.headersSent) rpcError(res, failure.status ?? 500, String(failure.message), failure.code);
      else res.end();
    }
    return true;
  }

  return {
    handle,
    close: () => Promise.all(Object.values(mounts).map((m) => m.close())).then(() => {}),
  };
}
