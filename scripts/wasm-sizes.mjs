// Where one entry's `.wasm` bytes go, by function and by module of this crate: the measurement
// behind docs/SIZE.md's tables, reproducible with the project's own tools (no twiggy, no wabt).
//
//   node scripts/wasm-sizes.mjs [host|server|lists] [--top N]
//
// Builds the entry's cargo feature exactly as scripts/build.sh does (the pinned nightly of
// scripts/release-toolchain.sh, its flags, -Zbuild-std, the release profile; its own target
// directory, so the release build's is never disturbed), runs wasm-bindgen keeping the name
// section, then wasm-opt with Cargo.toml's wasm-pack `wasm-opt` flags plus `-g`, and reads the
// function bodies' sizes and names from that module (kept in target/wasm-sizes/). The totals it
// prints (raw and gzip -9 of the same module stripped of its names) are what the release build
// gives before scripts/wasm-imports.mjs shortens import and export names.
//
// Functions are grouped by the first two path segments after `mcp_result_cache::` (`store::indexeddb`,
// `bindings::pipeline`, …), by crate for the rest (`core::ptr`, `wasm_bindgen`, …), and the
// wasm-bindgen export shims (`resultcache_*`, `augmentTools`, …) as `exports`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { uleb } from './wasm-imports.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const feature = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? 'host';
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
if (!['host', 'server', 'lists'].includes(feature)) throw new Error(`unknown entry ${feature}: host, server or lists`);

// The release toolchain and flags, from the one file that defines them (`RELEASE_TOOLCHAIN` in
// the environment overrides the pin, as in scripts/build.sh).
const shell = (/** @type {string} */ script) => execFileSync('bash', ['-c', script], { cwd: root, encoding: 'utf8' }).trim();
const release = Object.fromEntries(['RELEASE_TOOLCHAIN', 'RELEASE_RUSTFLAGS', 'RELEASE_BUILD_STD', 'RELEASE_BUILD_STD_FEATURES']
  .map((k) => [k, shell(`. scripts/release-toolchain.sh && printf %s "$${k}"`)]));
if (process.env.RELEASE_TOOLCHAIN) release.RELEASE_TOOLCHAIN = process.env.RELEASE_TOOLCHAIN;
try {
  shell(`. scripts/release-toolchain.sh && RELEASE_TOOLCHAIN='${release.RELEASE_TOOLCHAIN}' && release_toolchain_ready`);
} catch {
  console.error(`wasm-sizes: the release toolchain ${release.RELEASE_TOOLCHAIN} (with rust-src and the wasm32 target) is not installed: run 'npm run setup' first`);
  process.exit(1);
}
const wasmOptLine = readFileSync(join(root, 'Cargo.toml'), 'utf8').match(/^wasm-opt = (\[.*\])$/m);
if (!wasmOptLine) throw new Error('wasm-sizes: no `wasm-opt = [...]` line in Cargo.toml');
const wasmOptFlags = /** @type {string[]} */ (JSON.parse(wasmOptLine[1])).filter((f) => !f.startsWith('--strip'));

const target = join(root, 'target/wasm-sizes');
const out = join(target, `out-${feature}`);
/** @type {NodeJS.ProcessEnv} */
const env = {
  ...process.env,
  PATH: `${join(root, 'node_modules/.bin')}:${process.env.CARGO_HOME ?? join(process.env.HOME ?? '', '.cargo')}/bin:${process.env.PATH}`,
  RUSTUP_TOOLCHAIN: release.RELEASE_TOOLCHAIN,
  RUSTFLAGS: release.RELEASE_RUSTFLAGS,
  CARGO_TARGET_DIR: target,
};
delete env.CARGO_ENCODED_RUSTFLAGS;
const run = (/** @type {string} */ cmd, /** @type {string[]} */ argv) => {
  try {
    execFileSync(cmd, argv, { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (error) {
    const hint = /** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT' ? ` (${cmd} not found: run 'npm run setup' first)` : '';
    console.error(`wasm-sizes: ${cmd} failed${hint}`);
    process.exit(1);
  }
};
run('cargo', ['build', '--quiet', '--release', '--target', 'wasm32-unknown-unknown', '--no-default-features',
  '--features', feature, `-Zbuild-std=${release.RELEASE_BUILD_STD}`,
  `-Zbuild-std-features=${release.RELEASE_BUILD_STD_FEATURES}`]);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
run('wasm-bindgen', ['--target', 'web', '--keep-debug', '--out-dir', out,
  join(target, 'wasm32-unknown-unknown/release/mcp_result_cache.wasm')]);
const named = join(out, 'named.wasm');
const stripped = join(out, 'stripped.wasm');
run('wasm-opt', [...wasmOptFlags, '-g', join(out, 'mcp_result_cache_bg.wasm'), '-o', named]);
run('wasm-opt', ['--strip-debug', '--strip-producers', '--strip-target-features', named, '-o', stripped]);

// ---- reading the module: code section sizes, name section function names ----
const utf8 = new TextDecoder();
const bytes = readFileSync(named);
let imported = 0;
const bodies = [];
const names = new Map();
let dataBytes = 0;
for (let at = 8; at < bytes.length;) {
  const id = bytes[at];
  const [size, start] = uleb(bytes, at + 1);
  const end = start + size;
  if (id === 2) {
    // Imported functions come first in the function index space.
    let [count, p] = uleb(bytes, start);
    for (; count > 0; count -= 1) {
      for (let k = 0; k < 2; k += 1) {
        const [n, q] = uleb(bytes, p);
        p = q + n;
      }
      const kind = bytes[p++];
      if (kind === 0) {
        imported += 1;
        [, p] = uleb(bytes, p);
      } else throw new Error('only function imports are expected');
    }
  } else if (id === 10) {
    let [count, p] = uleb(bytes, start);
    for (; count > 0; count -= 1) {
      const [bodySize, q] = uleb(bytes, p);
      bodies.push(bodySize + (q - p));
      p = q + bodySize;
    }
  } else if (id === 11) {
    dataBytes = size;
  } else if (id === 0) {
    const [n, q] = uleb(bytes, start);
    if (utf8.decode(bytes.subarray(q, q + n)) === 'name') {
      let p = q + n;
      while (p < end) {
        const sub = bytes[p];
        const [subSize, s] = uleb(bytes, p + 1);
        if (sub === 1) {
          let [count, r] = uleb(bytes, s);
          for (; count > 0; count -= 1) {
            const [index, a] = uleb(bytes, r);
            const [len, b] = uleb(bytes, a);
            names.set(index, utf8.decode(bytes.subarray(b, b + len)));
            r = b + len;
          }
        }
        p = s + subSize;
      }
    }
  }
  at = end;
}

const functions = bodies.map((size, i) => ({ size, name: names.get(imported + i) ?? `func ${imported + i}` }));
const demangled = (/** @type {string} */ name) => name.replace(/::h[0-9a-f]{16}$/, '');
/** @param {string} name */
function group(name) {
  const own = name.replace(/^</, '').match(/^mcp_result_cache::(\w+)::(\w+)/);
  // A layer that is one file (`src/js_args.rs`) is one group; a directory, one per file.
  if (own) return existsSync(join(root, 'src', `${own[1]}.rs`)) ? own[1] : `${own[1]}::${own[2]}`;
  if (/^[a-z]+_[A-Za-z]+$|^[a-z][A-Za-z]*$/.test(name)) return 'exports (wasm-bindgen shims)';
  const krate = name.replace(/^</, '').match(/^(\w+)(?:::(\w+))?/);
  if (!krate) return 'other';
  return ['core', 'alloc', 'std'].includes(krate[1]) && krate[2] ? `${krate[1]}::${krate[2]}` : krate[1];
}
const groups = new Map();
for (const f of functions) groups.set(group(f.name), (groups.get(group(f.name)) ?? 0) + f.size);

const strippedBytes = readFileSync(stripped);
const code = functions.reduce((sum, f) => sum + f.size, 0);
const fmt = (/** @type {number} */ n) => n.toLocaleString('en-US').replace(/,/g, ' ');
console.log(`${feature} .wasm (before name shortening): ${fmt(strippedBytes.length)} bytes raw, ${fmt(gzipSync(strippedBytes, { level: 9 }).length)} zlib level 9`);
console.log(`code ${fmt(code)} bytes in ${functions.length} functions, data ${fmt(dataBytes)}, ${imported} imports\n`);
console.log('| module | raw bytes |\n|---|---:|');
for (const [name, size] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`| \`${name}\` | ${fmt(size)} |`);
console.log(`\n| largest functions | raw bytes |\n|---|---:|`);
for (const f of [...functions].sort((a, b) => b.size - a.size).slice(0, top)) console.log(`| \`${demangled(f.name).slice(0, 110)}\` | ${fmt(f.size)} |`);
