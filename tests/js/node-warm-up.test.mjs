// warmUp() (js/warm-up.mjs) against the built Node entry over fake-indexeddb: it runs a
// store and a substitution in a scratch database of its own and leaves nothing behind, and no
// cache of the host sees any of it. (What it buys, the first call's time, is measured by the
// bench's startup workload, not here.)
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache, warmUp, ready } from '../../js/node.mjs';

test('warmUp stores and substitutes in a scratch database, then deletes it; host caches see nothing', async () => {
  await ready();
  const events = [];
  const cache = new ResultCache({ dbName: 'host-warm-up-test', threshold: 0, onEvent: (e) => events.push(e) });
  const uri = await cache.cacheToolResult({ payload: { rows: [1, 2, 3] }, convId: 'c', sourceToolName: 't' });
  const before = await cache.stats();
  assert.equal(before.entries, 1);
  events.length = 0;

  // The scratch cache really stores: its database exists while the warm-up runs.
  const opened = [];
  const open = indexedDB.open.bind(indexedDB);
  indexedDB.open = (name, ...rest) => {
    opened.push(name);
    return open(name, ...rest);
  };
  try {
    assert.equal(await warmUp(), undefined);
  } finally {
    indexedDB.open = open;
  }
  assert.ok(opened.includes('mcp-result-cache-warm-up'), `databases opened: ${opened}`);

  const names = (await indexedDB.databases()).map((d) => d.name);
  assert.ok(!names.includes('mcp-result-cache-warm-up'), `left behind: ${names}`);
  assert.deepEqual(events, []);
  assert.deepEqual(await cache.stats(), before);
  assert.deepEqual(await cache.readCachedPayload(uri, { convId: 'c' }), { rows: [1, 2, 3] });
  // A host calling it from two places gets the one warm-up (one scratch database, one name).
  assert.equal(warmUp(), warmUp());
  await warmUp();
  assert.ok(!(await indexedDB.databases()).some((d) => d.name === 'mcp-result-cache-warm-up'));
  cache.close();
});
