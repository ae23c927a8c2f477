//! What removes or marks entries: invalidations (by glob, per server), stale notifications,
//! clears of a conversation and age evictions, each counted as a removal (a quota retry never
//! undoes one).

use std::rc::Rc;

use super::{join, CacheEvent, ResultCache};
use crate::core::source::{in_scope, split_source};
use crate::core::uri::sanitize_conv_id;
use crate::state_sync::decorate::RESOURCE_UPDATED_METHOD;
use crate::state_sync::glob::{match_glob, validate_pattern};
use crate::state_sync::invalidation::stale_pattern;
use crate::store::{RecordStore, StoreError};

/// How a stale notification names itself as the cause of staleness (the pattern follows).
const NOTIFICATION_CAUSE: &str = "the server's stale notification for ";

impl ResultCache {
    /// Marks stale every entry produced by a tool matching one of `patterns` (glob, the cache's
    /// separator): of every server when `server` is `None` (the host's own call), else of that
    /// server and entries recorded without one ([`crate::core::source`]). Invalid patterns are
    /// skipped and reported as an `error` event. Returns how many entries became stale.
    pub async fn invalidate(
        &self,
        patterns: &[String],
        cause: &str,
        server: Option<&str>,
    ) -> Result<u32, StoreError> {
        let mut valid = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            match validate_pattern(pattern, &self.separator) {
                Ok(()) => valid.push(pattern.clone()),
                Err(e) => self.emit(CacheEvent::Error {
                    operation: "invalidate",
                    name: "SyntaxError".to_owned(),
                    message: e.message(),
                }),
            }
        }
        if valid.is_empty() {
            return Ok(0);
        }
        self.note_removal();
        let separator = self.separator.clone();
        let patterns = valid.clone();
        let scope = server.map(str::to_owned);
        let matches = Rc::new(move |source: &str| {
            let tool = split_source(source).1;
            in_scope(scope.as_deref(), source)
                && patterns.iter().any(|p| match_glob(p, tool, &separator))
        });
        let count = self
            .store
            .mark_stale(matches, cause)
            .await
            .map_err(|e| self.failed("invalidate", e))?;
        self.emit(CacheEvent::Invalidate {
            cause: cause.to_owned(),
            patterns: valid,
            count,
        });
        Ok(count)
    }

    /// A server notification: `notifications/resources/updated` with a stale URI (any released
    /// MCP Fusion scheme: `mcpfusion://stale/`, `fusion://stale/`, `vurb://stale/`) marks the
    /// entries of matching tools stale; anything else changes nothing. Returns how many.
    /// `server`: the server that sent it (its notifications touch its own entries only).
    pub async fn handle_notification(
        &self,
        method: &str,
        uri: &str,
        server: Option<&str>,
    ) -> Result<u32, StoreError> {
        match stale_pattern(uri) {
            Some(pattern) if method == RESOURCE_UPDATED_METHOD => {
                // The cause the model reads: "… is stale (invalidated by the server's stale
                // notification for billing.get_*)".
                let mut cause = String::from(NOTIFICATION_CAUSE);
                cause.push_str(pattern);
                self.invalidate(&[pattern.to_owned()], &cause, server).await
            }
            _ => Ok(0),
        }
    }

    fn note_removal(&self) {
        self.removals.set(self.removals.get().wrapping_add(1));
    }

    /// Deletes every entry of a conversation (exactly this id; never another id that happens to
    /// share its URI segment).
    ///
    /// Our database and chatbox-core's are cleared concurrently (two independent databases).
    pub async fn clear_conversation(&self, conv_id: &str) -> Result<u32, StoreError> {
        self.note_removal();
        let segment = sanitize_conv_id(conv_id);
        let ours = self.store.delete_conversation(conv_id, &segment);
        let (ours, legacy) = match &self.legacy {
            Some(legacy) => join::join(ours, legacy.delete_conversation(conv_id)).await,
            None => (ours.await, Ok(0)),
        };
        let count = ours
            .and_then(|n| Ok(n + legacy?))
            .map_err(|e| self.failed("clearConversation", e))?;
        self.emit(CacheEvent::Evict {
            count,
            reason: "clearConversation",
        });
        Ok(count)
    }

    /// Deletes entries written more than `max_age_ms` ago by the cache's clock.
    pub async fn evict_older_than(&self, max_age_ms: f64) -> Result<u32, StoreError> {
        self.note_removal();
        let count = self
            .store
            .delete_added_before(self.now() - max_age_ms)
            .await
            .map_err(|e| self.failed("evictOlderThan", e))?;
        self.emit(CacheEvent::Evict {
            count,
            reason: "maxAge",
        });
        Ok(count)
    }
}
