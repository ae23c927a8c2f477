// An MCP server living in the page: two tools, answered with MCP `CallToolResult`s.
// `timeseries.query` returns 240 rows (~11 KB of JSON); `chart.create` takes them as `data`.

const DATA_URI_DESCRIPTION =
  'Reference to data returned by an earlier tool call: copy the exact `_cache_uri` value from ' +
  'that result (it looks like mcp+cache://…). Prefer this over `data` whenever the data came ' +
  'from another tool: do not copy rows into `data`. Append #/path (a JSON Pointer) to use part ' +
  'of the result, e.g. mcp+cache://abc/XYZ#/rows.';

export const TOOLS = [
  {
    name: 'timeseries.query',
    description: 'Samples of a metric, one row per minute.',
    inputSchema: {
      type: 'object',
      properties: { metric: { type: 'string' }, minutes: { type: 'integer' } },
      required: ['metric'],
    },
  },
  {
    name: 'chart.create',
    description: 'Draws a line chart of {t, value} rows.',
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        data: { type: 'array', items: { type: 'object' } },
        data_uri: { type: 'string', description: DATA_URI_DESCRIPTION },
      },
    },
  },
];

const text = (value) => ({ type: 'text', text: JSON.stringify(value) });

export function createMockMcpServer() {
  const charts = new Map();
  return {
    charts,
    async listTools() {
      return { tools: TOOLS };
    },
    async callTool({ name, arguments: args = {} }) {
      if (name === 'timeseries.query') {
        const minutes = args.minutes ?? 240;
        const start = Date.UTC(2026, 0, 1);
        const rows = Array.from({ length: minutes }, (_, i) => ({
          t: new Date(start + i * 60_000).toISOString(),
          value: Math.round((50 + 30 * Math.sin(i / 18) + 8 * Math.sin(i / 3)) * 10) / 10,
        }));
        const payload = { ok: true, metric: args.metric, columns: ['t', 'value'], rows };
        return { content: [text(payload)], structuredContent: payload };
      }
      if (name === 'chart.create') {
        const { data } = args;
        if (!Array.isArray(data) || !data.every((r) => typeof r?.value === 'number')) {
          return { isError: true, content: [text({ error: 'chart.create: `data` must be an array of {t, value} rows' })] };
        }
        const chartId = `chart-${charts.size + 1}`;
        charts.set(chartId, { title: args.title ?? '', points: data });
        // What the server saw: the host resolved data_uri, so no reference reaches it.
        const result = { ok: true, chart_id: chartId, points: data.length, received_data_uri: 'data_uri' in args };
        return { content: [text(result)], structuredContent: result };
      }
      return { isError: true, content: [text({ error: `unknown tool ${name}` })] };
    },
  };
}
