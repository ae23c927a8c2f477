//! The pure core: protocol rules with no JavaScript, no IndexedDB and no wasm-bindgen.
//!
//! Everything here compiles and is tested natively (`cargo test`). The wasm-facing layers
//! ([`crate::store`], [`crate::cache`], the `bindings`) call into it.

pub mod cap;
pub mod content;
pub mod envelope;
pub mod map;
pub mod pointer;
pub mod policy;
pub mod record;
pub mod reuse;
pub mod size;
pub mod source;
pub mod substitute;
pub mod text;
pub mod uri;
pub mod view;
