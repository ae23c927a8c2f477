// Finishes the wasm-bindgen glue of the browser builds (pkg/web, pkg/server-web, pkg/lists-web): what a page
// downloads before the `.wasm` can even be requested, so both steps are about cold start and
// bytes.
//
// 1. Inline the JS snippets. The glue imports each `#[wasm_bindgen(module = …)]` file as its
//    own module under `snippets/`: one more network round trip after the glue. Each snippet is
//    pasted into the glue once (comment lines dropped) and `snippets/` removed; a namespace
//    import (functions the `.wasm` imports directly) becomes an object of the same functions. A snippet qualifies
//    when its only `export`s are `export [async] function` / `export const` declarations (its
//    other top-level names carry a prefix of their own: they join the glue's scope) and the glue
//    imports exactly those names without renaming; any other shape fails the build (never a
//    silent half-inline).
// 1b. Shorten the import and export names (scripts/wasm-imports.mjs): wasm-bindgen's hashed
//    names, written in both the `.wasm` and the glue, become `a`, `b`, … (exports `$a`, …).
// 2. Bundle each browser entry into one module, minified (rolldown, already a dev dependency
//    through Vite; the glue is not minified on its own first: the bundle came out byte for byte
//    the same with and without that pass): js/src/browser.mjs (with js/src/wasm-entry.mjs
//    and pkg/web's glue) becomes pkg/browser.mjs, js/src/server.mjs pkg/server.mjs, js/src/lists.mjs
//    pkg/lists.mjs (pkg/ is the build's one output folder). A page
//    then imports one module instead of three on two levels (each level is a network round trip
//    before the `.wasm` can be requested). The glue's `new URL('mcp_result_cache_bg.wasm',
//    import.meta.url)` is rewritten to the `.wasm`'s path from pkg/ (bundlers and browsers both
//    resolve it), and the modules loaded on first use (js/readback.mjs, js/warm-up.mjs) stay
//    external: each is bundled and minified on its own (pkg/readback.mjs, pkg/warm-up.mjs),
//    and the entry imports that bundle; the bundle must export exactly what its source does. The glue file is then
//    left in pkg/ as this step's input only, never shipped: the entry's sources in js/src/ are build inputs only.
//
//   node scripts/web-glue.mjs pkg/web [pkg/server-web …]   (steps 1 and 1b)
//   node scripts/web-glue.mjs --entries                      (step 2, after them)
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';
import { shortenExports, shortenImports } from './wasm-imports.mjs';

/** The browser entries: the bundle written, its source, and the directory of its glue. */
/** `wraps`: the glue's class that the entry wraps in a class of its own, which frees it (and
 * sets its own `Symbol.dispose`): the glue's `Symbol.dispose` line for it goes. `ListCache` is
 * extended, not wrapped: it inherits that line. */
const ENTRIES = [
  { out: 'pkg/browser.mjs', source: 'js/src/browser.mjs', pkg: 'pkg/web', wraps: 'ResultCache' },
  { out: 'pkg/server.mjs', source: 'js/src/server.mjs', pkg: 'pkg/server-web', wraps: 'StateSync' },
  { out: 'pkg/lists.mjs', source: 'js/src/lists.mjs', pkg: 'pkg/lists-web' },
];
// The modules an entry loads on first use: as its source (js/src/) imports them, and as the
// bundle (pkg/) must: each is bundled too (with what it imports, minified) next to the entries,
// so a page fetches one small module on first use instead of its unminified sources in
// three round trips (js/readback.mjs, js/protocol.mjs, pkg/protocol-constants.mjs, …).
const LAZY = { '../readback.mjs': './readback.mjs', '../warm-up.mjs': './warm-up.mjs' };
/** The bundles of LAZY's modules: the file written and its source. */
const LAZY_BUNDLES = [
  { out: 'pkg/readback.mjs', source: 'js/readback.mjs' },
  { out: 'pkg/warm-up.mjs', source: 'js/warm-up.mjs' },
];
// wasm-bindgen's default `.wasm` location in the glue, `new URL('mcp_result_cache_bg.wasm', import.meta.url)`.
const WASM_URL = /new URL\((['"`])mcp_result_cache_bg\.wasm\1,\s*import\.meta\.url\)/g;

const IMPORT = /^import \{ ([\w$, ]+) \} from '(\.\/snippets\/[^']+\.js)';?\n/gm;
// wasm-bindgen imports a snippet function whose arguments need no conversion directly from the
// `.wasm`, through a namespace object handed to `WebAssembly.instantiate`.
const NAMESPACE_IMPORT = /^import \* as ([\w$]+) from ["'](\.\/snippets\/[^'"]+\.js)["'];?\n/gm;

/** @param {string} dir @param {string} glue */
async function inlineSnippets(dir, glue) {
  const named = [...glue.matchAll(IMPORT)];
  const namespaces = [...glue.matchAll(NAMESPACE_IMPORT)];
  const inlined = new Map(); // snippet path -> its exported names
  const inline = async (/** @type {string} */ line, /** @type {string} */ from) => {
    if (inlined.has(from)) {
      glue = glue.replace(line, '');
      return inlined.get(from);
    }
    const source = await readFile(resolve(dir, from), 'utf8');
    if (/^\s*import\b/m.test(source) || /\bexport\s+(default|\{|\*|class|let|var|async\s+(?!function\b))/.test(source)) {
      throw new Error(`${from}: only 'export function' / 'export async function' / 'export const' snippets can be inlined`);
    }
    const exported = [...source.matchAll(/^export (?:async function|function|const) ([\w$]+)/gm)].map((m) => m[1]).sort();
    // The snippet's comments stay in its source; the glue carries code only.
    const body = source.replace(/^\s*\/\/.*\n/gm, '').replace(/^export (async function|function|const) /gm, '$1 ');
    glue = glue.replace(line, `${body.trimEnd()}\n`);
    inlined.set(from, exported);
    return exported;
  };
  for (const [line, names, from] of named) {
    const exported = await inline(line, from);
    const missing = names.split(',').map((n) => n.trim()).filter((n) => !exported.includes(n));
    if (missing.length) throw new Error(`${from}: the glue imports ${missing} but the snippet exports ${exported}`);
  }
  const objects = new Map(); // snippet path -> the first namespace alias given its object
  for (const [line, alias, from] of namespaces) {
    const exported = await inline(line, from);
    if (objects.has(from)) {
      glue = `${glue}\nconst ${alias} = ${objects.get(from)};\n`;
      continue;
    }
    objects.set(from, alias);
    // Function declarations are hoisted; the object is made when the module runs, before any
    // instantiation reads it.
    glue = `${glue}\nconst ${alias} = { ${exported.join(', ')} };\n`;
  }
  if (/['"]\.\/snippets\//.test(glue.replace(/^\s*["']\.\/snippets\/[^'"]+\.js["']: [\w$]+,?$/gm, ''))) {
    throw new Error(`${dir}: a snippet import is left in the glue`);
  }
  await rm(join(dir, 'snippets'), { recursive: true, force: true });
  return { glue, inlined: inlined.size };
}

/** @param {string} code @param {string} scratch @param {string} name */
async function exportNames(code, scratch, name) {
  const file = join(scratch, name);
  await writeFile(file, code);
  return Object.keys(await import(pathToFileURL(file).href)).sort().join();
}

// What the glue offers that an entry never uses: the entries load their module once, with
// `init()` and no argument (js/src/wasm-entry.mjs), never with `initSync` or the older forms of
// the argument that wasm-bindgen still warns about; a page downloads none of that (402 B of
// minified code). Each pattern must match once: a wasm-bindgen that writes its glue differently
// fails the build here instead of shipping the code unnoticed.
/** @type {[RegExp, string][]} */
const UNUSED_INIT = [
  // `initSync`, and its export.
  [/^function initSync\(module\) \{\n[\s\S]*?\n\}\n/m, ''],
  [/^export \{ initSync, __wbg_init as default \};$/m, 'export { __wbg_init as default };'],
  // The older argument of `init` (a path or module instead of `{ module_or_path }`).
  [/^ {4}if \(module_or_path !== undefined\) \{\n[\s\S]*?deprecated parameters[\s\S]*?\n {4}\}\n/m, ''],
  // Without an argument, the `.wasm`'s URL is always the default one (a `URL`), and always
  // fetched: the checks for another argument go (−27 B gzip in the host entry).
  [/^ {4}if \(module_or_path === undefined\) \{\n {8}(module_or_path = new URL\([^\n]*\);)\n {4}\}$/m, '    $1'],
  [/^ {4}if \(typeof module_or_path === 'string' \|\| \(typeof Request === 'function' && module_or_path instanceof Request\) \|\| \(typeof URL === 'function' && module_or_path instanceof URL\)\) \{\n {8}(module_or_path = fetch\(module_or_path\);)\n {4}\}$/m, '    $1'],
  // The warning for a server that does not send `application/wasm`, said in fewer words.
  [/console\.warn\("`WebAssembly\.instantiateStreaming` failed[^"]*", e\)/, 'console.warn("mcp-result-cache: serve the .wasm as application/wasm:", e)'],
  // What `__wbg_load` is handed is always `fetch`'s answer, a `Response`: the branch for a
  // module or bytes goes, and so does the check that chose it.
  [/^ {4}if \(typeof Response === 'function' && module instanceof Response\) \{\n([\s\S]*?\n {8}return await WebAssembly\.instantiate\(bytes, imports\);)\n {4}\} else \{\n[\s\S]*?\n {4}\}\n/m, '    {\n$1\n    }\n'],
  // Fallbacks for engines older than the bundle's own syntax (class static blocks and private
  // methods: Chrome 94, Firefox 93, Safari 16.4), which cannot load it at all; every engine that
  // can has `TextEncoder#encodeInto`, `WebAssembly.instantiateStreaming` and
  // `FinalizationRegistry` (a pattern with the `g` flag: every occurrence, at least one).
  [/^if \(!\('encodeInto' in cachedTextEncoder\)\) \{\n[\s\S]*?\n\}\n/m, ''],
  [/^ {8}if \(typeof WebAssembly\.instantiateStreaming === 'function'\) \{\n([\s\S]*?)\n {8}\}\n/m, '$1\n'],
  [/\(typeof FinalizationRegistry === 'undefined'\)\n {4}\? \{ register: \(\) => \{\}, unregister: \(\) => \{\} \}\n {4}: (new FinalizationRegistry)/g, '$1'],
  // The response types a wrong MIME type may come with, one regular expression instead of a
  // function with a `switch`.
  [/expectedResponseType\(module\.type\)/, '/^(basic|cors|default)$/.test(module.type)'],
  [/^ {4}function expectedResponseType\(type\) \{\n {8}switch \(type\) \{\n {12}case 'basic': case 'cors': case 'default': return true;\n {8}\}\n {8}return false;\n {4}\}\n/m, ''],
];

/** The glue `code` (from `file`) without what no entry uses (UNUSED_INIT). @param {string} code @param {string} file */
function withoutUnusedInit(code, file) {
  for (const [pattern, replacement] of UNUSED_INIT) {
    const found = (code.match(new RegExp(pattern, 'gm')) ?? []).length;
    if (pattern.global ? found < 1 : found !== 1) throw new Error(`${file}: expected ${pattern.global ? 'a match' : 'one match'} of ${pattern}`);
    code = code.replace(pattern, replacement);
  }
  if (/typeof FinalizationRegistry|'encodeInto' in|typeof WebAssembly\.instantiateStreaming/.test(code)) throw new Error(`${file}: a fallback for an older engine is left`);
  return code;
}

// The glue's imports object (`__wbg_get_imports`), written shorter; the `.wasm` calls the same
// code with the same arguments, and gets the same results and exceptions.
// - wasm-bindgen wraps each import that may throw as `name: function() { return
//   handleError(function (args) { … }, arguments); }`: two functions per import, `handleError`
//   applying the inner one to the outer one's `arguments` on every call. The wrapper is made once
//   instead, when the object is built (`name: handleError((args) => { … })`, `handleError`
//   returning the catching function; −57 B gzip in the host entry). Every call must match, or the
//   build fails.
// - Every other import, `name: function(args) {`, is an arrow function `name: (args) => {` (−67 B):
//   the `.wasm` calls them as plain functions (`this` undefined, never constructed), and the
//   build fails if the object's code reads `this` or `arguments`, which would then differ.
const HANDLE_ERROR = /^function handleError\(f, args\) \{\n {4}try \{\n {8}return f\.apply\(this, args\);\n {4}\} catch \(e\) \{\n {8}(wasm\.[\w$]+)\(addHeapObject\(e\)\);\n {4}\}\n\}\n/m;
const HANDLE_ERROR_USE = /function\(\) \{ return handleError\(function (\([\w, ]*\)) (\{\n[\s\S]*?\n {8}\}), arguments\); \}/g;

// `passStringToWasm0`'s branch for a call without `realloc`: the glue passes the `.wasm`'s
// realloc export at every call, so the branch never runs (each call is checked here; −29 B).
const PASS_STRING_NO_REALLOC = /^(function passStringToWasm0\(arg, malloc, realloc\) \{\n) {4}if \(realloc === undefined\) \{\n[\s\S]*?\n {4}\}\n/m;

/** The glue `code` (from `file`) without PASS_STRING_NO_REALLOC. @param {string} code @param {string} file */
function withoutPassStringNoRealloc(code, file) {
  const calls = [...code.matchAll(/\bpassStringToWasm0\(([^()]*)\)/g)].map((m) => m[1]).filter((args) => args !== 'arg, malloc, realloc');
  if (!calls.length) return code;
  const bad = calls.filter((args) => !/^[\w$]+, wasm\.[\w$]+, wasm\.[\w$]+$/.test(args));
  if (bad.length) throw new Error(`${file}: passStringToWasm0 called without a realloc export: ${bad}`);
  if ((code.match(new RegExp(PASS_STRING_NO_REALLOC, 'gm')) ?? []).length !== 1) throw new Error(`${file}: expected one match of ${PASS_STRING_NO_REALLOC}`);
  return code.replace(PASS_STRING_NO_REALLOC, '$1');
}

/** The glue `code` (from `file`) with each catching import wrapped once (HANDLE_ERROR). @param {string} code @param {string} file */
function withHandleErrorOnce(code, file) {
  const uses = (code.match(/\bhandleError\(/g) ?? []).length - 1;
  if (uses < 0) return code;
  if ((code.match(new RegExp(HANDLE_ERROR, 'gm')) ?? []).length !== 1) throw new Error(`${file}: expected one match of ${HANDLE_ERROR}`);
  const rewritten = code.match(HANDLE_ERROR_USE)?.length ?? 0;
  if (rewritten !== uses) throw new Error(`${file}: ${rewritten} of ${uses} handleError calls match ${HANDLE_ERROR_USE}`);
  return code
    .replace(HANDLE_ERROR, 'function handleError(f) {\n    return function () {\n        try {\n            return f.apply(this, arguments);\n        } catch (e) {\n            $1(addHeapObject(e));\n        }\n    };\n}\n')
    .replace(HANDLE_ERROR_USE, 'handleError($1 => $2)');
}

const IMPORTS = /^function __wbg_get_imports\(\) \{\n[\s\S]*?\n\}\n/m;

/** The glue `code` (from `file`) with the imports as arrow functions. @param {string} code @param {string} file */
function withArrowImports(code, file) {
  const imports = code.match(new RegExp(IMPORTS, 'gm')) ?? [];
  if (imports.length !== 1) throw new Error(`${file}: expected one match of ${IMPORTS}`);
  if (/\b(this|arguments)\b/.test(imports[0].replace(/^\s*\/\/.*$/gm, ''))) {
    throw new Error(`${file}: an import reads \`this\` or \`arguments\`; it cannot become an arrow function`);
  }
  return code.replace(IMPORTS, () => imports[0].replace(/^( {8}[\w$]+): function(\([\w, ]*\)) (\{)$/gm, '$1: $2 => $3'));
}

/**
 * The glue `code` (from `file`) without the `Symbol.dispose` line of the class `name`, which the
 * entry `source` wraps: the entry must set its own, and the line must match once.
 * @param {string} code @param {string} file @param {string} name @param {string} source
 */
async function withoutWrappedDispose(code, file, name, source) {
  const line = `if (Symbol.dispose) ${name}.prototype[Symbol.dispose] = ${name}.prototype.free;\n`;
  if (code.split(line).length !== 2) throw new Error(`${file}: expected one line ${line.trim()}`);
  if (!(await readFile(source, 'utf8')).includes(`(${name}.prototype)[Symbol.dispose] = ${name}.prototype.free`)) {
    throw new Error(`${source}: its ${name} must set Symbol.dispose itself (the glue's line for it is dropped)`);
  }
  return code.replace(line, '');
}

/** @param {{ out: string, source: string, pkg: string, wraps?: string }} entry @param {string} scratch */
async function bundleEntry({ out, source, pkg, wraps }, scratch) {
  const glue = resolve(pkg, 'mcp_result_cache.js');
  let rewritten = 0;
  const bundle = await rolldown({
    input: source,
    treeshake: true,
    // The read-back tools and the warm-up stay their own modules (bundled next to this one by
    // bundleLazy), imported on first use.
    external: Object.keys(LAZY),
    plugins: [{
      name: 'wasm-url-from-js',
      async transform(code, id) {
        if (resolve(id) !== glue) return null;
        rewritten = code.match(WASM_URL)?.length ?? 0;
        if (wraps) code = await withoutWrappedDispose(code, glue, wraps, source);
        return withArrowImports(withHandleErrorOnce(withoutPassStringNoRealloc(withoutUnusedInit(code, glue), glue), glue), glue).replace(WASM_URL, `new URL(\`./${pkg.slice('pkg/'.length)}/mcp_result_cache_bg.wasm\`,import.meta.url)`);
      },
    }],
  });
  // Without the `/* @__PURE__ */` annotations (16 in the host entry): they would only help a
  // bundler drop parts of one module a page imports whole; JSDoc is gone with the minification.
  const { output } = await bundle.generate({ format: 'esm', minify: true, comments: { legal: true, annotation: false, jsdoc: false } });
  await bundle.close();
  if (output.length !== 1) throw new Error(`${source}: bundled into ${output.length} files, expected one`);
  if (rewritten !== 1) throw new Error(`${glue}: ${rewritten} occurrences of ${WASM_URL}, expected one`);
  // Not type-checked itself (tsconfig.json checks its sources): the minified bundle has no JSDoc.
  // One line says so and where it comes from (every byte of it is downloaded).
  let code = `// @ts-nocheck: built from ${source}\n${output[0].code}`;
  for (const [from, to] of Object.entries(LAZY)) {
    for (const quote of ['"', "'", '`']) code = code.replaceAll(`${quote}${from}${quote}`, `${quote}${to}${quote}`);
  }
  if (Object.keys(LAZY).some((from) => ['"', "'", '`'].some((quote) => code.includes(`${quote}${from}${quote}`)))) {
    throw new Error(`${out}: a module loaded on first use was not pointed at its bundle`);
  }
  const [before, after] = [Object.keys(await import(pathToFileURL(resolve(source)).href)).sort().join(), await exportNames(code, scratch, `entry-${out.replace(/\W/g, '_')}.mjs`)];
  if (before !== after) throw new Error(`${out}: bundling changed the exports (${before} -> ${after})`);
  await writeFile(out, code);
  console.log(`web-glue: ${out}: ${source} bundled, ${code.length} bytes`);
}

/**
 * Bundles a module loaded on first use (LAZY_BUNDLES) into one minified module with what it
 * imports; its exports must stay what its source's are.
 * @param {{ out: string, source: string }} lazyModule @param {string} scratch
 */
async function bundleLazy({ out, source }, scratch) {
  const bundle = await rolldown({ input: source, treeshake: true });
  const { output } = await bundle.generate({ format: 'esm', minify: true, comments: { legal: true, annotation: false, jsdoc: false } });
  await bundle.close();
  if (output.length !== 1) throw new Error(`${source}: bundled into ${output.length} files, expected one`);
  const code = `// @ts-nocheck: built from ${source}\n${output[0].code}`;
  const [before, after] = [Object.keys(await import(pathToFileURL(resolve(source)).href)).sort().join(), await exportNames(code, scratch, `lazy-${out.replace(/\W/g, '_')}.mjs`)];
  if (before !== after) throw new Error(`${out}: bundling changed the exports (${before} -> ${after})`);
  await writeFile(out, code);
  console.log(`web-glue: ${out}: ${source} bundled, ${code.length} bytes`);
}

const scratch = await mkdtemp(join(tmpdir(), 'web-glue-'));
try {
  if (process.argv[2] === '--entries') {
    // The glue now lives inside its entry's module; its file stays in pkg/ as this step's input
    // (package.json's "files" leaves it out of the package).
    for (const entry of ENTRIES) await bundleEntry(entry, scratch);
    for (const lazyModule of LAZY_BUNDLES) await bundleLazy(lazyModule, scratch);
  } else {
    for (const dir of process.argv.slice(2)) {
      const gluePath = join(dir, 'mcp_result_cache.js');
      const original = await readFile(gluePath, 'utf8');
      const inlinedGlue = await inlineSnippets(dir, original);
      const { inlined } = inlinedGlue;
      const wasmPath = join(dir, 'mcp_result_cache_bg.wasm');
      const short = shortenImports(await readFile(wasmPath), inlinedGlue.glue, './mcp_result_cache_bg.js');
      const shortExports = shortenExports(short.wasm, short.glue);
      await writeFile(wasmPath, shortExports.wasm);
      await writeFile(gluePath, shortExports.glue);
      console.log(`web-glue: ${gluePath}: ${inlined} snippet(s) inlined, ${short.renamed} import and ${shortExports.renamed} export names shortened`);
    }
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
