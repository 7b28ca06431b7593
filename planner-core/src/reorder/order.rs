//! Orderings as sorts of `(key, id)` pairs.
//!
//! Every layout ends in "sort the clusters by a key, ties by id". Mapping each
//! key to a `u64` whose unsigned order is the key's order lets all of them share
//! one sort of `(u64, u32)` pairs: the order is total (ids are distinct), so an
//! unstable sort is deterministic, and the component carries one instantiation
//! of the sort instead of one per comparator.

/// The `u64` whose unsigned order is [`f64::total_cmp`]'s order of `x`:
/// negative values (sign bit set) have every bit flipped, the others get the
/// sign bit set. So `-NaN < -∞ < … < -0 < +0 < … < +∞ < +NaN`. O(1).
pub(crate) fn total_key(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// The ids of `keyed` in ascending `(key, id)` order. O(n log n), one
/// allocation-free unstable sort (the pairs are distinct when the ids are).
pub(crate) fn ids_by_key(mut keyed: Vec<(u64, u32)>) -> Vec<u32> {
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, id)| id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_key_orders_like_total_cmp() {
        let xs = [
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::MIN,
            0.1,
            -2.5,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(
                    total_key(a).cmp(&total_key(b)),
                    a.total_cmp(&b),
                    "{a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn ids_by_key_breaks_ties_by_id() {
        assert_eq!(
            ids_by_key(vec![(2, 0), (1, 5), (1, 3), (0, 9)]),
            [9, 3, 5, 0]
        );
    }
}
