// The consumer tests' bookkeeping: named checks with dependencies and a time limit, their
// `ok - ` / `not ok - ` lines, assertions, and the cleanups run on every exit path.
import { STEP_MS } from './config.mjs';

/**
 * A failed check's error: its message, and what to print under it (`detail`: the tail of a
 * command's output; '' for an assertion, whose message says it all; absent: the stack).
 * @typedef {Error & { detail?: string }} Failure
 */
/** @type {{ name: string, ok: boolean }[]} */
export const results = [];
/** @type {Set<string>} */
export const passed = new Set();
/** @type {(() => unknown)[]} */
export const cleanups = [];

// eslint-disable-next-line no-control-regex -- the terminal's colour codes start with ESC
const stripAnsi = (/** @type {unknown} */ s) => String(s).replace(/\u001b\[[0-9;]*m/g, '');
const oneLine = (/** @type {unknown} */ s) => stripAnsi(s).replace(/\s+/g, ' ').trim().slice(0, 400);

/** @param {string} name @param {Failure} [error] */
export function record(name, error) {
  results.push({ name, ok: !error });
  if (!error) {
    passed.add(name);
    console.log(`ok - ${name}`);
    return;
  }
  console.log(`not ok - ${name}: ${oneLine(error.message ?? error)}`);
  const detail = error.detail ?? (error.stack ? error.stack.split('\n').slice(1).join('\n') : '');
  if (detail) console.error(stripAnsi(detail).split('\n').map((l) => `  # ${l}`).join('\n'));
}

/** @param {Promise<unknown>} promise @param {number} ms @param {string} what */
export function withTimeout(promise, ms, what) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`${what} timed out after ${ms / 1000} s`), { detail: '' })), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs one check; `needs` names earlier checks it depends on.
 * @param {string} name @param {string[]} needs @param {() => unknown} fn @param {number} [ms]
 */
export async function check(name, needs, fn, ms = STEP_MS) {
  const missing = needs.filter((n) => !passed.has(n));
  if (missing.length) return record(name, Object.assign(new Error(`not run: needs "${missing.join('", "')}"`), { detail: '' }));
  try {
    await withTimeout(Promise.resolve().then(fn), ms, 'the check');
    record(name);
  } catch (error) {
    record(name, /** @type {Failure} */ (error));
  }
}

/** @param {string} message @param {string} [detail] @returns {never} */
export function fail(message, detail) {
  const error = /** @type {Failure} */ (new Error(message));
  error.detail = detail ?? ''; // an assertion: the message says it all, no stack
  throw error;
}

/** @param {unknown} condition @param {string} message @param {string} [detail] @returns {asserts condition} */
export function assert(condition, message, detail) {
  if (!condition) fail(message, detail);
}
