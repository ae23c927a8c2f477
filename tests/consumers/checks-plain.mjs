// Bundler-free pages: each entry's browser module imported by a plain <script type="module">.
import { URI_RE } from './config.mjs';
import { assertNoProblems, dataset, openPage } from './browser.mjs';
import { C } from './check-names.mjs';
import { assert, check } from './harness.mjs';
import { projects } from './projects.mjs';
import { serveStatic } from './static-server.mjs';

/** Opens one page of the plain-esm project (no bundler) and waits until its script is done. */
const plainPage = async (/** @type {string} */ file) => {
  const url = await serveStatic(projects['plain-esm']);
  const page = await openPage(`${url}/${file}`);
  await page.page.waitForSelector('#status:not([data-state="running"])');
  const status = await dataset(page.page, '#status');
  assert(status.state === 'done', `${file} failed: ${status.error || status.text}`);
  return { page, status };
};

/** The check `C.plain`. */
async function plainHost() {
  const { page: plain, status } = await plainPage('index.html');
  assert(URI_RE.test(status.uri) && URI_RE.test(status.visibleUri), `minted ${status.uri} / ${status.visibleUri}`);
  assert(status.equal === 'true' && status.rows === '240' && status.rowsEqual === 'true',
    `round trip: equal=${status.equal}, rows=${status.rows}, rowsEqual=${status.rowsEqual}`);
  assert(status.storage === 'indexeddb', `storage ${status.storage}`);
  assert(plain.wasmResponses.some((r) => r.url.endsWith('/node_modules/mcp-result-cache/pkg/web/mcp_result_cache_bg.wasm')),
    `wasm fetched from ${plain.wasmResponses.map((r) => r.url).join(', ')}`);
  assertNoProblems(plain);
}

/** The check `C.plainServer`. */
async function plainServer() {
  const { page, status } = await plainPage('server.html');
  assert(status.text0 === '<cache_invalidation cause="billing.refund" domains="billing.get_*" />', `decorated ${status.text0}`);
  const fetched = page.wasmResponses.map((r) => r.url);
  assert(fetched.length === 1 && fetched[0].endsWith('/node_modules/mcp-result-cache/pkg/server-web/mcp_result_cache_bg.wasm'),
    `wasm fetched: ${fetched.join(', ')}`);
  assertNoProblems(page);
}

/** The check `C.plainLists`. */
async function plainLists() {
  const { page, status } = await plainPage('lists.html');
  assert(status.hit === 'true' && status.expired === 'true' && status.dropped === '1',
    `round trip: hit=${status.hit}, expired=${status.expired}, dropped=${status.dropped}`);
  assert(status.vars === '{"id":"7"}', `matchUriTemplate gave ${status.vars}`);
  assert(Number(status.hostExports) > 10 && status.hostListExports === '',
    `pkg/browser.mjs (${status.hostExports} exports) exports ${status.hostListExports}`);
  const fetched = page.wasmResponses.map((r) => r.url);
  assert(fetched.length === 1 && fetched[0].endsWith('/node_modules/mcp-result-cache/pkg/lists-web/mcp_result_cache_bg.wasm'),
    `wasm fetched: ${fetched.join(', ')}`);
  assertNoProblems(page);
}

/** Opens each plain page of the plain-esm project and checks its round trip. */
export async function plainPageChecks() {
  await check(C.plain, [C.install], plainHost);
  await check(C.plainServer, [C.install], plainServer);
  await check(C.plainLists, [C.install], plainLists);
}
