// Writes the package's exported constants from the Rust constants they mirror, so each value
// and its doc comment are written once, in `src/core/`:
//
//   js/src/constants.mjs   (ES module, bundled into js/browser.mjs)
//   js/constants.cjs       (CommonJS, required by js/node.cjs)
//   js/constants.d.ts      (declarations, re-exported by js/index.d.ts)
//
// Run by scripts/build.sh (`npm run build`); the outputs are built, not in git. Fails when a
// constant is missing or its value is not a plain string or integer literal.
import { readFile, writeFile } from 'node:fs/promises';

const ROOT = new URL('..', import.meta.url);
/** Exported name → the Rust file that defines a `pub const` of that name. */
const CONSTANTS = {
  CACHE_URI_SCHEME: 'src/core/uri.rs',
  DEFAULT_CACHE_THRESHOLD_BYTES: 'src/core/size.rs',
  DEFAULT_MAX_TOOL_RESULT_CHARS: 'src/core/size.rs',
  INLINE_LIST_MAX_RECORDS: 'src/core/size.rs',
};

async function read(name, file) {
  const source = await readFile(new URL(file, ROOT), 'utf8');
  const lines = source.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`pub const ${name}:`));
  if (at < 0) throw new Error(`constants: no \`pub const ${name}\` in ${file}`);
  const literal = /=\s*(.+);\s*$/.exec(lines[at])?.[1];
  let value;
  if (/^"[^"\\]*"$/.test(literal ?? '')) value = literal.slice(1, -1);
  else if (/^[0-9_]+$/.test(literal ?? '')) value = Number(literal.replaceAll('_', ''));
  else throw new Error(`constants: ${name} in ${file} is not a plain string or integer literal`);
  const doc = [];
  for (let i = at - 1; i >= 0 && lines[i].startsWith('///'); i--) doc.unshift(lines[i].replace(/^\/\/\/ ?/, ''));
  if (!doc.length) throw new Error(`constants: ${name} in ${file} has no doc comment`);
  return { name, value, doc: doc.join(' ') };
}

const constants = await Promise.all(Object.entries(CONSTANTS).map(([name, file]) => read(name, file)));
const banner = '// Written by scripts/constants.mjs from the Rust constants in src/core/ (npm run build): do not edit.\n';
const literal = (v) => JSON.stringify(v).replaceAll('"', "'");
const outputs = {
  'js/src/constants.mjs': banner + constants.map((c) => `/** ${c.doc} */\nexport const ${c.name} = ${literal(c.value)};\n`).join(''),
  'js/constants.cjs': `'use strict';\n${banner}module.exports = {\n${constants.map((c) => `  /** ${c.doc} */\n  ${c.name}: ${literal(c.value)},\n`).join('')}};\n`,
  'js/constants.d.ts': banner + constants.map((c) => `/** ${c.doc} */\nexport declare const ${c.name}: ${literal(c.value)};\n`).join(''),
};
for (const [file, text] of Object.entries(outputs)) await writeFile(new URL(file, ROOT), text);
console.log(`constants: ${constants.map((c) => c.name).join(', ')}`);
