// Two real MCP servers inside this process: the official SDK's `McpServer`, reached by an SDK
// `Client` over the SDK's `InMemoryTransport` (swap in `StreamableHTTPClientTransport` for
// servers over HTTP; nothing else changes).
//
// `timeseries.query` returns 240 rows (`timeseries.backfill` makes them out of date); `chart.create` declares only `data` (a strict schema) and
// records what it received, so `GET /api/log` can show which instance drew which chart.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';

/**
 * What `timeseries.query` recorded of one answered query.
 * @typedef {{ metric: string, rows: number, firstRow: { t: string, value: number } }} QueryRecord
 */
/**
 * What `chart.create` recorded of one call, as the server parsed it.
 * @typedef {{ title: string, rows: number, firstRow: { t: string, value: number }, keys: string[] }} ChartRecord
 */

/** @type {(value: Record<string, unknown>) => import('@modelcontextprotocol/sdk/types.js').CallToolResult} */
const result = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });

/**
 * `queries` gets `{metric, rows, firstRow}` of every answered query.
 * @param {QueryRecord[]} queries
 */
function dataServer(queries) {
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
    queries.push({ metric, rows: rows.length, firstRow: rows[0] });
    return result({ ok: true, metric, columns: ['t', 'value'], rows });
  });
  // A mutation: earlier query results are out of date afterwards. Its result says so the way MCP
  // Fusion servers do, `<cache_invalidation …/>` first: the cache marks those entries stale.
  server.registerTool('timeseries.backfill', {
    description: 'Re-imports the samples of a metric from the archive; earlier query results of it are out of date afterwards.',
    inputSchema: z.strictObject({ metric: z.string() }),
  }, async ({ metric }) => ({
    content: [
      { type: 'text', text: '<cache_invalidation cause="timeseries.backfill" domains="timeseries.query" />' },
      { type: 'text', text: JSON.stringify({ ok: true, metric, backfilled: true }) },
    ],
  }));
  return server;
}

/**
 * `charts` gets `{title, rows, firstRow, keys}` of every chart.create call, as the server parsed it.
 * @param {ChartRecord[]} charts
 */
function chartServer(charts) {
  const server = new McpServer({ name: 'example-chart', version: '1.0.0' });
  server.registerTool('chart.create', {
    description: 'Draws a line chart of {t, value} rows. Returns the points to draw.',
    annotations: { openWorldHint: false },
    inputSchema: z.strictObject({
      title: z.string().optional(),
      data: z.array(z.strictObject({ t: z.string(), value: z.number() })).min(1),
    }),
  }, async (args) => {
    charts.push({ title: args.title ?? '', rows: args.data.length, firstRow: args.data[0], keys: Object.keys(args) });
    return result({ ok: true, chart_id: `chart-${charts.length}`, title: args.title ?? '', points: args.data.length });
  });
  return server;
}

/** @param {McpServer} server */
async function connect(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'ai-sdk-redis-example', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** Starts both servers; resolves a connected SDK `Client` for each and what each recorded. */
export async function startServers() {
  /** @type {QueryRecord[]} */
  const queries = [];
  /** @type {ChartRecord[]} */
  const charts = [];
  const [data, chart] = await Promise.all([connect(dataServer(queries)), connect(chartServer(charts))]);
  return { clients: { data, chart }, queries, charts };
}
