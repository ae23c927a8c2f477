// Playwright (playwright-core + Debian's /usr/bin/chromium) through the demo page served by
// scripts/serve.mjs: asserts each step's visible outcome, that entries survive a reload, and
// saves www-demo.png (copy it to docs/ when the page changes). Any page error or console error
// fails the run. Then, on a second page: hostile text from a tool result stays text, and the
// page's Content-Security-Policy blocks inline script.
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../../scripts/chromium.mjs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { checks } from './checks.mjs';
import { serve } from '../../scripts/serve.mjs';
import * as nodeEntry from '../../js/node.mjs';

const server = await serve();
const profile = await mkdtemp(join(tmpdir(), 'mcp-rc-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  ...chromiumOptions(),
  viewport: { width: 1280, height: 1000 },
});
const problems = [];
const { check, finish } = checks('e2e');

try {
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console.error: ${m.text()}`));
  await page.goto(`${server.url}?fast`);
  await page.waitForSelector('#status:not([data-state="running"])');

  await check('the scripted turn completes', async () => {
    assert.equal(await page.getAttribute('#status', 'data-state'), 'done', await page.textContent('#status'));
  });
  await check('the model sees a summary with _cache_uri, not 240 rows', async () => {
    const first = await page.locator('.step.server pre').first().textContent();
    const visible = JSON.parse(first);
    assert.equal(visible._truncated, true);
    assert.match(visible._cache_uri, /^mcp\+cache:\/\/demo-[a-z0-9]+\/[A-Za-z0-9_-]{11}$/);
    assert.equal(visible.rows, 240);
    assert.equal(visible.data, undefined);
  });
  await check('the model emits the URI and the host resolves it', async () => {
    const call = JSON.parse(await page.locator('.step.assistant pre').nth(1).textContent());
    assert.equal(call.name, 'chart.create');
    assert.match(call.arguments.data_uri, /^mcp\+cache:\/\//);
    assert.equal(call.arguments.data, undefined);
    assert.match(await page.locator('.step.host pre').first().textContent(), /resolved from the cache/);
  });
  await check('the chart has 240 points', async () => {
    assert.equal(await page.getAttribute('#chart svg', 'data-points'), '240');
    const points = await page.getAttribute('#chart polyline', 'points');
    assert.equal(points.trim().split(/\s+/).length, 240);
  });
  await check('the savings counter shows the chars saved', async () => {
    const saved = Number(await page.getAttribute('#savings', 'data-saved-chars'));
    assert.ok(saved > 8_000, `saved ${saved}`);
    console.log(`#   chars saved for the 240-row chart call: ${saved}`);
  });
  await check('the refund tag reaches the model and the invoice reference is refused as stale', async () => {
    const blocked = page.locator('.step.blocked');
    assert.equal(await blocked.count(), 1);
    const envelope = JSON.parse(await blocked.locator('pre').textContent());
    assert.match(envelope.error, /^invalid_args: cache URI mcp\+cache:\/\/\S+ is stale \(invalidated by billing\.refund\)$/);
    assert.match(envelope.fix_hint, /billing\.get_invoice/);
    const transcript = await page.textContent('#steps');
    assert.match(transcript, /<cache_invalidation cause="billing.refund" domains="billing.get_\*" \/>/);
  });
  await check('an identical immutable call is answered from the cache', async () => {
    assert.equal(await page.getAttribute('#steps li:last-child', 'data-reused'), 'true');
  });
  await check('the entries table lists the IndexedDB entries with the stale cause', async () => {
    assert.ok(Number(await page.getAttribute('#entries', 'data-count')) >= 2);
    assert.equal(await page.getAttribute('#entries', 'data-stale'), '1');
    assert.match(await page.textContent('#entries tbody'), /billing\.refund/);
  });
  await check('the browser entry exports what the Node entry exports', async () => {
    const names = await page.evaluate(async () => Object.keys(await import('/js/browser.mjs')).sort());
    assert.deepEqual(names, Object.keys(nodeEntry).sort());
  });
  const before = Number(await page.getAttribute('#entries', 'data-count'));
  await page.screenshot({ path: 'www-demo.png', fullPage: true });
  await check('entries survive a reload', async () => {
    await page.click('#reload');
    await page.waitForSelector('#status[data-state="done"]');
    assert.equal(Number(await page.getAttribute('#reload-check', 'data-survived')), before);
    assert.equal(await page.getAttribute('#reload-check', 'data-verified'), 'true');
  });
  await check('no page or console errors', async () => assert.deepEqual(problems, []));

  // A second page for the hostile checks: their deliberate CSP violation must not count above.
  const hostile = await context.newPage();
  const hostileProblems = [];
  hostile.on('pageerror', (e) => hostileProblems.push(`pageerror: ${e.message}`));
  hostile.on('console', (m) => m.type() === 'error' && hostileProblems.push(`console.error: ${m.text()}`));
  await hostile.goto(`${server.url}?fast`);
  await hostile.waitForSelector('#status:not([data-state="running"])');
  await check('a chart title taken from a tool result is shown as text, never parsed as HTML', async () => {
    const title = 'cpu"><img src=x onerror="window.__xss=1"><script>window.__xss=2</script></text><text>';
    const shown = await hostile.evaluate(async (metric) => {
      // The page's own dispatch loop: the title reaches chart.create through a reference
      // into the series result, as a model would pass it.
      const { callTool } = await import('/www/demo.mjs');
      const series = await callTool('timeseries.query', { metric, hours: 240 });
      const uri = series.structuredContent._cache_uri;
      await callTool('chart.create', { data_uri: uri, title_uri: `${uri}#/metric` });
      await new Promise((resolve) => setTimeout(resolve, 200)); // time for an injected <img> to fail
      const svg = document.querySelector('#chart svg');
      return {
        xss: window.__xss,
        injected: document.querySelectorAll('#chart img, #chart script, #chart foreignObject').length,
        texts: svg.querySelectorAll('text').length,
        title: svg.querySelector('text.title')?.textContent,
        label: svg.getAttribute('aria-label'),
        points: svg.dataset.points,
      };
    }, title);
    assert.equal(shown.injected, 0, 'markup from the title became elements');
    assert.equal(shown.xss, undefined, 'script from the title ran');
    assert.equal(shown.texts, 3);
    assert.equal(shown.title, `${title} — 240 points`);
    assert.equal(shown.label, title);
    assert.equal(shown.points, '240');
    assert.deepEqual(hostileProblems, []);
  });
  await check('a strict CSP is in place and reports an inline script it blocked', async () => {
    const csp = await hostile.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    assert.match(csp, /(^|; )script-src 'self' 'wasm-unsafe-eval'(;|$)/);
    assert.match(csp, /(^|; )default-src 'none'(;|$)/);
    assert.match(csp, /(^|; )object-src 'none'(;|$)/);
    assert.match(csp, /(^|; )base-uri 'none'(;|$)/);
    assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'|\*|data:|https?:/);
    const outcome = await hostile.evaluate(() => new Promise((resolve) => {
      document.addEventListener('securitypolicyviolation', (e) => resolve({
        directive: e.effectiveDirective, blocked: e.blockedURI, ran: window.__inline,
      }), { once: true });
      const script = document.createElement('script');
      script.textContent = 'window.__inline = true';
      document.body.append(script);
      setTimeout(() => resolve({ directive: 'no violation reported', ran: window.__inline }), 5_000);
    }));
    assert.deepEqual(outcome, { directive: 'script-src-elem', blocked: 'inline', ran: undefined });
  });
} finally {
  await context.close();
  await server.close();
  await rm(profile, { recursive: true, force: true });
}
finish();
