#!/usr/bin/env bash
# `npm test`: installs what is missing, then runs every test layer. Fails on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

step() {
  printf '\n=== %s\n' "$*"
  local start=$SECONDS
  "$@"
  printf '=== ok (%ss): %s\n' "$((SECONDS - start))" "$*"
}

step cargo fmt --check
step cargo clippy --all-targets -- -D warnings
step cargo clippy --all-targets --target wasm32-unknown-unknown -- -D warnings
# Each npm entry's module alone (the release builds use these feature sets).
step cargo clippy --lib --target wasm32-unknown-unknown --no-default-features --features host -- -D warnings
step cargo clippy --lib --target wasm32-unknown-unknown --no-default-features --features host,external-store -- -D warnings
step cargo clippy --lib --target wasm32-unknown-unknown --no-default-features --features server -- -D warnings
step cargo clippy --lib --target wasm32-unknown-unknown --no-default-features --features lists -- -D warnings
# clippy.toml's size rules really fail a shipped module that breaks them.
step bash scripts/check-size-rules.sh
step cargo test
# The rustdoc of the crate builds without a warning (broken or private intra-doc links).
step env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet
# The same IndexedDB suite in real headless Chromium: on a page, then in a dedicated worker.
# The runner's default of 20 s for the whole suite is a deadline, not a measurement: the
# conformance suite's concurrency checks alone take several seconds on a 2-core machine.
export WASM_BINDGEN_TEST_TIMEOUT=180
step wasm-pack test --headless --chrome --mode no-install --test browser
step wasm-pack test --headless --chrome --mode no-install --test worker
# The conformance suite once more in Node: over fake-indexeddb (consumers' unit-test setting) and
# the memory store. Redis keeps its budget per conversation, so it is held to the storage
# contract's own suite instead (tests/js/redis-storage-conformance.test.mjs, standalone and cluster).
step env NODE_OPTIONS="--import=$PWD/node_modules/fake-indexeddb/auto/index.mjs" \
  wasm-pack test --node --mode no-install --test node
# The release package (wasm-opt'd), as consumers get it.
step bash scripts/build.sh
# Bytes a browser downloads per entry, against package.json's "sizeBudget".
step node scripts/size-budget.mjs
# The hand-written JS held to the Rust half's standard (after the build: it reads the constants
# and declarations the build writes into pkg/): tsc --checkJs --strict over JSDoc types, and ESLint.
step npx tsc -p tsconfig.json
# The JS around the package (tsconfig.tools.json): build scripts, bench, demo page, every test, the example modules.
step npx tsc -p tsconfig.tools.json
# The hand-written declarations (js/*.d.ts) against the modules they describe.
step npx tsc -p tests/types/tsconfig.json
step npx eslint js src scripts tests/js eslint.config.mjs
# The benchmark, the demo page, the examples (JSX too) and the e2e, support, boundary and consumer tests.
step npx eslint bench www examples tests/e2e tests/support tests/boundary tests/consumers
# At most 10 `any` in the tracked hand-written JS and .d.ts, each printed (scripts/count-any.mjs).
step node scripts/count-any.mjs
step node --test tests/js/
step node tests/e2e/demo.mjs
step node tests/e2e/readback.mjs
step node tests/e2e/reliability.mjs
step node tests/e2e/legacy.mjs
step node tests/e2e/reference-servers.mjs
# The AI SDK route on two instances sharing one cache in Redis (examples/ai-sdk-redis).
step node tests/e2e/redis-route.mjs
step node tests/consumers/run.mjs
# One iteration of the benchmark so it cannot rot (timings belong to npm run bench).
step node bench/run.mjs --smoke
# The Redis store's bench, once: one round trip per logical operation (timings never fail).
step node bench/redis.mjs --smoke
