// Writes the package's exported constants from the Rust constants they mirror, so each value
// and its doc comment are written once, in `src/`:
//
//   js/src/constants.mjs   (ES module, bundled into js/browser.mjs)
//   js/constants.cjs       (CommonJS, required by js/node.cjs)
//   js/constants.d.ts      (declarations, re-exported by js/index.d.ts)
//
// and the one JS home of the protocol's rules, js/protocol.mjs (ES module, internal: imported by
// the hand-written JS, bundled into the browser entry and into js/augment.cjs): the constants
// below (PROTOCOL), the read-back tools' names (core/view.rs), the `invalid_args` prefix of the
// envelopes (core/envelope.rs), and the small rules written over them (RULES), each the JS twin
// of the Rust function it names; tests/js/protocol-rules.test.mjs compares the two.
//
// Run by scripts/build.sh (`npm run build`); the outputs are built, not in git. Fails when a
// constant is missing or its value is not a plain string, char or integer literal.
import { readFile, writeFile } from 'node:fs/promises';

const ROOT = new URL('..', import.meta.url);
const source = (file) => readFile(new URL(file, ROOT), 'utf8');
/** Exported name → the Rust file that defines a `pub const` of that name (the public exports). */
const CONSTANTS = {
  CACHE_URI_SCHEME: 'src/core/uri.rs',
  DEFAULT_CACHE_THRESHOLD_BYTES: 'src/core/size.rs',
  DEFAULT_MAX_TOOL_RESULT_CHARS: 'src/core/size.rs',
  INLINE_LIST_MAX_RECORDS: 'src/core/size.rs',
};

/** The protocol's constants (js/protocol.mjs): name → the Rust file of its `pub const`. */
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
};

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

/** One capture of `pattern` in a Rust file; fails the build when it matches nothing. */
async function find(file, pattern, what) {
  const match = pattern.exec(await source(file));
  if (!match) throw new Error(`constants: no ${what} in ${file}`);
  return match;
}

const constants = await Promise.all(Object.entries(CONSTANTS).map(([name, file]) => read(name, file)));
const protocol = await Promise.all(Object.entries(PROTOCOL).map(([name, file]) => read(name, file)));
// The read-back tools `push_read_hint` names, in its order: `let tools: [(&str, &str); N] = [("read", …), …]`.
const toolTable = (await find('src/core/view.rs', /let tools: \[\(&str, &str\); (\d+)\] = \[([\s\S]*?)\];/, 'read-tool table in push_read_hint'));
const readTools = [...toolTable[2].matchAll(/\(\s*"([a-z]+)",/g)].map((m) => m[1]);
if (readTools.length !== Number(toolTable[1])) throw new Error(`constants: ${readTools.length} read tools found in src/core/view.rs, expected ${toolTable[1]}`);
protocol.push({ name: 'READ_TOOLS', value: readTools, doc: 'The read-back tools, as `core::view::push_read_hint` names them after the prefix (`cache_read`, …).' });
// Every `invalid_args` envelope's error starts so (`core::envelope`).
const [, invalidArgs] = await find('src/core/envelope.rs', /"(invalid_args: )/, '"invalid_args: " error prefix');
protocol.push({ name: 'INVALID_ARGS', value: invalidArgs, doc: 'How the `error` line of every `invalid_args` envelope starts (`core::envelope`).' });
// The rules over those constants, written once here (`member_reference`, `parse_cache_uri`'s
// pointer rules, `server_option`, the envelopes' shape) and checked against the Rust ones by
// tests/js/protocol-rules.test.mjs.
const RULES = `
/** Whether \`value\` is a string starting with the scheme (\`core::uri::has_cache_scheme\`). */
export const hasCacheScheme = (/** @type {unknown} */ value) => typeof value === 'string' && value.startsWith(CACHE_URI_SCHEME);

/** RFC 6901 escaping of one reference token (\`~\` → \`~0\`, \`/\` → \`~1\`); numbers are array indexes. */
export const escapeToken = (/** @type {string | number} */ token) => String(token).replace(/~/g, '~0').replace(/\\//g, '~1');

// What no reference carries: a control character (Rust's \`char::is_control\`: general category
// Cc), or a lone surrogate (\`parseCacheUri\` and substitution refuse a string that is not well
// formed; with the \`u\` flag a surrogate pair is one code point, not matched).
const UNCARRIED = /[\\p{Cc}\\p{Cs}]/u;

/**
 * \`uri\` extended by one token (\`<uri>#/<token>\`, or \`<uri>/<token>\` when it already points
 * inside), escaped as RFC 6901 says, nothing percent-encoded; \`null\` when
 * \`core::uri::parse_cache_uri\` would refuse the result: a control character or a lone surrogate,
 * or a fragment over MAX_POINTER_BYTES bytes of UTF-8.
 * @param {string} uri
 * @param {string | number} token
 * @returns {string | null}
 */
export function childReference(uri, token) {
  const escaped = escapeToken(token);
  if (UNCARRIED.test(escaped)) return null;
  const hash = uri.indexOf('#');
  const pointer = \`\${hash < 0 ? '' : uri.slice(hash + 1)}/\${escaped}\`;
  if (new TextEncoder().encode(pointer).length > MAX_POINTER_BYTES) return null;
  return \`\${hash < 0 ? uri : uri.slice(0, hash)}#\${pointer}\`;
}

/**
 * The ready reference to one member of the object behind \`uri\`, as \`core::pointer::member_reference\`
 * writes it into \`_cache_refs\`: \`null\` for a member of more than MAX_REF_MEMBER_CHARS characters
 * (Unicode scalar values) or with a control character, and (for a \`uri\` that already points
 * inside) past the pointer limit, or with a lone surrogate (Rust writes none for either).
 * @param {string} uri
 * @param {unknown} member
 * @returns {string | null}
 */
export function memberReference(uri, member) {
  if (typeof member !== 'string' || [...member].length > MAX_REF_MEMBER_CHARS) return null;
  return childReference(uri, member);
}

/**
 * A server name an entry can record (\`bindings::convert::server_option\`): well formed (no lone
 * surrogate), non-empty, without SERVER_MARK.
 * @param {unknown} name
 * @returns {name is string}
 */
export const isServerName = (name) => typeof name === 'string' && name !== '' && !name.includes(SERVER_MARK) && !/\\p{Cs}/u.test(name);

/**
 * A read-tool prefix \`core::view::is_tool_prefix\` accepts: at most 32 of A-Z a-z 0-9 _ - .
 * @param {unknown} prefix
 * @returns {prefix is string}
 */
export const isToolPrefix = (prefix) => typeof prefix === 'string' && /^[A-Za-z0-9_.-]{0,32}$/.test(prefix);

/**
 * A model-facing \`invalid_args\` envelope, shaped as the cache's (\`core::envelope\`): \`{ error, fix_hint }\`.
 * @param {string} error what is wrong, after the \`invalid_args: \` prefix
 * @param {string} fixHint what the model should do next
 * @returns {{ error: string, fix_hint: string }}
 */
export const invalidArgs = (error, fixHint) => ({ error: \`\${INVALID_ARGS}\${error}\`, fix_hint: fixHint });
`;
const banner = '// Written by scripts/constants.mjs from the Rust constants in src/ (npm run build): do not edit.\n';
const literal = (v) => JSON.stringify(v).replaceAll('"', "'");
const outputs = {
  'js/protocol.mjs': `${banner}// The protocol's constants and rules, for every hand-written JS file of the package (one home).\n`
    + protocol.map((c) => `/** ${c.doc} */\nexport const ${c.name} = ${c.name === 'READ_TOOLS' ? `/** @type {readonly string[]} */ (/* @__PURE__ */ Object.freeze(${literal(c.value)}))` : literal(c.value)};\n`).join('')
    + RULES,
  // A constant of both is exported from js/protocol.mjs: one copy in the browser bundle.
  'js/src/constants.mjs': banner + constants.map((c) => (Object.hasOwn(PROTOCOL, c.name)
    ? `export { ${c.name} } from '../protocol.mjs';\n`
    : `/** ${c.doc} */\nexport const ${c.name} = ${literal(c.value)};\n`)).join(''),
  'js/constants.cjs': `'use strict';\n${banner}module.exports = {\n${constants.map((c) => `  /** ${c.doc} */\n  ${c.name}: ${literal(c.value)},\n`).join('')}};\n`,
  'js/constants.d.ts': banner + constants.map((c) => `/** ${c.doc} */\nexport declare const ${c.name}: ${literal(c.value)};\n`).join(''),
};
for (const [file, text] of Object.entries(outputs)) await writeFile(new URL(file, ROOT), text);
console.log(`constants: ${constants.map((c) => c.name).join(', ')}; js/protocol.mjs: ${protocol.map((c) => c.name).join(', ')}`);
