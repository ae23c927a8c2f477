//! The inline-list cap (DESIGN §1): an argument in the capped set holding an array longer than the
//! cap, with no `<arg>_uri` beside it, blocks the call before dispatch.

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
