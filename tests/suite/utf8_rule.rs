//! One rule in two places, tied by generated inputs: a payload's UTF-8 size is measured in JS
//! (`utf8Length` in `src/js_values.js`, through `cache::payload::utf8_len`) and the same rule is
//! written in Rust for code without a JS engine (`core::size::utf8_len_of_utf16`: 1–3 bytes a
//! code unit, 4 a surrogate pair, 3 a lone surrogate, as U+FFFD). The strings are drawn from the
//! edges of each encoding length, lone and reversed surrogates included, so any drift shows.

use js_sys::JsString;
use mcp_result_cache::cache::payload::utf8_len;
use mcp_result_cache::core::size::utf8_len_of_utf16;
use wasm_bindgen_test::wasm_bindgen_test;

/// Code units at the edges: ASCII, the 2- and 3-byte boundaries, surrogates of both halves.
const UNITS: [u16; 14] = [
    0x00, 0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFD,
    0xFFFF,
];

#[wasm_bindgen_test]
fn js_and_rust_measure_utf8_alike_on_20_000_generated_strings() {
    let mut state: u32 = 0x9E37_79B9;
    let mut next = move || {
        // xorshift32: the same sequence on every run, so a failure reproduces.
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    for case in 0..20_000 {
        let len = (next() % 40) as usize;
        // One string in four is ASCII only: the JS rule answers `length` without encoding it.
        let ascii = case % 4 == 0;
        let units: Vec<u16> = (0..len)
            .map(|_| match (ascii, next() % 3) {
                (true, _) => (next() % 0x80) as u16,
                (false, 0) => UNITS[(next() as usize) % UNITS.len()],
                (false, _) => next() as u16,
            })
            .collect();
        let js = JsString::from_char_code(&units);
        assert_eq!(
            utf8_len(&js),
            utf8_len_of_utf16(units.iter().copied()),
            "case {case}: {units:04x?}"
        );
    }
}
