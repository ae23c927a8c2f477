// Playwright (playwright-core + Debian's /usr/bin/chromium) through the demo page served by
// scripts/serve.mjs, whose real MCP servers (scripts/mcp-servers.mjs, official SDK on
// Streamable HTTP) the page reaches with the SDK Client wrapped by wrapMcpClient. Asserts each
// step's visible outcome and, on the server side, what chart.create received (GET
// /mcp/chart/last-call); that entries survive a reload; saves www-demo.png (copy it to docs/
// when the page changes). Any page error, console error, failed request or CSP violation fails
// the run; a standalone SSE stream is opened to the billing server only. Then,
// on a second page: hostile text from a tool result stays text, and the page's
// Content-Security-Policy blocks inline script.
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../../scripts/chromium.mjs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { checks } from './checks.mjs';
import { serve } from '../../scripts/serve.mjs';
import { timeseries } from '../../scripts/mcp-servers.mjs';
import * as nodeEntry from '../../pkg/node.mjs';

/**
 * A page's window: the CSP violation reporter `watch` exposes, and what hostile markup or an
 * inline script would set if it ran.
 * @typedef {Window & typeof globalThis & {
 *   __reportViolation: (violation: string) => void,
 *   __xss?: unknown,
 *   __inline?: unknown,
 * }} TestWindow
 */
/** @typedef {import('playwright-core').Page} Page */

const server = await serve();
const profile = await mkdtemp(join(tmpdir(), 'mcp-rc-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  ...chromiumOptions(),
  viewport: { width: 1280, height: 1000 },
});
/** @type {string[]} */
const problems = [];
const { check, finish } = checks('e2e');
const URI = /^mcp\+cache:\/\/demo-[a-z0-9]+\/[A-Za-z0-9_-]{11}$/;

/**
 * Collects page errors, console errors (every one: none is expected) and CSP violations of a
 * page. Returns a function listing the standalone-stream GETs the page made (`GET /mcp/<name>`):
 * the page opens one only to the billing server, the one that sends stale notifications; the
 * data and chart servers, which would answer 405, are never asked.
 * @param {Page} page @param {string[]} into
 */
async function watch(page, into) {
  /** @type {string[]} */
  const streams = [];
  page.on('pageerror', (e) => into.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && into.push(`console.error: ${m.text()}`));
  page.on('request', (r) => {
    const { pathname } = new URL(r.url());
    if (r.method() === 'GET' && /^\/mcp\/[a-z]+$/.test(pathname)) streams.push(`GET ${pathname}`);
  });
  page.on('response', (r) => r.status() >= 400 && into.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`));
  await page.exposeFunction('__reportViolation', (/** @type {string} */ v) => into.push(`CSP violation: ${v}`));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation',
    (e) => /** @type {TestWindow} */ (window).__reportViolation(`${e.effectiveDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`)));
  return () => [...streams];
}

const lastCall = async () => (await fetch(new URL('/mcp/chart/last-call', server.origin))).json();
/** The page's session with each server (data, chart, billing), and a server's calls in it. */
const sessionsOf = async (/** @type {Page} */ page) =>
  /** @type {string} */ (await page.getAttribute('#servers', 'data-sessions')).split(',');
const callsIn = async (/** @type {string} */ name, /** @type {string} */ session) => (await fetch(new URL(`/mcp/${name}/calls?session=${session}`, server.origin))).json();

try {
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const streams = await watch(page, problems);
  await page.goto(`${server.url}?fast`);
  await page.waitForSelector('#status:not([data-state="running"])');
  const serverSteps = page.locator('.step.server pre');
  const modelCalls = page.locator('.step.assistant pre');

  await check('the scripted turn completes', async () => {
    assert.equal(await page.getAttribute('#status', 'data-state'), 'done', /** @type {string} */ (await page.textContent('#status')));
  });
  await check('the page holds one Streamable HTTP session with each of the four MCP servers', async () => {
    const sessions = await sessionsOf(page);
    assert.equal(sessions.length, 4);
    for (const id of sessions) assert.match(id, /^[0-9a-f-]{36}$/);
    assert.match(/** @type {string} */ (await page.textContent('#servers')), /demo-data on \/mcp\/data[\s\S]*demo-chart on \/mcp\/chart[\s\S]*demo-billing on \/mcp\/billing[\s\S]*demo-mailer on \/mcp\/mailer/);
  });
  await check('chart.create declares only `data`; the model is shown `data_uri`, added by augmentation', async () => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp/chart', server.origin)));
    const [tool] = (await client.listTools()).tools;
    await client.close();
    assert.equal(tool.name, 'chart.create');
    assert.ok(tool.inputSchema.properties);
    assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), ['data', 'title']);
    assert.equal(tool.inputSchema.additionalProperties, false);
    const shown = page.locator('#tools li[data-tool="chart.create"]');
    assert.deepEqual(await shown.locator('.params code').allTextContents(), ['title', 'data', 'data_uri']);
    assert.equal(await shown.locator('code.augmented').textContent(), 'data_uri');
    assert.match(/** @type {string} */ (await page.textContent('#tools li[data-tool="timeseries.query"]')), /\[Cache-Control: immutable\]/);
    assert.match(/** @type {string} */ (await page.textContent('#tools li[data-tool="billing.get_invoice"]')), /\[Cache-Control: no-store\]/);
  });
  await check('the model sees a preview: shape, first rows, _cache_uri, _cache_refs and a hint naming the read-back tools', async () => {
    const text = /** @type {string} */ (await serverSteps.first().textContent());
    const visible = JSON.parse(text);
    assert.equal(visible._cache_shape.rows, 240);
    assert.deepEqual(visible._cache_shape.columns, ['t', 'value']);
    assert.deepEqual(visible._preview_rows, timeseries('cpu', '2026-11-01T00:00:00Z', visible._preview_rows.length));
    assert.ok(visible._preview_rows.length >= 10 && visible._preview_rows.length < 240, `${visible._preview_rows.length} rows`);
    assert.match(visible._cache_uri, URI);
    assert.equal(visible._cache_refs.rows, `${visible._cache_uri}#/rows`);
    assert.match(visible._truncation_hint, /cache_read .*cache_search .*cache_select/);
    assert.ok(text.length < 3_000, `${text.length} chars`);
    console.log(`#   chars the model sees of the 240-row result in the preview view: ${text.length}`);
  });
  await check('the read-back tools are listed next to the servers\' tools', async () => {
    for (const name of ['cache_read', 'cache_search', 'cache_select']) {
      assert.match(/** @type {string} */ (await page.textContent(`#tools li[data-tool="${name}"]`)), /host, read-back/);
    }
  });
  await check('the model copies _cache_refs.rows into data_uri and the host resolves it', async () => {
    const visible = JSON.parse(/** @type {string} */ (await serverSteps.first().textContent()));
    const call = JSON.parse(/** @type {string} */ (await modelCalls.nth(1).textContent()));
    assert.equal(call.name, 'chart.create');
    assert.deepEqual(call.arguments, { title: 'CPU, 240 h', data_uri: visible._cache_refs.rows });
    assert.match(/** @type {string} */ (await page.textContent('#steps')), /beforeToolCall resolved the reference from IndexedDB/);
  });
  await check('the chart server received the 240 rows as `data` and no _uri key', async () => {
    assert.equal(await page.getAttribute('.step[data-keys]', 'data-keys'), 'title,data');
    assert.equal(await page.getAttribute('.step[data-keys]', 'data-rows'), '240');
    const answer = JSON.parse(/** @type {string} */ (await page.locator('.step.server[data-tool="chart.create"] pre').first().textContent()));
    assert.equal(answer.chart.points, 240);
  });
  await check('the model reads the rows back with cache_read, each exactly once, and finds the peak with cache_search', async () => {
    const reads = page.locator('.step.server[data-tool="cache_read"] pre');
    const pages = await Promise.all((await reads.all()).map(async (pre) => JSON.parse(/** @type {string} */ (await pre.textContent()))));
    assert.ok(pages.length >= 2, `${pages.length} pages`);
    for (const [k, p] of pages.entries()) {
      assert.equal(p.total, 240);
      assert.equal(p.offset, k === 0 ? 0 : pages[k - 1].next_offset);
      assert.ok(JSON.stringify(p).length <= 4000);
    }
    assert.deepEqual(pages.flatMap((p) => p.items), timeseries('cpu', '2026-11-01T00:00:00Z', 240));
    const rows = timeseries('cpu', '2026-11-01T00:00:00Z', 240);
    const peak = Math.max(...rows.map((r) => r.value));
    const search = JSON.parse(/** @type {string} */ (await page.locator('.step.server[data-tool="cache_search"] pre').textContent()));
    assert.equal(search.query, String(peak));
    const hits = search.matches.filter((/** @type {{ pointer: string }} */ m) => m.pointer.endsWith('/value'))
      .map((/** @type {{ pointer: string }} */ m) => Number(m.pointer.split('/')[2]));
    assert.deepEqual(hits, rows.flatMap((r, i) => (r.value === peak ? [i] : [])));
    assert.match(/** @type {string} */ (await page.locator('.step.assistant pre').last().textContent()), new RegExp(`peaked at ${peak} %`));
  });
  await check('cache_select stores the last 48 hours as a derived reference; the chart server receives those 48 rows', async () => {
    const select = JSON.parse(/** @type {string} */ (await page.locator('.step.server[data-tool="cache_select"] pre').first().textContent()));
    assert.equal(select.count, 48);
    assert.match(select._cache_uri, URI);
    const chartCalls = (await page.locator('.step.assistant[data-call] pre').allTextContents()).map((t) => JSON.parse(t))
      .filter((c) => c.name === 'chart.create');
    assert.deepEqual(chartCalls.at(-1).arguments, { title: 'CPU, last 48 h', data_uri: select._cache_uri });
    const received = await lastCall();
    const [, chart] = await sessionsOf(page);
    assert.equal(received.sessionId, chart, 'the call came from the page\'s chart session');
    assert.deepEqual(Object.keys(received.arguments), ['title', 'data']);
    assert.deepEqual(received.arguments.data, timeseries('cpu', '2026-11-01T00:00:00Z', 240).slice(192));
    assert.equal(await page.getAttribute('.step[data-rows48]', 'data-rows48'), '48');
  });
  await check('the chart is drawn from the chart server\'s answer', async () => {
    const answer = JSON.parse(/** @type {string} */ (await page.locator('.step.server[data-tool="chart.create"] pre').last().textContent()));
    assert.equal(answer.chart.points, 48);
    assert.equal(await page.getAttribute('#chart svg', 'data-chart-id'), answer.chart.id);
    assert.equal(await page.getAttribute('#chart svg', 'data-points'), '48');
    const points = /** @type {string} */ (await page.getAttribute('#chart polyline', 'points')).trim().split(/\s+/);
    assert.equal(points.length, 48);
    // y = 172 - scaled * 144 / 1000 (the page's 200-px-high chart with 28 px of padding)
    assert.deepEqual(points.map((p) => Number(p.split(',')[1])),
      answer.chart.scaled.map((/** @type {number} */ v) => Number((172 - (v * 144) / 1000).toFixed(1))));
  });
  await check('the savings counter shows the chars saved', async () => {
    const saved = Number(await page.getAttribute('#savings', 'data-saved-chars'));
    assert.ok(saved > 8_000, `saved ${saved}`);
    console.log(`#   chars saved for the 240-row chart call: ${saved}`);
  });
  await check('the refund\'s stale notification arrives over the billing connection, before its result', async () => {
    const notice = page.locator('.step.notice');
    assert.equal(await notice.count(), 1);
    const message = JSON.parse(/** @type {string} */ (await notice.locator('pre').textContent()));
    assert.deepEqual(message, { method: 'notifications/resources/updated', params: { uri: 'mcpfusion://stale/billing.get_*' } });
    const order = await page.$$eval('#steps > li', (items) => items.map((li) =>
      (li.classList.contains('notice') ? 'notice' : li.dataset.tool === 'billing.refund' ? 'result' : '')).filter(Boolean));
    assert.deepEqual(order, ['notice', 'result']);
    assert.match(/** @type {string} */ (await page.textContent('.step.server[data-tool="billing.refund"] pre')),
      /^<cache_invalidation cause="billing.refund" domains="billing.get_\*" \/>/);
  });
  await check('the lines selected before the refund (derived from the now stale invoice) are refused as stale, the server not called', async () => {
    const refused = page.locator('.step[data-refused]');
    assert.equal(await refused.count(), 1);
    assert.equal(await refused.getAttribute('data-tool'), 'billing.render_report');
    assert.equal(await refused.getAttribute('data-stale'), 'true');
    const envelope = JSON.parse(/** @type {string} */ (await refused.locator('pre').textContent()));
    const selected = JSON.parse(/** @type {string} */ (await page.locator('.step.server[data-tool="cache_select"] pre').nth(1).textContent()));
    assert.deepEqual(envelope._stale_uris, [selected._cache_uri]);
    assert.match(envelope.error,
      /^invalid_args: cache URI mcp\+cache:\/\/\S+ is stale \(invalidated by (the server's stale notification for billing\.get_\*|billing\.refund)\)$/);
    assert.match(envelope.fix_hint, /billing\.get_invoice/);
    const [, , billing] = await sessionsOf(page);
    assert.deepEqual(await callsIn('billing', billing),
      { 'billing.get_invoice': 2, 'billing.refund': 1, 'billing.render_report': 1 }, 'only the fresh report reached the server');
  });
  await check('after re-reading the invoice, the report renders from the fresh reference', async () => {
    const reports = page.locator('.step.server[data-tool="billing.render_report"] pre');
    assert.equal(await reports.count(), 1);
    const report = JSON.parse(/** @type {string} */ (await reports.textContent()));
    assert.equal(report.ok, true);
    assert.equal(report.lines, 60, 'the 60 lines of 3 or 4 units');
  });
  await check('an identical immutable call is answered from the cache, the data server called once', async () => {
    assert.equal(await page.getAttribute('.step[data-reused]', 'data-reused'), 'true');
    const [data, chart] = await sessionsOf(page);
    assert.deepEqual(await callsIn('data', data), { 'timeseries.query': 1 });
    assert.deepEqual(await callsIn('chart', chart), { 'chart.create': 2 });
  });
  await check('the entries table lists the IndexedDB entries with the stale ones: the invoice, and the lines selected from it (as their lookup reads them)', async () => {
    assert.ok(Number(await page.getAttribute('#entries', 'data-count')) >= 3);
    assert.equal(await page.getAttribute('#entries', 'data-stale'), '2');
    const stale = await page.locator('#entries tbody tr.stale').allTextContents();
    assert.equal(stale.length, 2);
    for (const row of stale) assert.match(row, /billing\.get_invoice/, 'the lines read with their source\'s tool');
  });
  await check('the browser entry exports what the Node entry exports, but the Node-only route handler', async () => {
    const names = await page.evaluate(async () => Object.keys(await import(/** @type {string} */ ('/pkg/browser.mjs'))).sort());
    // `cacheRoute` serves a cache over HTTP from a server (docs/REACT.md): Node only.
    assert.deepEqual(names, Object.keys(nodeEntry).filter((name) => name !== 'cacheRoute').sort());
    assert.ok(Object.hasOwn(nodeEntry, 'cacheRoute'));
  });
  const before = Number(await page.getAttribute('#entries', 'data-count'));
  await page.screenshot({ path: 'www-demo.png', fullPage: true });
  await check('entries survive a reload', async () => {
    await page.click('#reload');
    await page.waitForSelector('#status:not([data-state="running"])');
    assert.equal(await page.getAttribute('#status', 'data-state'), 'done', /** @type {string} */ (await page.textContent('#status')));
    assert.equal(Number(await page.getAttribute('#reload-check', 'data-survived')), before);
    assert.equal(await page.getAttribute('#reload-check', 'data-verified'), 'true');
  });
  /** Clicks "Mail the invoice", answers the approval prompt, waits for the turn's end. */
  /** @param {string} button a selector of the prompt's buttons */
  const mailTurn = async (button) => {
    await page.click('#mail');
    await page.waitForSelector('#approval-deny');
    const prompt = /** @type {string} */ (await page.locator('#approval').textContent());
    await page.click(button);
    await page.waitForSelector('#status[data-state="done"], #status[data-state="error"]');
    assert.equal(await page.getAttribute('#status', 'data-state'), 'done', /** @type {string} */ (await page.textContent('#status')));
    return { prompt };
  };
  const mailerSession = async () => (await sessionsOf(page))[3];
  await check('mailing the invoice by reference to the open-world mailer asks first (flows "guarded"); Deny: the mailer never receives a call', async () => {
    const { prompt } = await mailTurn('#approval-deny');
    assert.match(prompt, /demo-mailer's send_report would receive data from demo-billing \(billing\.get_invoice\)/);
    assert.match(prompt, /mcp\+cache:\/\/demo-[a-z0-9]+\/[A-Za-z0-9_-]{11}#\/lines/);
    const refused = JSON.parse(/** @type {string} */ (await page.locator('.step[data-refused][data-tool="send_report"] pre').last().textContent()));
    assert.equal(refused.error, 'reference_not_allowed');
    assert.match(refused.fix_hint, /declined.*"demo-billing".*"demo-mailer"/);
    assert.match(refused._refused_uris[0], /#\/lines$/);
    assert.match(/** @type {string} */ (await page.textContent('#steps')), /flow policy: data of demo-billing may not reach demo-mailer; send_report is not called/);
    assert.equal(await page.locator('.step[data-mailer-calls]').last().getAttribute('data-mailer-calls'), '0');
    assert.deepEqual(await callsIn('mailer', await mailerSession()), {}, 'the mailer\'s own log: no tools/call');
    assert.equal(await (await fetch(new URL('/mcp/mailer/last-call', server.origin))).json(), null);
  });
  await check('Allow once: the mailer receives the 120 invoice lines, and the approval covered that call only', async () => {
    const { prompt } = await mailTurn('#approval-allow');
    assert.match(prompt, /demo-mailer's send_report/);
    assert.equal(await page.locator('.step[data-mailer-calls]').last().getAttribute('data-mailer-calls'), '1');
    assert.equal(await page.locator('.step[data-mailer-lines]').last().getAttribute('data-mailer-lines'), '120');
    assert.deepEqual(await callsIn('mailer', await mailerSession()), { send_report: 1 });
    const received = await (await fetch(new URL('/mcp/mailer/last-call', server.origin))).json();
    assert.equal(received.sessionId, await mailerSession());
    assert.deepEqual(Object.keys(received.arguments), ['to', 'subject', 'lines']);
    assert.equal(received.arguments.lines.length, 120);
    assert.deepEqual(Object.keys(received.arguments.lines[0]), ['sku', 'qty', 'cents']);
    // A third attempt asks again: nothing was remembered.
    const { prompt: again } = await mailTurn('#approval-deny');
    assert.match(again, /demo-mailer's send_report/);
    assert.deepEqual(await callsIn('mailer', await mailerSession()), { send_report: 1 });
  });
  await check('no page error, console error, failed request or CSP violation (the SDK bundle runs under the strict CSP)', async () => {
    assert.deepEqual(problems, [], problems.join(' | '));
  });
  await check('a standalone stream is opened to the billing server only, once per load', async () => {
    assert.deepEqual(streams(), ['GET /mcp/billing', 'GET /mcp/billing']);
  });
  await check('the MCP servers refuse a foreign Origin or Host', async () => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) };
    const foreign = await fetch(new URL('/mcp/billing', server.origin), { ...init, headers: { ...init.headers, origin: 'http://evil.example' } });
    assert.equal(foreign.status, 403);
    const { request } = await import('node:http');
    const status = await new Promise((resolve, reject) => {
      const req = request(new URL('/mcp/billing', server.origin), { ...init, headers: { ...init.headers, host: 'evil.example' } },
        (res) => resolve(res.statusCode));
      req.on('error', reject);
      req.end(init.body);
    });
    assert.equal(status, 403);
    const ok = await fetch(new URL('/mcp/billing', server.origin), init);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  });

  // A second page for the hostile checks: their deliberate CSP violation must not count above.
  const hostile = await context.newPage();
  /** @type {string[]} */
  const hostileProblems = [];
  const hostileStreams = await watch(hostile, hostileProblems);
  await hostile.goto(`${server.url}?fast`);
  await hostile.waitForSelector('#status:not([data-state="running"])');
  await check('markup in a metric and a chart title stays text through the servers and the page', async () => {
    const title = 'cpu"><img src=x onerror="window.__xss=1"><script>window.__xss=2</script></text><text>';
    const shown = await hostile.evaluate(async (text) => {
      // The page's own dispatch loop and the real servers: the data server echoes the metric,
      // the chart server the title, and the page draws the chart server's answer.
      const { callTool } = /** @type {typeof import('../../www/demo.mjs')} */ (await import(/** @type {string} */ ('/www/demo.mjs')));
      const series = await callTool('timeseries.query', { metric: text, start: '2026-11-01T00:00:00Z', hours: 240 });
      await callTool('chart.create', { title: text, data_uri: series.value._cache_refs.rows });
      // The preview keeps headline fields only: the metric is read back with cache_read.
      const read = await callTool('cache_read', { uri: series.value._cache_uri });
      await new Promise((resolve) => setTimeout(resolve, 200)); // time for an injected <img> to fail
      const svg = /** @type {SVGSVGElement} */ (document.querySelector('#chart svg'));
      return {
        xss: /** @type {TestWindow} */ (window).__xss,
        injected: document.querySelectorAll('img, script:not([src]), #chart foreignObject').length,
        echoed: read.value.keys.find((/** @type {{ key: string, value?: unknown }} */ k) => k.key === 'metric')?.value,
        // as the model reads it: inside JSON text
        transcript: /** @type {HTMLElement} */ (document.querySelector('#steps')).textContent.includes(JSON.stringify(text).slice(1, -1)),
        texts: svg.querySelectorAll('text').length,
        title: svg.querySelector('text.title')?.textContent,
        label: svg.getAttribute('aria-label'),
        points: svg.dataset.points,
      };
    }, title);
    assert.equal(shown.injected, 0, 'markup from a tool result became elements');
    assert.equal(shown.xss, undefined, 'script from a tool result ran');
    assert.equal(shown.echoed, title);
    assert.equal(shown.transcript, true);
    assert.equal(shown.texts, 3);
    assert.equal(shown.title, `${title} — 240 points`);
    assert.equal(shown.label, title);
    assert.equal(shown.points, '240');
    assert.deepEqual(hostileProblems, [], hostileProblems.join(' | '));
    assert.deepEqual(hostileStreams(), ['GET /mcp/billing']);
  });
  await check('a strict CSP is in place and reports an inline script it blocked', async () => {
    const csp = /** @type {string} */ (await hostile.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content'));
    assert.match(csp, /(^|; )script-src 'self' 'wasm-unsafe-eval'(;|$)/);
    assert.match(csp, /(^|; )connect-src 'self'(;|$)/);
    assert.match(csp, /(^|; )default-src 'none'(;|$)/);
    assert.match(csp, /(^|; )object-src 'none'(;|$)/);
    assert.match(csp, /(^|; )base-uri 'none'(;|$)/);
    assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'|\*|data:|https?:/);
    const outcome = await hostile.evaluate(() => new Promise((resolve) => {
      document.addEventListener('securitypolicyviolation', (e) => resolve({
        directive: e.effectiveDirective, blocked: e.blockedURI, ran: /** @type {TestWindow} */ (window).__inline,
      }), { once: true });
      const script = document.createElement('script');
      script.textContent = 'window.__inline = true';
      document.body.append(script);
      setTimeout(() => resolve({ directive: 'no violation reported', ran: /** @type {TestWindow} */ (window).__inline }), 5_000);
    }));
    assert.deepEqual(outcome, { directive: 'script-src-elem', blocked: 'inline', ran: undefined });
  });
} finally {
  await context.close();
  await server.close();
  await rm(profile, { recursive: true, force: true });
}
finish();
