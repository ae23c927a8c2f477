//! The options of `beforeToolCall` and `afterToolCall`, as the pipeline reads them.

use crate::core::cap;
use crate::core::content::DEFAULT_MEDIA_MAX_BYTES;
use crate::core::size::{DEFAULT_MAX_TOOL_RESULT_CHARS, INLINE_LIST_MAX_RECORDS};
use crate::core::uri::DEFAULT_CONV_SEGMENT;
use crate::core::view::View;

/// Inline-cap settings.
#[derive(Debug, Clone)]
pub struct CapOptions {
    /// Longest inline array allowed.
    pub cap: usize,
    /// Arguments the cap applies to.
    pub arg_names: Vec<String>,
}

impl Default for CapOptions {
    fn default() -> Self {
        Self {
            cap: INLINE_LIST_MAX_RECORDS as usize,
            arg_names: cap::DEFAULT_CAPPED_ARGS
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
        }
    }
}

/// Options of `beforeToolCall`.
#[derive(Debug, Clone)]
pub struct BeforeOptions {
    /// `false` → pass through untouched.
    pub enabled: bool,
    /// The conversation the call belongs to: references are resolved only when they were
    /// written under exactly this id (a missing id is `"default"`, as in `afterToolCall`).
    pub conv_id: String,
    /// The inline-list cap.
    pub cap: CapOptions,
    /// For reused results: above this many characters of JSON the model sees a summary.
    pub max_chars: u32,
    /// The server the tool belongs to, when the host says ([`crate::core::source`]).
    pub server: Option<String>,
}

/// Options of `afterToolCall`.
#[derive(Debug, Clone)]
pub struct AfterOptions {
    /// `false` → the result untouched.
    pub enabled: bool,
    /// The conversation the result belongs to.
    pub conv_id: String,
    /// Above this many characters of JSON, the model sees a summary.
    pub max_chars: u32,
    /// Decoded bytes above which an image, audio clip or blob is stored and linked.
    pub media_max_bytes: u64,
    /// The server the tool belongs to, when the host says: recorded with each entry, and the
    /// scope of the result's invalidation signals ([`crate::core::source`]).
    pub server: Option<String>,
    /// Canonical JSON of the call's arguments as the model wrote them, when the host passes
    /// them: pairs the result with its own call for `reuseImmutable`, even when calls to the
    /// same tool complete out of order.
    pub args_key: Option<String>,
    /// How a stored result is shown (the cache's `view`/`readTools`, or this call's).
    pub view: View,
}

impl Default for AfterOptions {
    fn default() -> Self {
        Self {
            enabled: true,
            conv_id: DEFAULT_CONV_SEGMENT.to_owned(),
            max_chars: DEFAULT_MAX_TOOL_RESULT_CHARS,
            media_max_bytes: u64::from(DEFAULT_MEDIA_MAX_BYTES),
            server: None,
            args_key: None,
            view: View::default(),
        }
    }
}
