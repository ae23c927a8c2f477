#!/usr/bin/env bash
# Fuzzing run of the property tests in tests/properties.rs, then of call order (the model-based
# interleaving test, many more cases), then of the package boundary
# (tests/boundary/fuzz.mjs: hostile JS values into every export, BOUNDARY_CASES calls).
#
# Property tests:: the same file `npm test` runs with
# proptest's default 256 cases per property, here in release mode with PROPTEST_CASES per
# property (default 100000) so that the total is at least FUZZ_MIN_TOTAL (default 1000000).
#
# Prints every property's case count, the total and the wall time; exits non-zero when a
# property fails (the shrunk input is printed) or when fewer than FUZZ_MIN_TOTAL cases ran.
# The seed is printed too: rerun one property with the same inputs by exporting the printed
# PROPTEST_RNG_SEED and PROPTEST_CASES and naming it:
#   cargo test --release --test properties <property>
# Failure persistence is off, so a run writes nothing into the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

min_total=${FUZZ_MIN_TOTAL:-1000000}
export PROPTEST_CASES=${PROPTEST_CASES:-100000}
export PROPTEST_RNG_SEED=${PROPTEST_RNG_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
log=$(mktemp "${TMPDIR:-/tmp}/properties-cases.XXXXXX")
trap 'rm -f "$log"' EXIT
export PROPERTIES_CASES_LOG=$log

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

build_start=$(now)
cargo test --release --test properties --no-run
build_end=$(now)

echo "fuzz: PROPTEST_CASES=$PROPTEST_CASES per property, PROPTEST_RNG_SEED=$PROPTEST_RNG_SEED"
status=0
cargo test --release --test properties || status=$?
run_end=$(now)

properties=$(wc -l <"$log" | tr -d ' ')
total=$(awk '{ s += $2 } END { printf "%d", s }' "$log")
echo
echo "fuzz: cases per property:"
sort "$log" | awk '{ printf "  %-72s %10d\n", $1, $2 }'
echo "fuzz: ${total} cases in total over ${properties} properties" \
  "(seed ${PROPTEST_RNG_SEED}); wall time $(elapsed "$build_start" "$run_end")s" \
  "(build $(elapsed "$build_start" "$build_end")s, run $(elapsed "$build_end" "$run_end")s)"

if [ "$status" -ne 0 ]; then
  echo "fuzz: FAILED (cargo test exited with $status); the shrunk input is printed above" >&2
  exit "$status"
fi
if [ "$total" -lt "$min_total" ]; then
  echo "fuzz: FAILED: only ${total} cases ran, fewer than ${min_total}" >&2
  exit 1
fi
echo "fuzz: properties ok"

# Call order: the model-based interleaving test (tests/suite/call_order.rs) with
# CALL_ORDER_CASES cases per storage kind (npm test runs 6), in Node over fake-indexeddb and on
# a page in headless Chromium. The count is read at compile time (the tests run in wasm).
export CALL_ORDER_CASES=${CALL_ORDER_CASES:-150}
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-1800}
order_start=$(now)
NODE_OPTIONS="--import=$PWD/node_modules/fake-indexeddb/auto/index.mjs" \
  wasm-pack test --node --mode no-install --test node -- random_interleavings
wasm-pack test --headless --chrome --mode no-install --test browser -- random_interleavings
echo "fuzz: call order: ${CALL_ORDER_CASES} cases per storage kind, Node and page, $(elapsed "$order_start" "$(now)")s"

# The boundary of the release package: 0 traps, 0 unsettled promises, nothing uncaught.
[ -f pkg/node/mcp_result_cache_bg.wasm ] || bash scripts/build.sh
node tests/boundary/fuzz.mjs
echo "fuzz: ok"
