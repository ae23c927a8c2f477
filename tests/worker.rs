//! The same IndexedDB suite inside a dedicated Web Worker (no `window`).
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

mod suite;
