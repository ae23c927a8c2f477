#!/usr/bin/env bash
# Checks that clippy.toml's size rules are enforced (docs/ARCHITECTURE.md, "Size rules"): a copy
# of the crate with one `format!` added to a shipped module (src/core/uri.rs) must fail the
# host entry's clippy step with `disallowed_macros`. The pristine crate passing the same command
# is the clippy step of scripts/test.sh that runs just before this one.
#
# The copy lives in target/size-rules/crate with its own target directory next to it, so a run
# rechecks only this crate once the dependencies have been checked there the first time.
#
#   bash scripts/check-size-rules.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

work="$PWD/target/size-rules"
crate="$work/crate"
rm -rf "$crate"
mkdir -p "$crate"
# What `cargo clippy --lib` reads: the manifest, the lockfile, the lint configuration, the sources.
cp -R Cargo.toml Cargo.lock clippy.toml src "$crate/"

probe="src/core/uri.rs"
cat >> "$crate/$probe" <<'RUST'

/// Size-rules probe (scripts/check-size-rules.sh): shipped code must not use `format!`.
pub fn size_rules_probe(n: u32) -> String {
    format!("probe {n}")
}
RUST

out="$work/clippy.log"
set +e
# Clippy reads the copy's clippy.toml (CLIPPY_CONF_DIR; its own manifest directory comes first).
(cd "$crate" && CLIPPY_CONF_DIR="$crate" CARGO_TARGET_DIR="$work/target" cargo clippy --quiet --lib \
  --target wasm32-unknown-unknown --no-default-features --features host -- -D warnings) >"$out" 2>&1
status=$?
set -e

fail() {
  echo "check-size-rules: $*" >&2
  echo "--- clippy output ($out)" >&2
  cat "$out" >&2
  exit 1
}
[ "$status" -ne 0 ] || fail "clippy passed a format! in $probe; clippy.toml's disallowed-macros are not enforced"
grep -q 'disallowed_macros' "$out" || fail "clippy failed, but not with disallowed_macros"
grep -q "$probe" "$out" || fail "clippy's disallowed_macros error does not point at $probe"
echo "check-size-rules: ok (a format! in $probe fails clippy with disallowed_macros)"
