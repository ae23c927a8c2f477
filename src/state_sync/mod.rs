//! State sync: MCP Fusion's Cache-Control / invalidation vocabulary, what a server's `StateSync`
//! does with it, SEP-2549 list TTLs and URI templates. Pure Rust.
pub mod decorate;
pub mod glob;
pub mod invalidation;
pub mod list_cache;
pub mod policy;
pub mod server;
pub mod template;
