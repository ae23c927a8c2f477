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
  build_std=("-Zbuild-std=$RELEASE_BUILD_STD" "-Zbuild-std-features=$RELEASE_BUILD_STD_FEATURES")
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

# Every output goes to pkg/, the build's one output folder (git-ignored, never committed; the
# published package ships the parts package.json's "files" names). Two stages, each skipped when
# nothing it reads changed since its last complete run (a fingerprint of its inputs, written
# last; BUILD_FORCE=1 runs both anyway), so editing the JS never recompiles the WebAssembly:
#   1. the WebAssembly: each entry's .wasm for browsers and for Node (wasm-pack), its browser
#      glue finished (scripts/web-glue.mjs: snippets inlined, names shortened) and its
#      declarations; fingerprint pkg/.wasm-inputs;
#   2. the JS: the constants (scripts/constants.mjs), the bundled browser entries and their
#      modules loaded on first use
#      (scripts/web-glue.mjs --entries), the Node entries' generated parts
#      (scripts/node-entries.mjs) and the Node declarations; fingerprint pkg/.inputs.
# Every output of stage 2 is named once, in OUTPUTS below; stage 1's are pkg/<dir>/.
OUTPUTS=(pkg/browser.mjs pkg/server.mjs pkg/lists.mjs pkg/readback.mjs pkg/warm-up.mjs pkg/constants.mjs pkg/constants.cjs pkg/constants.d.ts
  pkg/protocol-constants.mjs pkg/augment.cjs pkg/cache-flows.cjs pkg/warm-up.cjs pkg/references.cjs pkg/cache-route.cjs pkg/defaults.cjs
  pkg/node.mjs pkg/server.node.mjs pkg/lists.node.mjs
  pkg/node/index.d.mts pkg/node/index.d.cts pkg/server-node/index.d.mts pkg/server-node/index.d.cts
  pkg/lists-node/index.d.mts pkg/lists-node/index.d.cts
  pkg/mcp-client.d.mts pkg/mcp-client.d.cts pkg/ai-sdk.d.mts pkg/ai-sdk.d.cts pkg/react.d.mts pkg/react.d.cts)
WASM_DIRS=(web node server-web server-node lists-web lists-node)

# `fresh NAME FINGERPRINT FILE…`: whether stage NAME's last complete run had this fingerprint
# and its outputs are all there.
fresh() {
  local stamp="$1" print="$2"; shift 2
  [ "${BUILD_FORCE:-}" != 1 ] && [ "$(cat "$stamp" 2>/dev/null)" = "$print" ] || return 1
  local f; for f in "$@"; do [ -e "$f" ] || return 1; done
}
hash_files() { sort -z | xargs -0 sha256sum; }

wasm_print="$({
  printf '%s\n' "$toolchain" "$(rustc --version)" "${RUSTFLAGS:-}" "${build_std[*]:-}"
  find src -type f -print0 | hash_files
  sha256sum Cargo.toml Cargo.lock scripts/build-wasm.sh scripts/release-toolchain.sh scripts/web-glue.mjs \
    scripts/wasm-imports.mjs
} | sha256sum | cut -d' ' -f1)"
wasm_outputs=()
for dir in "${WASM_DIRS[@]}"; do wasm_outputs+=("pkg/$dir/mcp_result_cache_bg.wasm" "pkg/$dir/mcp_result_cache.d.ts"); done
for dir in web server-web lists-web; do wasm_outputs+=("pkg/$dir/mcp_result_cache.js"); done
if fresh pkg/.wasm-inputs "$wasm_print" "${wasm_outputs[@]}" && [ "$(cat pkg/.toolchain 2>/dev/null)" = "$toolchain" ]; then
  echo "build: WebAssembly up to date (no Rust input changed; BUILD_FORCE=1 rebuilds)"
else
  rm -f pkg/.toolchain pkg/.wasm-inputs pkg/.inputs
  bash scripts/build-wasm.sh "${build_std[@]+"${build_std[@]}"}"
  echo "$toolchain" > pkg/.toolchain
  echo "$wasm_print" > pkg/.wasm-inputs
fi

js_print="$({
  cat pkg/.wasm-inputs
  find js src -type f \( -name '*.mjs' -o -name '*.cjs' -o -name '*.js' -o -name '*.d.ts' -o -name '*.rs' \) -print0 | hash_files
  sha256sum package.json package-lock.json scripts/build.sh scripts/web-glue.mjs scripts/constants.mjs scripts/node-entries.mjs
} | sha256sum | cut -d' ' -f1)"
if fresh pkg/.inputs "$js_print" "${OUTPUTS[@]}"; then
  echo "build: up to date (no input changed since the last build; BUILD_FORCE=1 rebuilds)"
  exit 0
fi
rm -f pkg/.inputs
# The exported constants, from the Rust ones (scripts/constants.mjs): the entries import them.
node scripts/constants.mjs
# Each browser entry (js/src/*.mjs) is bundled with its glue into one minified module,
# pkg/browser.mjs, pkg/server.mjs and pkg/lists.mjs (scripts/web-glue.mjs).
node scripts/web-glue.mjs --entries
# The Node ES module entries name the CommonJS entries' exports one by one (Node cannot see
# through `module.exports = { ...wasm }`): written from those modules' keys.
node scripts/node-entries.mjs
# Declarations for Node's own resolution (moduleResolution node16/nodenext): the same API as
# js/index.d.ts, js/server.d.ts and js/lists.d.ts, re-exported from the nodejs builds, as CommonJS (.d.cts) and
# ESM (.d.mts).
for ext in d.cts d.mts; do
  sed -e "s#'../pkg/web/mcp_result_cache.js'#'./mcp_result_cache.js'#" \
    -e "s#'../pkg/constants.js'#'../constants.js'#" js/index.d.ts > "pkg/node/index.$ext"
  sed "s#'../pkg/server-web/mcp_result_cache.js'#'./mcp_result_cache.js'#" js/server.d.ts > "pkg/server-node/index.$ext"
  sed "s#'../pkg/lists-web/mcp_result_cache.js'#'./mcp_result_cache.js'#" js/lists.d.ts > "pkg/lists-node/index.$ext"
done
# The same for js/mcp-client.d.ts and js/ai-sdk.d.ts, whose types import a peer's: a declaration
# file is read as one format only (js/*.d.ts as CommonJS), and TypeScript resolves the peer's
# build of that format; @modelcontextprotocol/sdk ships both, with distinct `Client` classes, so
# an ES module consumer's `Client` was not the one `wrapMcpClient` takes. As ESM (.d.mts) and
# CommonJS (.d.cts), each importing the main entry's Node declarations of its own format.
# js/react.d.ts too (js/react.mjs is an ES module, which Node's `require` loads): read as
# CommonJS, js/react.d.ts would import the ES module declarations of pkg/web, which node16
# resolution rejects. The AI SDK (`ai`) is an ES module only: a CommonJS declaration imports its
# types with `resolution-mode: "import"` (TypeScript 5.3+), as node16 resolution requires.
for ext in d.cts d.mts; do
  [ "$ext" = d.mts ] && index=./node/index.mjs || index=./node/index.cjs # declared by pkg/node/index.$ext
  [ "$ext" = d.mts ] && esm_only= || esm_only=" with { 'resolution-mode': 'import' }"
  for entry in mcp-client ai-sdk react; do
    sed -e "s#from './index.js'#from '$index'#" -e "s#from 'ai';#from 'ai'$esm_only;#" "js/$entry.d.ts" > "pkg/$entry.$ext"
    # Every relative import rewritten (one left would name a file pkg/ does not have).
    if grep -E "from ['\"]\.\.?/" "pkg/$entry.$ext" | grep -vF "from '$index'" >&2; then
      echo "build: pkg/$entry.$ext: js/$entry.d.ts imports the above; only './index.js' is rewritten" >&2; exit 1
    fi
  done
done
for f in "${OUTPUTS[@]}"; do [ -e "$f" ] || { echo "build: $f was not written" >&2; exit 1; }; done
echo "$js_print" > pkg/.inputs
if [ "$toolchain" = stable ]; then
  echo "$warning" >&2
fi
