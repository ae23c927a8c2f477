// Creating a database keeps nothing alive once the cache is freed: the upgrade's backfill walk
// (a cursor over the records, for databases chatbox-core v1 wrote) is listened to until the open
// settles, then released with its request and object store. Over fake-indexeddb, with the
// garbage collector called from the test (`--expose-gc` set at run time).
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { ResultCache } from '../../pkg/node.mjs';

setFlagsFromString('--expose-gc');
const gc = /** @type {() => void} */ (runInNewContext('gc'));

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * The cursors opened on object stores while `run` runs, held weakly.
 * @param {() => Promise<void>} run
 */
async function cursorsOpenedBy(run) {
  const proto = /** @type {{ openCursor: (...args: unknown[]) => object }} */ (globalThis.IDBObjectStore.prototype);
  const original = proto.openCursor;
  /** @type {WeakRef<object>[]} */
  const opened = [];
  proto.openCursor = function openCursor(...args) {
    const request = original.apply(this, args);
    opened.push(new WeakRef(request));
    return request;
  };
  try {
    await run();
  } finally {
    proto.openCursor = original;
  }
  return opened;
}

test('the upgrade of a new database leaves its backfill cursor to the garbage collector once the cache is freed', async () => {
  const names = Array.from({ length: 3 }, (_, i) => `upgrade-releases-${process.pid}-${i}`);
  const opened = await cursorsOpenedBy(async () => {
    for (const dbName of names) {
      const cache = new ResultCache({ dbName, threshold: 0, legacyChatboxCore: false });
      await cache.cacheToolResult({ payload: { rows: [1, 2, 3] }, convId: 'c' });
      cache.close();
      cache.free();
    }
  });
  assert.equal(opened.length, names.length, 'each new database walked its records once, in its upgrade');
  for (let i = 0; i < 5 && opened.some((ref) => ref.deref() !== undefined); i++) {
    await turn();
    gc();
  }
  assert.deepEqual(opened.map((ref) => ref.deref() === undefined), names.map(() => true), 'every upgrade cursor was collected');
});
