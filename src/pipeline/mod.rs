//! The host pipeline on JS values: substitution of `*_uri` arguments, the inline-list cap, and
//! the two calls a chat engine puts around its tool dispatch (`beforeToolCall`,
//! `afterToolCall`). Decisions come from [`crate::core`]; this layer reads and builds JS objects
//! without ever copying a payload into Rust.

pub mod js_args;
mod substitution;
mod summary;
mod tool_call;

pub use substitution::{substitute_args, ArgsOutcome};
pub use tool_call::{
    after_tool_call, before_tool_call, check_inline_list_cap, AfterOptions, BeforeOptions,
    BeforeOutcome, CapOptions,
};
