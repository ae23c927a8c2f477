// One instance: `node server.mjs --port 3001` with REDIS_URL (and INSTANCE, its name). Serves the
// route (POST /api/chat), what its chart server received (GET /api/log), and the built page
// (dist/). Every instance is the same program; only Redis is shared.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chatTurn } from './route.mjs';
import { startServers } from './mcp-servers.mjs';
import { scriptedModel } from './scripted-model.mjs';

const name = process.env.INSTANCE ?? 'instance';
const port = Number(process.argv[process.argv.indexOf('--port') + 1] || 3000);
const DIST = fileURLToPath(new URL('./dist/', import.meta.url));
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.svg': 'image/svg+xml' };

const charts = [];
const clients = await startServers(charts);
const { model, calls } = scriptedModel();

async function body(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const server = createServer(async (req, res) => {
  res.setHeader('x-instance', name);
  try {
    if (req.method === 'POST' && req.url === '/api/chat') {
      const result = await chatTurn(await body(req), { clients, model });
      result.pipeUIMessageStreamToResponse(res);
      return;
    }
    if (req.url === '/api/log') {
      const log = { instance: name, calls, charts: charts.map((c) => ({ title: c.title, rows: c.data.length, first: c.data[0] })) };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log));
      return;
    }
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(DIST, path.endsWith('/') ? `${path}index.html` : path);
    const content = await readFile(file);
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(content);
  } catch (error) {
    if (!res.headersSent) res.writeHead(error.code === 'ENOENT' ? 404 : 500, { 'content-type': 'text/plain' });
    res.end(String(error?.message ?? error));
  }
});
server.listen(port, '127.0.0.1', () => console.log(`${name}: listening on http://127.0.0.1:${port}`));
