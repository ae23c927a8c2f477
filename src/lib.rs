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
//! | module | what | depends on |
//! |---|---|---|
//! | [`core`] | pure protocol rules: URIs, sizes, records, JSON Pointers | nothing JS |
//! | [`store`] | [`store::ResultStore`] over IndexedDB and memory | `web-sys` |
//! | [`cache`] | [`cache::ResultCache`]: threshold, minting, scoping, events | `core`, `store` |
//! | `bindings` | `#[wasm_bindgen]` exports (the npm package's API) | all of the above |
//!
//! ## Performance contract
//!
//! The payload stays a JS value from the tool result to IndexedDB and back (structured clone);
//! it is never deserialized into Rust or copied into wasm memory. Each logical operation is one
//! transaction whose requests are all issued before anything is awaited.
//!
//! ## Errors
//!
//! Storage failures keep their DOMException name (`QuotaExceededError`, `VersionError`, …) in
//! [`store::StoreError::name`], and reach JS as `Error` objects with that `name`.
#![deny(missing_docs)]

pub mod cache;
pub mod core;
pub mod pipeline;
pub mod state_sync;
pub mod store;

mod bindings;

pub use bindings::*;
