// The size budget (`npm test`, right after the build): what a browser downloads for the host
// entry (`mcp-result-cache`: the bundled module pkg/browser.mjs and pkg/web's .wasm)
// must stay within package.json's "sizeBudget" (bytes, gzip -9, summed per file), and so must
// the server entry's (`mcp-result-cache/server`).
// Bytes, never time: the same build gives the same answer on any machine. Sizes are GNU
// `gzip -9 -n` output (what the README and docs/SIZE.md quote); Node's zlib where gzip is missing.
//
// The budget is for the release build (the pinned nightly of scripts/release-toolchain.sh). When
// scripts/build.sh fell back to stable Rust (pkg/.toolchain says `stable`), its `.wasm` files are
// larger by design: an entry over budget is then printed as a warning and the check passes.
//
//   node scripts/size-budget.mjs     (after `npm run build`)
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** Bytes of `file` compressed with `gzip -9 -n` (or zlib level 9 without a gzip binary). @param {string | URL} file */
async function gzipSize(file) {
  try {
    return execFileSync('gzip', ['-9', '-n', '-c', fileURLToPath(file)], { maxBuffer: 1 << 28 }).length;
  } catch {
    return gzipSync(await readFile(file), { level: 9 }).length;
  }
}

/**
 * Every file a browser fetches for each entry, from the package root: the entry's module (its
 * glue bundled in by scripts/web-glue.mjs) and its `.wasm`; then the host entry's modules
 * loaded on first use, each one file (bundled by scripts/web-glue.mjs too): the read-back tools
 * (the first `cacheTools` call) and the warm-up (the first `warmUp` call). bench/cold-start.mjs
 * reports the three entries' files.
 */
export const ENTRY_FILES = {
  host: ['pkg/browser.mjs', 'pkg/web/mcp_result_cache_bg.wasm'],
  server: ['pkg/server.mjs', 'pkg/server-web/mcp_result_cache_bg.wasm'],
  lists: ['pkg/lists.mjs', 'pkg/lists-web/mcp_result_cache_bg.wasm'],
  readBack: ['pkg/readback.mjs'],
  warmUp: ['pkg/warm-up.mjs'],
};

// Run as a script (`node scripts/size-budget.mjs`, through a symlinked path too), not when imported.
if (process.argv[1] && realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1])) await check();

async function check() {
  const root = new URL('..', import.meta.url);
  const { sizeBudget } = JSON.parse(await readFile(new URL('package.json', root), 'utf8'));
  // Which toolchain built pkg/ (scripts/build.sh); a build without the file is held to the budget.
  const toolchain = (await readFile(new URL('pkg/.toolchain', root), 'utf8').catch(() => '')).trim();
  const stable = toolchain === 'stable';

  let failed = 0;
  let warned = 0;
  for (const [entry, files] of Object.entries(ENTRY_FILES)) {
    const budget = sizeBudget?.[entry];
    if (!Number.isInteger(budget)) {
      console.log(`not ok - package.json "sizeBudget.${entry}" must be a number of bytes`);
      failed += 1;
      continue;
    }
    let total = 0;
    const parts = [];
    for (const file of files) {
      const gzip = await gzipSize(new URL(file, root));
      total += gzip;
      parts.push(`${file} ${gzip}`);
    }
    let verdict = 'ok';
    if (total > budget && stable) {
      verdict = 'warning';
      warned += 1;
    } else if (total > budget) {
      verdict = 'not ok';
      failed += 1;
    }
    console.log(`${verdict} - ${entry}: ${total} bytes gzip -9 (budget ${budget}; ${parts.join(', ')})`);
  }
  const count = Object.keys(ENTRY_FILES).length;
  console.log(`size budget: ${count - failed - warned} passed, ${failed} failed${stable ? `, ${warned} over budget as warnings` : ''}`);
  if (stable) {
    console.log(
      'warning - pkg/ was built with stable Rust (pkg/.toolchain), not the pinned nightly the budget assumes: ' +
        "run 'npm run setup' and rebuild to check the real sizes",
    );
  }
  process.exitCode = failed ? 1 : 0;
}
