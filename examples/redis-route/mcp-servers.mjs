// Two real MCP servers inside each instance (the official SDK's McpServer over InMemoryTransport;
// over HTTP, swap the transport and nothing else changes): `timeseries.query` answers 240 rows,
// `chart.create` declares only `data` and records what it received.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';

const result = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });

/** The rows `timeseries.query` answers (the same on every instance). */
export function series(minutes = 240) {
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: minutes }, (_, i) => ({
    t: new Date(start + i * 60_000).toISOString(),
    value: Math.round((50 + 30 * Math.sin(i / 18) + 8 * Math.sin(i / 3)) * 10) / 10,
  }));
}

async function connect(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'redis-route-example', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** Starts both servers; `charts` receives the arguments of every chart.create call. */
export async function startServers(charts) {
  const data = new McpServer({ name: 'example-data', version: '1.0.0' });
  data.registerTool('timeseries.query', {
    description: 'Samples of a metric, one row per minute. Returns `rows` of {t, value}.',
    inputSchema: { metric: z.string(), minutes: z.number().int().min(1).max(1440).optional() },
  }, async ({ metric, minutes = 240 }) => result({ ok: true, metric, columns: ['t', 'value'], rows: series(minutes) }));
  const chart = new McpServer({ name: 'example-chart', version: '1.0.0' });
  chart.registerTool('chart.create', {
    description: 'Draws a line chart of {t, value} rows.',
    annotations: { openWorldHint: false },
    inputSchema: { title: z.string().optional(), data: z.array(z.object({ t: z.string(), value: z.number() })).min(1) },
  }, async (args) => {
    charts.push(args);
    return result({ ok: true, chart_id: `chart-${charts.length}`, points: args.data.length });
  });
  return Promise.all([connect(data), connect(chart)]);
}
