#!/usr/bin/env bash
# Release build of the npm package's wasm: pkg/web (ES module, browsers/workers/bundlers) and
# pkg/node (CommonJS, Node). wasm-opt comes from npm's binaryen@132 (node_modules/.bin first on
# PATH); Debian's wasm-opt 108 silently corrupts wasm-bindgen 0.2.130 output.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

for target in web nodejs; do
  out="pkg/${target/nodejs/node}"
  echo "build: wasm-pack build --release --target $target -> $out"
  wasm-pack --quiet build --release --mode no-install --target "$target" --out-dir "$out" \
    --out-name mcp_result_cache
  # wasm-pack drops a '*' .gitignore into the output, which would hide it from `npm pack`.
  rm -f "$out/.gitignore" "$out/README.md"
done
# wasm-bindgen types the raw wasm exports of the web build's InitOutput with `any`; consumers
# never touch them, and our declarations promise no `any`.
sed -i -E '/^export interface InitOutput \{/,/^\}/ s/\bany\b/unknown/g' pkg/web/mcp_result_cache.d.ts
# Declarations for Node's own resolution (moduleResolution node16/nodenext): the same API as
# js/index.d.ts, re-exported from the nodejs build, as CommonJS (.d.cts) and ESM (.d.mts).
for ext in d.cts d.mts; do
  sed "s#'../pkg/web/mcp_result_cache.js'#'./mcp_result_cache.js'#" js/index.d.ts > "pkg/node/index.$ext"
done
for f in pkg/*/mcp_result_cache_bg.wasm; do
  printf 'build: %s %s bytes raw, %s bytes gzip\n' "$f" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
done
