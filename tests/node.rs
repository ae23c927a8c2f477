//! The conformance suite in Node over fake-indexeddb (and the memory store), the environment of
//! consumers' unit tests: `NODE_OPTIONS=--import=<abs>/node_modules/fake-indexeddb/auto/index.mjs
//! wasm-pack test --node --test node` (see `scripts/test.sh`).
#![cfg(target_arch = "wasm32")]
// Test code: clippy.toml's size rules are for the shipped `.wasm`.
#![allow(
    clippy::disallowed_macros,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

#[path = "suite/call_order.rs"]
mod call_order;
#[path = "suite/conformance.rs"]
mod conformance;
#[path = "suite/utf8_rule.rs"]
mod utf8_rule;
// Shared with the browser suites, which use every helper; this one only some.
#[allow(dead_code)]
#[path = "suite/support.rs"]
mod support;
