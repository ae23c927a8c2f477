// The demo's server (`npm start`), on 127.0.0.1 only:
// - the repository root as static files, so that www/ can import ../pkg/browser.mjs and ../pkg/web/*;
// - the demo's real MCP servers on Streamable HTTP under /mcp/data, /mcp/chart, /mcp/billing, /mcp/mailer
//   (scripts/mcp-servers.mjs), closed with the server;
// - www/vendor/mcp-sdk.js: the page's bundle of the MCP SDK client and of this package's
//   `mcp-client` subpath (www/mcp-sdk.src.mjs), built with Vite from node_modules on its first
//   request when missing or older than its inputs (generated, git-ignored). The package's main
//   entry stays outside the bundle (`import … from "/pkg/browser.mjs"`), so the page and the
//   wrapper share one module and one WebAssembly instance. No network beyond loopback.
import { createServer } from 'node:http';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMcpServers } from './mcp-servers.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

const SDK_BUNDLE = join(ROOT, 'www/vendor/mcp-sdk.js');
const SDK_ENTRY = join(ROOT, 'www/mcp-sdk.src.mjs');
const PACKAGE_ENTRY = join(ROOT, 'pkg/browser.mjs');
const JITLESS = join(ROOT, 'www/zod-jitless.mjs');
const SDK_INPUTS = [SDK_ENTRY, JITLESS, join(ROOT, 'js/mcp-client.mjs'), join(ROOT, 'js/mcp-client-core.mjs'), join(ROOT, 'js/stale-window.mjs'), join(ROOT, 'js/tool-pipeline.mjs'), join(ROOT, 'js/layer-answers.mjs'),
  join(ROOT, 'node_modules/@modelcontextprotocol/sdk/package.json'), fileURLToPath(import.meta.url)];
let sdkBuild = null;

const mtime = (/** @type {string} */ file) => stat(file).then((s) => s.mtimeMs, () => -1);

/** Builds www/vendor/mcp-sdk.js unless it is newer than every input (once per process). */
export function buildSdkBundle() {
  sdkBuild ??= (async () => {
    const built = await mtime(SDK_BUNDLE);
    const inputs = await Promise.all(SDK_INPUTS.map(mtime));
    if (built >= 0 && inputs.every((t) => t <= built)) return;
    const { build } = await import('vite');
    // Into a directory of our own, then renamed: another process serving the demo never
    // reads a half-written bundle.
    const out = join(ROOT, `www/vendor/.build-${process.pid}`);
    await build({
      configFile: false,
      root: ROOT,
      logLevel: 'warn',
      define: { 'process.env.NODE_ENV': '"production"' },
      plugins: [{
        name: 'demo-sdk-bundle',
        enforce: 'pre',
        resolveId(source, importer) {
          if (!importer || !source.startsWith('.')) return null;
          const file = resolve(dirname(importer), source);
          if (file === PACKAGE_ENTRY) return { id: '/pkg/browser.mjs', external: 'absolute' };
          // Imported for its effect only: kept although the package says `sideEffects: false`.
          if (file === JITLESS) return { id: file, moduleSideEffects: true };
          return null;
        },
      }],
      build: {
        lib: { entry: SDK_ENTRY, formats: ['es'], fileName: () => 'mcp-sdk.js' },
        outDir: out,
        emptyOutDir: true,
        copyPublicDir: false,
        reportCompressedSize: false,
        target: 'es2022',
        minify: true,
      },
    });
    await mkdir(join(ROOT, 'www/vendor'), { recursive: true });
    await rename(join(out, 'mcp-sdk.js'), SDK_BUNDLE);
    await rm(out, { recursive: true, force: true });
  })();
  sdkBuild.catch(() => { sdkBuild = null; }); // a failed build is retried on the next request
  return sdkBuild;
}

/** Starts the server; resolves `{ url, origin, close }`. Port 0 picks a free port. */
export function serve({ port = 0, host = '127.0.0.1' } = {}) {
  /** @type {string | null} */
  let origin = null;
  const mcp = createMcpServers({ origin: () => origin });
  const server = createServer(async (req, res) => {
    try {
      if (await mcp.handle(req, res)) return;
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      if (path === '/') {
        res.writeHead(302, { location: '/www/' });
        return res.end();
      }
      let file = normalize(join(ROOT, path));
      if (!file.startsWith(ROOT)) {
        res.writeHead(403);
        return res.end('forbidden');
      }
      if (file === SDK_BUNDLE) {
        try {
          await buildSdkBundle();
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          console.error(`mcp-sdk bundle: ${message}`);
          res.writeHead(500, { 'content-type': 'text/plain' });
          return res.end(`building the MCP SDK bundle failed: ${message}`);
        }
      }
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[/** @type {keyof typeof TYPES} */ (extname(file))] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      if (res.headersSent) return res.end();
      res.writeHead(404);
      res.end('not found');
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: actual } = /** @type {import('node:net').AddressInfo} */ (server.address());
      origin = `http://${host}:${actual}`;
      ok({
        url: `${origin}/www/`,
        origin,
        close: async () => {
          await mcp.close();
          server.closeAllConnections();
          await new Promise((done) => server.close(done));
        },
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildSdkBundle();
  const { url } = await serve({ port: Number(process.env.PORT ?? 8080) });
  console.log(`mcp-result-cache demo: ${url} (MCP servers on /mcp/data, /mcp/chart, /mcp/billing, /mcp/mailer)`);
}
