//! The JavaScript API: `#[wasm_bindgen]` exports and the conversions between JS values and the
//! Rust types of [`crate::core`], [`crate::cache`] and [`crate::store`]. No logic lives here.

mod augment;
mod convert;
mod default_cache;
mod js_error;
mod list_cache;
mod pipeline;
mod result_cache;
mod state_sync;
mod sync_helpers;
mod types;

pub use augment::*;
pub use default_cache::*;
pub use list_cache::*;
pub use pipeline::*;
pub use result_cache::JsResultCache;
pub use state_sync::*;
pub use sync_helpers::*;
