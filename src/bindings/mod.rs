//! The JavaScript API: `#[wasm_bindgen]` exports and the conversions between JS values and the
//! Rust types of [`crate::core`], [`crate::cache`] and [`crate::store`]. No logic lives here.

mod convert;
mod default_cache;
mod js_error;
mod pipeline;
mod result_cache;
mod sync_helpers;
mod types;

pub use default_cache::*;
pub use pipeline::*;
pub use result_cache::JsResultCache;
pub use sync_helpers::*;
