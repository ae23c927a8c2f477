// One instance: `node server.mjs --port 3001` (env REDIS_URL, INSTANCE). Plain node:http:
//
//   POST /api/chat   the AI SDK route handler (route.mjs)
//   GET  /api/cache  what the chat's references hold (cacheRoute, route.mjs)
//   GET  /api/log    this instance's name, what its MCP servers received and what the model typed
//   GET  /…          the built page (dist/, `npm run build`)
//
// Every response carries `x-instance: <name>`. `--port 0` takes a free port; under balancer.mjs
// the port is reported to the parent over IPC, and the instance exits when the parent is gone.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GET, POST, close, modelCalls, servers } from './route.mjs';

const { values: args } = parseArgs({ options: { port: { type: 'string', default: '3001' }, host: { type: 'string', default: '127.0.0.1' } } });
const INSTANCE = process.env.INSTANCE ?? 'a';
const DIST = process.env.DIST_DIR ?? fileURLToPath(new URL('./dist/', import.meta.url));
/** @type {Record<string, string>} */
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json', '.wasm': 'application/wasm', '.ico': 'image/x-icon' };

/**
 * node:http request -> web Request -> route handler -> web Response -> node:http response.
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {(request: Request) => Promise<Response>} handler
 */
async function web(req, res, handler) {
  // Node's web streams are the global ones; only their declarations (node:stream/web, lib.dom)
  // differ. `duplex` (which Node's Request needs for a stream body) is not in lib.dom's RequestInit.
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : /** @type {ReadableStream<Uint8Array>} */ (/** @type {unknown} */ (Readable.toWeb(req)));
  const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, /** @type {RequestInit} */ ({ method: req.method, headers: /** @type {HeadersInit} */ (req.headers), body, duplex: 'half' }));
  const response = await handler(request);
  res.writeHead(response.status, Object.fromEntries(/** @type {Iterable<[string, string]>} */ (/** @type {unknown} */ (response.headers))));
  if (!response.body) return void res.end();
  const stream = Readable.fromWeb(/** @type {import('node:stream/web').ReadableStream} */ (/** @type {unknown} */ (response.body)));
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}

/** @param {import('node:http').ServerResponse} res */
function log(res) {
  const charts = servers.charts.map(({ title, rows, firstRow, keys }) => ({ title, rows, firstRow, keys }));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ instance: INSTANCE, charts, queries: servers.queries, modelCalls }));
}

/**
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 */
async function page(req, res) {
  const path = decodeURIComponent(new URL(/** @type {string} */ (req.url), 'http://x').pathname);
  let file = normalize(join(DIST, path));
  if (!file.startsWith(DIST.endsWith(sep) ? DIST : DIST + sep)) return void res.writeHead(403).end();
  if (!(await stat(file).catch(() => null))?.isFile()) file = join(DIST, 'index.html');
  if (!(await stat(file).catch(() => null))?.isFile()) {
    return void res.writeHead(404, { 'content-type': 'text/plain' }).end('No page built: run `npm run build` first.\n');
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

const server = createServer((req, res) => {
  res.setHeader('x-instance', INSTANCE);
  const { pathname } = new URL(/** @type {string} */ (req.url), 'http://x');
  const handled = req.method === 'POST' && pathname === '/api/chat' ? web(req, res, POST)
    : pathname === '/api/cache' ? web(req, res, GET)
    : req.method === 'GET' && pathname === '/api/log' ? log(res)
      : req.method === 'GET' || req.method === 'HEAD' ? page(req, res)
        : void res.writeHead(405).end();
  Promise.resolve(handled).catch((error) => {
    console.error(`[${INSTANCE}] ${req.method} ${req.url}: ${error?.stack ?? error}`);
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(String(error?.message ?? error));
  });
});

server.listen(Number(args.port), args.host, () => {
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  console.log(`instance ${INSTANCE} listening on http://${args.host}:${port}`);
  process.send?.({ instance: INSTANCE, port });
});

async function shutdown() {
  server.closeAllConnections();
  server.close();
  await close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
if (process.send) {
  process.on('SIGINT', () => {}); // Ctrl-C reaches the balancer too: it stops its instances
  process.on('disconnect', shutdown); // the balancer that started this instance is gone
} else {
  process.on('SIGINT', shutdown);
}
