//! The JavaScript API: `#[wasm_bindgen]` exports and the conversions between JS values and the
//! Rust types of [`crate::core`], [`crate::cache`] and [`crate::store`]. No logic lives here.

mod convert;
mod js_error;
#[cfg(feature = "lists")]
mod list_cache;
mod memory;
#[cfg(feature = "host")]
mod pipeline;
#[cfg(feature = "host")]
mod result_cache;
#[cfg(feature = "server")]
mod server;
#[cfg(any(feature = "host", feature = "server"))]
mod state_sync;
#[cfg(feature = "host")]
mod sync_helpers;
mod types;

#[cfg(feature = "lists")]
pub use list_cache::*;
pub use memory::*;
#[cfg(feature = "host")]
pub use pipeline::*;
#[cfg(feature = "host")]
pub use result_cache::JsResultCache;
#[cfg(feature = "server")]
pub use server::*;
#[cfg(any(feature = "host", feature = "server"))]
pub use state_sync::*;
#[cfg(feature = "host")]
pub use sync_helpers::*;
