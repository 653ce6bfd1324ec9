//! One sort for every list the core orders. The standard library's sorts are generic through
//! and through, so each element type and comparison adds its own copy of pattern-defeating
//! quicksort, driftsort, heapsort and small-sort networks: about 3 KB of wasm per call site,
//! 86 KB in all. Here only a thin layer is generic; the sorting itself is one merge sort of
//! indices, compiled once, and the order it finds is applied to the list by swaps.
//!
//! The sort is stable, so it can stand for `sort`, `sort_by_key` and the unstable sorts of lists
//! whose equal elements are identical. It takes O(n log n) comparisons, with no extra work on
//! runs that are already in order (most lists here arrive nearly sorted).

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = {
        let items: &[T] = v;
        stable_order(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    permute(v, order);
}

/// Sorts `v` stably by the key `key` gives each element.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` into ascending order.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The indices `0..n` in the order `cmp` puts the elements they stand for, equal ones in their
/// first order: a bottom-up merge sort, the one non-generic part.
fn stable_order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut from: Vec<usize> = (0..n).collect();
    let mut to = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            if mid == hi || cmp(from[mid], from[mid - 1]) != Ordering::Less {
                // Already in order (or nothing to merge with).
                to[lo..hi].copy_from_slice(&from[lo..hi]);
            } else {
                let (mut i, mut j, mut k) = (lo, mid, lo);
                while i < mid && j < hi {
                    if cmp(from[j], from[i]) == Ordering::Less {
                        to[k] = from[j];
                        j += 1;
                    } else {
                        to[k] = from[i];
                        i += 1;
                    }
                    k += 1;
                }
                to[k..k + (mid - i)].copy_from_slice(&from[i..mid]);
                k += mid - i;
                to[k..hi].copy_from_slice(&from[j..hi]);
            }
            lo = hi;
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    from
}

/// Rearranges `v` so that position `k` holds the element that was at `order[k]`, following each
/// cycle of the permutation once (`order` is used up as the marks of positions done).
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != at {
            let next = order[at];
            order[at] = at;
            if next == start {
                break;
            }
            v.swap(at, next);
            at = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator, so the test needs no dependency.
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn matches_the_standard_stable_sort() {
        let mut seed = 7;
        for n in 0..200 {
            for range in [2, 5, 1000] {
                let v: Vec<(u64, usize)> = (0..n).map(|i| (lcg(&mut seed) % range, i)).collect();
                let mut ours = v.clone();
                sort_by_key(&mut ours, |p| p.0);
                let mut std = v.clone();
                std.sort_by_key(|p| p.0);
                assert_eq!(ours, std, "n = {n}, keys below {range}");
                let mut desc = v.clone();
                sort_by(&mut desc, |a, b| b.cmp(a));
                let mut std_desc = v;
                std_desc.sort_by(|a, b| b.cmp(a));
                assert_eq!(desc, std_desc);
            }
        }
    }

    #[test]
    fn sorted_and_reversed_runs() {
        let mut up: Vec<u32> = (0..1000).collect();
        sort(&mut up);
        assert!(up.windows(2).all(|w| w[0] <= w[1]));
        let mut down: Vec<u32> = (0..1000).rev().collect();
        sort(&mut down);
        assert_eq!(down, (0..1000).collect::<Vec<_>>());
    }
}
