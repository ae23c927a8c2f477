//! Cache policy, pure: which results are stored, how much a write must evict to stay within the
//! budget, when eviction may stop, and how the budget is lowered after the browser refuses a
//! write for lack of quota.
//!
//! The stores ([`crate::store`]) hold no policy: they read the totals inside their write
//! transaction, ask [`room_needed`] how much to free, and walk their entries oldest-first while
//! [`Eviction::done`] says more is needed. Because the totals live in the database and are read
//! and updated in the same read-write transaction as the write (which IndexedDB serializes
//! across overlapping transactions, in every tab), budgets hold under concurrent writers.

use super::size::should_cache;

/// Limits a write must leave the store within.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Total UTF-8 JSON bytes of all entries.
    pub max_bytes: f64,
    /// Number of entries.
    pub max_entries: f64,
}

/// What a store holds, as the policy counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    /// Sum of the entries' `sizeBytes`.
    pub bytes: f64,
    /// Number of entries.
    pub entries: f64,
}

impl Totals {
    /// The totals with one entry of `size` bytes added.
    pub fn with_entry(self, size: f64) -> Self {
        Self {
            bytes: self.bytes + size,
            entries: self.entries + 1.0,
        }
    }

    /// The totals with one entry of `size` bytes removed (never below zero).
    pub fn without_entry(self, size: f64) -> Self {
        Self {
            bytes: (self.bytes - size).max(0.0),
            entries: (self.entries - 1.0).max(0.0),
        }
    }
}

/// Whether a result of `size` bytes is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreDecision {
    /// Store it and give the model a reference.
    Store,
    /// Below the threshold: the model sees it inline.
    TooSmall,
    /// Above `maxEntryBytes`: not stored (a `skip` event).
    TooBig,
}

/// The threshold rule and the single-entry limit.
pub fn decide(size: u64, threshold: u64, max_entry_bytes: f64) -> StoreDecision {
    if !should_cache(size, threshold) {
        StoreDecision::TooSmall
    } else if size as f64 > max_entry_bytes {
        StoreDecision::TooBig
    } else {
        StoreDecision::Store
    }
}

/// How much a write must free before it fits: bytes and entries (zero when it fits).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Room {
    /// Bytes to free.
    pub bytes: f64,
    /// Entries to free.
    pub entries: f64,
}

impl Room {
    /// True when nothing needs to be freed.
    pub fn is_empty(&self) -> bool {
        self.bytes <= 0.0 && self.entries <= 0.0
    }
}

/// What must be freed so that `totals` plus one entry of `incoming` bytes fits `budget`.
/// `totals` must not include the incoming entry.
pub fn room_needed(totals: Totals, incoming: f64, budget: &Budget) -> Room {
    room_needed_for(totals, Totals::default().with_entry(incoming), budget)
}

/// [`room_needed`] for several incoming entries at once (a batch of writes in one transaction):
/// afterwards the store fits `budget` exactly as if they had been written one by one.
pub fn room_needed_for(totals: Totals, incoming: Totals, budget: &Budget) -> Room {
    Room {
        bytes: (totals.bytes + incoming.bytes - budget.max_bytes).max(0.0),
        entries: (totals.entries + incoming.entries - budget.max_entries).max(0.0),
    }
}

/// Progress of an oldest-first eviction walk towards a [`Room`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Eviction {
    target: Room,
    freed: Room,
    /// Entries evicted so far.
    pub count: u32,
}

impl Eviction {
    /// A walk that must free `target`.
    pub fn new(target: Room) -> Self {
        Self {
            target,
            freed: Room::default(),
            count: 0,
        }
    }

    /// True once enough has been freed: the walk stops here.
    pub fn done(&self) -> bool {
        self.freed.bytes >= self.target.bytes && self.freed.entries >= self.target.entries
    }

    /// Records one evicted entry of `size` bytes.
    pub fn evicted(&mut self, size: f64) {
        self.freed.bytes += size;
        self.freed.entries += 1.0;
        self.count += 1;
    }

    /// Bytes freed so far.
    pub fn freed_bytes(&self) -> f64 {
        self.freed.bytes
    }
}

/// After a `QuotaExceededError`, the byte budget drops to this share of the origin's quota: the
/// origin shares its quota with everything else the page stores, and Chromium reclaims deleted
/// space lazily, so aiming at all of it would hit the wall again.
pub const QUOTA_BUDGET_SHARE: f64 = 0.5;
/// When the platform does not report a quota, the byte budget drops to this share of what is
/// stored: the refusal proves the origin is full at the current size.
pub const STORED_BUDGET_SHARE: f64 = 0.75;
/// Recovery evicts down to this share of the lowered budget, leaving slack for the space the
/// browser has not reclaimed yet.
pub const RECOVERY_TARGET_SHARE: f64 = 0.5;
/// Recovery always makes room for this many times the refused entry (its stored form can take
/// more than its JSON size on disk).
pub const RECOVERY_ENTRY_FACTOR: f64 = 2.0;

/// The byte budget after the browser refused a write for lack of quota: a share of the origin
/// quota when the platform reports one, else a share of what is stored — never below room for
/// the refused entry.
pub fn quota_budget(origin_quota: Option<f64>, stored: f64, entry: f64) -> f64 {
    let room = origin_quota.map_or(stored * STORED_BUDGET_SHARE, |q| q * QUOTA_BUDGET_SHARE);
    room.max(entry * RECOVERY_ENTRY_FACTOR)
}

/// Bytes to evict before retrying a refused write of `entry` bytes, with `stored` bytes held
/// and the lowered byte budget `cap`.
pub fn recovery_bytes(stored: f64, cap: f64, entry: f64) -> f64 {
    (stored - cap * RECOVERY_TARGET_SHARE).max(0.0) + entry * RECOVERY_ENTRY_FACTOR
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: Budget = Budget {
        max_bytes: 1000.0,
        max_entries: 10.0,
    };

    fn totals(bytes: f64, entries: f64) -> Totals {
        Totals { bytes, entries }
    }

    #[test]
    fn decisions() {
        assert_eq!(decide(10, 4096, 1e6), StoreDecision::TooSmall);
        assert_eq!(decide(4096, 4096, 1e6), StoreDecision::Store);
        assert_eq!(decide(2_000_000, 4096, 1e6), StoreDecision::TooBig);
    }

    #[test]
    fn room_is_zero_when_the_write_fits() {
        assert!(room_needed(totals(500.0, 5.0), 400.0, &BUDGET).is_empty());
        assert!(room_needed(totals(600.0, 9.0), 400.0, &BUDGET).is_empty());
    }

    #[test]
    fn room_counts_bytes_and_entries_separately() {
        let room = room_needed(totals(900.0, 10.0), 300.0, &BUDGET);
        assert_eq!(room.bytes, 200.0);
        assert_eq!(room.entries, 1.0);
    }

    #[test]
    fn a_batch_needs_the_room_of_its_entries_together() {
        let batch = Totals::default().with_entry(300.0).with_entry(300.0);
        let room = room_needed_for(totals(600.0, 9.0), batch, &BUDGET);
        assert_eq!(room.bytes, 200.0);
        assert_eq!(room.entries, 1.0);
        assert_eq!(
            room_needed(totals(600.0, 9.0), 300.0, &BUDGET),
            room_needed_for(
                totals(600.0, 9.0),
                Totals::default().with_entry(300.0),
                &BUDGET
            )
        );
    }

    #[test]
    fn eviction_stops_as_soon_as_both_are_freed() {
        let mut walk = Eviction::new(Room {
            bytes: 250.0,
            entries: 1.0,
        });
        assert!(!walk.done());
        walk.evicted(100.0);
        assert!(!walk.done());
        walk.evicted(100.0);
        assert!(!walk.done());
        walk.evicted(100.0);
        assert!(walk.done());
        assert_eq!(walk.count, 3);
        assert!(Eviction::new(Room::default()).done());
    }

    #[test]
    fn quota_recovery_constants() {
        assert_eq!(quota_budget(Some(1000.0), 5000.0, 10.0), 500.0);
        assert_eq!(quota_budget(None, 4000.0, 10.0), 3000.0);
        assert_eq!(quota_budget(Some(10.0), 0.0, 100.0), 200.0);
        assert_eq!(recovery_bytes(800.0, 1000.0, 10.0), 320.0);
        assert_eq!(recovery_bytes(100.0, 1000.0, 10.0), 20.0);
    }

    #[test]
    fn totals_never_go_negative() {
        let t = totals(10.0, 1.0).without_entry(50.0).without_entry(1.0);
        assert_eq!(t, totals(0.0, 0.0));
    }
}
