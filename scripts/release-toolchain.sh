# Sourced by scripts/setup.sh (which installs it) and scripts/build.sh (which builds with it):
# the toolchain and flags of the shipped `.wasm` files, in one place.
#
# The release builds rebuild the standard library (`-Zbuild-std`) with `panic=immediate-abort`,
# which needs a nightly compiler: a panic then traps where it happens, instead of running std's
# panic handler, whose message formatting (`core::fmt`) was 7-8 KB of code in each module, plus
# its messages and source locations, and cannot be removed on stable while the crate links std.
# A panic trapped before as well (wasm32 has no unwinding and its panic output goes nowhere),
# so nothing a caller sees changes; the exports never panic on any input (the Node tests make
# 100 000 hostile calls against these builds).
#
# `-Csymbol-mangling-version=legacy` keeps the short symbol names stable Rust uses: the
# nightly's default (v0) names wasm-bindgen's closure shims after their full types, and those
# names end up in the `.wasm`'s exports and the JS glue.
#
# `-Ctarget-feature=-reference-types,-multivalue`: wasm-bindgen then passes JS values through its
# heap table in the glue instead of generating an externref shim (and a multi-value return shim)
# around every export that takes or returns one; measured on the host module: 1.7 KB less gzip
# `.wasm` for 0.3 KB more gzip glue.
#
# The nightly is pinned by date, so a build is reproducible. Clippy, `cargo test` and the
# wasm-bindgen-test suites run on stable; the Node, end-to-end and consumer tests run against
# the package these builds produce. The first build also fetches the standard library's own
# dependencies from crates.io (the package registry), once.
RELEASE_TOOLCHAIN="nightly-2026-05-20"
RELEASE_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Csymbol-mangling-version=legacy -Ctarget-feature=-reference-types,-multivalue"
RELEASE_BUILD_STD="std,panic_abort"
# `-Zbuild-std-features`: the standard library's `optimize_for_size` feature, which picks its
# smaller implementations of the same operations (no behaviour changes); it replaces std's default
# features, of which only `panic-unwind` is unused here (panics abort). −334 B gzip host `.wasm`.
RELEASE_BUILD_STD_FEATURES="optimize_for_size"

# True when the release toolchain is installed with what the builds need. grep reads all of
# rustup's output (no -q), so rustup never writes into a closed pipe.
release_toolchain_ready() {
  rustup run "$RELEASE_TOOLCHAIN" rustc --version >/dev/null 2>&1 \
    && rustup component list --toolchain "$RELEASE_TOOLCHAIN" --installed | grep -x rust-src >/dev/null \
    && rustup target list --toolchain "$RELEASE_TOOLCHAIN" --installed | grep -x wasm32-unknown-unknown >/dev/null
}
