//! Caps on what crosses between the model and tools.
//!
//! - The inline-list cap: an argument in the capped set holding an array longer than the cap,
//!   with no `<arg>_uri` beside it, blocks the call before dispatch.
//! - The result cap: text shown to the model is cut at `maxChars`, with a marker that says so.

use super::envelope::{inline_cap_envelope, Envelope};

/// Argument names capped by default.
pub const DEFAULT_CAPPED_ARGS: [&str; 1] = ["data"];

/// What the cap needs to know about one argument of the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CappedArg<'a> {
    /// The argument name, e.g. `data`.
    pub name: &'a str,
    /// Its length when its value is an array (strings — a JSON-encoded array — are not capped).
    pub array_len: Option<usize>,
    /// Whether `<name>_uri` is present in the same call.
    pub has_uri_sibling: bool,
}

/// The first capped argument over the limit, as `(arg, envelope)`; `None` when the call may go on.
pub fn check_inline_list_cap<'a>(
    tool_name: &str,
    args: impl IntoIterator<Item = CappedArg<'a>>,
    cap: usize,
) -> Option<(&'a str, usize, Envelope)> {
    args.into_iter().find_map(|arg| match arg.array_len {
        Some(len) if len > cap && !arg.has_uri_sibling => Some((
            arg.name,
            len,
            inline_cap_envelope(tool_name, arg.name, len, cap),
        )),
        _ => None,
    })
}

/// The marker appended to text cut at `maxChars`: it says that the text was cut, how long it
/// was, and how to get something smaller.
pub fn cut_marker(original_chars: u32) -> String {
    let mut marker = String::from(CUT_MARKER_HEAD);
    crate::core::text::push_uint(&mut marker, u64::from(original_chars));
    marker.push_str(CUT_MARKER_TAIL);
    marker
}

const CUT_MARKER_HEAD: &str = "\n\n[truncated: this result had ";
const CUT_MARKER_TAIL: &str =
    " characters, too many to show. Narrow the query (fewer rows, a shorter range, fewer \
     fields) to see the rest.]";

/// Text of the hint in a summary whose full result was not kept (no reference exists).
pub const NOT_KEPT_HINT: &str = "The full result was not kept, so there is no reference to \
     pass on. Call the tool again with a narrower query (fewer rows, a shorter range, fewer \
     fields) to get a result small enough to show.";

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(len: Option<usize>, uri: bool) -> CappedArg<'static> {
        CappedArg {
            name: "data",
            array_len: len,
            has_uri_sibling: uri,
        }
    }

    #[test]
    fn cut_marker_names_the_original_length() {
        let marker = cut_marker(30_000);
        assert!(marker.starts_with("\n\n[truncated: this result had 30000 characters"));
        assert!(marker.ends_with("to see the rest.]"));
    }

    #[test]
    fn cap_rules() {
        assert!(check_inline_list_cap("t", [arg(Some(24), false)], 20).is_some());
        assert!(check_inline_list_cap("t", [arg(Some(21), false)], 20).is_some());
        assert!(check_inline_list_cap("t", [arg(Some(20), false)], 20).is_none());
        assert!(check_inline_list_cap("t", [arg(Some(15), false)], 20).is_none());
        assert!(check_inline_list_cap("t", [arg(Some(99), true)], 20).is_none());
        assert!(check_inline_list_cap("t", [arg(None, false)], 20).is_none());
        let (name, len, env) =
            check_inline_list_cap("chart.create", [arg(Some(24), false)], 20).unwrap();
        assert_eq!((name, len), ("data", 24));
        assert_eq!(env.capped_arg.as_deref(), Some("data"));
    }
}
