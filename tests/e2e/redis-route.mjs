// End to end: examples/ai-sdk-redis, one cache in Redis shared by two instances of an AI SDK route.
//
//   node tests/e2e/redis-route.mjs        (after `npm run build`; needs /usr/bin/redis-server)
//
// Starts a real redis-server, builds the example's page with the repository's Vite, starts the
// example's balancer.mjs (two server.mjs instances behind one port, POST /api/chat alternating
// between them) and drives the page in headless Chromium: turn 1 "query the series" (the
// instance that runs it stores 240 rows in Redis), turn 2 "chart it" (the other instance gets
// them by reference). Then reads each instance's /api/log directly and checks that the turns
// landed on different instances, that turn 2's chart server received exactly the 240 rows turn 1
// returned, and that the model typed a ~90-character `data_uri`, never the rows; that turn 2's
// request carries timeseries.query's output without the stored payload (`omitStoredPayload`).
// Then page → server: "chart my local readings" runs the page's own tool (its rows stored in the
// page's IndexedDB), the model passes that reference to the server's chart.create, the route
// asks by tool approval, and after "Allow" exactly that payload goes up in one request: the
// chart server receives the page's 240 rows, stored in Redis with the page tool's server as the
// source. Last, the page's table of the rows stored in Redis (`GET /api/cache`, cacheRoute, read
// by `useCachedResult`), and that table turned stale after "backfill the series".
//
// No network install: the example's dependencies resolve from the repository's node_modules by
// walking up, except `mcp-result-cache` itself, which is linked to this repository
// (examples/ai-sdk-redis/node_modules/mcp-result-cache -> ../../.., git-ignored).
//
// Output: `ok - <check>` / `not ok - <check>: <reason>`, then `N passed, N failed` as the last
// line; exit code 1 when anything failed. Redis, the balancer (and its instances) and the browser
// are stopped on every exit path.
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, realpathSync, symlinkSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../../scripts/chromium.mjs';
import { startRedis, nodeRedisClient, closeClient } from '../support/redis-servers.mjs';
import { ResultCache } from '../../pkg/node.mjs';
import { redisStorage } from '../../js/redis.mjs';

const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const EXAMPLE = join(REPO, 'examples/ai-sdk-redis');
const ROOT_MODULES = join(REPO, 'node_modules');
const URI_RE = /^mcp\+cache:\/\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{8,16}/;
const WAIT_MS = 30_000;
const DEADLINE_MS = 150_000;

/**
 * @typedef {import('playwright-core').Page} Page
 * @typedef {import('../support/redis-servers.mjs').RedisServer} RedisServer
 * @typedef {import('../../examples/ai-sdk-redis/balancer.mjs').Instance} Instance
 */
/**
 * What an instance's `GET /api/log` answers (examples/ai-sdk-redis/server.mjs).
 * @typedef {{
 *   instance: string,
 *   charts: import('../../examples/ai-sdk-redis/mcp-servers.mjs').ChartRecord[],
 *   queries: import('../../examples/ai-sdk-redis/mcp-servers.mjs').QueryRecord[],
 *   modelCalls: import('../../examples/ai-sdk-redis/scripted-model.mjs').ScriptedCall[],
 * }} InstanceLog
 */
/**
 * A part of a UI message in a posted body, as the checks read it: a tool part (with `state`) has
 * an `output` (the wrapped result, without what is stored), the other kinds have neither.
 * @typedef {{ type: string, text?: string, toolName?: string, state?: undefined, output?: undefined }
 *   | { type: string, text?: undefined, toolName: string, state: string, output: { _meta?: Record<string, unknown> } }} PostedPart
 */
/**
 * A body the page POSTed to /api/chat, parsed (`null` for none): the chat's messages and the
 * page's `pageReferences` (here always the rows of its `sensors.read`).
 * @typedef {{
 *   messages: Array<{ role: string, parts: PostedPart[] }>,
 *   pageReferences?: Array<import('../../js/ai-sdk.js').PageReference & { payload: { rows: unknown[] } }>,
 * } | null} ChatPost
 */
/**
 * What the page shows in `#stored-rows`: its `data-*` (`status`, `total`, `uri`), the cells of
 * its table's rows and its text.
 * @typedef {{ status?: string, total?: string, uri?: string, rows: Array<Array<string | null>>, text: string }} StoredRows
 */
/** What a thrown value may carry. @typedef {{ message?: unknown, stack?: unknown } | null | undefined} ErrorLike */

/** @type {boolean[]} */
const results = [];
/** @type {Array<() => unknown>} */
const cleanups = [];
/**
 * Every body the page POSTed to /api/chat, in order.
 * @type {ChatPost[]}
 */
const posts = [];
/** @type {string[]} */
const problems = [];

/**
 * @param {unknown} condition
 * @param {string} message
 * @returns {asserts condition}
 */
function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * @param {string} name
 * @param {() => unknown} fn
 * @returns {Promise<boolean>}
 */
async function check(name, fn) {
  try {
    await fn();
    results.push(true);
    console.log(`ok - ${name}`);
    return true;
  } catch (error) {
    results.push(false);
    console.log(`not ok - ${name}: ${String(/** @type {ErrorLike} */ (error)?.message ?? error).replace(/\s+/g, ' ').slice(0, 600)}`);
    if (/** @type {ErrorLike} */ (error)?.stack) console.error(/** @type {ErrorLike & object} */ (error).stack);
    return false;
  }
}

async function cleanup() {
  while (cleanups.length > 0) {
    const fn = /** @type {() => unknown} */ (cleanups.pop());
    try {
      await fn();
    } catch (error) {
      console.error(`cleanup: ${/** @type {ErrorLike} */ (error)?.message ?? error}`);
    }
  }
}

let finished = false;
async function finish() {
  if (finished) return;
  finished = true;
  await cleanup();
  const passed = results.filter(Boolean).length;
  const failed = results.length - passed;
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    results.push(false);
    console.log(`not ok - interrupted by ${signal}`);
    finish();
  });
}
const deadline = setTimeout(() => {
  results.push(false);
  console.log(`not ok - the whole run: still running after ${DEADLINE_MS} ms`);
  finish();
}, DEADLINE_MS);
deadline.unref();

/**
 * Runs a command to its end; rejects with its output when it fails or outlives `timeoutMs`.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, timeoutMs?: number, env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<string>}
 */
function run(command, args, { cwd, timeoutMs = 60_000, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')}: exit ${code ?? signal}\n${output.slice(-2000)}`));
    });
  });
}

/**
 * The package.json of `name` as Node finds it from `from` by walking up node_modules folders.
 * @param {string} name
 * @param {string} from
 * @returns {string | null}
 */
function findPackage(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) return manifest;
    if (dirname(dir) === dir) return null;
  }
}

/**
 * Starts balancer.mjs on a free port; resolves its base URL once it listens.
 * @param {string} redisUrl
 * @returns {Promise<{ url: string, output: () => string }>}
 */
function startBalancer(redisUrl) {
  // Its own process group: one kill reaches the balancer and both instances.
  const child = spawn(process.execPath, [join(EXAMPLE, 'balancer.mjs'), '--port', '0'], {
    cwd: EXAMPLE, env: { ...process.env, REDIS_URL: redisUrl }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try { process.kill(-/** @type {number} */ (child.pid), 'SIGTERM'); } catch { /* gone */ }
    const timer = setTimeout(() => { try { process.kill(-/** @type {number} */ (child.pid), 'SIGKILL'); } catch { /* gone */ } }, 3000);
    await exited;
    clearTimeout(timer);
    // Whatever of the group outlived the balancer.
    try { process.kill(-/** @type {number} */ (child.pid), 'SIGKILL'); } catch { /* all gone */ }
  });
  process.on('exit', () => { try { process.kill(-/** @type {number} */ (child.pid), 'SIGKILL'); } catch { /* gone */ } });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the balancer did not listen within ${WAIT_MS} ms:\n${output}`)), WAIT_MS);
    const onData = (/** @type {Buffer} */ d) => {
      output += d;
      const port = output.match(/balancer listening on http:\/\/127\.0\.0\.1:(\d+)/)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${port}`, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => { output += d; process.stderr.write(`[balancer] ${d}`); });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the balancer exited (${code ?? signal}):\n${output}`));
    });
  });
}

/**
 * @param {string} url
 * @returns {Promise<{ body: unknown, instance: string | null }>}
 */
async function getJson(url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(WAIT_MS) });
  assert(response.ok, `GET ${url}: HTTP ${response.status}`);
  return { body: await response.json(), instance: response.headers.get('x-instance') };
}

async function main() {
  if (!(await dependenciesResolve())) return;
  if (!(await pageBuilds())) return;
  const servers = await startServers();
  if (!servers) return;
  const chat = await chatTwoTurns(servers.base);
  if (!chat) return;
  const log = await servers.logs();
  await turnsByReference({ log, status: chat.status });
  await rowsInRedis({ redis: servers.redis, status: chat.status });
  await pageToServer({ page: chat.page, redis: servers.redis, status: chat.status, logs: servers.logs });
  await storedRows({ page: chat.page, log });
}

/**
 * The example's dependencies resolve from the repository (mcp-result-cache linked to it, the rest
 * from its node_modules, at the versions the repository pins).
 * @returns {Promise<boolean>}
 */
async function dependenciesResolve() {
  const manifest = JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8'));
  const deps = { ...manifest.dependencies, ...manifest.devDependencies };

  return check('the example\'s dependencies resolve without a network install (mcp-result-cache linked to the repository, the rest from its node_modules)', () => {
    assert(deps['mcp-result-cache'] === 'file:../..', `mcp-result-cache is ${deps['mcp-result-cache']}, not file:../..`);
    const link = join(EXAMPLE, 'node_modules/mcp-result-cache');
    if (!existsSync(link)) {
      mkdirSync(dirname(link), { recursive: true });
      try { lstatSync(link); } catch { symlinkSync('../../..', link, 'dir'); } // absent, not a dangling link
    }
    assert(realpathSync(link) === realpathSync(REPO), `${link} is ${realpathSync(link)}, not this repository`);
    const root = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).devDependencies;
    for (const [name, version] of Object.entries(deps)) {
      if (name === 'mcp-result-cache') continue;
      const found = findPackage(name, EXAMPLE);
      assert(found, `${name} does not resolve from ${EXAMPLE}`);
      assert(found.startsWith(`${ROOT_MODULES}/`), `${name} resolves to ${found}, not the repository's node_modules`);
      const installed = JSON.parse(readFileSync(found, 'utf8')).version;
      assert(installed === version, `${name}: the example asks for ${version}, ${installed} is installed`);
      assert(root[name] === version, `${name}: the example asks for ${version}, the repository's devDependencies for ${root[name]}`);
    }
  });
}

/**
 * The example's page builds with the repository's Vite.
 * @returns {Promise<boolean>}
 */
function pageBuilds() {
  return check('the example\'s page builds with vite build', async () => {
    await run(process.execPath, [join(ROOT_MODULES, 'vite/bin/vite.js'), 'build', '--logLevel', 'error'], { cwd: EXAMPLE, timeoutMs: 120_000 });
    const html = readFileSync(join(EXAMPLE, 'dist/index.html'), 'utf8');
    assert(/<script[^>]+type="module"/.test(html), 'dist/index.html has no module script');
  });
}

/**
 * Starts redis-server and the balancer (two instances); `null` when that check failed.
 * @returns {Promise<{ redis: RedisServer, base: string, logs: () => Promise<Record<string, InstanceLog>> } | null>}
 */
async function startServers() {
  // Each is set by the check (null until then: the casts keep tsc from narrowing them to null for
  // good).
  let redis = /** @type {RedisServer | null} */ (null);
  let base = /** @type {string | null} */ (null);
  let logs = /** @type {(() => Promise<Record<string, InstanceLog>>) | null} */ (null);

  const started = await check('redis-server and the balancer with two instances start', async () => {
    redis = await startRedis();
    cleanups.push(() => /** @type {RedisServer} */ (redis).stop());
    base = (await startBalancer(redis.url)).url;
    const { body: instances } = /** @type {{ body: Instance[] }} */ (await getJson(`${base}/api/instances`));
    assert(instances.map((i) => i.name).join(',') === 'a,b', `instances ${JSON.stringify(instances)}`);
    for (const { name, port } of instances) {
      const { body, instance } = /** @type {{ body: InstanceLog, instance: string | null }} */ (await getJson(`http://127.0.0.1:${port}/api/log`));
      assert(body.instance === name && instance === name, `port ${port} answers as ${body.instance} (x-instance ${instance}), not ${name}`);
    }
    logs = async () => Object.fromEntries(await Promise.all(instances.map(async ({ name, port }) => [name, /** @type {InstanceLog} */ ((await getJson(`http://127.0.0.1:${port}/api/log`)).body)])));
  });
  if (!started) return null;
  return { redis: /** @type {RedisServer} */ (redis), base: /** @type {string} */ (base), logs: /** @type {() => Promise<Record<string, InstanceLog>>} */ (logs) };
}

/**
 * Drives the useChat page through turn 1 ("query the series") and turn 2 ("chart it"); the page
 * and its `#status` data after turn 2, or `null` when that check failed.
 * @param {string} base the balancer's URL
 * @returns {Promise<{ page: Page, status: DOMStringMap } | null>}
 */
async function chatTwoTurns(base) {
  // Each is set by the check (null until then: the casts keep tsc from narrowing them to null for
  // good).
  let page = /** @type {Page | null} */ (null);
  let status = /** @type {DOMStringMap | null} */ (null);

  const chatted = await check('the useChat page answers turn 1 ("query the series") and turn 2 ("chart it") through the balancer', async () => {
    const profile = await mkdtemp(join(tmpdir(), 'mcp-redis-route-'));
    cleanups.push(() => rm(profile, { recursive: true, force: true }));
    const context = await chromium.launchPersistentContext(profile, { ...chromiumOptions(), timeout: WAIT_MS });
    cleanups.push(() => context.close());
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    // Chromium logs every 4xx as a console error: the cache route's 410 for a stale entry is expected.
    const staleAnswer = (/** @type {import('playwright-core').ConsoleMessage} */ m) => /status of 410/.test(m.text()) && new URL(m.location().url || 'http://x/').pathname === '/api/cache';
    page.on('console', (m) => m.type() === 'error' && !staleAnswer(m) && problems.push(`console.error: ${m.text()}`));
    // Chromium sometimes reports a conditional revalidation of the cache route (If-None-Match,
    // answered 304) as ERR_ABORTED; what the page shows of the entry is checked below.
    const revalidation = (/** @type {import('playwright-core').Request} */ r) => new URL(r.url()).pathname === '/api/cache' && r.headers()['if-none-match'] && r.failure()?.errorText === 'net::ERR_ABORTED';
    page.on('requestfailed', (r) => !revalidation(r) && problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    // A 410 of the cache route is the answer for a stale entry, which the page shows.
    page.on('response', (r) => r.status() >= 400 && !(r.status() === 410 && new URL(r.url()).pathname === '/api/cache') && problems.push(`HTTP ${r.status()}: ${r.url()}`));
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/chat') posts.push(JSON.parse(r.postData() ?? 'null'));
    });
    await page.goto(`${base}/`, { waitUntil: 'load' });
    /** @type {(button: string, n: number) => Promise<void>} */
    const turn = async (button, n) => {
      await /** @type {Page} */ (page).click(button);
      await /** @type {Page} */ (page).waitForSelector(`#status[data-turns="${n}"][data-state="ready"], #status[data-state="error"]`);
      status = await /** @type {Page} */ (page).$eval('#status', (el) => ({ ...el.dataset }));
      assert(status.state === 'ready', `turn ${n}: ${status.error}`);
    };
    await turn('#query', 1);
    await turn('#chart', 2);
    assert(/** @type {DOMStringMap} */ (status).tools === 'timeseries.query:output-available,chart.create:output-available', `tool parts ${/** @type {DOMStringMap} */ (status).tools}`);
    // An element's textContent is a string (null only for a document or a doctype).
    const text = /** @type {string} */ (await page.textContent('.messages'));
    assert(/I have the series; its rows are stored as mcp\+cache:\/\//.test(text), 'turn 1 was not answered');
    assert(/Here is your chart \(chart-1\) with 240 points\./.test(text), `turn 2 was not answered: ${text.slice(-300)}`);
    assert(problems.length === 0, `${problems.length} page problem(s): ${problems.join(' | ')}`);
  });
  if (!chatted) return null;
  return { page: /** @type {Page} */ (page), status: /** @type {DOMStringMap} */ (status) };
}

/**
 * What the instances' logs and the page's POSTs say of the two turns: on different instances,
 * the 240 rows passed by reference (the model typed a short `data_uri`), kept off the chat's wire.
 * @param {{ log: Record<string, InstanceLog>, status: DOMStringMap }} options
 */
async function turnsByReference({ log, status }) {
  /** @type {(tool: string) => string[]} */
  const servedBy = (tool) => Object.values(log).filter((l) => l.modelCalls.some((c) => c.tool === tool)).map((l) => l.instance);

  await check('the two turns landed on different instances', () => {
    const [first, second] = [servedBy('timeseries.query'), servedBy('chart.create')];
    assert(first.length === 1 && second.length === 1, `timeseries.query on ${first}, chart.create on ${second}`);
    assert(first[0] !== second[0], `both turns ran on instance ${first[0]}`);
    assert(log[first[0]].charts.length === 0 && log[second[0]].queries.length === 0, `logs ${JSON.stringify(log).slice(0, 400)}`);
  });

  await check('the chart server of turn 2\'s instance received exactly the 240 rows turn 1 returned', () => {
    const query = Object.values(log).flatMap((l) => l.queries);
    const charts = Object.values(log).flatMap((l) => l.charts);
    assert(query.length === 1 && query[0].rows === 240, `queries ${JSON.stringify(query)}`);
    assert(charts.length === 1, `charts ${JSON.stringify(charts)}`);
    const [chart] = charts;
    assert(chart.rows === 240, `chart.create received ${chart.rows} rows`);
    assert(JSON.stringify(chart.firstRow) === JSON.stringify(query[0].firstRow), `first row ${JSON.stringify(chart.firstRow)}, timeseries returned ${JSON.stringify(query[0].firstRow)}`);
    assert(chart.keys.join(',') === 'title,data', `chart.create was dispatched with ${chart.keys}`);
  });

  await check('in turn 2 the model typed ~90 characters (title and data_uri), not the rows', () => {
    const [call] = Object.values(log).flatMap((l) => l.modelCalls.filter((c) => c.tool === 'chart.create'));
    const input = JSON.parse(call.input);
    assert(Object.keys(input).sort().join(',') === 'data_uri,title', `the model typed ${call.input.slice(0, 200)}`);
    assert(URI_RE.test(input.data_uri) && input.data_uri.startsWith(`mcp+cache://${status.chatId}/`), `data_uri ${input.data_uri} (chat ${status.chatId})`);
    assert(input.data_uri.length >= 40 && input.data_uri.length <= 140, `data_uri is ${input.data_uri.length} characters`);
    assert(call.input.length < 200 && !call.input.includes('"value"'), `the model's arguments carry rows: ${call.input.slice(0, 200)}`);
    console.log(`# turn 2: the model typed ${call.input.length} characters (data_uri ${input.data_uri.length}): ${call.input}`);
  });

  await check('the stored rows stay off the chat\'s wire: turn 2 posts timeseries.query\'s output without structuredContent, with its reference', () => {
    const turn2 = posts.find((body) => body?.messages?.some((m) => m.role === 'user' && m.parts.some((p) => p.text === 'chart it')));
    assert(turn2, `no POST of turn 2 among ${posts.length}`);
    const part = turn2.messages.flatMap((m) => m.parts).find((p) => p.type === 'dynamic-tool' && p.toolName === 'timeseries.query');
    assert(part?.state === 'output-available', `timeseries.query part ${JSON.stringify(part)?.slice(0, 200)}`);
    assert(!('structuredContent' in part.output), `the tool part carries structuredContent (${JSON.stringify(part.output).length} bytes)`);
    const uris = part.output._meta?.['mcp-result-cache/uris'];
    assert(Array.isArray(uris) && uris.length === 1 && uris[0].startsWith(`mcp+cache://${status.chatId}/`), `_meta ${JSON.stringify(part.output._meta)}`);
    console.log(`# turn 2 posted ${JSON.stringify(turn2).length} bytes; timeseries.query's output in it: ${JSON.stringify(part.output).length}`);
  });
}

/**
 * The rows turn 1 stored live in Redis under the chat's conversation.
 * @param {{ redis: RedisServer, status: DOMStringMap }} options
 */
async function rowsInRedis({ redis, status }) {
  await check('the rows live in Redis under the chat\'s conversation', async () => {
    const client = await nodeRedisClient(redis.url);
    try {
      const key = `mcp-result-cache:{${status.chatId}}:rows`;
      const entries = Object.fromEntries(Object.entries(await client.hGetAll(key)).filter(([field]) => field.startsWith('p:')));
      const payloads = Object.values(entries).map((v) => JSON.parse(v));
      assert(payloads.some((p) => Array.isArray(p?.rows) && p.rows.length === 240), `${key} holds ${Object.keys(entries).length} entr(ies) without the 240 rows`);
    } finally {
      await closeClient(client);
    }
  });
}

/**
 * The page shows the rows the route stored in Redis, read through `GET /api/cache` (cacheRoute,
 * `useCachedResult`), and shows them stale after "backfill the series" invalidated them.
 * @param {{ page: Page, log: Record<string, InstanceLog> }} options
 */
async function storedRows({ page, log }) {
  const [query] = Object.values(log).flatMap((l) => l.queries);
  /** @type {() => Promise<StoredRows>} */
  const shown = async () => page.$eval('#stored-rows', (el) => ({
    ...el.dataset,
    // (lib.dom without dom.iterable: NodeList and HTMLCollection are iterable in every browser)
    rows: [.../** @type {Iterable<Element>} */ (/** @type {unknown} */ (el.querySelectorAll('tbody tr')))].map((tr) => [.../** @type {Iterable<Element>} */ (/** @type {unknown} */ (tr.children))].map((td) => td.textContent)),
    text: /** @type {string} */ (el.textContent), // an element's is never null
  }));
  const ready = await check('the page shows the rows the route stored in Redis, read by reference from GET /api/cache', async () => {
    await page.waitForSelector('#stored-rows[data-status="ready"], #stored-rows[data-status="error"], #stored-rows[data-status="missing"]');
    const rows = await shown();
    assert(rows.status === 'ready' && rows.total === '240', `#stored-rows ${JSON.stringify(rows).slice(0, 300)}`);
    assert(rows.rows.length === 10, `${rows.rows.length} table rows`);
    assert(JSON.stringify(rows.rows[0]) === JSON.stringify([query.firstRow.t, String(query.firstRow.value)]), `first row ${JSON.stringify(rows.rows[0])}, the server returned ${JSON.stringify(query.firstRow)}`);
    assert(/^mcp\+cache:\/\//.test(/** @type {string} */ (rows.uri)), `uri ${rows.uri}`);
  });
  if (!ready) return;
  await check('after "backfill the series" invalidated them, the page shows the rows stale (keeping them)', async () => {
    const answered = (await page.$$('.msg.assistant')).length;
    await page.click('#backfill');
    await page.waitForFunction((n) => document.querySelectorAll('.msg.assistant').length > n, answered);
    await page.waitForSelector('#stored-rows[data-status="stale"]');
    const rows = await shown();
    assert(rows.rows.length === 10 && JSON.stringify(rows.rows[0]) === JSON.stringify([query.firstRow.t, String(query.firstRow.value)]), `stale rows ${JSON.stringify(rows.rows.slice(0, 2))}`);
    // The hook's `stale`: what invalidated them, and the tool to call again.
    assert(/out of date \(timeseries\.backfill\): ask for timeseries\.query again/.test(rows.text), `#stored-rows says ${rows.text.slice(0, 200)}`);
    assert(problems.length === 0, `${problems.length} page problem(s): ${problems.join(' | ')}`);
  });
}

/**
 * A reference minted in the page resolves on the server: "chart my local readings" runs the
 * page's `sensors.read` (stored in the page's IndexedDB), the model passes its reference to the
 * server's chart.create, the route asks (tool approval), "Allow" sends exactly that payload once.
 * @param {{ page: Page, redis: RedisServer, status: DOMStringMap, logs: () => Promise<Record<string, InstanceLog>> }} options
 */
async function pageToServer({ page, redis, status, logs }) {
  const before = posts.length;
  const local = await check('page → server: the page\'s 240 rows reach the server\'s chart.create by reference after "Allow", sent in one request only', async () => {
    await page.click('#local');
    await page.waitForSelector('#approve-allow');
    const asking = /** @type {string} */ (await page.textContent('.msg.tool[data-state="approval-requested"]'));
    assert(/chart\.create needs data stored in this page \(mcp\+cache:\/\//.test(asking), `the approval says: ${asking}`);
    await page.click('#approve-allow');
    await page.waitForFunction(() => /of this browser's readings with \d+ points/.test(document.querySelector('.messages')?.textContent ?? ''));
    const text = /** @type {string} */ (await page.textContent('.messages'));
    assert(/Here is your chart \(chart-\d+\) of this browser's readings with 240 points\./.test(text), `not answered: ${text.slice(-300)}`);
    const charts = Object.values(await logs()).flatMap((l) => l.charts);
    const drawn = charts.find((c) => c.title === 'this browser');
    assert(drawn, `charts ${JSON.stringify(charts)}`);
    assert(drawn.rows === 240 && JSON.stringify(drawn.firstRow) === JSON.stringify({ t: '2026-02-01T00:00:00.000Z', value: 0 }), `chart.create received ${JSON.stringify(drawn)}`);
    const sent = posts.slice(before).map((body) => body?.pageReferences ?? null);
    assert(sent.length >= 3, `${sent.length} POSTs for the local turn`);
    assert(sent.every(Array.isArray), `a POST without pageReferences: ${JSON.stringify(sent.map((s) => s?.length ?? s))}`);
    const carrying = sent.filter((refs) => refs.length > 0);
    assert(carrying.length === 1 && carrying[0].length === 1, `pageReferences per POST: ${JSON.stringify(sent.map((refs) => refs.length))}`);
    const [ref] = carrying[0];
    assert(ref.uri.startsWith(`mcp+cache://${status.chatId}/`) && !ref.uri.includes('#'), `uri ${ref.uri}`);
    assert(ref.payload.rows.length === 240 && ref.sourceServer === 'page-sensors' && ref.sourceToolName === 'sensors.read', `sent ${JSON.stringify(ref).slice(0, 200)}`);
    assert(posts.slice(0, before).every((body) => (body?.pageReferences ?? []).length === 0), 'an earlier POST carried page payloads');
    assert(problems.length === 0, `${problems.length} page problem(s): ${problems.join(' | ')}`);
  });
  if (!local) return;
  await check('page → server: the server stored the page\'s rows in Redis with the page tool\'s server as the source', async () => {
    const client = await nodeRedisClient(redis.url);
    try {
      const key = `mcp-result-cache:{${status.chatId}}:rows`;
      const payloads = Object.entries(await client.hGetAll(key)).filter(([field]) => field.startsWith('p:')).map(([, v]) => JSON.parse(v));
      assert(payloads.some((p) => p?.sensor === 'this-browser' && p.rows?.length === 240), `${key} lacks the page's rows`);
      const cache = new ResultCache({ storage: redisStorage(client) });
      const entries = await cache.entries({ convId: status.chatId });
      const fromPage = entries.filter((e) => e.sourceToolName === 'sensors.read');
      assert(fromPage.length === 1 && fromPage[0].sourceServer === 'page-sensors', `entries ${JSON.stringify(entries)}`);
    } finally {
      await closeClient(client);
    }
  });
}

main()
  .catch((error) => {
    results.push(false);
    console.log(`not ok - unexpected error: ${error?.message ?? error}`);
    console.error(error?.stack ?? error);
  })
  .finally(finish);
