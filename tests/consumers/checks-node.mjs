// The Node consumers: ESM and CommonJS of each entry, the AI SDK route, and a Vitest suite.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT_MODULES, URI_RE } from './config.mjs';
import { C } from './check-names.mjs';
import { assert, check } from './harness.mjs';
import { lastJsonLine, node } from './processes.mjs';
import { projects } from './projects.mjs';

/** @typedef {import('./harness.mjs').Failure} Failure */

/** The check `C.esm`. */
async function nodeEsm() {
  const { stdout } = await node(['index.mjs'], { cwd: projects['node-esm'] });
  const out = lastJsonLine(stdout);
  assert(out.ok && URI_RE.test(out.uri) && URI_RE.test(out.visibleUri), `unexpected output ${stdout}`);
}

/** The check `C.cjs`. */
async function nodeCjs() {
  const { stdout } = await node(['index.cjs'], { cwd: projects['node-cjs'] });
  const out = lastJsonLine(stdout);
  assert(out.ok && URI_RE.test(out.uri) && URI_RE.test(out.visibleUri), `unexpected output ${stdout}`);
}

/** The check `C.serverEsm`. */
async function serverEsm() {
  const out = lastJsonLine((await node(['server.mjs'], { cwd: projects['node-esm'] })).stdout);
  assert(out.ok && out.description === 'An invoice. [Cache-Control: no-store]', `unexpected output ${JSON.stringify(out)}`);
}

/** The check `C.serverCjs`. */
async function serverCjs() {
  const out = lastJsonLine((await node(['server.cjs'], { cwd: projects['node-cjs'] })).stdout);
  assert(out.ok, `unexpected output ${JSON.stringify(out)}`);
}

/** The check `C.listsEsm`. */
async function listsEsm() {
  const out = lastJsonLine((await node(['lists.mjs'], { cwd: projects['node-esm'] })).stdout);
  assert(out.ok && out.ageMs === 0 && out.vars?.id === '7', `unexpected output ${JSON.stringify(out)}`);
}

/** The check `C.listsCjs`. */
async function listsCjs() {
  const out = lastJsonLine((await node(['lists.cjs'], { cwd: projects['node-cjs'] })).stdout);
  assert(out.ok, `unexpected output ${JSON.stringify(out)}`);
}

/** The check `C.aiSdk`. */
async function aiSdkRoundTrip() {
  const out = lastJsonLine((await node(['ai-sdk.mjs'], { cwd: projects['node-esm'] })).stdout);
  assert(out.ok, `unexpected output ${JSON.stringify(out)}`);
  assert(URI_RE.test(out.reference.split('#')[0]) && out.reference.endsWith('#/rows'), `the model was given ${out.reference}`);
  assert(JSON.stringify(out.typed) === JSON.stringify({ title: 'cpu', data_uri: out.reference }), `the model typed ${JSON.stringify(out.typed)}`);
  assert(out.pointsReceived === 240 && out.receivedKeys.join(',') === 'title,data', `the server received ${out.pointsReceived} points, keys ${out.receivedKeys}`);
  assert(out.serverCallsAfterBlocked === 1, `the blocked call reached the server (${out.serverCallsAfterBlocked} calls)`);
  assert(/could not be resolved/.test(out.envelopeError) && out.missing?.[0] === 'mcp+cache://chat-ai/AAAAAAAAAAAA', `envelope ${out.envelopeError}`);
  assert(out.media.type === 'content' && out.media.part === 'file' && out.media.mediaType === 'image/png' && out.media.sameBytes === true,
    `the image reached the model as ${JSON.stringify(out.media)}`);
  assert(out.answer === '{"ok":true,"points":240}', `answer ${out.answer}`);
}

/** The check `C.aiSdkCjs`. */
async function aiSdkCjs() {
  const out = lastJsonLine((await node(['ai-sdk.cjs'], { cwd: projects['node-cjs'] })).stdout);
  assert(out.ok, `unexpected output ${JSON.stringify(out)}`);
}

/**
 * What Vitest's JSON reporter writes (the fields read here).
 * @typedef {{
 *   numTotalTests: number,
 *   numPassedTests: number,
 *   testResults: { assertionResults: { fullName: string, status: string, failureMessages: string[] }[] }[],
 * }} VitestReport
 */

/** The check `C.vitest`. */
async function vitestSuite() {
  const dir = projects.vitest;
  const report = join(dir, 'vitest-report.json');
  await node([join(ROOT_MODULES, 'vitest/vitest.mjs'), 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs'),
    '--reporter=json', `--outputFile=${report}`], { cwd: dir, env: { ...process.env, CI: '1' } })
    .catch(async (/** @type {Failure} */ error) => {
      const json = await readFile(report, 'utf8').catch(() => null);
      const failures = json ? /** @type {VitestReport} */ (JSON.parse(json)).testResults.flatMap((f) => f.assertionResults)
        .filter((a) => a.status !== 'passed').map((a) => `${a.fullName}: ${a.failureMessages.join(' ')}`) : [];
      if (failures.length) error.message = `${failures.length} failing: ${failures[0]}`;
      throw error;
    });
  const { numTotalTests, numPassedTests } = /** @type {VitestReport} */ (JSON.parse(await readFile(report, 'utf8')));
  assert(numTotalTests === 3 && numPassedTests === 3, `${numPassedTests}/${numTotalTests} tests passed`);
}

/** Runs each Node consumer (ESM, CommonJS, Vitest) of each entry. */
export async function nodeChecks() {
  await check(C.esm, [C.install], nodeEsm);
  await check(C.cjs, [C.install], nodeCjs);
  await check(C.serverEsm, [C.install], serverEsm);
  await check(C.serverCjs, [C.install], serverCjs);
  await check(C.listsEsm, [C.install], listsEsm);
  await check(C.listsCjs, [C.install], listsCjs);
  await check(C.aiSdk, [C.install], aiSdkRoundTrip);
  await check(C.aiSdkCjs, [C.install], aiSdkCjs);
  await check(C.vitest, [C.install], vitestSuite);
}
