// The React chat example: built as its README says and by Vite, then driven in headless Chromium.
import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EXAMPLE, PACKAGE, REPO, ROOT_MODULES, URI_RE } from './config.mjs';
import { assertNoProblems, dataset, openPage } from './browser.mjs';
import { C } from './check-names.mjs';
import { assert, check } from './harness.mjs';
import { node, npmEnv, run } from './processes.mjs';
import { listFiles, projects } from './projects.mjs';
import { serveStatic } from './static-server.mjs';

/** @typedef {import('./browser.mjs').OpenedPage} OpenedPage */

// Shared by the checks below: where the Vite build is served, and the chat page they drive.
/** @type {string | null} */
let chatUrl = null;
/** @type {OpenedPage | null} */
let chat = null;

/** The check `C.readme`. */
async function readmeBuild() {
  // A copy two levels below the repository root, so that its `file:../..` is this repository;
  // its dependencies come from the registry, as a new user's do.
  const dir = join(REPO, '.tmp/react-chat-readme');
  await rm(dir, { recursive: true, force: true });
  await cp(EXAMPLE, dir, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  assert(manifest.dependencies?.[PACKAGE] === 'file:../..', `examples/react-chat depends on ${manifest.dependencies?.[PACKAGE]}, not the repository (file:../..)`);
  await run('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, env: npmEnv(), timeout: 240_000 });
  await run('npm', ['run', 'build'], { cwd: dir, env: npmEnv(), timeout: 240_000 });
  const html = await readFile(join(dir, 'dist/index.html'), 'utf8').catch(() => '');
  assert(/<script[^>]+type="module"/.test(html), 'dist/index.html has no module script');
}

/** The check `C.viteBuild`. */
async function viteBuild() {
  const dir = projects['react-chat'];
  await node([join(ROOT_MODULES, 'vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: dir });
  const dist = join(dir, 'dist');
  const files = await listFiles(dist);
  assert(files.includes('index.html'), 'dist/index.html missing');
  assert(files.some((f) => /^assets\/.*\.wasm$/.test(f)), `no .wasm asset emitted: ${files.join(', ')}`);
  assert(files.some((f) => /^assets\/worker-.*\.js$/.test(f)), `no worker chunk emitted: ${files.join(', ')}`);
  // The example imports only the host entry: the server's and the lists' modules must not be
  // in the build. Each glue is recognised by a string its minified browser module keeps (the
  // name in its "await ready()" error), checked to be there so the test cannot go vacuous.
  const installed = join(dir, 'node_modules', PACKAGE);
  const hostWasm = await readFile(join(installed, 'pkg/web/mcp_result_cache_bg.wasm'));
  const wasmAssets = await Promise.all(files.filter((f) => f.endsWith('.wasm')).map((f) => readFile(join(dist, f))));
  assert(wasmAssets.some((w) => w.equals(hostWasm)), 'the host .wasm is not among the emitted assets');
  const scripts = await Promise.all(files.filter((f) => f.endsWith('.js')).map((f) => readFile(join(dist, f), 'utf8')));
  for (const { name, wasm, glue, marker } of [
    { name: 'server', wasm: 'pkg/server-web/mcp_result_cache_bg.wasm', glue: 'pkg/server.mjs', marker: 'new StateSync' },
    { name: 'lists', wasm: 'pkg/lists-web/mcp_result_cache_bg.wasm', glue: 'pkg/lists.mjs', marker: 'new ListCache' },
  ]) {
    const entryWasm = await readFile(join(installed, wasm));
    assert(!wasmAssets.some((w) => w.equals(entryWasm)), `the ${name} .wasm was bundled into a host-only build`);
    assert((await readFile(join(installed, glue), 'utf8')).includes(marker), `${glue} no longer contains "${marker}": update this check`);
    assert(!scripts.some((js) => js.includes(marker)), `the ${name} glue ("${marker}") was bundled into a host-only build`);
  }
  chatUrl = await serveStatic(dist);
}

/** The check `C.chat`. */
async function chatTurn() {
  chat = await openPage(`${chatUrl}/`);
  const { page } = chat;
  await page.click('#send');
  await page.waitForSelector('#status[data-state="done"], #status[data-state="error"]');
  const status = await dataset(page, '#status');
  assert(status.state === 'done', `chat turn failed: ${status.error || status.text}`);
  assert(status.points === '240', `chart.create answered ${status.points} points`);
  // The chart server itself received the 240 rows, while the model typed only the reference.
  assert(status.receivedPoints === '240', `the chart server received ${status.receivedPoints} rows`);
  assert(URI_RE.test(status.uri), `minted ${status.uri}`);
  const modelCall = JSON.parse(status.modelArgs);
  assert(modelCall.name === 'chart.create', `model called ${modelCall.name}`);
  const args = modelCall.arguments;
  assert(typeof args.data_uri === 'string' && args.data_uri.startsWith(status.uri), `model args ${status.modelArgs}`);
  assert(!('data' in args) && status.modelArgs.length < 200 && !status.modelArgs.includes('"value"'),
    `the model-visible arguments carry rows: ${status.modelArgs.slice(0, 120)}`);
  assert(status.dispatchedKeys === 'title,data', `chart.create was dispatched with ${status.dispatchedKeys}`);
  assert(status.storage === 'indexeddb', `storage ${status.storage}`);
  // useChat's message list renders both tool parts, each with its output available.
  const toolParts = await page.$$eval('.msg.tool', (els) => els.map((e) => ({ tool: e.dataset.tool, state: e.dataset.state, text: e.textContent })));
  assert(toolParts.length === 2 && toolParts[0].text.includes(status.uri), `tool parts: ${JSON.stringify(toolParts).slice(0, 200)}`);
  assert(toolParts.map((p) => `${p.tool}:${p.state}`).join(',') === 'timeseries.query:output-available,chart.create:output-available',
    `tool parts ${toolParts.map((p) => `${p.tool}:${p.state}`).join(',')}`);
  assert(status.chatId && URI_RE.test(status.uri) && status.uri.startsWith(`mcp+cache://${status.chatId}/`), `the reference ${status.uri} is not in chat ${status.chatId}`);
  assert(/Here is your chart \(chart-\d+\) with 240 points\./.test(/** @type {string} */ (await page.textContent('.messages'))), 'the assistant did not answer');
  const databases = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
  assert(databases.includes('react-chat-example'), `IndexedDB databases: ${databases}`);
  assertNoProblems(chat);
}

/**
 * The table of the chart's rows: its `data-*` attributes (those read here) and its cells.
 * @typedef {{ status: string, total: string, uri: string, rows: (string | null)[][] }} ChartRows
 */

/** The check `C.rows`. */
async function chartRows() {
  const { page } = /** @type {OpenedPage} */ (chat);
  // (The DOM collections are iterable in the page; the lib here has no "dom.iterable".)
  const table = async () => /** @type {Promise<ChartRows>} */ (page.$eval('#chart-rows', (el) => ({
    ...el.dataset,
    rows: [.../** @type {Iterable<Element>} */ (/** @type {unknown} */ (el.querySelectorAll('tbody tr')))]
      .map((tr) => [.../** @type {Iterable<Element>} */ (/** @type {unknown} */ (tr.children))].map((td) => td.textContent)),
  })));
  await page.waitForSelector('#chart-rows[data-status="ready"] tbody tr, #chart-rows[data-status="error"], #chart-rows[data-status="missing"]');
  const first = await table();
  const status = await dataset(page, '#status');
  assert(first.status === 'ready' && first.total === '240' && first.rows.length === 20, `#chart-rows ${JSON.stringify(first).slice(0, 300)}`);
  assert(first.uri === JSON.parse(status.modelArgs).arguments.data_uri, `the table reads ${first.uri}, the model passed ${status.modelArgs}`);
  const received = JSON.parse(/** @type {string} */ (await page.textContent('#chart-received')));
  assert(Array.isArray(received) && received.length === 240, 'the page does not expose what the chart server received');
  const asCells = (/** @type {{ t: unknown, value: unknown }[]} */ rows) => rows.map((r) => [r.t, String(r.value)]);
  assert(JSON.stringify(first.rows) === JSON.stringify(asCells(received.slice(0, 20))), `rows 1-20 ${JSON.stringify(first.rows.slice(0, 2))}, the chart got ${JSON.stringify(received.slice(0, 2))}`);
  await page.click('#rows-next');
  await page.waitForSelector('#chart-rows[data-offset="20"][data-status="ready"]');
  await page.waitForFunction((t) => document.querySelector('#chart-rows tbody tr td')?.textContent === t, received[20].t);
  const second = await table();
  assert(JSON.stringify(second.rows) === JSON.stringify(asCells(received.slice(20, 40))), `rows 21-40 ${JSON.stringify(second.rows.slice(0, 2))}`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const json = JSON.parse(await readFile(await download.path(), 'utf8'));
  assert(download.suggestedFilename() === 'cpu.load-rows.json', `downloaded ${download.suggestedFilename()}`);
  assert(JSON.stringify(json) === JSON.stringify(received), `the download holds ${Array.isArray(json) ? json.length : typeof json} rows, not the 240 the chart got`);
  assertNoProblems(/** @type {OpenedPage} */ (chat));
}

/** The check `C.mail`. */
async function mailApproval() {
  const { page } = /** @type {OpenedPage} */ (chat);
  const turn = async (/** @type {string} */ button) => {
    await page.click('#mail');
    await page.waitForSelector('#approve-allow');
    const asked = /** @type {string} */ (await page.textContent('.msg.tool[data-state="approval-requested"]'));
    await page.click(button);
    await page.waitForSelector('#mail-status[data-state="done"]');
    return { asked, status: await dataset(page, '#mail-status') };
  };
  const denied = await turn('#approve-deny');
  assert(/send_report/.test(denied.asked) && /mcp\+cache:\/\//.test(denied.asked), `the approval shown: ${denied.asked}`);
  assert(denied.status.answer === 'denied' && denied.status.mailerCalls === '0', `denied: ${JSON.stringify(denied.status)}`);
  assert(/You declined, so nothing was mailed\./.test(/** @type {string} */ (await page.textContent('.messages'))), 'the model was not told of the denial');
  const allowed = await turn('#approve-allow');
  assert(allowed.status.answer === 'allowed' && allowed.status.mailerCalls === '1' && allowed.status.mailerRows === '240',
    `allowed: ${JSON.stringify(allowed.status)}`);
  assert(/Mailed 240 readings to ops@partner\.example/.test(/** @type {string} */ (await page.textContent('.messages'))), 'the model did not report the mail');
  assertNoProblems(/** @type {OpenedPage} */ (chat));
}

/** The check `C.rowsCleared`. */
async function rowsCleared() {
  const { page } = /** @type {OpenedPage} */ (chat);
  await page.click('#clear');
  await page.waitForSelector('#chart-rows[data-status="missing"]');
  assert(/no longer stored/.test(/** @type {string} */ (await page.textContent('#chart-rows'))), 'the table does not say the rows are gone');
  assert((await page.$$('#chart-rows tbody tr')).length === 0, 'the cleared rows are still shown');
  assertNoProblems(/** @type {OpenedPage} */ (chat));
}

/** The check `C.worker`. */
async function moduleWorker() {
  chat ??= await openPage(`${chatUrl}/`);
  const { page } = chat;
  await page.waitForSelector('#worker-status[data-state="done"], #worker-status[data-state="error"]');
  const status = await dataset(page, '#worker-status');
  assert(status.state === 'done', `worker failed: ${status.error || status.text}`);
  assert(URI_RE.test(status.uri), `worker minted ${status.uri}`);
  assert(status.count === '240' && status.equal === 'true', `worker returned ${status.count} rows, equal=${status.equal}`);
  assert(status.pageCount === '240', `the page read ${status.pageCount} rows of the worker's reference`);
  assert(status.storage === 'indexeddb', `worker storage ${status.storage}`);
  assert(chat.workers.some((u) => /\/assets\/worker-[^/]*\.js$/.test(u)), `workers: ${chat.workers.join(', ') || 'none'}`);
  assertNoProblems(chat);
}

/** Builds the react-chat example (from a checkout, and by Vite) and drives it in Chromium. */
export async function reactChatChecks() {
  await check(C.readme, [], readmeBuild, 500_000);
  await check(C.viteBuild, [C.install], viteBuild);
  await check(C.chat, [C.viteBuild], chatTurn);
  await check(C.rows, [C.chat], chartRows);
  await check(C.mail, [C.chat], mailApproval);
  await check(C.rowsCleared, [C.rows, C.mail], rowsCleared);
  await check(C.worker, [C.viteBuild], moduleWorker);
}
