// Child processes of the consumer tests: npm, node and the compilers, each bounded in time and
// killed with everything it started.
import { spawn } from 'node:child_process';
import { basename, relative } from 'node:path';
import { REPO, STEP_MS } from './config.mjs';

/** @type {Set<import('node:child_process').ChildProcess>} */
export const children = new Set();

const tail = (/** @type {string} */ s, n = 25) => s.trim().split('\n').slice(-n).join('\n');

/** npm must act on the temp project: drop the npm_* variables `npm test` exports (notably
 *  npm_config_local_prefix=/work/main), keeping only where the cache and config live. */
export function npmEnv() {
  const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig',
    'npm_config_cafile', 'npm_config_registry', 'npm_config_noproxy', 'npm_config_proxy',
    'npm_config_https_proxy']);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || keep.has(k.toLowerCase())),
  );
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

/**
 * Where and how long a command runs (default: the repository, this process's environment, a
 * check's time less 10 s).
 * @typedef {{ cwd?: string, env?: NodeJS.ProcessEnv, timeout?: number }} RunOptions
 */

/**
 * @param {string} command @param {string[]} args @param {RunOptions} [options]
 * @returns {Promise<{ stdout: string, stderr: string }>}
 */
export function run(command, args, { cwd = REPO, env = process.env, timeout = STEP_MS - 10_000 } = {}) {
  return new Promise((resolvePromise, reject) => {
    const label = `${basename(command)} ${args.join(' ')}`;
    // Own process group: a timeout kills the command and everything it started (vitest forks).
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      killGroup(child);
      reject(Object.assign(new Error(`${label}: timed out after ${timeout / 1000} s`), { detail: tail(stdout + stderr) }));
    }, timeout);
    child.on('error', (error) => {
      clearTimeout(timer);
      children.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (code === 0) resolvePromise({ stdout, stderr });
      else reject(Object.assign(new Error(`${label} (in ${relative(REPO, cwd) || '.'}) exited with ${code ?? signal}`), {
        detail: tail(`${stdout}\n${stderr}`),
      }));
    });
  });
}

/** @param {import('node:child_process').ChildProcess} child */
export function killGroup(child) {
  try {
    process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL');
  } catch {
    // already gone
  }
}

/** @param {string[]} args @param {RunOptions} [options] */
export const node = (args, options) => run(process.execPath, args, options);
export const lastJsonLine = (/** @type {string} */ stdout) => JSON.parse(/** @type {string} */ (stdout.trim().split('\n').at(-1)));
