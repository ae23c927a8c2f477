// A static HTTP server for the built example and the plain pages, closed at cleanup.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { cleanups } from './harness.mjs';

/** @type {Record<string, string>} */
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
};

/** @param {string} root @returns {Promise<string>} the server's origin */
export async function serveStatic(root) {
  const server = createServer(async (req, res) => {
    try {
      let path = decodeURIComponent(new URL(/** @type {string} */ (req.url), 'http://127.0.0.1').pathname);
      if (path.endsWith('/')) path += 'index.html';
      const file = resolve(root, `.${path}`);
      if (file !== root && !file.startsWith(root + sep)) return void res.writeHead(403).end();
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(200, {
        'content-type': MIME[extname(file)] ?? 'application/octet-stream',
        'content-length': info.size,
        'cache-control': 'no-store',
      });
      if (req.method === 'HEAD') return void res.end();
      createReadStream(file).pipe(res);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
  await /** @type {Promise<void>} */ (new Promise((ok, ko) => server.once('error', ko).listen(0, '127.0.0.1', ok)));
  /** @type {() => Promise<void>} */
  const close = () => new Promise((ok) => {
    server.closeAllConnections();
    server.close(() => ok());
  });
  cleanups.push(close);
  return `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
}
