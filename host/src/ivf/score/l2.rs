//! Squared L2 on the query path, split so that no finite query loses the
//! data's information to rounding.
//!
//! For a query `q` and a vector `x`,
//!
//! ```text
//! ‖q − x‖² = C + A(x) + B(x),   C    = Σ_{i∈F} q_i²,
//!                               A(x) = Σ_{i∈F} (−2q_i)·x_i,
//!                               B(x) = Σ_{i∉F} (x_i − q_i)² + Σ_{i∈F} x_i²,
//! ```
//!
//! where `F` is the set of *far* coordinates, those where the query lies
//! beyond twice the largest centroid magnitude (`|q_i| > 2·max_l |c_{l,i}|`).
//! Near coordinates are computed directly, `(x_i − q_i)²` (no cancellation
//! when query and data are close, wherever they are); far ones are expanded,
//! because there `fl(x_i − q_i)` would absorb `x_i` (at `q_i = 10²⁰` the
//! `f64` grid is 16384 wide) and every vector would tie. `C` is the same for
//! every vector, so vectors are ranked by the [`Key`] `A + B` alone:
//!
//! - `B` is [`sq_dist`] against `r` (`r_i = q_i` near, `0` far): relative
//!   error below `γ_{⌈d/8⌉+5}` (`3·10⁻¹⁵` at `d = 128`).
//! - `A`: each product of two `f32` values is exact in `f64`; with one far
//!   coordinate (the usual case) `A` is exact. With several, their products
//!   are summed as a double-double ([`Key::plus`]): a far coordinate whose
//!   products are tiny beside another's (`q = (10²⁰, 5·10⁻⁴¹, …)` over
//!   subnormal data) still orders the vectors, where a plain `f64` sum
//!   would drop it; the error is that of the double-double sum,
//!   about `|F|·u²·Σ_{i∈F} |2q_i x_i|`.
//! - The key keeps `A + B` ([`Key::plus`]; exactly when `|F| ≤ 1`), so a
//!   huge `A` never absorbs `B`: vectors with the same far components are
//!   ordered by `B`.
//!
//! Every term is finite for finite `f32` inputs (`|2q_i x_i| < 2.4·10⁷⁷`,
//! `d·(2·f32::MAX)² < f64::MAX`), and subnormal inputs give normal `f64`
//! squares, so every finite query gets finite distances ranked to within
//! these bounds. Without far coordinates (every query inside the data's
//! range) `A = C = 0` and the distance is `B`, the direct form in `f64`.
//!
//! A scan over many vectors need not pay for the `f64` key of each: with
//! no far coordinate the key is `B` alone, and [`L2Query::lower_bound`]
//! bounds it from below by the same sum in `f32` (a third of the time),
//! with a rigorous error term. A vector whose bound exceeds the worst key a
//! scan keeps cannot be kept, whatever its exact key; the rest are keyed in
//! `f64` as above, so the screen changes the time, never the answer.
//!
//! IVF-PQ's ADC scores the reconstruction `y = c_l + Σ_j codeword_j` the
//! same way: `B` from a table of `Σ (y_i − r_i)²` per sub-quantizer and code,
//! `A` from a table of `−2q_i·fl(c_{l,i} + codeword_i)` per far coordinate
//! and code.

use super::Key;
use super::kernel::{sq_dist, sq_dist_error, sq_dist_f32, sq_dist_f32_error};
use crate::ivf::pq::{KSUB, ProductQuantizer};

/// A query prepared for squared L2 (see the module docs for the split).
#[derive(Debug, Clone)]
pub struct L2Query {
    /// `r_i = q_i` on near coordinates, `0` on far ones.
    r: Vec<f64>,
    /// The far coordinates `i` and `−2q_i` (exact in `f64`), ascending `i`.
    far: Vec<(usize, f64)>,
    /// `C = Σ_{i∈F} q_i²`.
    c: f64,
    /// The query in `f32` when no coordinate is far (the key is then
    /// `sq_dist(x, r)` alone), for the screen ([`L2Query::lower_bound`]).
    q32: Option<Vec<f32>>,
    /// The screen's `(δ, η)`: `key ≥ (s − η)·(1 − δ)` for its `f32` sum `s`.
    screen: (f64, f64),
}

/// An ADC table of one list for one query: for squared L2 the whole table
/// ([`L2Query::adc_table`]); for the inner-product metrics only the list's
/// constant ([`super::IpQuery::adc_table`], whose table is the query's).
#[derive(Debug, Clone, Default)]
pub struct AdcTable {
    /// The list's constant term (inner-product metrics: `−q'·c_l`).
    constant: f64,
    /// `near[j·256 + c] = Σ_{i ∈ sub j} (y_i − r_i)²` for `y = c_l + codeword_{j,c}`.
    near: Vec<f64>,
    /// Per far coordinate `f`, its sub-quantizer `j`.
    far_sub: Vec<usize>,
    /// `far[f·256 + c] = −2q_i · fl(c_{l,i} + codeword_{j,c,i})` for the
    /// far coordinate `i` of `f`.
    far: Vec<f64>,
}

impl AdcTable {
    /// Sets the list's constant term.
    pub(super) fn set_constant(&mut self, c: f64) {
        self.constant = c;
    }

    /// The list's constant term.
    pub(super) fn constant(&self) -> f64 {
        self.constant
    }
}

impl L2Query {
    /// Prepares `q`: coordinate `i` is far when `|q_i| > reach[i]`, where
    /// `reach[i] = 2·max_l |c_{l,i}|` over the index's centroids.
    ///
    /// # Complexity
    /// `O(d)`.
    pub fn new(q: &[f32], reach: &[f64]) -> Self {
        debug_assert_eq!(q.len(), reach.len());
        let mut r = Vec::with_capacity(q.len());
        let mut far = Vec::new();
        let mut c = 0.0;
        for (i, (&qi, &reach)) in q.iter().zip(reach).enumerate() {
            let qi = f64::from(qi);
            if qi.abs() > reach {
                far.push((i, -2.0 * qi));
                c += qi * qi;
                r.push(0.0);
            } else {
                r.push(qi);
            }
        }
        let q32 = far.is_empty().then(|| q.to_vec());
        let (d32, eta) = sq_dist_f32_error(q.len());
        // Two `f64` roundings in `lower_bound`'s own arithmetic: 2⁻⁵⁰.
        let screen = (d32 + sq_dist_error(q.len()) + 2f64.powi(-50), eta);
        Self {
            r,
            far,
            c,
            q32,
            screen,
        }
    }

    /// The query as given when no coordinate is far (the key is then
    /// `sq_dist(x, q)`), else `None`.
    pub fn query_f32(&self) -> Option<&[f32]> {
        self.q32.as_deref()
    }

    /// Whether [`L2Query::lower_bound`] screens (no coordinate is far).
    pub fn screens(&self) -> bool {
        self.q32.is_some()
    }

    /// A lower bound on `self.key(x).value()`, from an `f32` sum that costs
    /// about a third of the key: with `s = sq_dist_f32(x, q)` and
    /// `(δ₃₂, η)` its error ([`sq_dist_f32_error`]), the exact sum `e ≥ (s −
    /// η)/(1 + δ₃₂)`, and the key `sq_dist(x, r) ≥ (1 − δ₆₄)·e`
    /// ([`sq_dist_error`]), so `key ≥ (s − η)·(1 − δ₃₂ − δ₆₄ − 2⁻⁵⁰)`. A
    /// scan may skip `x` when this exceeds the worst key it keeps: `x`'s key
    /// is then larger, and it would not have been kept. The answer is
    /// exactly the unscreened scan's. `−∞` when the query has a far
    /// coordinate, or the `f32` sum overflowed or met a NaN.
    ///
    /// # Complexity
    /// `O(d)`.
    #[inline]
    pub fn lower_bound(&self, x: &[f32]) -> f64 {
        let Some(q) = &self.q32 else {
            return f64::NEG_INFINITY;
        };
        let s = sq_dist_f32(x, q);
        if !s.is_finite() {
            return f64::NEG_INFINITY;
        }
        let (delta, eta) = self.screen;
        (f64::from(s) - eta) * (1.0 - delta)
    }

    /// The ranking key `A(x) + B(x)` of vector `x`.
    ///
    /// # Complexity
    /// `O(d)`.
    #[inline]
    pub fn key(&self, x: &[f32]) -> Key {
        let b = sq_dist(x, &self.r);
        let mut a = Key::sum(0.0, 0.0);
        for &(i, m) in &self.far {
            a = a.plus(m * f64::from(x[i]));
        }
        a.plus(b)
    }

    /// The squared distance of a key: `fl(C + fl(A + B))`, at least 0.
    /// Non-decreasing in the key, so distances follow the ranking.
    pub fn distance(&self, key: Key) -> f64 {
        (self.c + key.value()).max(0.0)
    }

    /// Fills `table` for the list whose centroid is `centroid`: the `near`
    /// part `Σ_{i∈sub j} (c_{l,i} + b_i − r_i)²` for every sub-quantizer `j`
    /// and code, computed as `(b_i − fl(r_i − c_{l,i}))²`, and the `far` part
    /// per far coordinate.
    ///
    /// # Complexity
    /// `O(256·d)` time, `O(256·(m + |F|))` memory.
    pub fn adc_table(&self, pq: &ProductQuantizer, centroid: &[f32], table: &mut AdcTable) {
        let dsub = pq.dsub();
        let w: Vec<f64> = self
            .r
            .iter()
            .zip(centroid)
            .map(|(&r, &c)| r - f64::from(c))
            .collect();
        table.near.clear();
        for j in 0..pq.m {
            let wj = &w[j * dsub..(j + 1) * dsub];
            table
                .near
                .extend((0..KSUB).map(|c| sq_dist(pq.codeword(j, c), wj)));
        }
        table.far_sub.clear();
        table.far.clear();
        for &(i, m) in &self.far {
            let (j, o) = (i / dsub, i % dsub);
            let ci = f64::from(centroid[i]);
            table.far_sub.push(j);
            table
                .far
                .extend((0..KSUB).map(|c| m * (ci + f64::from(pq.codeword(j, c)[o]))));
        }
    }

    /// The ADC key of `code` from a table of [`L2Query::adc_table`]: the
    /// near entries summed in sub-quantizer order, the far ones in
    /// coordinate order, kept exactly as `A + B`.
    ///
    /// # Complexity
    /// `O(m + |F|)`.
    #[inline]
    pub fn adc_key(table: &AdcTable, code: &[u8]) -> Key {
        let mut b = 0.0;
        for (j, &c) in code.iter().enumerate() {
            b += table.near[j * KSUB + c as usize];
        }
        let mut a = Key::sum(0.0, 0.0);
        for (f, &j) in table.far_sub.iter().enumerate() {
            a = a.plus(table.far[f * KSUB + code[j] as usize]);
        }
        a.plus(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reach(d: usize, v: f64) -> Vec<f64> {
        vec![v; d]
    }

    #[test]
    fn near_queries_are_the_direct_form() {
        let q = [1.0f32, -2.0, 3.5];
        let s = L2Query::new(&q, &reach(3, 10.0));
        assert!(s.far.is_empty());
        let x = [0.0f32, 0.0, 0.0];
        assert_eq!(s.distance(s.key(&x)), 1.0 + 4.0 + 12.25);
    }

    #[test]
    fn the_screen_never_exceeds_the_key() {
        let d = 384;
        let q: Vec<f32> = (0..d).map(|i| (i as f32 * 0.21).sin()).collect();
        let s = L2Query::new(&q, &reach(d, 10.0));
        assert!(s.screens());
        for k in 0..200 {
            let scale = [1e-30f32, 1e-3, 1.0, 1e3, 1e15][k % 5];
            let x: Vec<f32> = (0..d)
                .map(|i| q[i] + scale * ((i * 7 + k * 13) as f32 * 0.3).cos())
                .collect();
            let (lb, key) = (s.lower_bound(&x), s.key(&x).value());
            assert!(lb <= key, "k = {k}: {lb} > {key}");
            assert!(
                lb >= key * (1.0 - 1e-4) - 1e-40,
                "k = {k}: {lb} far below {key}"
            );
        }
        // x == q: the key is 0, the bound just below it.
        let lb = s.lower_bound(&q);
        assert!(lb <= 0.0 && lb > -1e-40, "{lb}");
        // An overflowing difference or a NaN: no bound.
        let mut x = q.clone();
        x[3] = 3.4e38;
        assert_eq!(s.lower_bound(&x), f64::NEG_INFINITY);
        x[3] = f32::NAN;
        assert_eq!(s.lower_bound(&x), f64::NEG_INFINITY);
        // A far coordinate: the key is the split form, no screen.
        let far = L2Query::new(&[1e20, 0.0], &reach(2, 10.0));
        assert!(!far.screens());
        assert_eq!(far.lower_bound(&[0.0, 0.0]), f64::NEG_INFINITY);
    }

    #[test]
    fn a_far_coordinate_keeps_the_order_of_the_rest() {
        // q_0 = 1e20: fl(x_0 − q_0)² ties every x with these x_0.
        let q = [1e20f32, 0.0, 0.0];
        let s = L2Query::new(&q, &reach(3, 10.0));
        assert_eq!(s.far.len(), 1);
        let a = s.key(&[5.0, 1.0, 0.0]);
        let b = s.key(&[5.0, 2.0, 0.0]);
        let c = s.key(&[5.5, 9.0, 9.0]);
        assert!(c < a && a < b, "{c:?} {a:?} {b:?}");
        let (da, db) = (s.distance(a), s.distance(b));
        assert!(da.is_finite() && da <= db);
        // −3.4e38: C = 1.16e77 fits f64, the products are exact.
        let s = L2Query::new(&[-3.4e38, 0.0, 0.0], &reach(3, 10.0));
        let a = s.key(&[-1.0, 0.0, 0.0]);
        let b = s.key(&[0.0, 0.0, 0.0]);
        assert!(a < b && s.distance(a).is_finite());
    }
}
