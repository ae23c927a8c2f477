// Without OpenTelemetry registered (this process never imports `@opentelemetry/api`): wrapped
// calls work as before, the request reaches the server without an added `_meta`, and
// js/telemetry.mjs imports no package (a bundler has no `@opentelemetry/api` to resolve).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serveLogged } from '../support/logged-server.mjs';

import { ResultCache } from '../../pkg/node.mjs';
import { wrapMcpClient } from '../../js/mcp-client.node.mjs';

test('no OpenTelemetry: no span machinery, no _meta added, the caller\'s _meta passed as it is', async () => {
  assert.equal(/** @type {Record<symbol, unknown>} */ (/** @type {unknown} */ (globalThis))[Symbol.for('opentelemetry.js.api.1')], undefined);
  const { clientSide, raw, close } = await serveLogged('plain', (server) => server.registerTool('rows.get', { description: 'Rows.', inputSchema: { n: z.number() } }, async ({ n }) => ({
    content: [{ type: 'text', text: JSON.stringify({ rows: Array.from({ length: n }, (_, i) => ({ i, text: 'x'.repeat(40) })) }) }],
  })));
  const client = new Client({ name: 'plain-test', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    const wrapped = wrapMcpClient(client, { cache: new ResultCache({ storage: 'memory' }), convId: 'plain' });
    const result = await wrapped.callTool({ name: 'rows.get', arguments: { n: 200 } });
    assert.match(/** @type {{ 'mcp-result-cache/uris': string[] }} */ (result._meta)['mcp-result-cache/uris'][0], /^mcp\+cache:\/\//, 'stored as without telemetry');
    await wrapped.callTool({ name: 'rows.get', arguments: { n: 1 }, _meta: { progressToken: 7 } });
    assert.equal(/** @type {{ _meta?: unknown }} */ (raw[0])._meta, undefined, 'nothing added');
    assert.deepEqual(/** @type {{ _meta?: unknown }} */ (raw[1])._meta, { progressToken: 7 });
  } finally {
    await client.close();
    await close();
  }
  // The code, without its comments (JSDoc types name other modules: no runtime import).
  const source = (await readFile(new URL('../../js/telemetry.mjs', import.meta.url), 'utf8')).replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const imported = [...source.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2]);
  assert.deepEqual(imported.filter((spec) => !spec.startsWith('./')), [], 'js/telemetry.mjs imports no package (only its own modules)');
});
