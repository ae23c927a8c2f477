//! Behaviour of the JS API against real IndexedDB. Every test uses a fresh database name.

mod support;

mod cache_basics;
mod call_order;
mod conformance;
mod content;
mod interop;
mod isolation;
mod legacy;
mod pipeline;
mod state_sync;
mod substitution;
mod utf8_rule;
