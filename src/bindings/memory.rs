//! `wasmMemoryBytes`, the diagnostic every entry exports (each about its own module).

use wasm_bindgen::prelude::*;

/// Current size of this module's WebAssembly linear memory, in bytes. Diagnostics: tool-result
/// payloads never enter it (they stay JS values, structured-cloned by IndexedDB), so caching an
/// 8 MB result leaves it essentially unchanged — the benchmark and tests check exactly that.
#[wasm_bindgen(js_name = wasmMemoryBytes)]
pub fn wasm_memory_bytes() -> f64 {
    use wasm_bindgen::JsCast;
    wasm_bindgen::memory()
        .unchecked_into::<js_sys::WebAssembly::Memory>()
        .buffer()
        .unchecked_into::<js_sys::ArrayBuffer>()
        .byte_length() as f64
}
