// configureDefaultCache takes effect at the call, awaited or not: a host written as
// `configureDefaultCache(options)` (no await) followed by free functions gets the configured
// cache, its `onEvent` hears the write, and nothing rejects unhandled. Each host runs in a
// Node process of its own (the default cache is per process, and an unhandled rejection ends the
// process): the ES entry, the CommonJS entry, and the browser entry (over fake-indexeddb).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const at = (/** @type {string} */ file) => JSON.stringify(pathToFileURL(path.join(root, file)).href);

/** The entries, each with how a host script imports it. */
const ENTRIES = {
  'ES entry (pkg/node.mjs)': { ext: 'mjs', head: `const m = await import(${at('pkg/node.mjs')});` },
  'CommonJS entry (js/node.cjs)': { ext: 'cjs', head: `const m = require(${JSON.stringify(path.join(root, 'js/node.cjs'))});` },
  'browser entry (pkg/browser.mjs)': {
    ext: 'mjs',
    head: `await import(${at('node_modules/fake-indexeddb/auto/index.mjs')});
await import(${at('tests/js/file-fetch.mjs')});
const m = await import(${at('pkg/browser.mjs')});`,
  },
};

/**
 * Runs `body` (the host's code, with the entry as `m`) in its own process; it prints one JSON
 * line. Resolves with that value; an exit code other than 0 (an unhandled rejection) fails.
 * @param {{ ext: string, head: string }} entry @param {string} body @returns {Promise<unknown>}
 */
async function host(entry, body) {
  const dir = await mkdtemp(path.join(tmpdir(), 'default-cache-'));
  try {
    const file = path.join(dir, `host.${entry.ext}`);
    const wrapped = entry.ext === 'cjs' ? `(async () => {\n${entry.head}\n${body}\n})();\n` : `${entry.head}\n${body}\n`;
    await writeFile(file, wrapped);
    const { stdout, stderr } = await new Promise((resolve, reject) => {
      execFile(process.execPath, [file], { cwd: dir }, (error, out, err) => {
        if (error) reject(new Error(`host exited with ${error.code}: ${err}`));
        else resolve({ stdout: out, stderr: err });
      });
    });
    assert.equal(stderr, '', 'no warning, no unhandled rejection');
    return JSON.parse(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// The README's first hosts: configure without await, then use the free functions at once.
const FIRST_HOST = `
const events = [];
m.configureDefaultCache({ threshold: 10, onEvent: (e) => events.push(e.kind), dbName: 'unawaited-' + process.pid });
const uri = await m.cacheToolResult({ payload: { rows: [1, 2, 3, 4, 5] }, convId: 'c' });
const read = await m.readCachedPayload(uri, { convId: 'c' });
const late = await m.configureDefaultCache({}).then(() => 'configured', (e) => e.name);
console.log(JSON.stringify({ uri, read, events, late }));
`;

// Several configurations, none awaited, then a free call issued in the same turn: the last wins.
const LAST_WINS = `
const events = [];
m.configureDefaultCache({ threshold: 100000, onEvent: () => events.push('first') });
m.configureDefaultCache({ threshold: 10, onEvent: (e) => events.push(e.kind), dbName: 'last-' + process.pid });
const uri = await m.cacheToolResult({ payload: { rows: [1, 2, 3, 4, 5] }, convId: 'c' });
console.log(JSON.stringify({ uri, events }));
`;

// A configuration with bad options: it rejects with a TypeError and leaves the default as it
// was. The Node entries check options at the call (nothing changes, the free call after it runs
// on the unconfigured default); the browser entry checks them once its module is loaded, so a free
// call made meanwhile rejects with the same TypeError. Either way the next call runs on the default.
const BAD_OPTIONS = `
const own = m.configureDefaultCache({ threshold: -1 }).then(() => 'resolved', (e) => e.name);
const first = await m.cacheToolResult({ payload: { rows: [1, 2, 3, 4, 5] }, convId: 'c' }).then((uri) => uri, (e) => e.name);
const next = await m.cacheToolResult({ payload: { rows: [1, 2, 3, 4, 5] }, convId: 'c' });
console.log(JSON.stringify({ own: await own, first, next }));
`;

for (const [name, entry] of Object.entries(ENTRIES)) {
  test(`${name}: an un-awaited configureDefaultCache applies to the free calls after it`, async () => {
    const result = /** @type {{ uri: unknown, read: unknown, events: string[], late: string }} */ (await host(entry, FIRST_HOST));
    assert.match(String(result.uri), /^mcp\+cache:\/\//, 'threshold 10 applies to the first write');
    assert.deepEqual(result.read, { rows: [1, 2, 3, 4, 5] });
    assert.deepEqual(result.events, ['write', 'hit'], 'onEvent hears the write');
    assert.equal(result.late, 'InvalidStateError', 'a configuration after the first use is still refused');
  });

  test(`${name}: the last of several un-awaited configurations wins`, async () => {
    const result = /** @type {{ uri: unknown, events: string[] }} */ (await host(entry, LAST_WINS));
    assert.match(String(result.uri), /^mcp\+cache:\/\//);
    assert.deepEqual(result.events, ['write']);
  });

  test(`${name}: bad options reject the configuration and change nothing`, async () => {
    const result = await host(entry, BAD_OPTIONS);
    const first = name.startsWith('browser') ? 'TypeError' : null;
    assert.deepEqual(result, { own: 'TypeError', first, next: null }, 'the default threshold (4096) applies after it');
  });
}
