#!/usr/bin/env bash
# Idempotent toolchain bootstrap for mcp-result-cache.
#
# Installs only what is missing: the wasm32 target, the pinned nightly of the release builds
# (scripts/release-toolchain.sh), wasm-pack, wasm-bindgen-cli at exactly the version pinned in
# Cargo.toml, Debian's Chromium + ChromeDriver, Debian's redis-server + redis-cli, and the npm dev
# dependencies (which include binaryen@132, the wasm-opt we trust; Debian's wasm-opt 108 corrupts
# release builds).
# When everything is present it finishes in about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_PACK_VERSION="0.15.1"
# The CLI must equal the crate: read the exact pin from Cargo.toml so the two can never drift.
WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p; s/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' Cargo.toml | head -n1)"
if [ -z "$WASM_BINDGEN_VERSION" ]; then
  echo "setup: could not read the exact wasm-bindgen pin (=x.y.z) from Cargo.toml" >&2
  exit 1
fi

log() { printf 'setup: %s\n' "$*"; }
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$HOME/.cargo/bin:$PATH"

# 1. Rust target.
if ! rustup target list --installed | grep -x wasm32-unknown-unknown >/dev/null; then
  log "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 1b. The pinned nightly that builds the shipped .wasm files (scripts/release-toolchain.sh):
#     its standard-library sources (rebuilt without panic formatting) and the wasm32 target.
# `RELEASE_TOOLCHAIN=<toolchain>` in the environment overrides the pin, as in scripts/build.sh.
override="${RELEASE_TOOLCHAIN:-}"
. scripts/release-toolchain.sh
[ -n "$override" ] && RELEASE_TOOLCHAIN="$override"
if ! release_toolchain_ready; then
  log "installing the release toolchain $RELEASE_TOOLCHAIN (rust-src, wasm32; about 15 s)"
  rustup toolchain install "$RELEASE_TOOLCHAIN" --profile minimal --component rust-src \
    --target wasm32-unknown-unknown
fi

# 2. wasm-pack.
if [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$WASM_PACK_VERSION" ]; then
  log "installing wasm-pack $WASM_PACK_VERSION (about 95 s)"
  cargo install --locked wasm-pack --version "$WASM_PACK_VERSION" --force
fi

# 3. wasm-bindgen-cli (also provides wasm-bindgen-test-runner). Not --locked: a pinned
#    transitive crate of its lockfile is missing from the registry reachable here.
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ] \
  || ! command -v wasm-bindgen-test-runner >/dev/null; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 115 s)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

# 4. Chromium + ChromeDriver from Debian (same build, so their majors match).
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  log "installing chromium + chromium-driver from Debian"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# 4b. redis-server + redis-cli from Debian, for the Redis storage tests. The tests start their
#     own throwaway servers on free loopback ports (tests/support/redis-servers.mjs) and never
#     use the packaged systemd service; if the install starts one on port 6379, nothing relies on it.
if [ ! -x /usr/bin/redis-server ] || [ ! -x /usr/bin/redis-cli ]; then
  log "installing redis-server (+ redis-cli) from Debian"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null
fi

# 5. npm dev dependencies (vitest, fake-indexeddb, playwright-core, binaryen, typescript, ...).
if [ -f package.json ]; then
  stamp=node_modules/.setup-stamp
  if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
    log "installing npm dependencies"
    if [ -f package-lock.json ]; then
      if ! npm ci --no-audit --no-fund; then
        echo "setup: WARNING: 'npm ci' failed; falling back to 'npm install'" >&2
        npm install --no-audit --no-fund
      fi
    else
      npm install --no-audit --no-fund
    fi
    touch "$stamp"
  fi
fi

# 5b. The AI SDK example resolves its dependencies from the repository's node_modules by walking
#     up, except `mcp-result-cache` itself (`file:../..`): linked here as `npm install` in the
#     example would link it, so the type check of the modules the tests import from it
#     (tsconfig.tools.json) and its e2e (tests/e2e/redis-route.mjs) need no network install.
link=examples/ai-sdk-redis/node_modules/mcp-result-cache
if [ -L "$link" ] && [ ! -e "$link" ]; then rm "$link"; fi # a dangling link is made anew
if [ -d examples/ai-sdk-redis ] && [ ! -e "$link" ] && [ ! -L "$link" ]; then
  mkdir -p "$(dirname "$link")"
  ln -s ../../.. "$link"
fi

# 6. Sanity: the wasm-opt that wasm-pack will find first must be binaryen's >= 110 (never Debian's 108).
if [ -x node_modules/.bin/wasm-opt ]; then
  v="$(node_modules/.bin/wasm-opt --version | grep -o '[0-9]\+' | head -n1)"
  if [ "${v:-0}" -lt 110 ]; then
    echo "setup: node_modules/.bin/wasm-opt is version $v; need >= 110" >&2
    exit 1
  fi
fi
log "toolchain ready (wasm-bindgen $WASM_BINDGEN_VERSION, wasm-pack $WASM_PACK_VERSION, $(/usr/bin/chromium --version 2>/dev/null | head -n1))"
