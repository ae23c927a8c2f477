// chatbox-core 0.12 read-through in real Chromium (Playwright, Debian's /usr/bin/chromium):
// references minted by chatbox-core keep resolving after a host switches to this package, while
// a chatbox-core tab still holds its version-1 database open and ignores `versionchange`.
import assert from 'node:assert/strict';
import { checks } from './checks.mjs';
import { openProfile } from './profile.mjs';

/**
 * The page's window: the browser entry (profile.mjs), the helpers `newPage` puts there, and,
 * in the chatbox-core tab, its open connection and the `versionchange` events it saw.
 * @typedef {import('./profile.mjs').PageWindow & {
 *   within: <T>(promise: Promise<T>, what: string, ms?: number) => Promise<T>,
 *   legacyInfo: (name: string) => Promise<{ version: number, stores: string[] }>,
 *   databaseNames: () => Promise<(string | undefined)[]>,
 *   held: IDBDatabase,
 *   versionChanges: number,
 * }} TestWindow
 */

const LEGACY_DB = 'chatbox-core-result-cache';
const URI = 'mcp+cache://chat-1/OLDTOKEN001';
// chatbox-core stored the host's `user:42` as `user_42` (its `sanitizeConvId`).
const REWRITTEN_URI = 'mcp+cache://user_42/OLDTOKEN002';
const PAYLOAD = { rows: [{ t: '2026-01-01T00:00:00Z', value: 7 }, { t: '2026-01-01T00:01:00Z', value: 9 }] };

const { problems, newPage: openPage, close } = await openProfile('legacy');
const { check, finish } = checks('legacy');
async function newPage() {
  return openPage(() => {
    // Every package call below must settle promptly: a hang behind chatbox-core's open
    // connection fails the check instead of stalling it.
    /** @type {TestWindow} */ (window).within = (promise, what, ms = 10_000) => Promise.race([promise, new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms))]);
    /** @type {TestWindow} */ (window).legacyInfo = (name) => new Promise((resolve, reject) => {
      const req = indexedDB.open(name); // no version: never upgrades an existing database
      req.onupgradeneeded = () => reject(new Error(`${name} did not exist`));
      req.onsuccess = () => {
        const out = { version: req.result.version, stores: [.../** @type {DOMStringList & Iterable<string>} */ (req.result.objectStoreNames)].sort() };
        req.result.close();
        resolve(out);
      };
      req.onerror = () => reject(req.error);
    });
    /** @type {TestWindow} */ (window).databaseNames = async () => (await indexedDB.databases()).map((d) => d.name).sort();
  });
}

// Page A plays a chatbox-core 0.12 tab: it creates the version-1 schema with one record and
// keeps its connection open, ignoring `versionchange` (it counts them).
const chatbox = await newPage();
await chatbox.evaluate(({ name, uri, rewritten, payload }) => /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
  /** @type {TestWindow} */ (window).versionChanges = 0;
  const req = indexedDB.open(name, 1);
  req.onupgradeneeded = () => {
    const store = req.result.createObjectStore('results', { keyPath: 'uri' });
    store.createIndex('convId', 'convId');
    store.createIndex('addedAt', 'addedAt');
    store.put({ uri, payload, convId: 'chat-1', sourceToolName: 'timeseries.query', addedAt: Date.now() - 60_000, sizeBytes: JSON.stringify(payload).length });
    store.put({ uri: rewritten, payload, convId: 'user_42', sourceToolName: 'timeseries.query', addedAt: Date.now() - 60_000, sizeBytes: JSON.stringify(payload).length });
  };
  req.onsuccess = () => {
    /** @type {TestWindow} */ (window).held = req.result;
    /** @type {TestWindow} */ (window).held.onversionchange = () => { /** @type {TestWindow} */ (window).versionChanges++; }; // and never closes
    resolve();
  };
  req.onerror = () => reject(req.error);
})), { name: LEGACY_DB, uri: URI, rewritten: REWRITTEN_URI, payload: PAYLOAD });
const host = await newPage();

try {
  await check('an old reference resolves through the free functions, scoped to its conversation, without hanging', async () => {
    const out = await host.evaluate(async (uri) => {
      const { readCachedPayload, substituteCacheUris } = /** @type {TestWindow} */ (window).mrc;
      const read = await /** @type {TestWindow} */ (window).within(readCachedPayload(uri, { convId: 'chat-1' }), 'readCachedPayload');
      const substituted = await /** @type {TestWindow} */ (window).within(substituteCacheUris({ data_uri: uri }, { convId: 'chat-1' }), 'substituteCacheUris');
      const otherRead = await /** @type {TestWindow} */ (window).within(readCachedPayload(uri, { convId: 'chat-2' }), 'readCachedPayload (other conversation)');
      const otherSubstituted = await /** @type {TestWindow} */ (window).within(substituteCacheUris({ data_uri: uri }, { convId: 'chat-2' }), 'substituteCacheUris (other conversation)');
      return { read, substituted, otherRead, otherOk: otherSubstituted.ok };
    }, URI);
    assert.deepEqual(out.read, PAYLOAD);
    assert.deepEqual(out.substituted, { ok: true, args: { data: PAYLOAD }, sources: [{ uri: URI, sourceToolName: 'timeseries.query' }] });
    assert.equal(out.otherRead, null);
    assert.equal(out.otherOk, false);
  });

  await check('the chatbox-core database is still version 1, never upgraded, and its tab saw no versionchange', async () => {
    const held = await chatbox.evaluate(() => ({ version: /** @type {TestWindow} */ (window).held.version, versionChanges: /** @type {TestWindow} */ (window).versionChanges }));
    assert.deepEqual(held, { version: 1, versionChanges: 0 });
    const fresh = await host.evaluate((name) => /** @type {TestWindow} */ (window).within(/** @type {TestWindow} */ (window).legacyInfo(name), 'open without version'), LEGACY_DB);
    assert.deepEqual(fresh, { version: 1, stores: ['results'] });
  });

  await check('legacyChatboxCore: false does not read through; the default does', async () => {
    const out = await host.evaluate(async (uri) => {
      const off = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'legacy-off', legacyChatboxCore: false });
      const on = new /** @type {TestWindow} */ (window).mrc.ResultCache({ dbName: 'legacy-on' });
      const offRead = await /** @type {TestWindow} */ (window).within(off.readCachedPayload(uri, { convId: 'chat-1' }), 'readCachedPayload (off)');
      const offSubstituted = await /** @type {TestWindow} */ (window).within(off.substituteCacheUris({ data_uri: uri }, { convId: 'chat-1' }), 'substituteCacheUris (off)');
      const onRead = await /** @type {TestWindow} */ (window).within(on.readCachedPayload(uri, { convId: 'chat-1' }), 'readCachedPayload (default)');
      off.free();
      on.free();
      return { offRead, offOk: offSubstituted.ok, onRead };
    }, URI);
    assert.equal(out.offRead, null);
    assert.equal(out.offOk, false);
    assert.deepEqual(out.onRead, PAYLOAD);
  });

  await check('clearConversation("chat-1") removes the record from the version-1 database too', async () => {
    await host.evaluate(() => /** @type {TestWindow} */ (window).within(/** @type {TestWindow} */ (window).mrc.clearConversation('chat-1'), 'clearConversation'));
    const seen = await chatbox.evaluate((uri) => new Promise((resolve, reject) => {
      const req = /** @type {TestWindow} */ (window).held.transaction('results').objectStore('results').get(uri);
      req.onsuccess = () => resolve({ record: req.result ?? null, version: /** @type {TestWindow} */ (window).held.version });
      req.onerror = () => reject(req.error);
    }), URI);
    assert.deepEqual(seen, { record: null, version: 1 });
    const read = await host.evaluate((uri) => /** @type {TestWindow} */ (window).within(/** @type {TestWindow} */ (window).mrc.readCachedPayload(uri, { convId: 'chat-1' }), 'readCachedPayload after clear'), URI);
    assert.equal(read, null);
  });

  await check('an id chatbox-core rewrote (user:42 stored as user_42) resolves under the host\'s id, and clears with it', async () => {
    const out = await host.evaluate(async (uri) => {
      const { readCachedPayload, substituteCacheUris, clearConversation } = /** @type {TestWindow} */ (window).mrc;
      const within = /** @type {TestWindow} */ (window).within;
      const read = await within(readCachedPayload(uri, { convId: 'user:42' }), 'readCachedPayload (user:42)');
      const substituted = await within(substituteCacheUris({ data_uri: uri }, { convId: 'user:42' }), 'substituteCacheUris (user:42)');
      const other = await within(readCachedPayload(uri, { convId: 'user:43' }), 'readCachedPayload (user:43)');
      await within(clearConversation('user:42'), 'clearConversation (user:42)');
      const afterClear = await within(readCachedPayload(uri), 'readCachedPayload after clear (unscoped)');
      return { read, substitutedOk: substituted.ok, other, afterClear };
    }, REWRITTEN_URI);
    assert.deepEqual(out.read, PAYLOAD);
    assert.equal(out.substitutedOk, true);
    assert.equal(out.other, null, 'another conversation');
    assert.equal(out.afterClear, null, 'cleared from the version-1 database');
  });

  await check('the package never blocks deleting the chatbox-core database', async () => {
    await chatbox.evaluate(() => /** @type {TestWindow} */ (window).held.close()); // chatbox-core's tab goes away
    const outcome = await chatbox.evaluate((name) => new Promise((resolve) => {
      const req = indexedDB.deleteDatabase(name);
      req.onblocked = () => resolve('blocked');
      req.onsuccess = () => resolve('deleted');
      req.onerror = () => resolve(`error: ${req.error?.name}`);
    }), LEGACY_DB);
    assert.equal(outcome, 'deleted');
  });

  await check('without a chatbox-core database, misses create none (indexedDB.databases() unchanged)', async () => {
    const fresh = await newPage(); // a new instance: nothing remembered about the database
    for (const page of [host, fresh]) {
      const out = await page.evaluate(async (name) => {
        const before = await /** @type {TestWindow} */ (window).databaseNames();
        const uri = 'mcp+cache://chat-1/NOSUCHTOKEN';
        const read = await /** @type {TestWindow} */ (window).within(/** @type {TestWindow} */ (window).mrc.readCachedPayload(uri, { convId: 'chat-1' }), 'readCachedPayload (miss)');
        const substituted = await /** @type {TestWindow} */ (window).within(/** @type {TestWindow} */ (window).mrc.substituteCacheUris({ data_uri: uri }, { convId: 'chat-1' }), 'substituteCacheUris (miss)');
        await /** @type {TestWindow} */ (window).within(/** @type {TestWindow} */ (window).mrc.clearConversation('chat-1'), 'clearConversation (no database)');
        const after = await /** @type {TestWindow} */ (window).databaseNames();
        return { read, ok: substituted.ok, before, after, legacy: after.includes(name) };
      }, LEGACY_DB);
      assert.equal(out.read, null);
      assert.equal(out.ok, false);
      assert.equal(out.legacy, false, `${LEGACY_DB} was created`);
      assert.deepEqual(out.after, out.before);
    }
    await fresh.close();
  });

  await check('no page or console errors', async () => assert.deepEqual(problems, []));
} finally {
  await close();
}
finish();
