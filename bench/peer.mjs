// The peer the bench compares against: chatbox-core's own modules, `engine/cache.js` and
// `engine/uri-substitution.js` (github:Aquaveo/chatbox-core, MIT). They are never part of this
// repository: whoever runs the bench fetches them and names their directory at run time,
//
//   PEER_DIR=/path/to/chatbox-core npm run bench     (the directory holding engine/cache.js)
//
// and the bench copies them, for the run only, under the git-ignored `.tmp/` of this checkout so
// that the same static server serves them as it serves this package (same origin, same headers,
// same path through the server: no module is favoured by how it is fetched). Without PEER_DIR
// the peer column is absent and every report says so; nothing stands in for it.
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const FILES = ['engine/cache.js', 'engine/uri-substitution.js'];

/** What the reports say when the peer column is absent. */
export const PEER_ABSENT = 'peer column absent: no PEER_DIR was given (PEER_DIR=<directory holding engine/cache.js and engine/uri-substitution.js of chatbox-core>)';

/**
 * The peer's modules as staged by stagePeer.
 * @typedef {{ base: string, dir: string, label: string, remove: () => Promise<void> }} StagedPeer
 */

/**
 * Copies the peer's modules from `process.env.PEER_DIR` under `.tmp/`. Resolves `null` when no
 * PEER_DIR is set, else `{ base, dir, label, remove }`: `base` the URL path the pages import
 * `${base}/engine/cache.js` from, `label` what the reports call it (with the version of the
 * peer's package.json when there is one), `remove()` deletes the copy. A PEER_DIR without the
 * two modules is an error, never a silent fallback.
 * @returns {Promise<StagedPeer | null>}
 */
export async function stagePeer() {
  const dir = process.env.PEER_DIR;
  if (!dir) return null;
  const from = resolve(dir);
  const name = `peer-${process.pid}-${Date.now().toString(36)}`;
  const to = join(ROOT, '.tmp', name);
  for (const file of FILES) {
    const source = join(from, file);
    await readFile(source).catch(() => { throw new Error(`PEER_DIR=${dir}: ${file} is missing (the directory must hold chatbox-core's engine/cache.js and engine/uri-substitution.js)`); });
    await mkdir(join(to, 'engine'), { recursive: true });
    await copyFile(source, join(to, file));
  }
  const version = await readFile(join(from, 'package.json'), 'utf8').then((t) => /** @type {{ version?: string }} */ (JSON.parse(t)).version, () => null);
  return {
    base: `/.tmp/${name}`,
    dir: from,
    label: `chatbox-core${version ? ` ${version}` : ''} (engine/cache.js + engine/uri-substitution.js from ${from})`,
    remove: () => rm(to, { recursive: true, force: true }),
  };
}
