// Two instances behind one port: `node balancer.mjs --port 3000` (env REDIS_URL, TOOL_APPROVAL_SECRET).
//
// Starts server.mjs twice (INSTANCE=a and b, each on a free port) and proxies port 3000 to them:
// `POST /api/chat` alternates a, b, a, b, … (round robin, so consecutive turns of one chat land
// on different instances); anything else goes to either. Responses stream through unchanged.
// `GET /api/instances` lists the instances and their ports (for tests and curious humans).
// Ctrl-C (or SIGTERM) stops both instances.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { port: { type: 'string', default: '3000' }, host: { type: 'string', default: '127.0.0.1' } } });
const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url));
const HOST = '127.0.0.1';
// The secret that signs tool approvals (route.mjs): the same for both instances, since an approval
// asked by one is answered on the other. Without TOOL_APPROVAL_SECRET, a random one for this run.
const TOOL_APPROVAL_SECRET = process.env.TOOL_APPROVAL_SECRET || randomBytes(32).toString('base64url');

const children = new Set();

/**
 * One instance, as `GET /api/instances` lists it.
 * @typedef {{ name: string, port: number }} Instance
 */

/**
 * Forks one instance on a free port; resolves `{name, port}` once it listens.
 * @param {string} name
 * @returns {Promise<Instance>}
 */
function startInstance(name) {
  const child = fork(SERVER, ['--port', '0', '--host', HOST], { env: { ...process.env, INSTANCE: name, TOOL_APPROVAL_SECRET }, stdio: 'inherit' });
  children.add(child);
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve({ name, port: /** @type {{ port: number }} */ (message).port }));
    child.once('exit', (code, signal) => {
      children.delete(child);
      reject(new Error(`instance ${name} exited (code ${code}, signal ${signal})`));
      if (!stopping) stop(1); // an instance died: stop everything rather than serve half
    });
  });
}

let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => {
    for (const child of children) child.kill('SIGKILL');
    process.exit(code);
  }, 2000).unref();
  if (children.size === 0) process.exit(code);
  else Promise.all([...children].map((c) => new Promise((r) => c.once('exit', r)))).then(() => process.exit(code));
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** @type {Instance[]} */
let instances;
try {
  instances = await Promise.all([startInstance('a'), startInstance('b')]);
} catch (error) {
  console.error(`balancer: ${/** @type {Error} */ (error).message}`);
  stop(1);
  await new Promise(() => {}); // stop() exits once the other instance is gone
}

let nextChat = 0;
let nextOther = 0;
const proxy = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/api/instances') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify(instances));
  }
  const chat = req.method === 'POST' && new URL(/** @type {string} */ (req.url), 'http://x').pathname === '/api/chat';
  const target = chat ? instances[nextChat++ % instances.length] : instances[nextOther++ % instances.length];
  const upstream = httpRequest({ host: HOST, port: target.port, method: req.method, path: req.url, headers: req.headers }, (response) => {
    res.writeHead(/** @type {number} */ (response.statusCode), response.statusMessage, response.headers);
    response.pipe(res);
  });
  upstream.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`instance ${target.name}: ${error.message}`);
  });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
});

proxy.listen(Number(args.port), args.host, () => {
  const { port } = /** @type {import('node:net').AddressInfo} */ (proxy.address());
  console.log(`balancer listening on http://${args.host}:${port} -> ${instances.map((i) => `${i.name}:${i.port}`).join(', ')}`);
});
