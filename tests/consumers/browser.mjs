// Headless Chromium for the consumer tests: one persistent context, pages whose problems are kept.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../../scripts/chromium.mjs';
import { WAIT_MS } from './config.mjs';
import { assert, cleanups } from './harness.mjs';

/** @type {import('playwright-core').BrowserContext | null} */
let browserContext = null;

/** @returns {Promise<import('playwright-core').BrowserContext>} */
async function browser() {
  if (browserContext) return browserContext;
  const profile = await mkdtemp(join(tmpdir(), 'mcp-rc-consumers-'));
  cleanups.push(() => rm(profile, { recursive: true, force: true }));
  browserContext = await chromium.launchPersistentContext(profile, {
    ...chromiumOptions(),
    timeout: WAIT_MS,
  });
  cleanups.unshift(() => /** @type {import('playwright-core').BrowserContext} */ (browserContext).close()); // before the profile is removed
  return browserContext;
}

/**
 * An open page, what went wrong on it, the .wasm responses it got and its workers' URLs.
 * @typedef {{
 *   page: import('playwright-core').Page,
 *   problems: string[],
 *   wasmResponses: { url: string, type: string | undefined }[],
 *   workers: string[],
 * }} OpenedPage
 */

/**
 * A page whose errors (page errors, console errors, failed requests, wasm warnings) are kept.
 * @param {string} url @returns {Promise<OpenedPage>}
 */
export async function openPage(url) {
  const page = await (await browser()).newPage();
  page.setDefaultTimeout(WAIT_MS);
  /** @type {string[]} */
  const problems = [];
  /** @type {OpenedPage['wasmResponses']} */
  const wasmResponses = [];
  /** @type {string[]} */
  const workers = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
    if (m.type() === 'warning' && /wasm|instantiateStreaming/i.test(m.text())) problems.push(`console.warn: ${m.text()}`);
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    if (r.url().endsWith('.wasm')) wasmResponses.push({ url: r.url(), type: r.headers()['content-type'] });
  });
  page.on('worker', (w) => {
    workers.push(w.url());
    w.on('console', (m) => m.type() === 'error' && problems.push(`worker console.error: ${m.text()}`));
  });
  await page.goto(url, { waitUntil: 'load', timeout: WAIT_MS });
  return { page, problems, wasmResponses, workers };
}

/**
 * The `data-*` attributes of the element `selector` matches, and its text (as `text`).
 * @param {import('playwright-core').Page} page @param {string} selector
 * @returns {Promise<Record<string, string>>}
 */
export async function dataset(page, selector) {
  return /** @type {Promise<Record<string, string>>} */ (page.$eval(selector, (el) => ({ ...el.dataset, text: el.textContent })));
}

/** @param {Pick<OpenedPage, 'problems' | 'wasmResponses'>} opened */
export function assertNoProblems({ problems, wasmResponses }) {
  assert(problems.length === 0, `${problems.length} page problem(s): ${problems[0]}`, problems.join('\n'));
  assert(wasmResponses.length > 0, 'no .wasm was fetched');
  for (const r of wasmResponses) assert(r.type === 'application/wasm', `${r.url} served as ${r.type}`);
}
