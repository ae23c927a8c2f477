// Cold start: wasm-bindgen's web glue imports each `#[wasm_bindgen(module = …)]` JS file as its
// own module under `snippets/`, one more network round trip after the glue itself, before the
// WebAssembly module can even be requested. This inlines those snippets into the glue of the
// given build directories and removes `snippets/`, so a browser fetches the entry, the glue
// (with its siblings) and the `.wasm`: nothing waits on a third level of imports.
//
// A snippet qualifies when it is a plain ES module whose only `export`s are `export function`
// / `export const` declarations, and the glue imports exactly those names without renaming. Any
// other shape fails the build (never a silent half-inline).
//
//   node scripts/inline-snippets.mjs pkg/web [pkg/server-web …]
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const IMPORT = /^import \{ ([\w$, ]+) \} from '(\.\/snippets\/[^']+\.js)';\n/gm;

for (const dir of process.argv.slice(2)) {
  const gluePath = join(dir, 'mcp_result_cache.js');
  let glue = await readFile(gluePath, 'utf8');
  const imports = [...glue.matchAll(IMPORT)];
  for (const [line, names, from] of imports) {
    const source = await readFile(resolve(dir, from), 'utf8');
    if (/^\s*import\b/m.test(source) || /\bexport\s+(default|\{|\*|class|let|var|async)/.test(source)) {
      throw new Error(`${from}: only 'export function' / 'export const' snippets can be inlined`);
    }
    const exported = [...source.matchAll(/^export (?:function|const) ([\w$]+)/gm)].map((m) => m[1]).sort();
    const wanted = names.split(',').map((n) => n.trim()).sort();
    if (exported.join() !== wanted.join()) {
      throw new Error(`${from}: exports ${exported} but the glue imports ${wanted}`);
    }
    // The snippet's comments stay in its source; the glue carries code only (bytes count).
    const body = source.replace(/^\s*\/\/.*\n/gm, '').replace(/^export (function|const) /gm, '$1 ');
    glue = glue.replace(line, `// Inlined from ${from.replace(/^\.\/snippets\/[^/]+\//, '')} (scripts/inline-snippets.mjs).\n${body.trimEnd()}\n`);
  }
  if (/['"]\.\/snippets\//.test(glue)) throw new Error(`${gluePath}: a snippet import is left`);
  await writeFile(gluePath, glue);
  await rm(join(dir, 'snippets'), { recursive: true, force: true });
  console.log(`inline-snippets: ${gluePath}: ${imports.length} snippet(s) inlined`);
}
