// The consumer projects: fresh directories under .tmp/consumers/, each with the packed tarball
// installed, and the file listings the checks read from them.
import { cp, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { PACKAGE, WORK } from './config.mjs';
import { assert } from './harness.mjs';
import { npmEnv, run } from './processes.mjs';

/** @type {string | null} */
let tarball = null; // absolute path
/** @type {Record<string, string>} */
export const projects = {}; // name -> dir

/** @param {string} path the packed tarball (absolute) */
export function setTarball(path) {
  tarball = path;
}

/**
 * @param {string} name
 * @param {{ from?: string | null, filter?: (source: string) => boolean }} [options] what to copy
 *   into the new project (a directory), and which of its paths
 * @returns {Promise<string>} the project's directory
 */
export async function createProject(name, { from = null, filter } = {}) {
  const dir = join(WORK, name);
  await mkdir(dir, { recursive: true });
  if (from) await cp(from, dir, { recursive: true, filter });
  projects[name] = dir;
  return dir;
}

/** @param {string} dir @param {object} manifest */
export async function writeManifest(dir, manifest) {
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** @param {string} dir */
export async function installTarball(dir) {
  await run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--offline', relative(dir, /** @type {string} */ (tarball))], {
    cwd: dir,
    env: npmEnv(),
  });
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  assert(manifest.dependencies?.[PACKAGE]?.startsWith('file:'), `${basename(dir)}: dependency not recorded`);
  const installed = join(dir, 'node_modules', PACKAGE);
  const info = await stat(installed).catch(() => null);
  assert(info?.isDirectory(), `${basename(dir)}: node_modules/${PACKAGE} missing`);
}

/** @param {string} dir @param {string} [base] @returns {Promise<string[]>} paths relative to `base` */
export async function listFiles(dir, base = dir) {
  /** @type {string[]} */
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full, base)));
    else out.push(relative(base, full));
  }
  return out;
}

/** @param {unknown} exportsField a package.json's `exports` @returns {string[]} */
export function exportTargets(exportsField) {
  if (typeof exportsField === 'string') return [exportsField];
  return Object.values(exportsField ?? {}).flatMap(exportTargets);
}
