// Three real MCP servers living in the page: the official SDK's `McpServer`, reached by an SDK
// `Client` over the SDK's `InMemoryTransport` (swap in `StreamableHTTPClientTransport` for
// servers over HTTP; nothing else changes).
//
// `chart.create` declares `openWorldHint: false` (it draws for this page only); the mailer's
// `send_report` is open-world (it mails anyone): under the cache's flow policy `"guarded"`, the
// rows of the data server reach the chart freely and the mailer only after the user approves.
//
// `chart.create` declares only `data` (a strict schema: `additionalProperties: false`, an
// undeclared key is refused). It knows nothing of references: the host's `wrapMcpClient` adds
// `data_uri` to what the model is shown and turns it back into `data` before dispatch.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';

const result = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });

function dataServer() {
  const server = new McpServer({ name: 'example-data', version: '1.0.0' });
  server.registerTool('timeseries.query', {
    description: 'Samples of a metric, one row per minute. Returns `rows` of {t, value}.',
    inputSchema: z.strictObject({ metric: z.string(), minutes: z.number().int().min(1).max(1440).optional() }),
  }, async ({ metric, minutes = 240 }) => {
    const start = Date.UTC(2026, 0, 1);
    const rows = Array.from({ length: minutes }, (_, i) => ({
      t: new Date(start + i * 60_000).toISOString(),
      value: Math.round((50 + 30 * Math.sin(i / 18) + 8 * Math.sin(i / 3)) * 10) / 10,
    }));
    return result({ ok: true, metric, columns: ['t', 'value'], rows });
  });
  return server;
}

/** `received` gets the arguments of every chart.create call, as the server parsed them. */
function chartServer(received) {
  const server = new McpServer({ name: 'example-chart', version: '1.0.0' });
  server.registerTool('chart.create', {
    description: 'Draws a line chart of {t, value} rows. Returns the points to draw.',
    annotations: { openWorldHint: false },
    inputSchema: z.strictObject({
      title: z.string().optional(),
      data: z.array(z.strictObject({ t: z.string(), value: z.number() })).min(1),
    }),
  }, async (args) => {
    received.push(args);
    const chart = { chart_id: `chart-${received.length}`, title: args.title ?? '', points: args.data.length };
    return result({ ok: true, ...chart, values: args.data.map((r) => r.value) });
  });
  return server;
}

/** `mailed` gets the arguments of every send_report call, as the server parsed them. */
function mailerServer(mailed) {
  const server = new McpServer({ name: 'example-mailer', version: '1.0.0' });
  server.registerTool('send_report', {
    description: 'E-mails rows {t, value} to any address.',
    annotations: { openWorldHint: true },
    inputSchema: z.strictObject({
      to: z.string(),
      rows: z.array(z.strictObject({ t: z.string(), value: z.number() })).min(1),
    }),
  }, async (args) => {
    mailed.push(args);
    return result({ ok: true, sent: `mail-${mailed.length}`, to: args.to, rows: args.rows.length });
  });
  return server;
}

async function connect(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'react-chat-example', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** Starts the servers and resolves a connected SDK `Client` for each. */
export async function startServers() {
  const received = [];
  const mailed = [];
  const [data, chart, mailer] = await Promise.all([connect(dataServer()), connect(chartServer(received)), connect(mailerServer(mailed))]);
  return { clients: { data, chart, mailer }, received, mailed };
}
