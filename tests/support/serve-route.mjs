// Serves a web-standard handler (`(Request) => Promise<Response>`, such as `cacheRoute`'s) from
// a real `node:http` server on a free loopback port: the adapter a Node host writes (Node's
// `http` has none built in). `close()` stops it; every test closes what it starts.
import { createServer } from 'node:http';

/**
 * @param {(request: Request) => Promise<Response>} handler
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function serveRoute(handler) {
  const server = createServer(async (req, res) => {
    try {
      const url = `http://${req.headers.host}${req.url}`;
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(key, value);
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await /** @type {Promise<Buffer<ArrayBuffer>>} */ (new Promise((resolve) => {
        /** @type {Buffer[]} */
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => resolve(Buffer.concat(chunks)));
      }));
      const response = await handler(new Request(url, { method: req.method, headers, body }));
      res.writeHead(response.status, Object.fromEntries(/** @type {Iterable<[string, string]>} */ (/** @type {unknown} */ (response.headers))));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      res.writeHead(599);
      res.end(String(error));
    }
  });
  await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}
