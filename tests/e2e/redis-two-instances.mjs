// examples/redis-route, as a user runs it: the AI SDK route (streamText over wrapAiSdkTools'
// tools, a ResultCache on redisStorage) served by two instances behind one port, and its useChat
// page in headless Chromium. Turn 1 ("query") lands on one instance, which stores the 240 rows in
// Redis; turn 2 ("chart") lands on the other, whose chart server must receive the same 240 rows
// while the model typed only the reference. A real redis-server (tests/support/redis-servers.mjs).
//
//   node tests/e2e/redis-two-instances.mjs     (after npm run build)
import { spawn, execFile } from 'node:child_process';
import { mkdir, symlink, lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../../scripts/chromium.mjs';
import { startRedis, freePort } from '../support/redis-servers.mjs';
import { series } from '../../examples/redis-route/mcp-servers.mjs';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = join(REPO, 'examples/redis-route');
const run = promisify(execFile);
let passed = 0;
let failed = 0;
const check = (ok, what, detail = '') => {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}${ok || !detail ? '' : `: ${detail}`}`);
};

const redis = await startRedis();
let balancer;
let browser;
try {
  // The example depends on this repository (file:../..): link it as `npm install` would; every
  // other dependency resolves from the repository's node_modules.
  const link = join(EXAMPLE, 'node_modules/mcp-result-cache');
  if (!(await lstat(link).catch(() => null))) {
    await mkdir(join(EXAMPLE, 'node_modules'), { recursive: true });
    await symlink(REPO, link, 'dir');
  }
  await rm(join(EXAMPLE, 'dist'), { recursive: true, force: true });
  await run(process.execPath, [join(REPO, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: EXAMPLE, timeout: 120_000 });

  const port = await freePort();
  balancer = spawn(process.execPath, [join(EXAMPLE, 'balancer.mjs'), '--port', String(port)], {
    env: { ...process.env, REDIS_URL: redis.url },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the balancer did not start within 30 s')), 30_000);
    balancer.stdout.on('data', (d) => String(d).includes('balancer:') && (clearTimeout(timer), resolve()));
    balancer.once('exit', (code) => reject(new Error(`the balancer exited with ${code}`)));
  });
  const origin = `http://127.0.0.1:${port}`;

  browser = await chromium.launch(chromiumOptions());
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${origin}/`);
  for (const turns of [1, 2]) {
    await page.waitForSelector('#status[data-status="ready"]', { timeout: 30_000 });
    await page.click('#send');
    await page.waitForSelector(`#status[data-status="ready"][data-turns="${turns}"]`, { timeout: 30_000 });
  }
  check(errors.length === 0, 'the page ran without errors', errors.join('; '));

  const instances = await (await fetch(`${origin}/api/instances`)).json();
  const logs = await Promise.all(instances.map(async ({ port: p }) => (await fetch(`http://127.0.0.1:${p}/api/log`)).json()));
  const queried = logs.find((l) => l.calls.some((c) => c.name === 'timeseries.query'));
  const charted = logs.find((l) => l.calls.some((c) => c.name === 'chart.create'));
  check(Boolean(queried && charted && queried.instance !== charted.instance), 'turn 1 and turn 2 ran on different instances',
    JSON.stringify(logs.map((l) => [l.instance, l.calls.map((c) => c.name)])));
  const chart = charted?.charts[0];
  check(chart?.rows === 240 && JSON.stringify(chart.first) === JSON.stringify(series()[0]),
    'the second instance\'s chart server received the first turn\'s 240 rows from Redis', JSON.stringify(chart));
  const typed = charted?.calls.find((c) => c.name === 'chart.create')?.input ?? '';
  check(/"data_uri":"mcp\+cache:\/\//.test(typed) && typed.length < 200 && !typed.includes('"value"'),
    'the model typed the reference (~90 characters), not the rows', typed);
  check(queried?.charts.length === 0, 'the first instance drew nothing');
  const text = await page.textContent('main');
  check(/chart-1/.test(text ?? '') && /points/.test(text ?? ''), 'the page shows the chart\'s answer', (text ?? '').slice(0, 300));
} catch (error) {
  check(false, 'the example ran', error?.stack ?? String(error));
} finally {
  await browser?.close().catch(() => {});
  balancer?.kill();
  await redis.stop();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
