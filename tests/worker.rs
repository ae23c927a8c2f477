//! The same IndexedDB suite inside a dedicated Web Worker (no `window`).
#![cfg(target_arch = "wasm32")]
// Test code: clippy.toml's size rules are for the shipped `.wasm`.
#![allow(
    clippy::disallowed_macros,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

mod suite;
