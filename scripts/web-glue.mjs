// Finishes the wasm-bindgen glue of the browser builds (pkg/web, pkg/server-web): what a page
// downloads before the `.wasm` can even be requested, so both steps are about cold start and
// bytes.
//
// 1. Inline the JS snippets. The glue imports each `#[wasm_bindgen(module = …)]` file as its
//    own module under `snippets/`: one more network round trip after the glue. Each snippet is
//    pasted into the glue once (comment lines dropped) and `snippets/` removed; a namespace
//    import (functions the `.wasm` imports directly) becomes an object of the same functions. A snippet qualifies
//    when its only `export`s are `export function` / `export const` declarations and the glue
//    imports exactly those names without renaming; any other shape fails the build (never a
//    silent half-inline).
// 2. Minify (rolldown's oxc minifier, already a dev dependency through Vite; top-level names
//    kept). The exports are checked to be exactly the unminified glue's, by importing both: the
//    web glue has no side effects at import.
//
//   node scripts/web-glue.mjs pkg/web [pkg/server-web …]
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { minifySync } from 'rolldown/experimental';

const IMPORT = /^import \{ ([\w$, ]+) \} from '(\.\/snippets\/[^']+\.js)';?\n/gm;
// wasm-bindgen imports a snippet function whose arguments need no conversion directly from the
// `.wasm`, through a namespace object handed to `WebAssembly.instantiate`.
const NAMESPACE_IMPORT = /^import \* as ([\w$]+) from ["'](\.\/snippets\/[^'"]+\.js)["'];?\n/gm;
const TYPES_HEADER = /^\/\* @ts-self-types="[^"]+" \*\/\n/;

async function inlineSnippets(dir, glue) {
  const named = [...glue.matchAll(IMPORT)];
  const namespaces = [...glue.matchAll(NAMESPACE_IMPORT)];
  const inlined = new Map(); // snippet path -> its exported names
  const inline = async (line, from) => {
    if (inlined.has(from)) {
      glue = glue.replace(line, '');
      return inlined.get(from);
    }
    const source = await readFile(resolve(dir, from), 'utf8');
    if (/^\s*import\b/m.test(source) || /\bexport\s+(default|\{|\*|class|let|var|async)/.test(source)) {
      throw new Error(`${from}: only 'export function' / 'export const' snippets can be inlined`);
    }
    const exported = [...source.matchAll(/^export (?:function|const) ([\w$]+)/gm)].map((m) => m[1]).sort();
    // The snippet's comments stay in its source; the glue carries code only.
    const body = source.replace(/^\s*\/\/.*\n/gm, '').replace(/^export (function|const) /gm, '$1 ');
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

async function exportNames(code, scratch, name) {
  const file = join(scratch, name);
  await writeFile(file, code);
  return Object.keys(await import(pathToFileURL(file).href)).sort().join();
}

const scratch = await mkdtemp(join(tmpdir(), 'web-glue-'));
try {
  for (const [n, dir] of process.argv.slice(2).entries()) {
    const gluePath = join(dir, 'mcp_result_cache.js');
    const original = await readFile(gluePath, 'utf8');
    const { glue, inlined } = await inlineSnippets(dir, original);
    const header = glue.match(TYPES_HEADER)?.[0] ?? '';
    const result = minifySync('mcp_result_cache.js', glue, { compress: true, mangle: { toplevel: false }, module: true });
    if (result.errors?.length) throw new Error(`${gluePath}: ${result.errors.map((e) => e.message).join('; ')}`);
    const minified = `${header}${result.code}`;
    const [before, after] = [await exportNames(glue, scratch, `${n}-a.mjs`), await exportNames(minified, scratch, `${n}-b.mjs`)];
    if (before !== after) throw new Error(`${gluePath}: minifying changed the exports (${before} -> ${after})`);
    await writeFile(gluePath, minified);
    console.log(`web-glue: ${gluePath}: ${inlined} snippet(s) inlined, ${glue.length} -> ${minified.length} bytes`);
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
