// Two instances behind one port, as a load balancer puts them: `node balancer.mjs --port 3000`
// (REDIS_URL in the environment) starts `server.mjs` twice (instances "a" and "b") and forwards
// each POST /api/chat to the next one in turn, so a conversation's turns alternate between them.
// GET /api/instances lists them; anything else goes to "a".
import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import { createServer as netServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const port = Number(process.argv[process.argv.indexOf('--port') + 1] || 3000);
const freePort = () => new Promise((resolve) => {
  const s = netServer().listen(0, '127.0.0.1', () => {
    const { port: free } = s.address();
    s.close(() => resolve(free));
  });
});

const instances = [];
for (const name of ['a', 'b']) {
  const instancePort = await freePort();
  const child = spawn(process.execPath, [fileURLToPath(new URL('./server.mjs', import.meta.url)), '--port', String(instancePort)], {
    env: { ...process.env, INSTANCE: name },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => (String(d).includes('listening') ? resolve() : undefined));
    child.once('exit', (code) => reject(new Error(`instance ${name} exited with ${code}`)));
  });
  instances.push({ name, port: instancePort, child });
}
const stop = () => instances.forEach(({ child }) => child.kill());
process.on('exit', stop);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));

let next = 0;
createServer((req, res) => {
  if (req.url === '/api/instances') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(instances.map(({ name, port: p }) => ({ name, port: p }))));
    return;
  }
  const target = req.method === 'POST' && req.url === '/api/chat' ? instances[next++ % instances.length] : instances[0];
  const upstream = request({ host: '127.0.0.1', port: target.port, path: req.url, method: req.method, headers: req.headers }, (reply) => {
    res.writeHead(reply.statusCode ?? 502, reply.headers);
    reply.pipe(res);
  });
  upstream.on('error', (error) => res.writeHead(502).end(String(error.message)));
  req.pipe(upstream);
}).listen(port, '127.0.0.1', () => console.log(`balancer: http://127.0.0.1:${port}/ -> ${instances.map((i) => `${i.name}:${i.port}`).join(', ')}`));
