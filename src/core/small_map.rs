//! A map for the few entries in flight at once (requests awaiting answers, open exchanges).
//!
//! Why not `HashMap`: every `HashMap<K, V>` compiles its own hashbrown table and SipHash for
//! its key and value types, about 1.5 KB of wasm each, to look among a handful of entries
//! (four maps moved here: 1.0 KiB gzip).
//! `SmallMap` is a `Vec` of pairs searched in order, which costs a few hundred bytes per
//! instance and is as fast for tens of entries. It keeps the `HashMap` method names its users
//! call. Iteration order is unspecified, as with `HashMap` (a removal moves the last entry into
//! the gap): callers that need an order sort, as they did before.

#[derive(Debug, Clone)]
pub struct SmallMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SmallMap<K, V> {
    fn default() -> Self {
        SmallMap(Vec::new())
    }
}

impl<K: PartialEq, V> SmallMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    fn position(&self, key: &K) -> Option<usize> {
        self.0.iter().position(|(k, _)| k == key)
    }

    /// Like `HashMap::insert`: the value the key had, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.position(&key) {
            Some(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            None => {
                self.0.push((key, value));
                None
            }
        }
    }

    pub fn get(&self, key: &K) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &K) -> bool {
        self.position(key).is_some()
    }

    pub fn remove(&mut self, key: &K) -> Option<V> {
        let i = self.position(key)?;
        Some(self.0.swap_remove(i).1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.iter_mut().map(|(_, v)| v)
    }

    /// Keeps the entries `keep` says yes to, like `HashMap::retain`.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.0.retain_mut(|(k, v)| keep(k, v));
    }

    /// Every entry, leaving the map empty.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (K, V)> {
        self.0.drain(..)
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::SmallMap;

    #[test]
    fn behaves_as_a_map() {
        let mut m = SmallMap::new();
        assert!(m.is_empty());
        assert_eq!(m.insert(1u64, "a"), None);
        assert_eq!(m.insert(2, "b"), None);
        assert_eq!(m.insert(3, "c"), None);
        assert_eq!(m.insert(2, "B"), Some("b"));
        assert_eq!(m.len(), 3);
        assert_eq!(m.get(&2), Some(&"B"));
        assert!(m.contains_key(&3) && !m.contains_key(&4));
        *m.get_mut(&1).unwrap() = "A";
        assert_eq!(m.remove(&1), Some("A"));
        assert_eq!(m.remove(&1), None);
        let mut keys: Vec<u64> = m.keys().copied().collect();
        crate::order::sort(&mut keys);
        assert_eq!(keys, vec![2, 3]);
        assert_eq!(m.iter().count(), 2);
        for v in m.values_mut() {
            *v = "x";
        }
        assert!(m.values().all(|v| *v == "x"));
        m.insert(7, "y");
        m.retain(|k, _| *k != 2);
        assert!(!m.contains_key(&2) && m.contains_key(&7));
        let drained: Vec<_> = m.drain().collect();
        assert_eq!(drained.len(), 2);
        assert!(m.is_empty());
        m.insert(5, "e");
        m.clear();
        assert_eq!(m.get(&5), None);
    }
}
