// Reliability under real browser faults (Playwright + CDP, Debian's /usr/bin/chromium):
// quota pressure, reload, two tabs, version change, deleted database, chatbox-core migration.
import assert from 'node:assert/strict';
import { checks } from './checks.mjs';
import { openProfile } from './profile.mjs';

/** @typedef {import('../../js/index.js').ResultCache} ResultCache */
/**
 * A payload of `payloadOf`: it carries its own identity (`tag`).
 * @typedef {{ tag: string, rows: { i: number, v: string }[] }} Payload
 */
/**
 * The page's window: the browser entry (profile.mjs), `payloadOf`, and what a check keeps there.
 * @typedef {import('./profile.mjs').PageWindow & {
 *   payloadOf: (tag: string, kb: number) => Payload,
 *   vcache: ResultCache,
 *   dcache: ResultCache,
 *   held: IDBDatabase,
 *   blockedEvents: import('../../js/index.js').CacheEvent[],
 * }} TestWindow
 */

const { origin, context, problems, newPage: openPage, close } = await openProfile('reliability');
const { check, finish } = checks('reliability');
async function newPage() {
  return openPage(() => {
    // A payload of ~`kb` KB that carries its own identity, so equality proves no mix-up.
    /** @type {TestWindow} */ (window).payloadOf = (tag, kb) => ({ tag, rows: Array.from({ length: Math.round(kb * 1024 / 64) }, (_, i) => ({ i, v: `${tag}:${i}`.padEnd(40, '.') })) });
  });
}

try {
  await check('quota: 200 writes of 64 KB under a tiny quota never throw; what is readable is intact', async () => {
    const page = await newPage();
    const cdp = await context.newCDPSession(page);
    const quota = 10 * 1024 * 1024;
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: quota });
    try {
    const out = await page.evaluate(async () => {
      /** @type {{ kind: string, reason?: string, name?: string }[]} */
      const events = [];
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'quota-test', onEvent: (e) => e.kind !== 'write' && e.kind !== 'hit' && events.push(e) });
      const uris = [];
      const written = [];
      let nulls = 0;
      // Incompressible content: Chromium compresses IndexedDB values, so padding would not fill a quota.
      const noise = (/** @type {number} */ n) => { const b = crypto.getRandomValues(new Uint8Array(n)); let s = ''; for (const x of b) s += x.toString(16).padStart(2, '0'); return s; };
      for (let i = 0; i < 200; i++) {
        written.push({ tag: `q${i}`, rows: Array.from({ length: 32 }, (_, j) => ({ j, v: noise(1000) })) });
        const uri = await cache.cacheToolResult({ payload: written[i], convId: 'quota' });
        if (uri === null) nulls++;
        uris.push(uri);
      }
      let readable = 0; let intact = 0;
      for (let i = 0; i < 200; i++) {
        if (!uris[i]) continue;
        const back = await cache.readCachedPayload(uris[i]);
        if (back) {
          readable++;
          if (JSON.stringify(back) === JSON.stringify(written[i])) intact++;
        }
      }
      // The newest acknowledged entries must be readable: eviction is least-recently-used, so
      // what was stored last survives. (Chromium reclaims deleted space lazily, so near the
      // quota some writes are refused even after eviction; those resolved null, as specified,
      // and are not "acknowledged".)
      const acknowledged = uris.map((uri, i) => [uri, i]).filter(([uri]) => uri).slice(-10);
      let newest = 0;
      for (const [uri, i] of acknowledged) if (/** @type {Payload | null} */ (await cache.readCachedPayload(uri))?.tag === `q${i}`) newest++;
      const newestExpected = acknowledged.length;
      const stats = await cache.stats();
      return { nulls, readable, intact, newest, newestExpected, stats, kinds: [...new Set(events.map((e) => `${e.kind}:${e.reason ?? e.name ?? ''}`))] };
    });
    console.log(`#   quota ${quota} B: ${out.newest}/${out.newestExpected} newest acknowledged readable, ${out.readable} readable, ${out.nulls} not cached, stats.bytes ${out.stats.bytes}, events ${out.kinds.join(', ')}`);
    assert.ok(out.newestExpected > 0, 'no write was acknowledged at all');
    assert.equal(out.newest, out.newestExpected, 'the newest acknowledged entries are readable');
    assert.equal(out.intact, out.readable, 'every readable payload equals what was written');
    assert.ok(out.readable >= 10, `only ${out.readable} readable`);
    assert.ok(out.stats.bytes <= quota, `stats().bytes ${out.stats.bytes} exceeds the quota ${quota}`);
    assert.ok(out.kinds.some((k) => k.startsWith('evict:quota')), 'quota pressure was met by eviction');
    } finally {
      await cdp.send('Storage.overrideQuotaForOrigin', { origin });
      await page.evaluate(() => new Promise((resolve) => { const r = indexedDB.deleteDatabase('quota-test'); r.onsuccess = r.onerror = r.onblocked = resolve; }));
      await page.close();
    }
  });

  await check('quota: a write refused for lack of quota is not retried past a clear called after it', async () => {
    const page = await newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 10 * 1024 * 1024 });
    try {
      const out = await page.evaluate(async () => {
        const noise = (/** @type {number} */ n) => {
          const b = new Uint8Array(n);
          for (let at = 0; at < n; at += 65536) crypto.getRandomValues(b.subarray(at, at + 65536));
          let s = '';
          for (let at = 0; at < n; at += 8192) s += String.fromCharCode(...b.subarray(at, at + 8192));
          return btoa(s);
        };
        /** @type {string[]} */
        const events = [];
        const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'quota-order', onEvent: (e) => e.kind === 'error' && events.push(e.name) });
        for (let i = 0; i < 6; i++) await cache.cacheToolResult({ payload: { i, blob: noise(256 * 1024) }, convId: 'M' });
        const big = cache.cacheToolResult({ payload: { blob: noise(6 * 1024 * 1024) }, convId: 'L' });
        const clear = cache.clearConversation('L');
        const uri = await big;
        // Under this quota Chromium may refuse the clear's own transaction too (the refused
        // write's blob is still counted for a moment): a typed refusal, never a retry of the write.
        const cleared = await clear.then(() => 'cleared', (/** @type {Error} */ e) => e.name);
        const left = (await cache.entries({ convId: 'L' })).length;
        return { uri, left, events, cleared };
      });
      console.log(`#   quota order: write ${out.uri === null ? 'not cached' : 'cached'}, clear ${out.cleared}, errors ${out.events.join(', ') || 'none'}`);
      assert.ok(out.cleared === 'cleared' || out.cleared === 'QuotaExceededError', `the clear settles or is refused for quota, got ${out.cleared}`);
      assert.equal(out.left, 0, 'nothing of the cleared conversation is stored');
      assert.ok(out.uri === null || out.events.length === 0, 'a refused write resolves null');
    } finally {
      await cdp.send('Storage.overrideQuotaForOrigin', { origin });
      await page.evaluate(() => new Promise((resolve) => { const r = indexedDB.deleteDatabase('quota-order'); r.onsuccess = r.onerror = r.onblocked = resolve; }));
      await page.close();
    }
  });

  await check('reload: 50 entries written, page reloaded, all 50 read back equal', async () => {
    const page = await newPage();
    const uris = await page.evaluate(async () => {
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'reload-test' });
      const out = [];
      for (let i = 0; i < 50; i++) out.push(await cache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).payloadOf(`r${i}`, 8), convId: 'reload' }));
      return out;
    });
    await page.reload();
    await page.evaluate(async () => { /** @type {TestWindow} */ (window).mrc = await import(/** @type {string} */ ('/pkg/browser.mjs')); await /** @type {TestWindow} */ (window).mrc.ready(); });
    const equal = await page.evaluate(async (uris) => {
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'reload-test' });
      let n = 0;
      for (let i = 0; i < uris.length; i++) {
        const back = /** @type {Payload | null} */ (await cache.readCachedPayload(uris[i], { convId: 'reload' }));
        if (back?.tag === `r${i}` && back.rows.length === 128) n++;
      }
      return n;
    }, uris);
    assert.equal(equal, 50);
    await page.close();
  });

  await check('call order through the browser entry: a clear called amid 2 000 writes keeps exactly the later 1 000, before and after ready()', async () => {
    const page = await newPage();
    const out = await page.evaluate(async () => {
      const run = async (/** @type {typeof import('../../js/index.js')} */ mrc, /** @type {string} */ dbName) => {
        const cache = new mrc.ResultCache({ dbName });
        const payload = { rows: 'x'.repeat(4096) };
        const before = Array.from({ length: 1000 }, () => cache.cacheToolResult({ payload, convId: 'L' }));
        // The module becomes ready and a synchronous getter runs while the writes still wait:
        // the clear called next must not overtake them.
        await mrc.ready();
        if (cache.storage !== 'indexeddb') throw new Error(`storage ${cache.storage}`);
        const clear = cache.clearConversation('L');
        const after = Array.from({ length: 1000 }, () => cache.cacheToolResult({ payload, convId: 'L' }));
        await Promise.all([...before, clear, ...after]);
        const later = new Set(await Promise.all(after));
        const survivors = (await cache.entries()).map((e) => e.uri);
        const exact = survivors.length === later.size && survivors.every((u) => later.has(u));
        const stats = await cache.stats();
        cache.free();
        return { later: later.size, survivors: survivors.length, exact, entries: stats.entries };
      };
      // A module instance of its own: its first operations are called before it is ready.
      const cold = await run(await import(/** @type {string} */ ('/pkg/browser.mjs?call-order')), 'order-cold');
      const warm = await run(/** @type {TestWindow} */ (window).mrc, 'order-warm');
      return { cold, warm };
    });
    for (const [when, r] of Object.entries(out)) {
      assert.equal(r.later, 1000, `${when}: every later write stored`);
      assert.ok(r.exact, `${when}: ${r.survivors} survivors, not exactly the 1 000 later writes`);
      assert.equal(r.entries, 1000, `${when}: stats agree`);
    }
    await page.close();
  });

  await check('call order across caches of one page: a cache\'s first operation keeps its place among another cache\'s', async () => {
    const page = await newPage();
    const out = await page.evaluate(async () => {
      const mrc = /** @type {TestWindow} */ (window).mrc;
      const payload = { rows: 'x'.repeat(5000) };
      /** @type {Record<string, string>} */
      const r = {};
      // A clear through a cache not used yet, then a write through one in use: the write stays.
      let used = new mrc.ResultCache({ dbName: 'order-first-1' });
      await used.stats();
      let fresh = new mrc.ResultCache({ dbName: 'order-first-1' });
      const clear = fresh.clearConversation('chat');
      const write = used.cacheToolResult({ payload, convId: 'chat' });
      await clear;
      r.laterWrite = (await used.lookup(String(await write))).status;
      // A write through a cache not used yet, then a clear through one in use: the write goes.
      used = new mrc.ResultCache({ dbName: 'order-first-2' });
      await used.stats();
      fresh = new mrc.ResultCache({ dbName: 'order-first-2' });
      const earlier = fresh.cacheToolResult({ payload, convId: 'chat' });
      await used.clearConversation('chat');
      r.earlierWrite = (await used.lookup(String(await earlier))).status;
      // The free functions' default cache, on its first use, against a cache of the same database.
      used = new mrc.ResultCache();
      await used.stats();
      const freeClear = mrc.clearConversation('chat-default');
      const afterFree = used.cacheToolResult({ payload, convId: 'chat-default' });
      await freeClear;
      r.afterFreeClear = (await used.lookup(String(await afterFree))).status;
      return r;
    });
    assert.deepEqual(out, { laterWrite: 'hit', earlierWrite: 'miss', afterFreeClear: 'hit' });
    await page.close();
  });

  await check('two tabs each writing 200 entries concurrently: 400 readable', async () => {
    const [a, b] = await Promise.all([newPage(), newPage()]);
    const write = (/** @type {import('playwright-core').Page} */ page, /** @type {string} */ tab) => page.evaluate(async (tab) => {
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'two-tabs' });
      const out = [];
      for (let i = 0; i < 200; i++) out.push(await cache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).payloadOf(`${tab}${i}`, 5), convId: tab }));
      return out;
    }, tab);
    const [ua, ub] = await Promise.all([write(a, 'a'), write(b, 'b')]);
    const readable = await a.evaluate(async (all) => {
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'two-tabs' });
      let n = 0;
      for (const uri of all) if (await cache.readCachedPayload(uri)) n++;
      return n;
    }, [...ua, ...ub]);
    assert.equal(new Set([...ua, ...ub]).size, 400);
    assert.equal(readable, 400);
    await Promise.all([a.close(), b.close()]);
  });

  await check('version change: another page upgrades the database; our next operations still work', async () => {
    const first = await newPage();
    const uri = await first.evaluate(async () => {
      /** @type {TestWindow} */ (window).vcache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'version-test' });
      return /** @type {TestWindow} */ (window).vcache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).payloadOf('v0', 8), convId: 'v' });
    });
    const second = await newPage();
    const version = await second.evaluate(() => new Promise((resolve, reject) => {
      const req = indexedDB.open('version-test', 42);
      req.onupgradeneeded = () => req.result.createObjectStore('someone-elses-store');
      req.onsuccess = () => { const v = req.result.version; req.result.close(); resolve(v); };
      req.onerror = () => reject(req.error);
      req.onblocked = () => {}; // resolves once our connection closes on versionchange
    }));
    assert.equal(version, 42);
    const out = await first.evaluate(async (uri) => {
      const back = /** @type {Payload | null} */ (await /** @type {TestWindow} */ (window).vcache.readCachedPayload(uri));
      const next = await /** @type {TestWindow} */ (window).vcache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).payloadOf('v1', 8), convId: 'v' });
      const again = /** @type {Payload | null} */ (await /** @type {TestWindow} */ (window).vcache.readCachedPayload(next));
      return { back: back?.tag, again: again?.tag };
    }, uri);
    assert.deepEqual(out, { back: 'v0', again: 'v1' });
    await Promise.all([first.close(), second.close()]);
  });

  await check('blocked upgrade: an event, then the operation proceeds once the old connection closes', async () => {
    const holder = await newPage();
    await holder.evaluate(() => /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
      const req = indexedDB.open('blocked-test', 1);
      req.onupgradeneeded = () => req.result.createObjectStore('legacy');
      req.onsuccess = () => { /** @type {TestWindow} */ (window).held = req.result; resolve(); }; // ignores versionchange on purpose
      req.onerror = () => reject(req.error);
    })));
    const page = await newPage();
    const pending = page.evaluate(() => {
      /** @type {TestWindow} */ (window).blockedEvents = [];
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'blocked-test', onEvent: (e) => e.kind === 'blocked' && /** @type {TestWindow} */ (window).blockedEvents.push(e) });
      return cache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).payloadOf('blk', 8), convId: 'b' });
    });
    await page.waitForFunction(() => /** @type {TestWindow} */ (window).blockedEvents?.length > 0, null, { timeout: 20_000 });
    await holder.evaluate(() => /** @type {TestWindow} */ (window).held.close());
    const uri = await pending;
    assert.match(/** @type {string} */ (uri), /^mcp\+cache:\/\/b\//); // null (not cached) fails the match too
    assert.deepEqual(await page.evaluate(() => /** @type {TestWindow} */ (window).blockedEvents), [{ kind: 'blocked', database: 'blocked-test' }]);
    await Promise.all([holder.close(), page.close()]);
  });

  await check('deleted database: deleteDatabase from another page while open; next write and read succeed', async () => {
    const first = await newPage();
    await first.evaluate(async () => {
      /** @type {TestWindow} */ (window).dcache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'delete-test' });
      await /** @type {TestWindow} */ (window).dcache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).payloadOf('d0', 8), convId: 'd' });
    });
    const second = await newPage();
    await second.evaluate(() => /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
      const req = indexedDB.deleteDatabase('delete-test');
      req.onsuccess = () => resolve();
      req.onerror = () => reject(req.error);
    })));
    const out = await first.evaluate(async () => {
      const uri = await /** @type {TestWindow} */ (window).dcache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).payloadOf('d1', 8), convId: 'd' });
      const back = /** @type {Payload | null} */ (await /** @type {TestWindow} */ (window).dcache.readCachedPayload(uri));
      return back?.tag;
    });
    assert.equal(out, 'd1');
    await Promise.all([first.close(), second.close()]);
  });

  await check('migration: a chatbox-core v1 database upgrades in place; old records readable, new writes work, indexes present', async () => {
    const page = await newPage();
    const out = await page.evaluate(async () => {
      const name = 'chatbox-core-result-cache';
      await /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
        const req = indexedDB.open(name, 1);
        req.onupgradeneeded = () => {
          const store = req.result.createObjectStore('results', { keyPath: 'uri' });
          store.createIndex('convId', 'convId');
          store.createIndex('addedAt', 'addedAt');
          for (let i = 0; i < 25; i++) {
            store.put({ uri: `mcp+cache://chat-${i % 3}/OLDTOKEN${String(i).padStart(3, '0')}`, payload: /** @type {TestWindow} */ (window).payloadOf(`old${i}`, 6),
              convId: `chat-${i % 3}`, sourceToolName: 'timeseries.query', addedAt: Date.now() - 1000 * i, sizeBytes: 6144 });
          }
        };
        req.onsuccess = () => { req.result.close(); resolve(); };
        req.onerror = () => reject(req.error);
      }));
      const cache = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: name });
      let readable = 0;
      for (let i = 0; i < 25; i++) {
        const back = /** @type {Payload | null} */ (await cache.readCachedPayload(`mcp+cache://chat-${i % 3}/OLDTOKEN${String(i).padStart(3, '0')}`, { convId: `chat-${i % 3}` }));
        if (back?.tag === `old${i}`) readable++;
      }
      const fresh = await cache.cacheToolResult({ payload: /** @type {TestWindow} */ (window).payloadOf('new', 8), convId: 'chat-9' });
      const freshBack = /** @type {Payload | null} */ (await cache.readCachedPayload(fresh));
      const stats = await cache.stats();
      cache.close();
      /** @type {{ version: number, stores: string[], indexes: string[] }} */
      const schema = await new Promise((resolve, reject) => {
        const req = indexedDB.open(name);
        req.onsuccess = () => {
          const db = req.result;
          const tx = db.transaction(['results', 'usage'], 'readonly');
          const out = { version: db.version, stores: [.../** @type {DOMStringList & Iterable<string>} */ (db.objectStoreNames)],
            indexes: [.../** @type {DOMStringList & Iterable<string>} */ (tx.objectStore('results').indexNames)] };
          db.close();
          resolve(out);
        };
        req.onerror = () => reject(req.error);
      });
      return { readable, fresh: freshBack?.tag, entries: stats.entries, schema };
    });
    assert.equal(out.readable, 25);
    assert.equal(out.fresh, 'new');
    assert.equal(out.entries, 26);
    assert.deepEqual(out.schema.indexes.sort(), ['addedAt', 'convId']);
    assert.deepEqual(out.schema.stores.sort(), ['meta', 'results', 'usage']);
    await page.close();
  });

  await check('no page or console errors', async () => assert.deepEqual(problems, []));
} finally {
  await close();
}
finish();
