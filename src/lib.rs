//! # mcp-result-cache
//!
//! Pass big MCP tool results **by reference** instead of making a language model re-type them.
//!
//! When a tool returns a large result (say a 240-row time series) and the next tool needs it (a
//! chart), a chat host usually lets the model copy the rows into the next call's arguments: tens of
//! thousands of output tokens, minutes of latency, and corrupted JSON on small models. With this
//! crate the host stores the result in IndexedDB and shows the model
//! `_cache_uri: "mcp+cache://<conversation>/<token>"`; when the model later calls a tool with
//! `data_uri: "<that uri>"`, the host substitutes the stored payload before dispatching.
//!
//! ## Layers
//!
//! Each layer may import only the layers above it in this table (docs/ARCHITECTURE.md says why;
//! `tests/layers.rs` checks it).
//!
//! | module | what | may import |
//! |---|---|---|
//! | [`core`] | pure protocol rules and cache policy: URIs, sizes, records, JSON Pointers, envelopes, caps, substitution, the budget/eviction/quota policy, reuse bookkeeping, content rules, entry sources, the map type | nothing JS |
//! | [`state_sync`] | pure MCP Fusion vocabulary: globs, policies, directives, invalidation tags, what a server's `StateSync` decorates, SEP-2549 list TTLs, URI templates | `core` |
//! | [`store`] | [`store::RecordStore`]: thin record stores over IndexedDB and memory, and the chatbox-core reader | `core`, `web-sys` |
//! | [`js_args`] | reading caller values: the catching readers every export, the pipeline and the cache use (strict and lenient reads, arrays, own properties, well-formed strings, option objects) | `core`, `state_sync` |
//! | [`cache`] | [`cache::ResultCache`]: minting, exact-id scoping, quota recovery, events, one store underneath | `core`, `state_sync`, `store`, `js_args` |
//! | [`pipeline`] | the host pipeline on JS values: substitution, inline cap, `beforeToolCall` / `afterToolCall`, what the model sees of each content block | `core`, `state_sync`, `cache`, `js_args` |
//! | `bindings` | `#[wasm_bindgen]` exports and JS conversions only (the npm package's API) | all of the above |
//!
//! The wire protocol these layers implement is written down in docs/PROTOCOL.md.
//!
//! ## Performance contract
//!
//! The payload stays a JS value from the tool result to IndexedDB and back (structured clone);
//! it is never deserialized into Rust or copied into wasm memory. Each logical operation is one
//! transaction whose requests are all issued before anything is awaited.
//!
//! ## Errors
//!
//! Storage failures are typed ([`store::ErrorKind`] in [`store::StoreError::kind`]), keep their
//! DOMException name (`QuotaExceededError`, `VersionError`, …; [`store::ErrorKind::name`]), and
//! reach JS as `Error` objects with that `name`.
#![deny(missing_docs)]
// clippy.toml's size rules are for the shipped `.wasm`; `#[cfg(test)]` modules may use them.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_macros,
        clippy::disallowed_methods,
        clippy::disallowed_types
    )
)]

/// The allocator of the WebAssembly builds: talc instead of the standard library's dlmalloc
/// (smaller code; memory grows with `memory.grow` on demand, freed blocks are reused).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub mod cache;
pub mod core;
pub mod js_args;
pub mod pipeline;
pub mod state_sync;
pub mod store;

mod bindings;

pub use bindings::*;
