// A storage object (docs/STORAGE.md) that answers the wrong kind of value — a method that forgot
// its `return`, a synchronous method, a rejection with no Error — is the operation's typed
// error: the call rejects, nothing is thrown out of the module, the process goes on and the
// cache keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ResultCache } from '../../pkg/node.mjs';

/** A working storage object over a Map, with `overrides` replacing some of its methods. */
function storage(/** @type {Record<string, unknown>} */ overrides = {}) {
  /** @type {Map<string, Record<string, unknown>>} */
  const rows = new Map();
  const bytes = () => [...rows.values()].reduce((sum, row) => sum + Number(row.sizeBytes), 0);
  return {
    kind: 'map',
    async write(/** @type {Record<string, unknown>} */ row) {
      rows.set(String(row.uri), row);
      return [0, bytes(), rows.size];
    },
    async read(/** @type {string[]} */ uris) { return uris.map((uri) => rows.get(uri)); },
    async evictOldest() { return 0; },
    async stats() { return [rows.size, bytes(), 1]; },
    async remove() { return 0; },
    async freshTools() { return []; },
    async markStale() { return 0; },
    async list() { return [...rows.values()]; },
    async consumeOnce() { return true; },
    ...overrides,
  };
}

const payload = { rows: 'x'.repeat(50) };
/** @typedef {import('../../pkg/node/mcp_result_cache.js').ResultCache} Cache */
/** @type {Array<[string, Record<string, unknown>, (cache: Cache) => Promise<unknown>]>} */
const CASES = [
  ['write resolves undefined', { async write() {} }, (cache) => cache.cacheToolResult({ payload, convId: 'c', threshold: 0 })],
  ['write is synchronous and answers nothing', { write() {} }, (cache) => cache.cacheToolResult({ payload, convId: 'c', threshold: 0 })],
  ['read resolves null', { async read() { return null; } }, (cache) => cache.lookup('mcp+cache://c/AAAAAAAAAAA', { convId: 'c' })],
  ['stats resolves a number', { async stats() { return 3; } }, (cache) => cache.stats()],
  ['freshTools resolves undefined', { async freshTools() {} }, (cache) => cache.invalidate(['t.*'], { cause: 'x' })],
  ['list resolves an object', { async list() { return {}; } }, (cache) => cache.entries()],
];

for (const [what, overrides, call] of CASES) {
  test(`a storage whose ${what}: the operation rejects with a TypeError naming it; the cache goes on`, async () => {
    const cache = new ResultCache({ storage: storage(overrides) });
    const outcome = await call(cache).then((value) => ({ value }), (/** @type {unknown} */ error) => ({ error }));
    if ('error' in outcome) {
      assert.ok(outcome.error instanceof Error, String(outcome.error));
      assert.equal(/** @type {Error} */ (outcome.error).name, 'TypeError');
      assert.match(/** @type {Error} */ (outcome.error).message, /the storage object answered no array/);
    } else {
      assert.fail(`resolved ${JSON.stringify(outcome.value)}`);
    }
    // A working method of the same storage still works.
    assert.equal(typeof (await new ResultCache({ storage: storage() }).cacheToolResult({ payload, convId: 'c', threshold: 0 })), 'string');
  });
}

test('a synchronous method answering the right value works as if it had answered a promise', async () => {
  const cache = new ResultCache({ storage: storage({ stats: () => [0, 0, 0] }) });
  assert.equal((await cache.stats()).entries, 0);
});

test('consumeOnce: a storage rejecting with no Error is an UnknownError naming what it said; an Error is kept', async () => {
  await assert.rejects(new ResultCache({ storage: storage({ async consumeOnce() { throw 'down'; } }) }).consumeOnce('k', 1000),
    (e) => e instanceof Error && e.name === 'UnknownError' && /down/.test(e.message));
  // As the cache reads a storage's failures: a DOMException-like object keeps its name and message.
  await assert.rejects(new ResultCache({ storage: storage({ async consumeOnce() { throw { name: 'QuotaExceededError', message: 'full' }; } }) }).consumeOnce('k', 1000),
    (e) => e instanceof Error && e.name === 'QuotaExceededError' && /full/.test(e.message));
  await assert.rejects(new ResultCache({ storage: storage({ async consumeOnce() { throw null; } }) }).consumeOnce('k', 1000),
    (e) => e instanceof Error && e.name === 'UnknownError' && /not an Error/.test(e.message));
  const own = new RangeError('mine');
  await assert.rejects(new ResultCache({ storage: storage({ async consumeOnce() { throw own; } }) }).consumeOnce('k', 1000), (e) => e === own);
});
