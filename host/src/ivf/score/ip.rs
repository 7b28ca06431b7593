//! The inner-product metrics on the query path: `dot` and `cosine`.
//!
//! Both rank a vector `x` by the key `−q'·x` (smaller is nearer), with
//! `q' = q` for `dot` and `q' = q/‖q‖` for `cosine`, whose stored vectors
//! the build normalised ([`crate::ivf::prepare_vectors`]). The reported
//! distance is `−q·x` for `dot` (the negated inner product) and
//! `1 − cos(q, x)` for `cosine` (in `[0, 2]`), both non-decreasing in the
//! key.
//!
//! Every product `x_i·q'_i` is taken in `f64` ([`dot`]): finite for every
//! finite `f32` input (`|x_i·q_i| ≤ f32::MAX² ≈ 1.2·10⁷⁷`), subnormal
//! inputs included, and the query's norm is taken in `f64` too, so every
//! finite query gets finite distances ranked to within `γ_{⌈d/8⌉+4}·Σ_i
//! |x_i q'_i|` (see [`dot`]).
//!
//! IVF-PQ's ADC (residual codes, as faiss's `IndexIVFPQ` with inner
//! product): the reconstruction `y = c_l + Σ_j codeword_{j,code_j}` has
//! `−q'·y = −q'·c_l − Σ_j q'_j·codeword_{j,code_j}`. The second part does
//! not depend on the list: its table (`m × 256` entries) is computed once
//! per query, the first once per list ([`AdcTable`]'s constant).

use std::sync::OnceLock;

use super::Key;
use super::kernel::{dot, dot_error, dot_f32, dot_f32_error};
use super::l2::AdcTable;
use super::sq8::{Sq8List, Sq8Query};
use crate::error::{Error, Result};
use crate::ivf::pq::{KSUB, ProductQuantizer};

/// A query prepared for an inner-product metric.
#[derive(Debug, Clone)]
pub struct IpQuery {
    /// `q'` in `f64`: the query, divided by its norm for cosine.
    q: Vec<f64>,
    /// `1` for cosine (`distance = 1 + key`), `0` for dot (`distance = key`).
    offset: f64,
    /// The list-independent ADC table, `table[j·256 + c] = −Σ_{i∈sub j}
    /// q'_i·codeword_{j,c,i}`, made on first use.
    adc: OnceLock<Vec<f64>>,
    /// The query as given, for the screen ([`IpQuery::lower_bound`]).
    q32: Vec<f32>,
    /// `‖q‖` for cosine (`q' = q/‖q‖`), `1` for dot.
    norm: f64,
    /// The screen's `(δ₃₂, η, δ₆₄)` (see [`IpQuery::lower_bound`]).
    screen: (f64, f64, f64),
}

impl IpQuery {
    /// Prepares `q` for `dot`. `O(d)`.
    pub fn dot(q: &[f32]) -> Self {
        Self::prepared(q, 1.0, 0.0)
    }

    /// `q' = q / norm` and the screen's constants. `O(d)`.
    fn prepared(q: &[f32], norm: f64, offset: f64) -> Self {
        let (d32, eta) = dot_f32_error(q.len());
        // `q'_i = fl(q_i / norm)` is one rounding off (2⁻⁵³), `dot` adds
        // its own: 2⁻⁵² + 1.01·dot_error covers both with room.
        let d64 = 2f64.powi(-52) + 1.01 * dot_error(q.len());
        Self {
            q: q.iter().map(|&x| f64::from(x) / norm).collect(),
            offset,
            adc: OnceLock::new(),
            q32: q.to_vec(),
            norm,
            screen: (d32, eta, d64),
        }
    }

    /// Prepares `q` for `cosine`: `q / ‖q‖`, the norm in `f64`. `O(d)`.
    ///
    /// # Errors
    /// [`Error::Input`] for a query of norm zero (its cosine with anything
    /// is undefined).
    pub fn cosine(q: &[f32]) -> Result<Self> {
        let norm = q
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt();
        if norm == 0.0 {
            return Err(Error::input(
                "the query vector is all zeros: its cosine with any vector is undefined (metric cosine)",
            ));
        }
        Ok(Self::prepared(q, norm, 1.0))
    }

    /// The ranking key `−q'·x`. `O(d)`.
    #[inline]
    pub fn key(&self, x: &[f32]) -> Key {
        Key::sum(-dot(x, &self.q), 0.0)
    }

    /// A lower bound on `self.key(x).value()` from `f32` sums that cost
    /// about a third of the key. With `(s, a)` = [`dot_f32`]`(x, q)` (the
    /// query as given, so no rounding of `q'` enters), `S = Σ x_i q_i` and
    /// `A = Σ |x_i q_i|` exactly, `(δ₃₂, η)` = [`dot_f32_error`]:
    /// `A ≤ Â = (1 + δ₃₂)·a + η` and `S ≤ s + δ₃₂·Â + η`. The key is
    /// `−fl(dot(x, q'))` with `q'_i = fl(q_i/‖q‖)`, at least `−(S + δ₆₄·A)/‖q‖`
    /// (`δ₆₄ = 2⁻⁵² + 1.01·`[`dot_error`]: the rounding of `q'` and of the
    /// `f64` sum), so
    ///
    /// ```text
    /// key ≥ −(s + (δ₃₂ + δ₆₄)·Â + η) / ‖q‖
    /// ```
    ///
    /// evaluated with every factor rounded up (`1 + 2⁻⁴⁰`) and the sum
    /// widened by `2⁻⁴⁹` of itself, which covers this function's own
    /// roundings. A scan may skip `x` when this exceeds the worst key it
    /// keeps ([`crate::ivf::scan::Scanner::scan`]). `−∞` when a sum
    /// overflowed or met a NaN.
    ///
    /// # Complexity
    /// `O(d)`.
    #[inline]
    pub fn lower_bound(&self, x: &[f32]) -> f64 {
        let (s, a) = dot_f32(x, &self.q32);
        if !(s.is_finite() && a.is_finite()) {
            return f64::NEG_INFINITY;
        }
        let (d32, eta, d64) = self.screen;
        let up = 1.0 + 2f64.powi(-40);
        let big_a = (f64::from(a) * (1.0 + d32) + eta) * up;
        let t = f64::from(s) + (d32 + d64) * up * big_a + eta;
        let t = t + t.abs() * 2f64.powi(-49);
        -t / self.norm
    }

    /// The query prepared for `list`'s 8-bit screen under this key
    /// ([`Sq8Query::inner_product`]): the query as given, the divisor `‖q‖`
    /// (1 for dot) and the key's `δ₆₄`. `O(d)`.
    pub fn sq8<'a>(&self, list: &'a Sq8List) -> Option<Sq8Query<'a>> {
        Sq8Query::inner_product(&self.q32, self.norm, self.screen.2, list)
    }

    /// The reported distance of a key: `−q·x` (dot) or `1 − cos` (cosine).
    pub fn distance(&self, key: Key) -> f64 {
        self.offset + key.value()
    }

    /// Fills `table` for the list whose centroid is `centroid`: its constant
    /// `−q'·c_l`; the list-independent part is made on the first call
    /// (`O(256·d)`) and kept with the query. A query is prepared for one
    /// index, so always with the same `pq`.
    ///
    /// # Complexity
    /// `O(d)` per list after the first call.
    pub fn adc_table(&self, pq: &ProductQuantizer, centroid: &[f32], table: &mut AdcTable) {
        self.adc.get_or_init(|| {
            let dsub = pq.dsub();
            let mut t = Vec::with_capacity(pq.m * KSUB);
            for j in 0..pq.m {
                let qj = &self.q[j * dsub..(j + 1) * dsub];
                t.extend((0..KSUB).map(|c| -dot(pq.codeword(j, c), qj)));
            }
            t
        });
        table.set_constant(-dot(centroid, &self.q));
    }

    /// The ADC key of `code` in the list of `table`: the list constant and
    /// the table entries summed in sub-quantizer order, kept as `a + b`.
    ///
    /// # Complexity
    /// `O(m)`.
    #[inline]
    pub fn adc_key(&self, table: &AdcTable, code: &[u8]) -> Key {
        let t = self
            .adc
            .get()
            .expect("IpQuery::adc_table runs before adc_key");
        let mut b = 0.0;
        for (j, &c) in code.iter().enumerate() {
            b += t[j * KSUB + c as usize];
        }
        Key::sum(table.constant(), b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_and_cosine_rank_by_the_inner_product() {
        let s = IpQuery::dot(&[1.0, 2.0]);
        let (a, b) = (s.key(&[3.0, 0.0]), s.key(&[0.0, 2.0]));
        assert!(b < a, "4 > 3: [0, 2] is nearer");
        assert_eq!(s.distance(a), -3.0);
        let c = IpQuery::cosine(&[3.0, 4.0]).unwrap();
        // f32 0.6 and 0.8 are within 2⁻²⁴ of the reals.
        assert!(c.distance(c.key(&[0.6, 0.8])).abs() < 1e-7);
        assert!((c.distance(c.key(&[-0.6, -0.8])) - 2.0).abs() < 1e-7);
        assert_eq!(c.distance(c.key(&[0.0, 1.0])), 1.0 - 0.8);
        let e = IpQuery::cosine(&[0.0, 0.0]).unwrap_err().to_string();
        assert!(e.contains("all zeros") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn the_screen_never_exceeds_the_key() {
        let d = 384;
        let q: Vec<f32> = (0..d).map(|i| (i as f32 * 0.21).sin() * 3.0).collect();
        for s in [IpQuery::dot(&q), IpQuery::cosine(&q).unwrap()] {
            for k in 0..200 {
                let scale = [1e-30f32, 1e-3, 1.0, 1e3, 1e15][k % 5];
                let x: Vec<f32> = (0..d)
                    .map(|i| scale * ((i * 7 + k * 13) as f32 * 0.3).cos())
                    .collect();
                let (lb, key) = (s.lower_bound(&x), s.key(&x).value());
                assert!(lb <= key, "k = {k}: {lb} > {key}");
                let spread: f64 = x
                    .iter()
                    .zip(&q)
                    .map(|(&a, &b)| (f64::from(a) * f64::from(b)).abs())
                    .sum::<f64>()
                    / s.norm;
                assert!(
                    lb >= key - 1e-4 * spread - 1e-40,
                    "k = {k}: {lb} far below {key}"
                );
            }
            // An overflowing product or a NaN: no bound.
            let mut x = vec![0.5f32; d];
            x[3] = 3.4e38;
            assert_eq!(s.lower_bound(&x), f64::NEG_INFINITY);
            x[3] = f32::NAN;
            assert_eq!(s.lower_bound(&x), f64::NEG_INFINITY);
        }
    }

    #[test]
    fn huge_and_tiny_queries_give_finite_ordered_keys() {
        let s = IpQuery::cosine(&[3.4e38, -3.4e38, 1e-45]).unwrap();
        let d = s.distance(s.key(&[0.70710677, -0.70710677, 0.0]));
        assert!(d.is_finite() && d.abs() < 1e-6, "{d}");
        let t = IpQuery::cosine(&[1e-45, 0.0, 0.0]).unwrap();
        assert!(t.key(&[1.0, 0.0, 0.0]) < t.key(&[0.5, 0.5, 0.0]));
        let h = IpQuery::dot(&[3.4e38; 4]);
        let (a, b) = (h.key(&[3.4e38; 4]), h.key(&[3.3e38; 4]));
        assert!(a < b && h.distance(a).is_finite());
    }
}
