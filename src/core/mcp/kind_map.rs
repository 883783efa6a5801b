//! A map with one slot per [`ListKind`], for the session's per-list state.
//!
//! Why not `HashMap<ListKind, V>`: each such map compiled its own hashbrown table and SipHash
//! for a key with four values (insert, find, remove, rehash: 0.7 KiB gzip of the page for the
//! session's three maps). An array indexed by the kind does the same with no hashing. It keeps
//! the `HashMap` method names the session uses, so the call sites read as before; iteration
//! goes in `ListKind` order, where a `HashMap`'s was arbitrary.

use super::messages::ListKind;

const KINDS: [ListKind; 4] = [
    ListKind::Tools,
    ListKind::Resources,
    ListKind::ResourceTemplates,
    ListKind::Prompts,
];

fn slot(kind: ListKind) -> usize {
    match kind {
        ListKind::Tools => 0,
        ListKind::Resources => 1,
        ListKind::ResourceTemplates => 2,
        ListKind::Prompts => 3,
    }
}

#[derive(Debug, Clone)]
pub(crate) struct KindMap<V>([Option<V>; 4]);

impl<V> Default for KindMap<V> {
    fn default() -> Self {
        KindMap([None, None, None, None])
    }
}

impl<V> KindMap<V> {
    pub(crate) fn get(&self, kind: &ListKind) -> Option<&V> {
        self.0[slot(*kind)].as_ref()
    }

    pub(crate) fn get_mut(&mut self, kind: &ListKind) -> Option<&mut V> {
        self.0[slot(*kind)].as_mut()
    }

    pub(crate) fn contains_key(&self, kind: &ListKind) -> bool {
        self.0[slot(*kind)].is_some()
    }

    pub(crate) fn insert(&mut self, kind: ListKind, value: V) -> Option<V> {
        self.0[slot(kind)].replace(value)
    }

    pub(crate) fn remove(&mut self, kind: &ListKind) -> Option<V> {
        self.0[slot(*kind)].take()
    }

    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&ListKind, &V)> {
        KINDS
            .iter()
            .zip(&self.0)
            .filter_map(|(k, v)| Some((k, v.as_ref()?)))
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().flatten()
    }

    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.iter_mut().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_a_map_keyed_by_kind() {
        let mut m = KindMap::default();
        assert!(m.insert(ListKind::Prompts, 1).is_none());
        assert_eq!(m.insert(ListKind::Prompts, 2), Some(1));
        m.insert(ListKind::Tools, 3);
        assert!(m.contains_key(&ListKind::Tools));
        assert!(!m.contains_key(&ListKind::Resources));
        assert_eq!(m.get(&ListKind::Prompts), Some(&2));
        *m.get_mut(&ListKind::Tools).unwrap() += 1;
        let all: Vec<_> = m.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(all, vec![(ListKind::Tools, 4), (ListKind::Prompts, 2)]);
        assert_eq!(m.values().sum::<i32>(), 6);
        for v in m.values_mut() {
            *v *= 10;
        }
        assert_eq!(m.remove(&ListKind::Tools), Some(40));
        assert_eq!(m.remove(&ListKind::Tools), None);
        m.clear();
        assert_eq!(m.iter().count(), 0);
        // Every kind has its own slot.
        for (i, k) in KINDS.iter().enumerate() {
            m.insert(*k, i as i32);
        }
        for (i, k) in KINDS.iter().enumerate() {
            assert_eq!(m.get(k), Some(&(i as i32)));
        }
    }
}
