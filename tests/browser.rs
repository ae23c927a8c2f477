//! The IndexedDB suite on a page in headless Chromium (`wasm-pack test --headless --chrome`).
#![cfg(target_arch = "wasm32")]
// Test code: clippy.toml's size rules are for the shipped `.wasm`.
#![allow(
    clippy::disallowed_macros,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod suite;
