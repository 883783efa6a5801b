//! One sort for the whole page.
//!
//! Every `slice::sort_by` call site monomorphizes the standard library's driftsort (quicksort,
//! drift merge, small-sort networks: about 4 KB of wasm) for its element type and comparator.
//! Twenty-one call sites cost 85 KB of the module before wasm-opt. These helpers sort a list of
//! indices through one `dyn` comparator instead, so the page carries a single copy of the sort,
//! then move the elements into place with swaps, which is a few dozen bytes per element type.
//!
//! The results are the standard library's: stable, and `O(n log n)` comparisons. Clippy's
//! `disallowed-methods` (clippy.toml) points anyone who reaches for `sort_by` here.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, like `slice::sort_by`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let perm = {
        let items: &[T] = v;
        permutation(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    permute(v, perm);
}

/// Sorts `v` stably by the key `key` extracts, like `slice::sort_by_key`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably in ascending order, like `slice::sort`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The order of `0..n` that sorts the items `cmp` compares by index: `perm[i]` is the index of
/// the item that belongs at position `i`. The only place the standard sort is instantiated.
#[allow(clippy::disallowed_methods)]
fn permutation(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    perm.sort_by(|&a, &b| cmp(a, b));
    perm
}

/// Rearranges `v` so that the new `v[i]` is the old `v[perm[i]]`, following each cycle of the
/// permutation with swaps (no clones, no `Option` slots).
fn permute<T>(v: &mut [T], mut perm: Vec<usize>) {
    for start in 0..perm.len() {
        let mut at = start;
        loop {
            let from = perm[at];
            perm[at] = at;
            if from == start || from == at {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic shuffle (xorshift), so the tests need no randomness from outside.
    fn shuffled(n: usize, seed: u64) -> Vec<(u32, usize)> {
        let mut s = seed.max(1);
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s % 17) as u32, i)
            })
            .collect()
    }

    #[test]
    #[allow(clippy::disallowed_methods)]
    fn matches_the_standard_stable_sort_on_many_shapes() {
        for n in [0, 1, 2, 3, 7, 20, 33, 100, 1000] {
            for seed in 1..6 {
                let mut ours = shuffled(n, seed);
                let mut std_sorted = ours.clone();
                // Equal keys (many: only 17 distinct) must keep their original order.
                sort_by_key(&mut ours, |p| p.0);
                std_sorted.sort_by_key(|p| p.0);
                assert_eq!(ours, std_sorted, "n={n} seed={seed}");
            }
        }
    }

    #[test]
    fn sorts_descending_with_a_comparator_and_plain_ord() {
        let mut v = vec![3.5_f64, -1.0, 10.0, 2.0];
        sort_by(&mut v, |a, b| b.total_cmp(a));
        assert_eq!(v, vec![10.0, 3.5, 2.0, -1.0]);
        let mut words = vec![
            "pear".to_string(),
            "apple".into(),
            "fig".into(),
            "apple".into(),
        ];
        sort(&mut words);
        assert_eq!(words, ["apple", "apple", "fig", "pear"]);
    }

    #[test]
    fn moves_values_without_cloning_or_losing_any() {
        // Box is not Clone-free to compare by identity, but a moved Vec keeps its heap pointer.
        let mut v: Vec<Vec<u8>> = vec![vec![3], vec![1], vec![2], vec![0]];
        let ptrs: Vec<*const u8> = v.iter().map(|x| x.as_ptr()).collect();
        sort(&mut v);
        assert_eq!(v, vec![vec![0], vec![1], vec![2], vec![3]]);
        let mut after: Vec<*const u8> = v.iter().map(|x| x.as_ptr()).collect();
        let mut before = ptrs;
        sort(&mut after);
        sort(&mut before);
        assert_eq!(after, before);
    }
}
