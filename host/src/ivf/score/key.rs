//! [`Key`]: the exact sum of two `f64` terms, ordered by its value.

use std::cmp::Ordering;

/// What the query path ranks by: the exact real `hi + lo` of a sum `a + b`
/// of two `f64`s, kept unevaluated (Knuth's TwoSum: `hi = fl(a + b)`, `lo`
/// the rounding error, both exact), and ordered by that real.
///
/// Comparing `(hi, lo)` lexicographically compares the reals: rounding is
/// monotone, so `hi₁ < hi₂` implies `a₁ + b₁ ≤ a₂ + b₂`, and equal `hi`
/// leaves `lo` to decide. A huge term `a` therefore never absorbs a small
/// `b`: keys with equal `a` are ordered by `b` exactly.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    hi: f64,
    lo: f64,
}

impl Key {
    /// The key of `a + b` (six flops, no branch).
    #[inline]
    pub fn sum(a: f64, b: f64) -> Self {
        let hi = a + b;
        let bv = hi - a;
        let av = hi - bv;
        let lo = (a - av) + (b - bv);
        // `+ 0.0` turns −0 into +0, so equal reals compare equal.
        Self {
            hi: hi + 0.0,
            lo: lo + 0.0,
        }
    }

    /// The key of `self + t` as a double-double sum: `t` is added to `hi`
    /// exactly (TwoSum), its rounding error joins `lo`, and the pair is
    /// renormalised. Summing terms of very different sizes this way keeps
    /// the small ones (to within one rounding of `lo`), where a plain `f64`
    /// sum would absorb them. Twelve flops, no branch.
    #[inline]
    pub fn plus(self, t: f64) -> Self {
        let s = Self::sum(self.hi, t);
        Self::sum(s.hi, s.lo + self.lo)
    }

    /// `fl(a + b)`: the key's value rounded to the nearest `f64`.
    pub fn value(self) -> f64 {
        self.hi
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    /// By `hi`, then `lo`, each by [`f64::total_cmp`] (a total order even
    /// for a NaN from a corrupt vector, which sorts last).
    fn cmp(&self, other: &Self) -> Ordering {
        self.hi
            .total_cmp(&other.hi)
            .then(self.lo.total_cmp(&other.lo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_term_does_not_absorb_a_small_one() {
        let big = -2e20 * 50.0;
        let (x, y) = (Key::sum(big, 1.0), Key::sum(big, 2.0));
        assert_eq!(x.value(), y.value());
        assert!(x < y);
        assert_eq!(Key::sum(big, 1.0), x);
        assert!(Key::sum(big - 2f64.powi(60), 1e9) < x);
    }

    #[test]
    fn plus_keeps_a_tiny_term_after_a_huge_one() {
        // 1e-20 + 1e-81 + b: a plain f64 sum drops 1e-81 entirely.
        let (t0, t1) = (-3.4e-21, 7e-86);
        let a = Key::sum(0.0, 0.0).plus(t0).plus(t1).plus(3e-81);
        let b = Key::sum(0.0, 0.0).plus(t0).plus(0.0).plus(3e-81);
        assert!(b < a, "{a:?} vs {b:?}");
        assert_eq!(Key::sum(0.0, 0.0).plus(t0).plus(2.0), Key::sum(t0, 2.0));
        assert_eq!(Key::sum(0.0, 0.0).plus(5.0), Key::sum(0.0, 5.0));
    }

    #[test]
    fn signed_zeros_are_equal() {
        assert_eq!(Key::sum(-0.0, 0.0), Key::sum(0.0, 0.0));
        assert_eq!(Key::sum(-0.0, -0.0), Key::sum(0.0, 0.0));
        assert_eq!(Key::sum(1.0, -1.0), Key::sum(0.0, 0.0));
    }
}
