// The demo's script: one scripted by-reference flow against the real package in this page.
import { ResultCache, estimateSize, ready } from '../js/browser.mjs';

const $ = (id) => document.getElementById(id);
const convId = 'demo-conversation';

function timeseriesQuery() {
  const start = Date.UTC(2026, 0, 1);
  return {
    ok: true,
    columns: ['t', 'value'],
    rows: Array.from({ length: 240 }, (_, i) => ({
      t: new Date(start + i * 3_600_000).toISOString(),
      value: Math.round(100 + 40 * Math.sin(i / 12) + (i % 7)),
    })),
  };
}

async function main() {
  await ready();
  const cache = new ResultCache({ dbName: 'mcp-result-cache-demo' });
  const payload = timeseriesQuery();
  const uri = await cache.cacheToolResult({ payload, convId, sourceToolName: 'timeseries.query' });
  if (!uri) throw new Error('the 240-row result was not cached');
  $('envelope').textContent = JSON.stringify(
    { ok: true, rows: payload.rows.length, columns: payload.columns, _cache_uri: uri }, null, 2);

  const call = { name: 'chart.create', arguments: { data_uri: uri, title: 'Hourly values' } };
  const data = await cache.readCachedPayload(uri, { convId });
  const same = JSON.stringify(data) === JSON.stringify(payload);
  $('resolved').textContent =
    `model emits: ${JSON.stringify(call)}\nresolved:    data = { rows: [${data.rows.length} rows] }  (equal to the original: ${same})`;

  const inline = JSON.stringify({ data: payload, title: 'Hourly values' }).length;
  const byRef = JSON.stringify(call.arguments).length;
  $('savings').textContent =
    `Inline arguments: ${inline.toLocaleString()} chars · by reference: ${byRef} chars · ` +
    `${(inline - byRef).toLocaleString()} output chars saved (${estimateSize(payload).toLocaleString()} bytes stored).`;
  $('status').dataset.state = same ? 'done' : 'error';
  $('status').textContent = same ? 'done: round trip verified' : 'error: payload changed';
}

main().catch((error) => {
  $('status').dataset.state = 'error';
  $('status').textContent = `error: ${error.name}: ${error.message}`;
  console.error(error);
});
