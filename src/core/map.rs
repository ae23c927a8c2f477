//! `Map`: a map kept as a vector sorted by key, for the crate's few small maps (tool names,
//! conversations, references touched since the last flush, reuse bookkeeping, list results).
//!
//! The standard `HashMap` compiles hashbrown's probing, growth and rehashing, and SipHash, once
//! per key and value type: about 19 KB of the host module's code for its nine maps (measured
//! with twiggy before this type replaced them). A sorted vector needs only a binary search and
//! a `Vec` insert or remove per type. Lookups are O(log n); inserts and removes move the
//! entries after the slot (a few microseconds for thousands of entries, far below one
//! IndexedDB request). Iteration is in key order, so it is deterministic.

use std::borrow::Borrow;

/// A map from `K` to `V`, sorted by key.
#[derive(Debug, Clone)]
pub struct Map<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for Map<K, V> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
        }
    }
}

impl<K: Ord, V> Map<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value of `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|at| &self.entries[at].1)
    }

    /// The value of `key`, mutably.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let at = self.find(key).ok()?;
        Some(&mut self.entries[at].1)
    }

    /// True when `key` has a value.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, answering the value it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.entries[at].1, value)),
            Err(at) => {
                self.entries.insert(at, (key, value));
                None
            }
        }
    }

    /// The value of `key`, set to `make(&key)` first when it has none.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce(&K) -> V) -> &mut V {
        let at = match self.find(&key) {
            Ok(at) => at,
            Err(at) => {
                let value = make(&key);
                self.entries.insert(at, (key, value));
                at
            }
        };
        &mut self.entries[at].1
    }

    /// Removes `key`, answering its entry.
    pub fn remove_entry<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
    {
        let at = self.find(key).ok()?;
        Some(self.entries.remove(at))
    }

    /// Removes `key`, answering its value.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.remove_entry(key).map(|(_, v)| v)
    }

    /// Removes the entry at `index` in key order (`index < len()`, else nothing).
    pub fn remove_index(&mut self, index: usize) {
        if index < self.entries.len() {
            self.entries.remove(index);
        }
    }

    /// Keeps the entries for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there is no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The entries, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(k, _)| k)
    }
}

impl<K, V> IntoIterator for Map<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for Map<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = Self::new();
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::Map;
    use std::collections::BTreeMap;

    #[test]
    fn behaves_like_a_btree_map() {
        let mut ours: Map<String, u32> = Map::new();
        let mut model = BTreeMap::new();
        let mut seed = 7u32;
        for step in 0..4000u32 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let key = format!("k{}", (seed >> 8) % 300);
            match seed % 5 {
                0 | 1 => assert_eq!(ours.insert(key.clone(), step), model.insert(key, step)),
                2 => assert_eq!(ours.remove(key.as_str()), model.remove(&key)),
                3 => {
                    *ours.get_or_insert_with(key.clone(), |_| 0) += 1;
                    *model.entry(key).or_insert(0) += 1;
                }
                _ => assert_eq!(ours.get(key.as_str()), model.get(&key)),
            }
            assert_eq!(ours.len(), model.len());
        }
        assert!(ours.iter().map(|(k, v)| (k.clone(), *v)).eq(model.clone()));
        ours.retain(|_, v| *v % 2 == 0);
        model.retain(|_, v| *v % 2 == 0);
        assert!(ours.keys().eq(model.keys()));
        assert!(ours.contains_key("k1") == model.contains_key("k1"));
        ours.clear();
        assert!(ours.is_empty());
    }
}
