//! Reuse of immutable results: the directives tools declare and the book of dispatched calls
//! whose results an identical later call may be answered with.

use super::ResultCache;
use crate::state_sync::policy::CacheDirective;

/// Bound on the in-memory maps that remember tool directives and reusable calls.
const MEMORY_MAP_LIMIT: usize = 1024;

impl ResultCache {
    /// Records the directive a tool's description declares (`None` forgets it).
    pub fn observe_tool(&self, tool_name: &str, directive: Option<CacheDirective>) {
        let mut directives = self.directives.borrow_mut();
        match directive {
            Some(d) => {
                if directives.len() >= MEMORY_MAP_LIMIT && !directives.contains_key(tool_name) {
                    directives.clear();
                }
                directives.insert(tool_name.to_owned(), d);
            }
            None => {
                directives.remove(tool_name);
            }
        }
    }

    /// The directive learned for a tool, if any.
    pub fn directive_of(&self, tool_name: &str) -> Option<CacheDirective> {
        self.directives.borrow().get(tool_name).copied()
    }

    fn reuses(&self, tool_name: &str) -> bool {
        self.reuse_immutable && self.directive_of(tool_name) == Some(CacheDirective::Immutable)
    }

    /// The reference stored for an identical earlier call, when reuse applies to this tool.
    pub fn reusable_uri(&self, conv_id: &str, tool_name: &str, args_key: &str) -> Option<String> {
        if !self.reuses(tool_name) {
            return None;
        }
        let reuse = self.reuse.borrow();
        reuse
            .reusable(conv_id, tool_name, args_key)
            .map(str::to_owned)
    }

    /// Notes a dispatched call's canonical arguments so its result can be reused later.
    pub fn note_dispatch(&self, conv_id: &str, tool_name: &str, args_key: String) {
        if self.reuses(tool_name) {
            self.reuse
                .borrow_mut()
                .dispatched(conv_id, tool_name, args_key);
        }
    }

    /// Completes a call noted at dispatch for this tool (see [`crate::core::reuse::ReuseBook::completed`]). Must be
    /// called once per dispatched call, whatever its outcome.
    pub fn note_result(
        &self,
        conv_id: &str,
        tool_name: &str,
        uri: Option<&str>,
        args_key: Option<&str>,
    ) {
        self.reuse
            .borrow_mut()
            .completed(conv_id, tool_name, uri, args_key);
    }
}
