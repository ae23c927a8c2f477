//! Reading entries back: scoped lookups of many references at once, derived entries checked
//! against their sources, the chatbox-core read-through, and where each reference's data comes
//! from.

use std::cell::RefCell;

use wasm_bindgen::JsValue;

use super::{payload, CacheEvent, ResultCache};
use crate::core::record::{LookupOutcome, MAX_DERIVATION_DEPTH};
use crate::core::substitute::ReferenceLookup;
use crate::core::uri::{conversation_prefix, format_cache_uri, split_cache_uri, CacheUri};
use crate::store::chatbox_core_conv_id;
use crate::store::{JsRecord, RecordStore, StoreError};

impl ResultCache {
    /// Resolves references in ONE read-only transaction, all reads issued before awaiting.
    /// Malformed references, other conversations (when `conv_scope` is set: the exact id the
    /// entry was written with must equal it, whatever the URI segment says; a reference whose
    /// segment is not the scope's is not even read, so it counts as no use of the entry) and
    /// absent entries are [`LookupOutcome::Miss`]; a `#` pointer is applied.
    pub async fn lookup_many(
        &self,
        uris: &[&str],
        conv_scope: Option<&str>,
    ) -> Result<Vec<LookupOutcome<JsValue>>, StoreError> {
        self.lookup_noting(uris, conv_scope, None).await
    }

    /// [`Self::lookup_many`], noting in `sources` the source ([`crate::core::source`]) of each
    /// reference that resolved to a fresh entry: a derived entry's is its first source's.
    async fn lookup_noting(
        &self,
        uris: &[&str],
        conv_scope: Option<&str>,
        sources: Option<&RefCell<Vec<ReferenceSource>>>,
    ) -> Result<Vec<LookupOutcome<JsValue>>, StoreError> {
        // A reference whose `#fragment` is no JSON Pointer is looked up without it: a fresh
        // entry makes it a bad pointer (its hint says what a pointer is), not a miss.
        // The scope as chatbox-core stored it, reading through.
        let legacy_scope = self
            .legacy
            .as_ref()
            .and(conv_scope)
            .map(chatbox_core_conv_id);
        let parsed = parse_in_scope(uris, conv_scope, legacy_scope.as_deref());
        let keys: Vec<&str> = parsed.iter().flatten().map(|(p, _)| p.key).collect();
        let records = self
            .read_records(&keys, conv_scope.zip(legacy_scope.as_deref()))
            .await
            .map_err(|e| self.failed("lookup", e))?;
        let mut records = records.into_iter();
        let outcomes = parsed
            .into_iter()
            .zip(uris)
            .map(|(parsed, uri)| {
                let Some((parsed, fragment)) = parsed else {
                    return LookupOutcome::Miss;
                };
                let malformed = fragment.filter(|_| parsed.pointer.is_none());
                let record = records.next().flatten();
                let source = sources
                    .and(record.as_ref())
                    .map(|r| r.source_tool_name.clone());
                let outcome = LookupOutcome::from_record(record, conv_scope);
                let outcome = match (outcome, &parsed.pointer, malformed) {
                    (LookupOutcome::Hit(_), _, Some(fragment)) => LookupOutcome::BadPointer {
                        pointer: fragment.to_owned(),
                    },
                    (LookupOutcome::Hit(value), Some(pointer), _) => {
                        match payload::select(&value, pointer) {
                            Some(selected) => LookupOutcome::Hit(selected),
                            None => LookupOutcome::BadPointer {
                                pointer: pointer.as_str().to_owned(),
                            },
                        }
                    }
                    (other, _, _) => other,
                };
                if let (Some(sources), Some(source), LookupOutcome::Hit(_)) =
                    (sources, source, &outcome)
                {
                    sources.borrow_mut().push(ReferenceSource {
                        uri: (*uri).to_owned(),
                        source,
                    });
                }
                self.emit(match &outcome {
                    LookupOutcome::Hit(_) => CacheEvent::Hit {
                        uri: (*uri).to_owned(),
                    },
                    LookupOutcome::Stale { cause, .. } => CacheEvent::Stale {
                        uri: (*uri).to_owned(),
                        cause: cause.clone(),
                    },
                    _ => CacheEvent::Miss {
                        uri: (*uri).to_owned(),
                    },
                });
                outcome
            })
            .collect();
        Ok(outcomes)
    }

    /// The records of `keys` in one read-only transaction (misses filled from chatbox-core's
    /// database), each derived entry checked against its sources: a derived entry is only as
    /// good as its source, so it reads as absent once a source on its chain is gone (evicted,
    /// cleared, of another conversation) or more than [`MAX_DERIVATION_DEPTH`] links away, and
    /// as stale, with the first source's cause, once that source is stale. It is the first
    /// source's data, so it reads with that source's tool and server (what a flow policy
    /// checks), and is stale exactly when that source is: a mark of its own (an invalidation
    /// matching the read-back tool's name, perhaps another server's) says nothing about the
    /// source's data. The sources come with the read (every store follows the chains: at the
    /// read's place in call order, so an operation called after the read never changes its
    /// answer); a storage object that does not is read again for them.
    async fn read_records(
        &self,
        keys: &[&str],
        legacy_scope: Option<(&str, &str)>,
    ) -> Result<Vec<Option<JsRecord>>, StoreError> {
        let mut records = self.store.read_many(keys, self.now()).await?;
        #[cfg_attr(not(feature = "external-store"), allow(unused_mut))]
        let mut sources = records.split_off(keys.len().min(records.len()));
        self.read_through(keys, &mut records, legacy_scope).await;
        #[cfg(feature = "external-store")]
        self.read_sources(&records, &mut sources).await?;
        let source_of = |key: &str| sources.iter().flatten().find(|r| r.uri == key);
        for slot in records.iter_mut() {
            let Some(record) = slot else { continue };
            let mut first: Option<&JsRecord> = None;
            let mut link = record.derived_from.as_deref();
            let mut links = 0;
            while let Some(key) = link {
                first = source_of(key)
                    .filter(|s| s.conv_id == record.conv_id && links < MAX_DERIVATION_DEPTH);
                links += 1;
                link = first.and_then(|s| s.derived_from.as_deref());
            }
            match (first, record.derived_from.is_some()) {
                (Some(source), _) => {
                    record.source_tool_name = source.source_tool_name.clone();
                    record.stale_cause = source.stale_cause.clone();
                }
                (None, true) => *slot = None,
                (None, false) => {}
            }
        }
        Ok(records)
    }

    /// The sources a storage object did not bring with the read (one that does not follow the
    /// chains), read afterwards, one more read a link.
    #[cfg(feature = "external-store")]
    async fn read_sources(
        &self,
        records: &[Option<JsRecord>],
        sources: &mut Vec<Option<JsRecord>>,
    ) -> Result<(), StoreError> {
        let mut asked: Vec<String> = Vec::new();
        for _ in 0..MAX_DERIVATION_DEPTH {
            let mut keys: Vec<String> = Vec::new();
            for record in records.iter().chain(sources.iter()).flatten() {
                let Some(key) = &record.derived_from else {
                    continue;
                };
                let known = sources.iter().flatten().any(|r| &r.uri == key);
                if !known && !asked.contains(key) && !keys.contains(key) {
                    keys.push(key.clone());
                }
            }
            if keys.is_empty() {
                break;
            }
            let read: Vec<&str> = keys.iter().map(String::as_str).collect();
            let mut found = self.store.read_many(&read, self.now()).await?;
            sources.append(&mut found);
            asked.append(&mut keys);
        }
        Ok(())
    }

    /// Fills misses from chatbox-core's database, when one exists. Its records are scoped like
    /// ours by the caller, by the id as chatbox-core stored it: with `legacy_scope`, the scope
    /// and [`chatbox_core_conv_id`] of it, a record of the latter reads as the scope's. A failure
    /// there is an `error` event, never a failed lookup.
    async fn read_through(
        &self,
        keys: &[&str],
        records: &mut [Option<JsRecord>],
        legacy_scope: Option<(&str, &str)>,
    ) {
        let Some(legacy) = &self.legacy else { return };
        let mut missing: Vec<usize> = Vec::new();
        for (i, record) in records.iter().enumerate().take(keys.len()) {
            if record.is_none() {
                missing.push(i);
            }
        }
        if missing.is_empty() {
            return;
        }
        let missing_keys: Vec<&str> = missing.iter().map(|&i| keys[i]).collect();
        match legacy.get_many(&missing_keys).await {
            Ok(found) => {
                for (i, mut record) in missing.into_iter().zip(found) {
                    if let (Some(r), Some((conv, stored))) = (&mut record, legacy_scope) {
                        if r.conv_id == stored {
                            r.conv_id = conv.to_owned();
                        }
                    }
                    records[i] = record;
                }
            }
            Err(e) => {
                let _ = self.failed("lookup", e);
            }
        }
    }

    /// [`Self::lookup_many`] for one reference.
    pub async fn lookup(
        &self,
        uri: &str,
        conv_scope: Option<&str>,
    ) -> Result<LookupOutcome<JsValue>, StoreError> {
        Ok(self
            .lookup_many(&[uri], conv_scope)
            .await?
            .pop()
            .unwrap_or(LookupOutcome::Miss))
    }

    /// A [`ReferenceLookup`] over this cache, restricted to `conv_scope` when given.
    pub fn scoped(&self, conv_scope: Option<&str>) -> ScopedLookup<'_> {
        ScopedLookup {
            cache: self,
            conv_scope: conv_scope.map(str::to_owned),
            sources: RefCell::default(),
        }
    }
}

/// Each reference parsed (`None`: malformed), and `None` too when `conv_scope` is given and the
/// reference's segment is not its segment (nor `legacy_scope`, the id chatbox-core stored for
/// it, reading through): another conversation's, a miss that is never read (a read counts as a
/// use of the entry, and names its conversation's storage).
fn parse_in_scope<'u>(
    uris: &[&'u str],
    conv_scope: Option<&str>,
    legacy_scope: Option<&str>,
) -> Vec<Option<(CacheUri<'u>, Option<&'u str>)>> {
    let prefix = conv_scope.map(conversation_prefix);
    // chatbox-core's segment is the id it stored.
    let legacy_prefix = legacy_scope.map(|id| format_cache_uri(id, ""));
    let mut parsed = Vec::with_capacity(uris.len());
    for uri in uris {
        let theirs = legacy_prefix
            .as_ref()
            .is_some_and(|p| uri.starts_with(p.as_str()));
        parsed.push(match &prefix {
            Some(prefix) if !theirs && !uri.starts_with(prefix.as_str()) => None,
            _ => split_cache_uri(uri),
        });
    }
    parsed
}

/// Where the data of one resolved reference comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceSource {
    /// The reference as given (with any fragment).
    pub uri: String,
    /// The entry's source: its tool, prefixed by its server when recorded
    /// ([`crate::core::source::split_source`]).
    pub source: String,
}

/// [`ResultCache::lookup_many`] for one conversation scope, as the substitution algorithm wants
/// it, noting the source of every reference it resolves.
pub struct ScopedLookup<'a> {
    cache: &'a ResultCache,
    conv_scope: Option<String>,
    sources: RefCell<Vec<ReferenceSource>>,
}

impl ScopedLookup<'_> {
    /// The sources of the references resolved so far, in lookup order.
    pub fn into_sources(self) -> Vec<ReferenceSource> {
        self.sources.into_inner()
    }
}

impl ReferenceLookup<JsValue> for ScopedLookup<'_> {
    type Error = StoreError;
    async fn lookup_many(&self, uris: &[&str]) -> Result<Vec<LookupOutcome<JsValue>>, StoreError> {
        self.cache
            .lookup_noting(uris, self.conv_scope.as_deref(), Some(&self.sources))
            .await
    }
}
