// Consumer tests: the package exactly as npm delivers it, used the ways consumers use it.
//
//   node tests/consumers/run.mjs        (after `npm run build`)
//
// `npm pack`s the repo, installs the tarball into fresh projects under .tmp/consumers/<name>/
// (git-ignored; inside the repo on purpose, so vite, vitest, typescript, react and
// fake-indexeddb resolve from the root node_modules by walking up while the package itself
// comes only from the tarball), then runs each consumer: Node ESM, Node CommonJS, Vitest,
// TypeScript (tsc --strict, moduleResolution "bundler"), the React chat example built by Vite
// and driven in headless Chromium (page + module worker), and a bundler-free
// <script type="module"> page. Each one asserts a real by-reference round trip. The server
// entry (`mcp-result-cache/server`, its own .wasm) and the lists entry (`mcp-result-cache/lists`,
// its own .wasm) each get Node ESM, CommonJS, TypeScript and plain-page consumers, the Vite build
// of the host-only example must contain neither, and the host entry must not export the lists
// entry's names.
//
// Output: `ok - <check>` / `not ok - <check>: <reason>` per check (details on stderr), then
// `consumers: N passed, M failed`; exit code 1 when anything failed. Every wait is bounded;
// servers, the browser and child processes are cleaned up on every exit path.
//
// The checks live in checks-*.mjs (one group each), their names in check-names.mjs; the
// harness, child processes, static server, browser, projects and declaration readers each in
// their own module beside this one.
import { mkdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { DEADLINE_MS, REPO, WORK } from './config.mjs';
import { packageChecks } from './checks-package.mjs';
import { nodeChecks } from './checks-node.mjs';
import { typescriptChecks } from './checks-typescript.mjs';
import { reactChatChecks } from './checks-react-chat.mjs';
import { plainPageChecks } from './checks-plain.mjs';
import { cleanups, record, results, withTimeout } from './harness.mjs';
import { children, killGroup } from './processes.mjs';

/** @typedef {import('./harness.mjs').Failure} Failure */

const started = Date.now();

async function main() {
  await rm(WORK, { recursive: true, force: true });
  await mkdir(join(WORK, 'pack'), { recursive: true });
  await packageChecks();
  await nodeChecks();
  await typescriptChecks();
  await reactChatChecks();
  await plainPageChecks();
}

async function cleanup() {
  for (const child of children) killGroup(child);
  while (cleanups.length) {
    const fn = cleanups.shift();
    await withTimeout(Promise.resolve().then(fn), 10_000, 'cleanup').catch((e) => console.error(`  # cleanup: ${e.message}`));
  }
}

function summary() {
  const failed = results.filter((r) => !r.ok).length;
  console.error(`  # ${((Date.now() - started) / 1000).toFixed(1)} s; projects in ${relative(REPO, WORK)}/`);
  console.log(`consumers: ${results.length - failed} passed, ${failed} failed`);
  return failed;
}

let finished = false;
/** @param {{ name: string, error: unknown }} [extraFailure] a failure outside any check (whatever was thrown) */
async function finish(extraFailure) {
  if (finished) return;
  finished = true;
  clearTimeout(deadline);
  if (extraFailure) record(extraFailure.name, /** @type {Failure} */ (extraFailure.error));
  await cleanup();
  process.exit(summary() > 0 ? 1 : 0);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => finish({ name: `run: interrupted by ${signal}`, error: Object.assign(new Error('interrupted'), { detail: '' }) }));
}
const deadline = setTimeout(
  () => finish({
    name: 'run: overall deadline',
    error: Object.assign(new Error(`still running after ${DEADLINE_MS / 1000} s; later checks not run`), { detail: '' }),
  }),
  DEADLINE_MS,
);

try {
  await main();
  await finish();
} catch (error) {
  await finish({ name: 'run: unexpected error', error });
}
