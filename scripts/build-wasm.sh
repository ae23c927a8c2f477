#!/usr/bin/env bash
# The WebAssembly stage of scripts/build.sh (which sets the toolchain, RUSTFLAGS and
# CARGO_TARGET_DIR, and skips this stage when no Rust input changed): each entry's `.wasm` for
# browsers (pkg/web, pkg/server-web, pkg/lists-web) and for Node (pkg/node, pkg/server-node,
# pkg/lists-node), with the browser glue finished by scripts/web-glue.mjs and the declarations.
#   bash scripts/build-wasm.sh [cargo args…]   (the -Zbuild-std flag of the release toolchain)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p pkg
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
      --out-name mcp_result_cache -- --no-default-features --features "$features" "$@"
    # wasm-pack drops a '*' .gitignore into the output, which would hide it from `npm pack`.
    rm -f "$out/.gitignore" "$out/README.md" "$out/LICENSE-MIT" "$out/LICENSE-APACHE"
  done
done
# Browsers: the glue gets its JS snippets inlined and short import/export names
# (scripts/web-glue.mjs); the JS stage of scripts/build.sh then bundles each browser entry with
# its glue into one module (pkg/browser.mjs, pkg/server.mjs, pkg/lists.mjs). The glue stays in
# pkg/<dir>/ as the bundling's input only: package.json's "files" leaves it out of the package
# (imported beside the bundle, it would make a second WebAssembly instance).
node scripts/web-glue.mjs pkg/web pkg/server-web pkg/lists-web
# The browser builds' directories ship the .wasm and the declarations, and a package.json that
# only says how to read those (wasm-pack's names a `main` and `snippets/` that are gone).
for dir in pkg/web pkg/server-web pkg/lists-web; do
  printf '{\n  "type": "module",\n  "types": "mcp_result_cache.d.ts"\n}\n' > "$dir/package.json"
done
# The browser builds' declarations describe the API only: their glue (and with it `init`,
# `initSync` and the raw wasm exports of `InitOutput`) lives inside the bundled entry, which
# exports none of them; js/index.d.ts, js/server.d.ts and js/lists.d.ts re-export these files whole.
for dir in pkg/web pkg/server-web pkg/lists-web; do
  sed -i '/^export type InitInput\b/,$d' "$dir/mcp_result_cache.d.ts"
done
for f in pkg/*/mcp_result_cache_bg.wasm; do
  printf 'build: %s %s bytes raw, %s bytes gzip -9\n' "$f" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
done
