// Boundary fuzzing (`npm run fuzz`): random combinations of hostile and ordinary values into
// every export of the release package (Node, fake-indexeddb). Fails on any trap, any promise
// that does not settle, or any exception that escapes as uncaught; then checks the module still
// works. BOUNDARY_CASES (default 200000) calls, seeded by BOUNDARY_SEED for reruns.
import 'fake-indexeddb/auto';
import * as host from '../../pkg/node.mjs';
import * as server from '../../pkg/server.node.mjs';
import * as lists from '../../pkg/lists.node.mjs';
import { HOSTILE, HOSTILE_NAMES, targets, classify, stillWorks } from './hostile.mjs';

// Every entry's exports (the host's where names are shared: matchGlob, ready, wasmMemoryBytes).
const api = { ...lists, ...server, ...host };

const cases = Number(process.env.BOUNDARY_CASES ?? 200_000);
let seed = Number(process.env.BOUNDARY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const firstSeed = seed;
const random = () => {
  // mulberry32: small, seedable, good enough to pick cases.
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
};
/** @template T @param {readonly T[]} list @returns {T} */
const pick = (list) => list[Math.floor(random() * list.length)];
const ORDINARY = [
  () => 't', () => 'a.b', () => 'mcp+cache://c/AAAAAAAAAAA', () => ({ convId: 'c' }), () => ({}),
  () => ({ data_uri: 'mcp+cache://c/AAAAAAAAAAA' }), () => [1, 2, 3], () => 42, () => undefined,
  () => ({ content: [{ type: 'text', text: '{"rows":[1,2]}' }] }), () => ({ method: 'notifications/resources/updated', params: { uri: 'vurb://stale/a.*' } }),
];
const value = () => (random() < 0.5 ? HOSTILE[pick(HOSTILE_NAMES)]() : pick(ORDINARY)());

/** @type {unknown[]} */
const escaped = [];
process.on('uncaughtException', (e) => escaped.push(e));
process.on('unhandledRejection', (e) => escaped.push(e));

const all = Object.entries(targets(api)).filter(([name]) => name !== 'configureDefaultCache');
const counts = { returned: 0, threw: 0, resolved: 0, rejected: 0, unsettled: 0, trap: 0 };
/** @type {string[]} */
const failures = [];
const started = Date.now();
/** @type {Promise<void>[]} */
let inFlight = [];
for (let i = 0; i < cases; i++) {
  const [name, fn] = pick(all);
  const args = [value(), value(), value()];
  inFlight.push(classify(fn, args, 10_000).then((outcome) => {
    counts[outcome.kind]++;
    if ((outcome.kind === 'trap' || outcome.kind === 'unsettled') && failures.length < 20) {
      failures.push(`${name}: ${outcome.kind} ${outcome.error ?? ''}`);
    }
  }));
  if (inFlight.length >= 500) {
    await Promise.all(inFlight);
    inFlight = [];
  }
}
await Promise.all(inFlight);
const works = await stillWorks(api);
console.log(`boundary fuzz: ${cases} calls over ${all.length} exports (seed ${firstSeed}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`boundary fuzz: ${JSON.stringify(counts)}; uncaught ${escaped.length}; module still works: ${works}`);
for (const f of failures) console.log(`  ${f}`);
for (const e of escaped.slice(0, 5)) console.log(`  uncaught: ${/** @type {{ stack?: string } | null | undefined} */ (e)?.stack ?? e}`);
if (counts.trap || counts.unsettled || escaped.length || !works) {
  console.error('boundary fuzz: FAILED');
  process.exit(1);
}
console.log('boundary fuzz: ok');
