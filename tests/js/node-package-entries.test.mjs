// The packed tarball (`npm pack`, as published) exposes what hosts import for the people in the
// chat: `referencesOf` from the main entry (ES module and CommonJS), `/ai-sdk` and
// `/mcp-client`; `cacheRoute` from the main entry in Node; `mcp-result-cache/react` with its
// declarations, `react` an optional peer. The tarball is installed into a scratch project
// (its peers linked from this checkout) and each entry is imported from there.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('../../', import.meta.url).pathname;

test('the packed tarball exposes referencesOf, cacheRoute, subscribe and mcp-result-cache/react', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-result-cache-pack-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const [{ filename, files }] = /** @type {{ filename: string, files: { path: string }[] }[]} */ (JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })));
  const packed = new Set(files.map((f) => f.path));
  for (const file of ['js/react.mjs', 'js/react.d.ts', 'pkg/react.d.mts', 'pkg/react.d.cts', 'js/references.mjs', 'js/cache-route.mjs', 'js/page.mjs', 'js/route-args.mjs']) {
    assert.ok(packed.has(file), `${file} is not in the tarball`);
  }

  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  assert.deepEqual(manifest.exports['./react'], {
    node: {
      import: { types: './pkg/react.d.mts', default: './js/react.mjs' },
      require: { types: './pkg/react.d.cts', default: './js/react.mjs' },
    },
    types: './js/react.d.ts',
    default: './js/react.mjs',
  });
  assert.match(manifest.peerDependencies.react, /\^18.*\^19/);
  assert.equal(manifest.peerDependenciesMeta.react.optional, true);
  assert.ok(!manifest.dependencies?.react, 'react is never a dependency');

  // A project with the tarball installed and the peers it uses linked from this checkout.
  const modules = join(dir, 'project/node_modules');
  await mkdir(join(modules, 'mcp-result-cache'), { recursive: true });
  execFileSync('tar', ['-xzf', join(dir, filename), '-C', join(modules, 'mcp-result-cache'), '--strip-components=1']);
  await mkdir(join(modules, '@modelcontextprotocol'), { recursive: true });
  for (const peer of ['react', 'ai', '@modelcontextprotocol/sdk']) await symlink(join(ROOT, 'node_modules', peer), join(modules, peer));
  const entry = join(dir, 'project/entry.mjs');
  await writeFile(entry, [
    "export * as main from 'mcp-result-cache';",
    "export * as react from 'mcp-result-cache/react';",
    "export * as aiSdk from 'mcp-result-cache/ai-sdk';",
    "export * as mcpClient from 'mcp-result-cache/mcp-client';",
  ].join('\n'));
  const { main, react, aiSdk, mcpClient } = /** @type {{
    main: typeof import('../../pkg/node/index.mjs'),
    react: typeof import('../../js/react.js'),
    aiSdk: typeof import('../../js/ai-sdk.js'),
    mcpClient: typeof import('../../js/mcp-client.js'),
  }} */ (await import(pathToFileURL(entry).href));
  const cjs = /** @type {typeof import('../../pkg/node/index.cjs')} */ (createRequire(entry)('mcp-result-cache'));

  const output = { _cache_uri: 'mcp+cache://c/AAAAAAAAAAA', _cache_refs: { rows: 'mcp+cache://c/AAAAAAAAAAA#/rows' } };
  for (const referencesOf of [main.referencesOf, cjs.referencesOf, aiSdk.referencesOf, mcpClient.referencesOf, react.referencesOf]) {
    assert.deepEqual(referencesOf({ type: 'tool-query', output }), ['mcp+cache://c/AAAAAAAAAAA', 'mcp+cache://c/AAAAAAAAAAA#/rows']);
  }
  assert.deepEqual(Object.keys(react).sort(), ['CacheEndpointError', 'ResultCacheProvider', 'referencesOf', 'useCacheEntries', 'useCacheRevalidate', 'useCachedResult']);
  // A CommonJS host requires the same React entry (Node's require of the ES module).
  const requireFromProject = createRequire(entry);
  assert.deepEqual(Object.keys(requireFromProject('mcp-result-cache/react')).sort(), Object.keys(react).sort());
  // The CommonJS and ES module Redis entries export the same names (nothing internal).
  assert.deepEqual(Object.keys(requireFromProject('mcp-result-cache/redis')).sort(), Object.keys(await import(pathToFileURL(join(modules, 'mcp-result-cache/js/redis.mjs')).href)).sort());
  assert.equal(typeof cjs.cacheRoute, 'function');
  // Called without its options on purpose (a TypeError).
  assert.throws(() => /** @type {(cache: unknown) => unknown} */ (main.cacheRoute)(new main.ResultCache({ storage: 'memory' })), TypeError);

  // The installed package works end to end: a write told to a subscriber, read back by the route.
  const cache = new main.ResultCache({ storage: 'memory' });
  /** @type {import('../../pkg/node/mcp_result_cache.js').CacheChange[]} */
  const changes = [];
  cache.subscribe((change) => changes.push(change));
  const visible = await cache.afterToolCall('metrics.query', { rows: Array.from({ length: 300 }, (_, i) => ({ i, name: `row ${i}` })) }, { convId: 'c' });
  const [uri] = main.referencesOf(visible);
  // Told asynchronously, after the write.
  for (let i = 0; i < 1000 && changes.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(changes, [{ kind: 'write', convId: 'c', uris: [uri] }]);
  const route = main.cacheRoute(cache, { authorize: () => true });
  const response = await route(new Request(`http://localhost/?convId=c&uri=${encodeURIComponent(`${uri}#/rows/299`)}`));
  assert.deepEqual(await response.json(), { i: 299, name: 'row 299' });
});
