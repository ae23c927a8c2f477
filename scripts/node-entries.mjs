// Writes the Node ES module entries (js/node.mjs, js/server.node.mjs) from their CommonJS
// entries' exports, so the list of names is never written by hand: Node's ES-module view of a
// CommonJS module cannot see names behind `module.exports = { ...wasm, … }`. Run by
// scripts/build.sh after the nodejs builds exist.
import { createRequire } from 'node:module';
import { writeFile } from 'node:fs/promises';

const require = createRequire(import.meta.url);
const ENTRIES = [
  { out: 'js/node.mjs', from: './node.cjs', what: 'Node entry (ES module)' },
  { out: 'js/server.node.mjs', from: './server.node.cjs', what: '`mcp-result-cache/server` for Node (ES module)' },
  { out: 'js/lists.node.mjs', from: './lists.node.cjs', what: '`mcp-result-cache/lists` for Node (ES module)' },
];
for (const { out, from, what } of ENTRIES) {
  const names = Object.keys(require(`../js/${from.slice(2)}`));
  const text = `// ${what}: the CommonJS entry's exports, by name.\n`
    + '// Written by scripts/node-entries.mjs from that module\'s keys (npm run build): do not edit.\n'
    + `import api from '${from}';\n\nexport const {\n${names.map((n) => `  ${n},\n`).join('')}} = api;\n`;
  await writeFile(new URL(`../${out}`, import.meta.url), text);
  console.log(`node-entries: ${out}: ${names.length} exports`);
}
