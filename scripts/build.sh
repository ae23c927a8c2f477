#!/usr/bin/env bash
# Release build of the npm package's three WebAssembly modules, each for browsers and for Node:
#   host   (cargo feature `host`, the main entry):  pkg/web (ES module), pkg/node (CommonJS)
#   server (cargo feature `server`, `./server`):     pkg/server-web,     pkg/server-node
#   lists  (cargo feature `lists`,  `./lists`):      pkg/lists-web,      pkg/lists-node
# One crate, three feature sets: each `.wasm` links only what its entry exports. Idempotent: every
# output directory is rebuilt from scratch. wasm-opt comes from npm's binaryen@132
# (node_modules/.bin first on PATH); Debian's wasm-opt 108 silently corrupts wasm-bindgen 0.2.130
# output.
#
# The `.wasm` files are built by the pinned nightly of scripts/release-toolchain.sh, which
# rebuilds the standard library without its panic formatting (see that file); they get their
# own target directory, so these builds and the stable test builds never invalidate each other.
# `RELEASE_TOOLCHAIN=<toolchain>` in the environment overrides the pin for one build.
#
# Without that nightly, the build falls back to the default stable toolchain (no -Z flags, no
# -Zbuild-std, default target features) and says so: those `.wasm` files
# work the same but are larger than package.json's "sizeBudget" assumes, and
# scripts/size-budget.mjs then only warns. pkg/.toolchain records which one built pkg/
# (the nightly's name, or `stable`).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
override="${RELEASE_TOOLCHAIN:-}"
. scripts/release-toolchain.sh
[ -n "$override" ] && RELEASE_TOOLCHAIN="$override"
# CARGO_ENCODED_RUSTFLAGS from the caller's environment would silently win over RUSTFLAGS.
unset CARGO_ENCODED_RUSTFLAGS
mkdir -p pkg
if release_toolchain_ready; then
  toolchain="$RELEASE_TOOLCHAIN"
  export RUSTUP_TOOLCHAIN="$RELEASE_TOOLCHAIN" RUSTFLAGS="$RELEASE_RUSTFLAGS"
  export CARGO_TARGET_DIR="$PWD/target/release-wasm"
  build_std=("-Zbuild-std=$RELEASE_BUILD_STD")
else
  toolchain=stable
  # No RUSTFLAGS at all, not even the release flags' -Ctarget-feature=-reference-types,-multivalue:
  # stable's prebuilt std is compiled with reference-types, so the linked module declares that
  # feature, and wasm-bindgen then expects the externref shims that a crate compiled without it
  # lacks ("failed to find the `__wbindgen_externref_table_alloc` function").
  warning="build: WARNING: the release toolchain $RELEASE_TOOLCHAIN (with rust-src and the wasm32 target) is not installed; building with stable Rust instead (no -Z flags, no -Zbuild-std, default target features). The .wasm files keep std's panic formatting and are larger than package.json's \"sizeBudget\" assumes (scripts/size-budget.mjs only warns). 'npm run setup' installs the release toolchain."
  echo "$warning" >&2
  export RUSTUP_TOOLCHAIN=stable
  unset RUSTFLAGS
  export CARGO_TARGET_DIR="$PWD/target/release-wasm-stable"
  build_std=()
fi
echo "build: toolchain $toolchain ($(rustc --version))"

# Nothing to do when nothing the build reads changed since the last complete build: the
# fingerprint of every input (sources, manifests, lockfiles, the build scripts, the toolchain and
# its flags) is pkg/.inputs, written last; every output must still be there. `npm start` and
# `npm run build` on an unchanged tree take seconds. BUILD_FORCE=1 rebuilds anyway.
outputs=(js/browser.mjs js/server.mjs js/lists.mjs js/constants.cjs js/augment.cjs js/cache-flows.cjs js/warm-up.cjs js/references.cjs js/cache-route.cjs js/protocol.mjs js/defaults.cjs js/node.mjs
  js/server.node.mjs js/lists.node.mjs pkg/node/index.d.mts pkg/server-node/index.d.mts
  pkg/lists-node/index.d.mts)
for dir in web node server-web server-node lists-web lists-node; do
  outputs+=("pkg/$dir/mcp_result_cache_bg.wasm" "pkg/$dir/mcp_result_cache.d.ts")
done
fingerprint="$({
  printf '%s\n' "$toolchain" "$(rustc --version)" "${RUSTFLAGS:-}" "${build_std[*]:-}"
  find src js/src -type f ! -path js/src/constants.mjs -print0 | sort -z | xargs -0 sha256sum
  sha256sum Cargo.toml Cargo.lock package.json package-lock.json js/warm-up.mjs js/flows.mjs js/references.mjs js/cache-route.mjs js/route-args.mjs js/page.mjs scripts/build.sh \
    scripts/release-toolchain.sh scripts/web-glue.mjs scripts/constants.mjs scripts/node-entries.mjs
} | sha256sum | cut -d' ' -f1)"
if [ "${BUILD_FORCE:-}" != 1 ] && [ "$(cat pkg/.inputs 2>/dev/null)" = "$fingerprint" ] \
  && [ "$(cat pkg/.toolchain 2>/dev/null)" = "$toolchain" ]; then
  missing=0
  for f in "${outputs[@]}"; do [ -e "$f" ] || missing=1; done
  if [ "$missing" = 0 ]; then
    echo "build: up to date (no input changed since the last build; BUILD_FORCE=1 rebuilds)"
    exit 0
  fi
fi
rm -f pkg/.toolchain pkg/.inputs

for entry in host server lists; do
  prefix=""
  [ "$entry" = host ] || prefix="$entry-"
  for target in web nodejs; do
    out="pkg/${prefix}${target/nodejs/node}"
    features="$entry"
    # Storage objects made in JS (redisStorage) exist in Node only: the browser .wasm stays without them.
    [ "$entry/$target" = host/nodejs ] && features="host,external-store"
    echo "build: wasm-pack build --release --target $target --features $features -> $out"
    rm -rf "$out"
    wasm-pack --quiet build --release --mode no-install --target "$target" --out-dir "$out" \
      --out-name mcp_result_cache -- --no-default-features --features "$features" \
      ${build_std[@]+"${build_std[@]}"}
    # wasm-pack drops a '*' .gitignore into the output, which would hide it from `npm pack`.
    rm -f "$out/.gitignore" "$out/README.md" "$out/LICENSE-MIT" "$out/LICENSE-APACHE"
  done
done
# Browsers: the glue gets its JS snippets inlined and short import/export names, then each
# browser entry (js/src/*.mjs) is bundled with its glue into one minified module, js/browser.mjs,
# js/server.mjs and js/lists.mjs (scripts/web-glue.mjs).
# The exported constants, from the Rust ones (scripts/constants.mjs): the entries import them.
node scripts/constants.mjs
node scripts/web-glue.mjs pkg/web pkg/server-web pkg/lists-web
node scripts/web-glue.mjs --entries
# The browser builds' glue now lives inside js/browser.mjs, js/server.mjs and js/lists.mjs (web-glue.mjs
# removes it from pkg/); their directories keep the .wasm and the declarations, and a package.json that only
# says how to read those (wasm-pack's names a `main` and `snippets/` that are gone).
for dir in pkg/web pkg/server-web pkg/lists-web; do
  printf '{\n  "type": "module",\n  "types": "mcp_result_cache.d.ts"\n}\n' > "$dir/package.json"
done
# The browser builds' declarations describe the API only: their glue (and with it `init`,
# `initSync` and the raw wasm exports of `InitOutput`) lives inside the bundled entry, which
# exports none of them; js/index.d.ts, js/server.d.ts and js/lists.d.ts re-export these files whole.
for dir in pkg/web pkg/server-web pkg/lists-web; do
  sed -i '/^export type InitInput\b/,$d' "$dir/mcp_result_cache.d.ts"
done
# The Node ES module entries name the CommonJS entries' exports one by one (Node cannot see
# through `module.exports = { ...wasm }`): written from those modules' keys.
node scripts/node-entries.mjs
# Declarations for Node's own resolution (moduleResolution node16/nodenext): the same API as
# js/index.d.ts, js/server.d.ts and js/lists.d.ts, re-exported from the nodejs builds, as CommonJS (.d.cts) and
# ESM (.d.mts).
for ext in d.cts d.mts; do
  sed -e "s#'../pkg/web/mcp_result_cache.js'#'./mcp_result_cache.js'#" \
    -e "s#'./constants.js'#'../../js/constants.js'#" js/index.d.ts > "pkg/node/index.$ext"
  sed "s#'../pkg/server-web/mcp_result_cache.js'#'./mcp_result_cache.js'#" js/server.d.ts > "pkg/server-node/index.$ext"
  sed "s#'../pkg/lists-web/mcp_result_cache.js'#'./mcp_result_cache.js'#" js/lists.d.ts > "pkg/lists-node/index.$ext"
done
for f in pkg/*/mcp_result_cache_bg.wasm; do
  printf 'build: %s %s bytes raw, %s bytes gzip -9\n' "$f" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
done
echo "$toolchain" > pkg/.toolchain
echo "$fingerprint" > pkg/.inputs
if [ "$toolchain" = stable ]; then
  echo "$warning" >&2
fi
