// Writes the Node entries' generated parts, after the nodejs builds exist (run by
// scripts/build.sh):
// - pkg/augment.cjs, pkg/cache-flows.cjs, pkg/warm-up.cjs and pkg/defaults.cjs, the CommonJS copies
//   of js/src/augment.mjs (with the js/protocol.mjs it imports bundled in), js/src/cache-flows.mjs
//   (with js/flows.mjs's `checkFlows`), js/warm-up.mjs and js/src/defaults.mjs that
//   js/node.cjs requires: one
//   source for both module systems, converted by rolldown (already the bundler of the browser
//   entries), unminified;
// - the ES module entries (pkg/node.mjs, pkg/server.node.mjs, pkg/lists.node.mjs) from their
//   CommonJS entries' exports, so the list of names is never written by hand: Node's ES-module
//   view of a CommonJS module cannot see names behind `module.exports = { ...wasm, … }`.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { rolldown } from 'rolldown';

const require = createRequire(import.meta.url);

/** Plain-JS sources (of js/src/, and js/warm-up.mjs) the CommonJS entry requires: the file written, its exports. */
const CONVERTED = [
  { source: 'js/src/augment.mjs', out: 'pkg/augment.cjs', exports: 'augmentTools' },
  { source: 'js/src/cache-flows.mjs', out: 'pkg/cache-flows.cjs', exports: 'cacheFlows' },
  { source: 'js/warm-up.mjs', out: 'pkg/warm-up.cjs', exports: 'warmUp' },
  { source: 'js/references.mjs', out: 'pkg/references.cjs', exports: 'referencesOf' },
  { source: 'js/cache-route.mjs', out: 'pkg/cache-route.cjs', exports: 'makeCacheRoute' },
  { source: 'js/src/defaults.mjs', out: 'pkg/defaults.cjs', exports: 'afterToolCall,beforeToolCall,cacheToolResult,cacheToolsLoader,clearConversation,configureDefaultCache,evictOlderThan,lookup,makeDefaultCacheWith,readCachedPayload,substituteCacheUris' },
];
/**
 * `code` (converted from `source`, written to `out`) with each relative `import('…')` (the JSDoc
 * types' imports) pointing from `out`'s folder at what it named from `source`'s.
 * @param {string} code @param {string} source @param {string} out
 */
const retarget = (code, source, out) => code.replace(/import\((['"])(\.\.?\/[^'"]+)\1\)/g, (_, quote, specifier) => {
  const target = resolve(dirname(source), specifier);
  // (A module bundled in from another folder would name its imports from there: never silently.)
  if (!existsSync(target) && !existsSync(target.replace(/\.([mc]?)js$/, '.d.$1ts'))) throw new Error(`${out}: import('${specifier}') of ${source} names ${target}, which does not exist`);
  const path = relative(dirname(out), target).replaceAll('\\', '/');
  return `import(${quote}${path.startsWith('.') ? path : `./${path}`}${quote})`;
});
for (const { source, out, exports } of CONVERTED) {
  const bundle = await rolldown({ input: source, logLevel: 'silent' });
  const { output } = await bundle.generate({ format: 'cjs' });
  await bundle.close();
  if (output.length !== 1) throw new Error(`${source}: converted into ${output.length} files, expected one`);
  await writeFile(new URL(`../${out}`, import.meta.url),
    `// Written by scripts/node-entries.mjs from ${source} (npm run build): edit that file.\n// @ts-nocheck (its source is type-checked)\n${retarget(output[0].code, source, out)}`);
  const converted = Object.keys(require(`../${out}`)).sort().join();
  if (converted !== exports) throw new Error(`${out} exports ${converted}, expected ${exports}`);
  console.log(`node-entries: ${out}: from ${source}`);
}
const ENTRIES = [
  { out: 'pkg/node.mjs', from: '../js/node.cjs', what: 'Node entry (ES module)' },
  { out: 'pkg/server.node.mjs', from: '../js/server.node.cjs', what: '`mcp-result-cache/server` for Node (ES module)' },
  { out: 'pkg/lists.node.mjs', from: '../js/lists.node.cjs', what: '`mcp-result-cache/lists` for Node (ES module)' },
];
for (const { out, from, what } of ENTRIES) {
  const names = Object.keys(require(from));
  const text = `// ${what}: the CommonJS entry's exports, by name.\n`
    + '// Written by scripts/node-entries.mjs from that module\'s keys (npm run build): do not edit.\n'
    + `import api from '${from}';\n\nexport const {\n${names.map((n) => `  ${n},\n`).join('')}} = api;\n`;
  await writeFile(new URL(`../${out}`, import.meta.url), text);
  console.log(`node-entries: ${out}: ${names.length} exports`);
}
