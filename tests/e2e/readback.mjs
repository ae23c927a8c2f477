// The read-back tools in real Chromium over IndexedDB (Playwright, Debian's /usr/bin/chromium):
// paging 100 000 stored rows visits each exactly once; a derived reference resolves through
// substituteCacheUris, survives a reload, and is refused once its source is invalidated from
// another tab, evicted or cleared; conversation scope; byte-identical repeated answers. And the
// entry's other module loaded on first use, pkg/warm-up.mjs: `warmUp()` fetches it once, leaves
// no database behind, and the caches made afterwards work.
import assert from 'node:assert/strict';
import { checks } from './checks.mjs';
import { openProfile } from './profile.mjs';

/**
 * The page's window: the browser entry (profile.mjs) and the helpers `setup` puts there.
 * @typedef {import('./profile.mjs').PageWindow & {
 *   rows: (n: number) => { i: number, hour: string, cpu: number }[],
 *   text: (result: import('../../js/index.js').CacheReadToolResult) => string,
 * }} TestWindow
 */

const { problems, newPage, close } = await openProfile('readback');
const { check, finish } = checks('readback');
const setup = () => {
  /** @type {TestWindow} */ (window).rows = (n) => Array.from({ length: n }, (_, i) => ({ i, hour: `h${String(i).padStart(6, '0')}`, cpu: (i * 37) % 101 }));
  /** @type {TestWindow} */ (window).text = (result) => {
    if (result.isError) throw new Error(result.content[0].text);
    return result.content[0].text;
  };
};

try {
  await check('cache_read pages 100 000 rows stored in IndexedDB, each exactly once, every answer within maxChars', async () => {
    const page = await newPage(setup);
    const out = await page.evaluate(async () => {
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'readback-paging' });
      const uri = await cache.cacheToolResult({ payload: { rows: /** @type {TestWindow} */ (window).rows(100_000) }, convId: 'p' });
      const tools = /** @type {TestWindow} */ (window).mrc.cacheTools(cache, { convId: 'p', maxChars: 20_000 });
      const seen = new Uint8Array(100_000);
      let offset = 0;
      let pages = 0;
      let longest = 0;
      while (offset !== undefined) {
        const text = /** @type {TestWindow} */ (window).text(await tools.callTool({ name: 'cache_read', arguments: { uri: `${uri}#/rows`, offset, limit: 1000 } }));
        longest = Math.max(longest, text.length);
        const page = JSON.parse(text);
        for (const item of page.items) seen[item.i] += 1;
        offset = page.next_offset;
        pages += 1;
      }
      return { pages, longest, once: seen.every((n) => n === 1), storage: cache.storage };
    });
    assert.equal(out.storage, 'indexeddb');
    assert.equal(out.once, true);
    assert.ok(out.longest <= 20_000, `${out.longest}`);
    assert.ok(out.pages >= 100, `${out.pages} pages`);
    await page.close();
  });

  await check('a derived reference resolves, survives a reload, and is refused once another tab invalidates its source', async () => {
    const page = await newPage(setup);
    const made = await page.evaluate(async () => {
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'readback-derived' });
      const uri = await cache.cacheToolResult({ payload: { ok: true, rows: /** @type {TestWindow} */ (window).rows(240) }, convId: 'd', sourceToolName: 'metrics.query' });
      const tools = /** @type {TestWindow} */ (window).mrc.cacheTools(cache, { convId: 'd' });
      const call = { name: 'cache_select', arguments: { uri: `${uri}#/rows`, where: [{ field: 'i', op: '>=', value: 192 }], fields: ['hour', 'cpu'] } };
      const first = /** @type {TestWindow} */ (window).text(await tools.callTool(call));
      const again = /** @type {TestWindow} */ (window).text(await tools.callTool(call));
      const derived = JSON.parse(first)._cache_uri;
      const resolved = await cache.substituteCacheUris({ data_uri: derived }, { convId: 'd' });
      const search = [await tools.callTool({ name: 'cache_search', arguments: { uri: derived, query: 'h000200' } }),
        await tools.callTool({ name: 'cache_search', arguments: { uri: derived, query: 'h000200' } })].map(/** @type {TestWindow} */ (window).text);
      const otherConv = await /** @type {TestWindow} */ (window).mrc.cacheTools(cache, { convId: 'e' }).callTool({ name: 'cache_read', arguments: { uri: derived } });
      return { derived, same: first === again && search[0] === search[1], rows: /** @type {{ args?: { data?: { hour: string, cpu: number }[] } }} */ (resolved).args?.data, search: JSON.parse(search[0]), otherConv: otherConv.isError };
    });
    assert.equal(made.same, true, 'byte-identical repeated answers');
    assert.ok(made.rows, 'the derived reference resolved');
    assert.equal(made.rows.length, 48);
    assert.deepEqual(made.rows[0], { hour: 'h000192', cpu: (192 * 37) % 101 });
    assert.deepEqual(made.search.matches, [{ pointer: '/8/hour', snippet: 'h000200' }]);
    assert.equal(made.otherConv, true, 'another conversation cannot read it');
    await page.reload();
    await page.evaluate(async () => {
      /** @type {TestWindow} */ (window).mrc = await import(/** @type {string} */ ('/pkg/browser.mjs'));
      await /** @type {TestWindow} */ (window).mrc.ready();
    });
    const reloaded = await page.evaluate(async (derived) => {
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'readback-derived' });
      return (await cache.lookup(derived, { convId: 'd' })).status;
    }, made.derived);
    assert.equal(reloaded, 'hit');
    const other = await newPage(setup);
    await other.evaluate(async () => {
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'readback-derived' });
      await cache.invalidate(['metrics.*'], { cause: 'metrics.reingest' });
    });
    const refused = await page.evaluate(async (derived) => {
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'readback-derived' });
      const outcome = await cache.substituteCacheUris({ data_uri: derived }, { convId: 'd' });
      const read = await /** @type {TestWindow} */ (window).mrc.cacheTools(cache, { convId: 'd' }).callTool({ name: 'cache_read', arguments: { uri: derived } });
      return { outcome, read: JSON.parse(read.content[0].text), isError: read.isError };
    }, made.derived);
    assert.equal(refused.outcome.ok, false);
    assert.deepEqual(refused.outcome.envelope._stale_uris, [made.derived]);
    assert.match(refused.outcome.envelope.error, /invalidated by metrics\.reingest/);
    assert.equal(refused.isError, true);
    assert.deepEqual(refused.read._stale_uris, [made.derived]);
    await other.close();
    await page.close();
  });

  await check('a derived reference is refused once its source is evicted by age, and cleared with its conversation', async () => {
    const page = await newPage(setup);
    const out = await page.evaluate(async () => {
      let now = 1_000_000;
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'readback-evict', now: () => now });
      const tools = /** @type {TestWindow} */ (window).mrc.cacheTools(cache, { convId: 'v' });
      const source = await cache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).rows(100), convId: 'v', threshold: 0 });
      now += 10_000;
      const derived = JSON.parse(/** @type {TestWindow} */ (window).text(await tools.callTool({ name: 'cache_select', arguments: { uri: source, limit: 10 } })))._cache_uri;
      const before = (await cache.lookup(derived, { convId: 'v' })).status;
      await cache.evictOlderThan({ maxAgeMs: 5_000 });
      const evicted = await cache.substituteCacheUris({ data_uri: derived }, { convId: 'v' });
      const kept = { stored: (await cache.stats()).entries, listed: (await cache.entries({ convId: 'v' })).length };
      const source2 = await cache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).rows(100), convId: 'v', threshold: 0 });
      const derived2 = JSON.parse(/** @type {TestWindow} */ (window).text(await tools.callTool({ name: 'cache_select', arguments: { uri: source2, limit: 10 } })))._cache_uri;
      await cache.clearConversation('v');
      return { before, evicted, kept, cleared: (await cache.lookup(derived2, { convId: 'v' })).status, left: (await cache.stats()).entries };
    });
    assert.equal(out.before, 'hit');
    assert.equal(out.evicted.ok, false);
    assert.ok(out.evicted.envelope._missing_uris);
    assert.equal(out.evicted.envelope._missing_uris.length, 1);
    assert.deepEqual(out.kept, { stored: 1, listed: 0 }, 'the derived entry itself is still stored (counted), refused through its source and not listed, as its lookup reads it');
    assert.equal(out.cleared, 'miss');
    assert.equal(out.left, 0);
    await page.close();
  });

  await check('the shipped entry reads a derived reference with its source: both in one substitution, and before a write called after it (memory and IndexedDB)', async () => {
    const page = await newPage(setup);
    const out = await page.evaluate(async () => {
      const results = [];
      for (const storage of /** @type {const} */ (['memory', 'indexeddb'])) {
        let now = 1_000;
        const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ storage, dbName: `readback-derived-${storage}`, now: () => now, maxEntries: 3 });
        const tools = /** @type {TestWindow} */ (window).mrc.cacheTools(cache, { convId: 'v' });
        const source = await cache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).rows(100), convId: 'v', threshold: 0 });
        now += 1;
        const derived = JSON.parse(/** @type {TestWindow} */ (window).text(await tools.callTool({ name: 'cache_select', arguments: { uri: source, limit: 10 } })))._cache_uri;
        now += 1;
        const other = await cache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).rows(100), convId: 'w', threshold: 0 });
        const both = await cache.substituteCacheUris({ a_uri: derived, b_uri: source }, { convId: 'v' });
        now += 10;
        // Called in this order: the read uses the source, so the write evicts `other`.
        const read = cache.lookup(derived, { convId: 'v' });
        const write = cache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).rows(100), convId: 'w', threshold: 0 });
        const [seen] = await Promise.all([read, write]);
        const left = (await cache.entries()).map((e) => e.uri);
        results.push({ storage, both: both.ok, seen: seen.status, sourceKept: left.includes(/** @type {string} */ (source)), otherEvicted: !left.includes(/** @type {string} */ (other)) });
      }
      return results;
    });
    for (const r of out) assert.deepEqual(r, { storage: r.storage, both: true, seen: 'hit', sourceKept: true, otherEvicted: true });
    await page.close();
  });

  await check('strings, objects, empty values and hostile arguments in the page: bounded answers, isError envelopes, never a throw', async () => {
    const page = await newPage(setup);
    const out = await page.evaluate(async () => {
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'readback-shapes' });
      const tools = /** @type {TestWindow} */ (window).mrc.cacheTools(cache, { convId: 's', maxChars: 1000 });
      const uri = await cache.cacheToolResult({ payload: { log: 'line\n'.repeat(2000), meta: { a: 1 }, empty: [] }, convId: 's' });
      const call = async (/** @type {string} */ name, /** @type {Record<string, unknown>} */ args) => {
        const result = await tools.callTool({ name, arguments: args });
        return { isError: result.isError === true, length: result.content[0].text.length, value: JSON.parse(result.content[0].text) };
      };
      let text = '';
      for (let offset = 0; offset !== undefined;) {
        const page = await call('cache_read', { uri: `${uri}#/log`, offset });
        text += page.value.text;
        offset = page.value.next_offset;
      }
      const keys = await call('cache_read', { uri });
      const empty = await call('cache_read', { uri: `${uri}#/empty` });
      /** @type {unknown} */
      let deep = 1;
      for (let k = 0; k < 5000; k += 1) deep = [deep];
      const hostile = await Promise.all([
        call('cache_select', { uri: `${uri}#/empty`, where: [{ field: 'x', op: '=', value: deep }] }),
        call('cache_select', { uri: `${uri}#/empty`, where: 'not json' }),
        call('cache_select', { uri: `${uri}#/meta` }),
        call('cache_search', { uri, query: '' }),
        call('cache_read', { uri: `${uri}#/nope` }),
        call('cache_read', { uri: 'mcp+cache://s/AAAAAAAAAAAA' }),
      ]);
      return { whole: text === 'line\n'.repeat(2000), keys: keys.value.keys.map((/** @type {{ key: string, type: string }} */ k) => `${k.key}:${k.type}`), empty: empty.value, hostile };
    });
    assert.equal(out.whole, true, 'the string paged back whole');
    assert.deepEqual(out.keys, ['log:string', 'meta:object', 'empty:array']);
    assert.equal(out.empty.total, 0);
    for (const answer of out.hostile) {
      assert.equal(answer.isError, true);
      assert.ok(answer.length <= 1000);
      assert.match(answer.value.error, /^invalid_args: /);
    }
    await page.close();
  });

  await check('warmUp() loads pkg/warm-up.mjs once, on its first call, leaves no database behind, and touches the host\'s without changing it', async () => {
    const page = await newPage();
    const out = await page.evaluate(async () => {
      const fetched = () => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/pkg/warm-up.mjs')).length;
      const before = fetched();
      const options = { dbName: 'after-warm-up', threshold: 0 };
      /** @type {string[]} */
      const events = [];
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ ...options, onEvent: (e) => events.push(e.kind) });
      const uri = await cache.cacheToolResult({ payload: { rows: [1, 2, 3] }, convId: 'w' });
      const listed = JSON.stringify(await cache.entries());
      events.length = 0;
      await Promise.all([/** @type {TestWindow} */ (window).mrc.warmUp(), /** @type {TestWindow} */ (window).mrc.warmUp(options)]);
      await /** @type {TestWindow} */ (window).mrc.warmUp(options);
      const names = (await indexedDB.databases()).map((d) => d.name);
      const unchanged = JSON.stringify(await cache.entries()) === listed;
      const back = await cache.readCachedPayload(uri, { convId: 'w' });
      const after = fetched();
      // The read-back tools too: each module loaded on first use is one bundled file of pkg/,
      // and nothing is fetched from the sources in js/.
      await /** @type {TestWindow} */ (window).mrc.cacheTools(cache, { convId: 'w' }).listTools();
      const modules = performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.mjs') || p.endsWith('.js'));
      return { before, after, names, back, unchanged, events, modules };
    });
    assert.deepEqual(out.modules.filter((p) => !p.startsWith('/pkg/')), [], 'no module fetched outside pkg/');
    assert.deepEqual(out.modules.filter((p) => /(readback|warm-up)\.mjs$/.test(p)).sort(), ['/pkg/readback.mjs', '/pkg/warm-up.mjs']);
    assert.equal(out.before, 0, 'not fetched before warmUp()');
    assert.equal(out.after, 1, 'fetched once');
    assert.ok(!out.names.includes('mcp-result-cache-warm-up'), `left behind: ${out.names}`);
    assert.deepEqual(out.back, { rows: [1, 2, 3] });
    assert.equal(out.unchanged, true, 'the host database is unchanged');
    assert.deepEqual(out.events, ['hit'], 'the host cache saw only its own read');
    await page.close();
  });

  await check('no page error or console error', async () => {
    assert.deepEqual(problems, []);
  });
} finally {
  await close();
}
finish();
