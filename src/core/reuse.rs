//! Reuse of `immutable` results, pure: which earlier call an identical call can be answered
//! from, and how dispatched calls are paired with their results (even out of order).
//!
//! A call is identified by (conversation id, tool name, canonical JSON of its arguments). The
//! book remembers calls dispatched and not yet completed, and, once a call's result was stored,
//! the reference it got. Both maps are bounded: a long chat cannot grow them without limit.

use super::map::Map;

/// Most entries either map holds; beyond it the map starts over (reuse is an optimization).
pub const REUSE_MAP_LIMIT: usize = 1024;
/// Most calls to one tool in one conversation awaiting their result.
pub const IN_FLIGHT_PER_TOOL: usize = 16;

type CallKey = (String, String, String);

/// Dispatched calls and reusable results of `immutable` tools.
#[derive(Debug, Default)]
pub struct ReuseBook {
    /// (conversation, tool, canonical args) → reference of the stored result.
    reusable: Map<CallKey, String>,
    /// (conversation, tool) → canonical args of calls dispatched and not yet completed, oldest
    /// first (a short vector: at most [`IN_FLIGHT_PER_TOOL`], so removing at the front is cheap
    /// and the module carries no ring buffer).
    in_flight: Map<(String, String), Vec<String>>,
}

impl ReuseBook {
    /// The reference stored for an identical earlier call, if any.
    pub fn reusable(&self, conv_id: &str, tool_name: &str, args_key: &str) -> Option<&str> {
        let key = (
            conv_id.to_owned(),
            tool_name.to_owned(),
            args_key.to_owned(),
        );
        self.reusable.get(&key).map(String::as_str)
    }

    /// Notes a dispatched call's canonical arguments.
    pub fn dispatched(&mut self, conv_id: &str, tool_name: &str, args_key: String) {
        if self.in_flight.len() >= REUSE_MAP_LIMIT {
            self.in_flight.clear();
        }
        let queue = self
            .in_flight
            .get_or_insert_with((conv_id.to_owned(), tool_name.to_owned()), |_| Vec::new());
        if queue.len() >= IN_FLIGHT_PER_TOOL {
            queue.remove(0);
        }
        queue.push(args_key);
    }

    /// Completes a dispatched call: the one with `args_key` when the host passed the call's
    /// arguments, else the oldest. Links its arguments to `uri` when its result was stored, and
    /// just forgets them otherwise.
    pub fn completed(
        &mut self,
        conv_id: &str,
        tool_name: &str,
        uri: Option<&str>,
        args_key: Option<&str>,
    ) {
        let slot = (conv_id.to_owned(), tool_name.to_owned());
        let noted = match (self.in_flight.get_mut(&slot), args_key) {
            (Some(queue), Some(key)) => {
                queue.iter().position(|k| k == key).map(|i| queue.remove(i))
            }
            (Some(queue), None) => (!queue.is_empty()).then(|| queue.remove(0)),
            (None, _) => None,
        };
        if let (Some(args_key), Some(uri)) = (noted, uri) {
            if self.reusable.len() >= REUSE_MAP_LIMIT {
                self.reusable.clear();
            }
            let (conv, tool) = slot;
            self.reusable.insert((conv, tool, args_key), uri.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_pair_with_their_own_calls_even_out_of_order() {
        let mut book = ReuseBook::default();
        book.dispatched("c", "t", "{\"a\":1}".into());
        book.dispatched("c", "t", "{\"a\":2}".into());
        book.completed("c", "t", Some("mcp+cache://c/two"), Some("{\"a\":2}"));
        book.completed("c", "t", Some("mcp+cache://c/one"), Some("{\"a\":1}"));
        assert_eq!(
            book.reusable("c", "t", "{\"a\":1}"),
            Some("mcp+cache://c/one")
        );
        assert_eq!(
            book.reusable("c", "t", "{\"a\":2}"),
            Some("mcp+cache://c/two")
        );
    }

    #[test]
    fn conversations_never_share_reuse() {
        let mut book = ReuseBook::default();
        book.dispatched("会話", "t", "{}".into());
        book.completed("会話", "t", Some("u"), None);
        assert_eq!(book.reusable("会話", "t", "{}"), Some("u"));
        assert_eq!(book.reusable("对话", "t", "{}"), None);
    }

    #[test]
    fn uncached_results_link_nothing_and_unknown_calls_are_ignored() {
        let mut book = ReuseBook::default();
        book.dispatched("c", "t", "{}".into());
        book.completed("c", "t", None, None);
        book.completed("c", "t", Some("u"), None);
        assert_eq!(book.reusable("c", "t", "{}"), None);
    }

    #[test]
    fn bounded() {
        let mut book = ReuseBook::default();
        for i in 0..(REUSE_MAP_LIMIT * 3) {
            let args = i.to_string();
            book.dispatched("c", "t", args.clone());
            book.completed("c", "t", Some("u"), Some(&args));
        }
        assert!(book.reusable.len() <= REUSE_MAP_LIMIT);
        for _ in 0..100 {
            book.dispatched("c", "t", "x".into());
        }
        assert!(
            book.in_flight
                .get(&("c".to_owned(), "t".to_owned()))
                .map_or(0, Vec::len)
                <= IN_FLIGHT_PER_TOOL
        );
    }
}
