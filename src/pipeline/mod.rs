//! The host pipeline on JS values: substitution of `*_uri` arguments, the inline-list cap, and
//! the two calls a chat engine puts around its tool dispatch (`beforeToolCall`,
//! `afterToolCall`), with what the model is shown of each content block of a result
//! (`content/`). Decisions come from [`crate::core`]; this layer reads and builds JS objects
//! without ever copying a payload into Rust.

mod after;
mod before;
mod content;
mod options;
mod substitution;
mod summary;
mod visible;

pub use after::after_tool_call;
pub use before::{before_tool_call, check_inline_list_cap, BeforeOutcome};
pub use options::{AfterOptions, BeforeOptions, CapOptions};
pub use substitution::{substitute_args, ArgsOutcome};
