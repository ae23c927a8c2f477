// Writes the constants the JS needs from the Rust `pub const` declarations they mirror, so each
// value and its doc comment are written once, in `src/`. Every output goes to pkg/, the build's
// one output folder (git-ignored):
//
//   pkg/constants.mjs            the package's exported constants (ES module, bundled into the browser entry)
//   pkg/constants.cjs            the same, CommonJS (required by js/node.cjs)
//   pkg/constants.d.ts           their declarations (re-exported by js/index.d.ts)
//   pkg/protocol-constants.mjs   the protocol's constants, re-exported by js/protocol.mjs (hand-written:
//                                the rules over them live there, tested against Rust)
//
// Only declarations are read (`pub const NAME: T = <literal>;` with a doc comment): a constant
// that is missing, undocumented or not a plain string, char or integer literal fails the build.
// Run by scripts/build.sh (`npm run build`).
import { mkdir, readFile, writeFile } from 'node:fs/promises';

const ROOT = new URL('..', import.meta.url);
const source = (/** @type {string} */ file) => readFile(new URL(file, ROOT), 'utf8');
/** Exported name → the Rust file that defines a `pub const` of that name (the public exports). */
const CONSTANTS = {
  CACHE_URI_SCHEME: 'src/core/uri.rs',
  DEFAULT_CACHE_THRESHOLD_BYTES: 'src/core/size.rs',
  DEFAULT_MAX_TOOL_RESULT_CHARS: 'src/core/size.rs',
  INLINE_LIST_MAX_RECORDS: 'src/core/size.rs',
};

/** The protocol's constants (pkg/protocol-constants.mjs, re-exported by js/protocol.mjs): name → the Rust file of its `pub const`. */
const PROTOCOL = {
  CACHE_URI_SCHEME: 'src/core/uri.rs',
  URI_ARG_SUFFIX: 'src/core/substitute.rs',
  MAX_POINTER_BYTES: 'src/core/uri.rs',
  MAX_REF_MEMBER_CHARS: 'src/core/pointer.rs',
  DEFAULT_CONV_SEGMENT: 'src/core/uri.rs',
  DEFAULT_READ_TOOLS_PREFIX: 'src/core/view.rs',
  UNKNOWN_SOURCE_TOOL: 'src/core/record.rs',
  DEFAULT_DB_NAME: 'src/cache/builder.rs',
  SERVER_MARK: 'src/core/source.rs',
  META_URIS_KEY: 'src/core/content.rs',
  DERIVED_FROM_SYMBOL: 'src/core/content.rs',
  SIGNAL_TAG_OPENER: 'src/pipeline/content/split.rs',
  SIGNAL_LEGACY_OPENER: 'src/pipeline/content/split.rs',
};

/** @param {string} name @param {string} file */
async function read(name, file) {
  const lines = (await source(file)).split('\n');
  const at = lines.findIndex((l) => l.startsWith(`pub const ${name}:`));
  if (at < 0) throw new Error(`constants: no \`pub const ${name}\` in ${file}`);
  const literal = /=\s*(.+);\s*$/.exec(lines[at])?.[1] ?? '';
  let value;
  if (/^"[^"\\]*"$/.test(literal)) value = literal.slice(1, -1);
  else if (/^[0-9_]+$/.test(literal)) value = Number(literal.replaceAll('_', ''));
  else if (/^'\\u\{[0-9a-fA-F]{1,6}\}'$/.test(literal)) value = String.fromCodePoint(parseInt(literal.slice(4, -2), 16));
  else if (/^'[^'\\]'$/.test(literal)) value = literal.slice(1, -1);
  else throw new Error(`constants: ${name} in ${file} is not a plain string, char or integer literal`);
  const doc = [];
  for (let i = at - 1; i >= 0 && lines[i].startsWith('///'); i--) doc.unshift(lines[i].replace(/^\/\/\/ ?/, ''));
  if (!doc.length) throw new Error(`constants: ${name} in ${file} has no doc comment`);
  return { name, value, doc: doc.join(' ') };
}

const constants = await Promise.all(Object.entries(CONSTANTS).map(([name, file]) => read(name, file)));
const protocol = await Promise.all(Object.entries(PROTOCOL).map(([name, file]) => read(name, file)));
const banner = '// Written by scripts/constants.mjs from the Rust constants in src/ (npm run build): do not edit.\n';
const literal = (/** @type {unknown} */ v) => JSON.stringify(v).replaceAll('"', "'");
const outputs = {
  'pkg/protocol-constants.mjs': `${banner}// The protocol's constants (js/protocol.mjs re-exports them with the rules written over them).\n`
    + protocol.map((c) => `/** ${c.doc} */\nexport const ${c.name} = ${literal(c.value)};\n`).join(''),
  // A constant of both is exported from the protocol's module: one copy in the browser bundle.
  'pkg/constants.mjs': banner + constants.map((c) => (Object.hasOwn(PROTOCOL, c.name)
    ? `export { ${c.name} } from './protocol-constants.mjs';\n`
    : `/** ${c.doc} */\nexport const ${c.name} = ${literal(c.value)};\n`)).join(''),
  'pkg/constants.cjs': `'use strict';\n${banner}module.exports = {\n${constants.map((c) => `  /** ${c.doc} */\n  ${c.name}: ${literal(c.value)},\n`).join('')}};\n`,
  'pkg/constants.d.ts': banner + constants.map((c) => `/** ${c.doc} */\nexport declare const ${c.name}: ${literal(c.value)};\n`).join(''),
};
await mkdir(new URL('pkg/', ROOT), { recursive: true });
for (const [file, text] of Object.entries(outputs)) await writeFile(new URL(file, ROOT), text);
console.log(`constants: ${constants.map((c) => c.name).join(', ')}; pkg/protocol-constants.mjs: ${protocol.map((c) => c.name).join(', ')}`);
