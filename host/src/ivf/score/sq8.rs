//! An 8-bit screen of a cached IVF-Flat list: a quarter of the bytes a
//! scan has to read, and a rigorous lower bound on each vector's squared L2
//! key, so that a scan keys in `f64` only the vectors that could be kept.
//!
//! A warm scan (every probed list in the payload cache) reads each vector's
//! `4·d` bytes once per query and is bound by memory bandwidth, not by
//! arithmetic: the `f32` screen ([`super::sq_dist_f32`]) already costs the
//! time of reading the floats. The cache therefore keeps, beside each list,
//! its scalar quantization ([`Sq8List`]): per coordinate `j` of the list the
//! smallest value `lo_j` and a step `σ_j = (hi_j − lo_j)/255`, each vector as
//! `d` one-byte codes `c_ij = round((x_ij − lo_j)/σ_j)`, so that
//! `x̂_ij = lo_j + σ_j·c_ij` (a real number), and each vector's distance to
//! its reconstruction rounded up, `ρ_i ≥ ‖x_i − x̂_i‖`.
//!
//! # The bound
//! For a query `q`, let `w_j = q_j − lo_j` and `δ_i = q − x̂_i`, so
//! `δ_ij = w_j − σ_j·c_ij`. By the triangle inequality
//!
//! ```text
//! ‖q − x_i‖ ≥ ‖δ_i‖ − ρ_i,
//! ‖δ_i‖² = A − 2·C_i + B_i,   A = Σ_j w_j²,  B_i = Σ_j (σ_j·c_ij)²,
//!                             C_i = Σ_j (w_j·σ_j)·c_ij.
//! ```
//!
//! `A` is one number per query and list, `B_i` one per vector (made with
//! the codes), both in `f64` and rounded down. Per vector the scan computes
//! only the dot product `Ĉ_i = Σ_j fl(v_j·c_ij)` in `f32` ([`sq8_dot`]), with
//! `v_j = fl₃₂(w_j·σ_j)`: a conversion, a multiplication and an addition a
//! coordinate, where the difference form `Σ_j (w_j − σ_j·c_ij)²` took two
//! multiplications more. Each term is within `1.01·u·|w_j·σ_j|·c_ij` of
//! `w_j·σ_j·c_ij` (`u = 2⁻²⁴`: `v_j`'s rounding, the product's) and `2⁻¹⁴⁹·256`
//! of underflow, and each lane addition and tree level adds a factor
//! `1 + u` of the absolute terms, so with `depth = ⌈d/32⌉ + 5`
//!
//! ```text
//! |Ĉ_i − C_i| ≤ ε = 1.01·(depth + 2)·u·255·Σ_j |w_j·σ_j| + d·2⁻¹⁴¹,
//! ‖δ_i‖² ≥ t_i = A + B_i − 2·(Ĉ_i + ε)   (less the f64 roundings),
//! ‖q − x_i‖ ≥ L_i = √t_i − ρ_i,
//! key_i = sq_dist(x_i, q) ≥ (1 − δ₆₄)·L_i²   (L_i > 0).
//! ```
//!
//! `ε` is one number per query and list ([`Sq8Query`]); `C_i`'s terms are
//! small beside `A` and `B_i` only when the list is far from the origin, and
//! even then `ε` stays near `10⁻⁶·A`. A vector whose bound exceeds the worst
//! key a scan keeps is not kept, whatever its exact key; the others are keyed
//! exactly, so the screen never changes the answer.
//!
//! # Inner products
//! Under `dot` and `cosine` the key is `−fl(dot(x_i, q'))`, `q'_j = fl(q_j
//! / ν)` (`ν = ‖q‖` for cosine, 1 for dot), at least `−(S_i + δ₆₄·Σ_j |x_ij
//! q_j|) / ν` with `S_i = q·x_i` ([`super::IpQuery::lower_bound`]). The
//! same dot product bounds it: `q·x̂_i = q·lo + C_i` with `w = q` (no
//! difference to round), `|q·(x_i − x̂_i)| ≤ ‖q‖·ρ_i`, and `Σ_j |x_ij q_j| ≤
//! ‖q‖·‖x_i‖ ≤ ‖q‖·(‖lo‖ + √B_i + ρ_i)`, so
//!
//! ```text
//! key_i ≥ −(Q₀ + Ĉ_i + ε + ‖q‖·ρ_i + δ₆₄·‖q‖·(‖lo‖ + √B_i + ρ_i)) / ν,
//! ```
//!
//! `Q₀ ≥ q·lo` and `‖q‖` rounded up once per query and list (`‖lo‖` once per
//! list, with the screen), the sum
//! widened by `2⁻⁴⁹` of its absolute terms for its own roundings.
//!
//! # Bounds
//! A screen costs `d + 12` bytes a vector and `8·d` a list (beside the list's
//! `4·d + 4` a vector); the payload cache counts them in its capacity. A
//! list whose values or steps are not finite in `f32` gets no screen (it is
//! scanned as before).

use super::kernel::{reduce_tree, sq_dist_error};

/// Lanes of the dot product's `f32` sum: four AVX registers of eight, so
/// that four additions are in flight at once.
const LANES: usize = 32;

/// Levels of the tree that sums the lanes (`reduce_tree`): `log₂ 32`.
const TREE: usize = 5;

/// Codes of one byte: `0..=255`.
const LEVELS: f64 = 255.0;

/// Unit roundoff of `f32`.
const U32: f64 = 1.0 / 16_777_216.0;

/// The 8-bit screen of one IVF-Flat list (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Sq8List {
    dim: usize,
    /// `lo_j`, per coordinate.
    lo: Vec<f32>,
    /// `σ_j`, per coordinate (`0` where the list is constant there).
    step: Vec<f32>,
    /// `c_ij`, `count × dim`.
    codes: Vec<u8>,
    /// `ρ_i ≥ ‖x_i − x̂_i‖`, per vector.
    err: Vec<f32>,
    /// `B_i = Σ_j (σ_j·c_ij)²`, rounded down, per vector.
    norm: Vec<f64>,
    /// `‖lo‖ + max_i (√B_i + ρ_i)`, rounded up: a bound on every `‖x_i‖`
    /// (module docs, *Inner products*).
    reach: f64,
}

impl Sq8List {
    /// Quantizes `rows` (`count × dim` values, row-major). `None` when the
    /// list is empty, `dim` is 0, or a value, step or residual is not
    /// finite in `f32` (such a list is scanned without a screen).
    ///
    /// # Complexity
    /// `O(count·d)` time, `count·(d + 12) + 8·d` bytes.
    pub fn encode(rows: &[f32], dim: usize) -> Option<Self> {
        if dim == 0 || rows.is_empty() || !rows.len().is_multiple_of(dim) {
            return None;
        }
        if rows.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut lo = vec![f32::INFINITY; dim];
        let mut hi = vec![f32::NEG_INFINITY; dim];
        for row in rows.chunks_exact(dim) {
            for (j, &x) in row.iter().enumerate() {
                lo[j] = lo[j].min(x);
                hi[j] = hi[j].max(x);
            }
        }
        let step: Vec<f32> = lo
            .iter()
            .zip(&hi)
            .map(|(&l, &h)| ((f64::from(h) - f64::from(l)) / LEVELS) as f32)
            .collect();
        if step.iter().any(|s| !s.is_finite()) {
            return None;
        }
        let count = rows.len() / dim;
        // Any code is correct (the residual bound is taken for the code
        // chosen); the nearest one keeps `ρ` small. `inv` is `1/σ` (0 where
        // the list is constant there).
        let inv: Vec<f32> = step
            .iter()
            .map(|&s| if s > 0.0 { 1.0 / s } else { 0.0 })
            .collect();
        let mut codes = vec![0u8; rows.len()];
        let mut err = Vec::with_capacity(count);
        let mut norm = Vec::with_capacity(count);
        // `B_i`'s terms are exact products rounded once; eight lanes and
        // their sum add `⌈d/8⌉ + 3` roundings more, each a factor `1 − 2⁻⁵³`
        // at worst: `d + 4` of them, rounded down by twice that.
        let down = 1.0 - (dim as f64 + 4.0) * 2.0 * f64::EPSILON;
        for (row, c) in rows.chunks_exact(dim).zip(codes.chunks_exact_mut(dim)) {
            let (sum, scale, b) = encode_row(row, &lo, &step, &inv, c);
            let b = b * down;
            if !b.is_finite() {
                return None;
            }
            norm.push(b);
            // Each residual term is within 2⁻⁵² of |x| + |lo| + 255·σ (one
            // rounding of the product, one of each difference), which
            // `slack` bounds for the whole row.
            let slack = (dim as f64).sqrt() * scale * 4.0 * f64::EPSILON;
            let bound = sum.sqrt() * (1.0 + 1e-12) + slack;
            let rho = bound as f32;
            // Rounded up to the next `f32` when the cast went down.
            let rho = if f64::from(rho) < bound {
                rho.next_up()
            } else {
                rho
            };
            if !rho.is_finite() {
                return None;
            }
            err.push(rho);
        }
        Some(Self {
            dim,
            reach: reach(&lo, &norm, &err),
            lo,
            step,
            codes,
            err,
            norm,
        })
    }

    /// Vectors in the list.
    pub fn len(&self) -> usize {
        self.err.len()
    }

    /// Whether the list holds no vector (never: `encode` refuses it).
    pub fn is_empty(&self) -> bool {
        self.err.is_empty()
    }

    /// Bytes the screen holds: `count·(d + 12) + 8·d`.
    pub fn size_bytes(&self) -> usize {
        self.codes.len() + 12 * self.err.len() + 8 * self.dim
    }
}

/// `‖lo‖ + max_i (√B_i + ρ_i)` over a list, with `B_i` (stored rounded
/// down by less than `2⁻³⁰` of itself) taken up by that much, `‖lo‖²` by
/// its sum's roundings, and the result widened by `2⁻⁵⁰` for the roundings
/// here. Made once with the list, so that no query takes `‖lo‖`.
/// `O(count + d)`.
fn reach(lo: &[f32], norm: &[f64], err: &[f32]) -> f64 {
    let ll: f64 = lo.iter().map(|&l| f64::from(l) * f64::from(l)).sum();
    let lo_norm = (ll * (1.0 + (lo.len() as f64 + 4.0) * 2.0 * f64::EPSILON)).sqrt();
    let m = norm
        .iter()
        .zip(err)
        .map(|(&b, &r)| (b * (1.0 + 2f64.powi(-30))).sqrt() + f64::from(r))
        .fold(0.0f64, f64::max);
    (lo_norm + m) * (1.0 + 2f64.powi(-50))
}

/// Codes one row into `c` and returns `(Σ_j r_j², max_j (|x_j| + |lo_j| +
/// 255·σ_j), Σ_j (σ_j·c_j)²)` with `r_j = x_j − (lo_j + σ_j·c_j)` in `f64`. Dispatched to
/// AVX2 where the CPU has it (the same values either way: the codes are
/// computed in `f32` by the same operations, the sums in the same order).
/// `O(d)`.
fn encode_row(row: &[f32], lo: &[f32], step: &[f32], inv: &[f32], c: &mut [u8]) -> (f64, f64, f64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { encode_row_avx2(row, lo, step, inv, c) };
    }
    encode_row_portable(row, lo, step, inv, c)
}

/// [`encode_row_portable`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn encode_row_avx2(
    row: &[f32],
    lo: &[f32],
    step: &[f32],
    inv: &[f32],
    c: &mut [u8],
) -> (f64, f64, f64) {
    encode_row_portable(row, lo, step, inv, c)
}

/// The loops of [`encode_row`]: the codes (round half up of `(x − lo)/σ`,
/// clamped to `0..=255`, a saturating cast), then the residual and `B` in
/// eight independent `f64` lanes (the tail to lanes `0, 1, …`, the lanes
/// summed in order), so that the loop vectorizes.
#[inline(always)]
fn encode_row_portable(
    row: &[f32],
    lo: &[f32],
    step: &[f32],
    inv: &[f32],
    c: &mut [u8],
) -> (f64, f64, f64) {
    for (((c, &x), &l), &i) in c.iter_mut().zip(row).zip(lo).zip(inv) {
        // `max` then `min` map NaN (an overflowed `(x − l)·i`) to 0 and
        // keep the value in 0..=255, so the unchecked cast is defined.
        #[allow(clippy::manual_clamp)] // `clamp` keeps a NaN; this maps it to 0
        let v = ((x - l) * i + 0.5).max(0.0).min(255.0);
        // SAFETY: `v` is finite and within 0..=255 (above).
        *c = unsafe { v.to_int_unchecked::<i32>() } as u8;
    }
    const W: usize = 8;
    let (mut sum, mut scale, mut norm) = ([0f64; W], [0f64; W], [0f64; W]);
    let mut lane = |k: usize, c: u8, x: f32, l: f32, s: f32| {
        let (x, l, s) = (f64::from(x), f64::from(l), f64::from(s));
        // Exact: 24 bits of `σ` times 8 of the code.
        let y = s * f64::from(c);
        let r = x - (l + y);
        sum[k] += r * r;
        norm[k] += y * y;
        scale[k] = scale[k].max(x.abs() + l.abs() + s * LEVELS);
    };
    let n = row.len();
    let full = n - n % W;
    for b in (0..full).step_by(W) {
        for k in 0..W {
            lane(k, c[b + k], row[b + k], lo[b + k], step[b + k]);
        }
    }
    for (k, j) in (full..n).enumerate() {
        lane(k, c[j], row[j], lo[j], step[j]);
    }
    (
        sum.iter().sum(),
        scale.iter().fold(0.0, |a, &b| a.max(b)),
        norm.iter().sum(),
    )
}

/// A query prepared for one list's screen: `v = fl₃₂(w ∘ σ)`, `ε`, and the
/// constants of its metric (module docs). `O(d)` to make.
#[derive(Debug, Clone)]
pub struct Sq8Query<'a> {
    list: &'a Sq8List,
    v: Vec<f32>,
    /// `ε`, the dot product's error, rounded up.
    eps: f64,
    form: Form,
    /// The last worst key [`Sq8Query::exceeds`] was asked about, and its
    /// `√(w* / (1 − δ₆₄))` rounded up: the worst key changes a few times a
    /// list, so the square root is taken that often, not once a vector.
    last: std::cell::Cell<(f64, f64)>,
}

/// What a prepared query bounds, with its constants.
#[derive(Debug, Clone)]
enum Form {
    /// Squared L2 (module docs, *The bound*): `A = ‖q − lo‖²` rounded
    /// down, and `δ₆₄` of the exact key.
    L2 { a: f64, key_err: f64 },
    /// An inner-product key `−q·x / ν` (module docs, *Inner products*):
    /// `Q₀ ≥ q·lo`, `‖q‖` rounded up, the key's rounding for the whole list,
    /// `δ₆₄·‖q‖·reach` rounded up, and the divisor `ν`
    /// (`‖q‖` for cosine, 1 for dot).
    Ip {
        q0: f64,
        q_norm: f64,
        tail: f64,
        nu: f64,
    },
}

/// `v = fl₃₂(w ∘ σ)`, `ε` and `Σ_j w_j²` for the weights `w(j)` (in `f64`,
/// each within a factor `1 ± 2⁻⁵³` of its exact value) of a list's steps;
/// `None` when a weight or `ε` does not fit. One pass in eight `f64` lanes
/// (the sums' order is not the bound's concern: `ε` and `A` are widened for
/// any order). `O(d)`.
fn weights(w: impl Fn(usize) -> f64, step: &[f32]) -> Option<(Vec<f32>, f64, f64)> {
    const W: usize = 8;
    let n = step.len();
    let mut v = vec![0f32; n];
    let (mut weight, mut squares) = ([0f64; W], [0f64; W]);
    for (c, (vc, sc)) in v.chunks_mut(W).zip(step.chunks(W)).enumerate() {
        for (k, (vj, &s)) in vc.iter_mut().zip(sc).enumerate() {
            let w = w(c * W + k);
            let ws = w * f64::from(s);
            *vj = ws as f32;
            weight[k] += ws.abs();
            squares[k] += w * w;
        }
    }
    if !v.iter().all(|x| x.is_finite()) {
        return None;
    }
    let (weight, squares) = (weight.iter().sum::<f64>(), squares.iter().sum::<f64>());
    let depth = n.div_ceil(LANES) + TREE;
    let eps = (1.01 * (depth + 2) as f64 * U32 * LEVELS * weight * (1.0 + 1e-9)
        + n as f64 * 2f64.powi(-141))
        * (1.0 + 1e-9);
    eps.is_finite().then_some((v, eps, squares))
}

impl<'a> Sq8Query<'a> {
    /// Prepares the query `q` (no far coordinate: see
    /// [`super::L2Query::screens`]) for `list`'s squared-L2 screen. `None`
    /// when `A`, a weight `w_j·σ_j` or `ε` does not fit (`f32` for the
    /// weights).
    pub fn new(q: &[f32], list: &'a Sq8List) -> Option<Self> {
        debug_assert_eq!(q.len(), list.dim);
        let n = q.len();
        // Each within a factor `1 ± 2⁻⁵³` of `q_j − lo_j`.
        let w = |j: usize| f64::from(q[j]) - f64::from(list.lo[j]);
        let (v, eps, a) = weights(w, &list.step)?;
        // `A`: each square within `3·2⁻⁵³` (the difference twice, the
        // product), at most `n` additions more.
        let a = a * (1.0 - (n as f64 + 8.0) * 2.0 * f64::EPSILON);
        if !a.is_finite() {
            return None;
        }
        Some(Self {
            list,
            v,
            eps,
            form: Form::L2 {
                a,
                key_err: sq_dist_error(n) + 2f64.powi(-46),
            },
            last: std::cell::Cell::new((f64::NAN, f64::NAN)),
        })
    }

    /// Prepares the query `q` (as given, in `f32`) for `list`'s screen
    /// under an inner-product key `−fl(dot(x, q'))`, `q'_j = fl(q_j / ν)`,
    /// whose error is within `δ₆₄·Σ_j |x_j·q_j| / ν` (module docs, *Inner
    /// products*; [`super::IpQuery::lower_bound`] for `δ₆₄`). `None` when a
    /// weight `q_j·σ_j`, `ε` or a constant does not fit.
    pub fn inner_product(q: &[f32], nu: f64, d64: f64, list: &'a Sq8List) -> Option<Self> {
        debug_assert_eq!(q.len(), list.dim);
        let n = q.len();
        // Exact: an `f32` in `f64`.
        let (v, eps, qq) = weights(|j| f64::from(q[j]), &list.step)?;
        // `q_j·lo_j` is exact in `f64` (24 by 24 bits); the sum of `n` is
        // within `1.01·n·2⁻⁵³` of their absolute sum.
        let (mut q0, mut abs) = (0.0f64, 0.0f64);
        for (&qj, &l) in q.iter().zip(&list.lo) {
            let p = f64::from(qj) * f64::from(l);
            q0 += p;
            abs += p.abs();
        }
        let slack = (n as f64 + 4.0) * 2.0 * f64::EPSILON;
        let q0 = q0 + abs * slack * 2.0;
        let q_norm = (qq * (1.0 + slack)).sqrt() * (1.0 + 2f64.powi(-50));
        let tail = d64 * q_norm * list.reach * (1.0 + 2f64.powi(-50));
        let finite = [q0, q_norm, tail, nu].iter().all(|x| x.is_finite());
        if !(finite && nu > 0.0) {
            return None;
        }
        Some(Self {
            list,
            v,
            eps,
            form: Form::Ip {
                q0,
                q_norm,
                tail,
                nu,
            },
            last: std::cell::Cell::new((f64::NAN, f64::NAN)),
        })
    }

    /// A lower bound on vector `i`'s key's value (module docs): squared L2,
    /// or `−q·x / ν`; `−∞` when the screen says nothing (`L_i ≤ 0` under
    /// L2, or the `f32` dot product overflowed).
    ///
    /// # Complexity
    /// `O(d)`, reading `d` bytes of codes.
    #[inline]
    pub fn lower_bound(&self, i: usize) -> f64 {
        let Some(c) = self.dot_up(i) else {
            return f64::NEG_INFINITY;
        };
        let rho = f64::from(self.list.err[i]);
        match self.form {
            Form::L2 { a, key_err } => {
                let Some(t) = self.l2_t(i, a, c) else {
                    return f64::NEG_INFINITY;
                };
                let l = t.sqrt() * (1.0 - 2f64.powi(-50)) - rho;
                if l <= 0.0 {
                    return f64::NEG_INFINITY;
                }
                l * l * (1.0 - key_err)
            }
            Form::Ip {
                q0,
                q_norm,
                tail,
                nu,
            } => {
                // `‖x_i‖ ≤ ‖lo‖ + √B_i + ρ_i`, at most the list's reach
                // (in `tail`).
                let terms = [q0, c, q_norm * rho, tail];
                let t: f64 = terms.iter().sum();
                // Three additions and a product, each within 2⁻⁵³ of what
                // it adds up, the widening and the division two more: fewer
                // than the sixteen `2⁻⁴⁹` covers.
                let t = t + terms.iter().map(|x| x.abs()).sum::<f64>() * 2f64.powi(-49);
                -t / nu
            }
        }
    }

    /// Whether vector `i`'s key is certainly above `worst`, the worst key a
    /// scan keeps (it would not be kept). Under squared L2 without a square
    /// root a vector: with `t_i` the lower bound on `‖δ_i‖²` and `W ≥ √(w* /
    /// (1 − δ₆₄))` (one root each time the worst key changes), the key is
    /// above `w*` once `√t_i − ρ_i > W`, that is once `t_i·(1 − 2⁻⁴⁸) > (W +
    /// ρ_i)²` in `f64` (the factor covers the comparison's three
    /// roundings). Under an inner product, `lower_bound(i) > worst`.
    /// `false` says nothing: the vector must be keyed.
    ///
    /// # Complexity
    /// `O(d)`, reading `d` bytes of codes.
    #[inline]
    pub fn exceeds(&self, i: usize, worst: f64) -> bool {
        let Form::L2 { a, key_err } = self.form else {
            return self.lower_bound(i) > worst;
        };
        if !(worst.is_finite() && worst >= 0.0) {
            return self.lower_bound(i) > worst;
        }
        let Some(t) = self.dot_up(i).and_then(|c| self.l2_t(i, a, c)) else {
            return false;
        };
        let (last, w) = self.last.get();
        let w = if last == worst {
            w
        } else {
            let w = (worst / (1.0 - key_err)).sqrt() * (1.0 + 2f64.powi(-50));
            self.last.set((worst, w));
            w
        };
        let r = w + f64::from(self.list.err[i]);
        t * (1.0 - 2f64.powi(-48)) > r * r
    }

    /// `Ĉ_i + ε ≥ C_i`, vector `i`'s dot product with its error; `None`
    /// when the `f32` sum overflowed. `O(d)`.
    #[inline]
    fn dot_up(&self, i: usize) -> Option<f64> {
        let d = self.list.dim;
        let c = sq8_dot(&self.list.codes[i * d..(i + 1) * d], &self.v);
        c.is_finite().then(|| f64::from(c) + self.eps)
    }

    /// `t_i ≤ ‖δ_i‖² = A + B_i − 2·C_i` from `c ≥ C_i` (three `f64`
    /// roundings, each within `2⁻⁵³` of what it adds up); `None` when it is
    /// not positive (the screen says nothing). `O(1)`.
    #[inline]
    fn l2_t(&self, i: usize, a: f64, c: f64) -> Option<f64> {
        let b = self.list.norm[i];
        let t = (a + b - 2.0 * c) - 2f64.powi(-50) * (a + b + 2.0 * c.abs());
        (t > 0.0).then_some(t)
    }
}

/// `Σ_j v_j·c_j` in `f32`: each product rounded, then added into one of
/// thirty-two lanes, the tail to lanes `0, 1, …`, one fixed reduction tree
/// (`reduce_tree`), no fused multiply-add (the same bits on every machine).
/// `O(d)`.
#[inline]
pub fn sq8_dot(codes: &[u8], v: &[f32]) -> f32 {
    debug_assert_eq!(codes.len(), v.len());
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { sq8_dot_avx2(codes, v) };
    }
    sq8_dot_portable(codes, v)
}

/// [`sq8_dot_portable`] in AVX2 intrinsics: lanes `8r..8r + 8` in register
/// `r` of four, the same operations in the same order (so the same bits),
/// the tail and the tree as the portable loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sq8_dot_avx2(codes: &[u8], v: &[f32]) -> f32 {
    use std::arch::x86_64::{
        __m128i, __m256, _mm_loadl_epi64, _mm256_add_ps, _mm256_cvtepi32_ps, _mm256_cvtepu8_epi32,
        _mm256_loadu_ps, _mm256_mul_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };
    let n = codes.len().min(v.len());
    let full = n - n % LANES;
    let mut acc: [__m256; 4] = [_mm256_setzero_ps(); 4];
    let mut b = 0;
    while b < full {
        for (r, a) in acc.iter_mut().enumerate() {
            let at = b + 8 * r;
            // SAFETY: `at + 8 <= b + 32 <= full <= n`, the length of both
            // slices, so both unaligned loads read inside them.
            unsafe {
                let c = _mm_loadl_epi64(codes.as_ptr().add(at).cast::<__m128i>());
                let x = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(c));
                *a = _mm256_add_ps(*a, _mm256_mul_ps(_mm256_loadu_ps(v.as_ptr().add(at)), x));
            }
        }
        b += LANES;
    }
    let mut lanes = [0f32; LANES];
    for (r, a) in acc.iter().enumerate() {
        // SAFETY: `lanes` holds 32 floats; register `r` goes to `8r..8r + 8`.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr().add(8 * r), *a) };
    }
    finish(lanes, &codes[full..n], &v[full..n])
}

/// The loop of [`sq8_dot`] for the baseline target.
#[inline(always)]
fn sq8_dot_portable(codes: &[u8], v: &[f32]) -> f32 {
    let mut acc = [0f32; LANES];
    let (cc, cv) = (codes.chunks_exact(LANES), v.chunks_exact(LANES));
    let (tc, tv) = (cc.remainder(), cv.remainder());
    for (c, v) in cc.zip(cv) {
        for l in 0..LANES {
            acc[l] += v[l] * f32::from(c[l]);
        }
    }
    finish(acc, tc, tv)
}

/// Adds the tail (fewer than 32 terms) to lanes `0, 1, …` and reduces the
/// lanes by the fixed tree (`reduce_tree`).
#[inline(always)]
fn finish(mut acc: [f32; LANES], codes: &[u8], v: &[f32]) -> f32 {
    for (l, (c, v)) in codes.iter().zip(v).enumerate() {
        acc[l] += v * f32::from(*c);
    }
    reduce_tree(acc)
}

#[cfg(test)]
mod tests {
    use super::super::sq_dist;
    use super::*;

    fn rows(n: usize, dim: usize, seed: u64, scale: f32) -> Vec<f32> {
        let mut state = seed;
        (0..n * dim)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                scale * (((state >> 40) as f32 / (1u64 << 24) as f32) - 0.5)
            })
            .collect()
    }

    /// Under `dot` and `cosine` the bound is below every key (the key the
    /// scan uses, `IpQuery::key`), and within a few % of the spread of keys
    /// on 384-d data, so that a scan prunes with it.
    #[test]
    fn the_inner_product_bound_never_exceeds_the_key() {
        use super::super::IpQuery;
        for (dim, scale) in [(384, 0.1f32), (128, 100.0), (7, 1e-20), (33, 1e12)] {
            let data = rows(300, dim, 13, scale);
            let list = Sq8List::encode(&data, dim).unwrap();
            for (k, q) in rows(5, dim, 14, scale).chunks_exact(dim).enumerate() {
                for (name, ip) in [
                    ("dot", IpQuery::dot(q)),
                    ("cosine", IpQuery::cosine(q).unwrap()),
                ] {
                    let sq = ip.sq8(&list).unwrap();
                    let mut worst_gap = 0.0f64;
                    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                    for (i, x) in data.chunks_exact(dim).enumerate() {
                        let (lb, key) = (sq.lower_bound(i), ip.key(x).value());
                        assert!(lb <= key, "{name} dim {dim} q {k} row {i}: {lb} > {key}");
                        worst_gap = worst_gap.max(key - lb);
                        lo = lo.min(key);
                        hi = hi.max(key);
                    }
                    if dim >= 128 {
                        assert!(
                            worst_gap < 0.1 * (hi - lo),
                            "{name} dim {dim}: a gap of {worst_gap} in keys {lo}..{hi}"
                        );
                    }
                }
            }
        }
    }

    /// `exceeds` (no square root a vector under L2) rules a vector out only
    /// when its key is above the worst key, and rules out what the bound
    /// does, but for the last few ulps.
    #[test]
    fn exceeds_rules_out_only_keys_above_the_worst() {
        use super::super::IpQuery;
        for (dim, scale) in [(384, 0.1f32), (128, 100.0), (7, 1e-20), (33, 1e12)] {
            let data = rows(300, dim, 31, scale);
            let list = Sq8List::encode(&data, dim).unwrap();
            for q in rows(3, dim, 32, scale).chunks_exact(dim) {
                let r: Vec<f64> = q.iter().map(|&v| f64::from(v)).collect();
                let l2: Vec<f64> = data.chunks_exact(dim).map(|x| sq_dist(x, &r)).collect();
                let ip = IpQuery::cosine(q).unwrap();
                let cos: Vec<f64> = data.chunks_exact(dim).map(|x| ip.key(x).value()).collect();
                for (sq, keys) in [
                    (Sq8Query::new(q, &list).unwrap(), &l2),
                    (ip.sq8(&list).unwrap(), &cos),
                ] {
                    let mut sorted = keys.clone();
                    sorted.sort_by(f64::total_cmp);
                    for worst in [
                        sorted[0],
                        sorted[9],
                        sorted[150],
                        sorted[299],
                        -1.0,
                        f64::NAN,
                    ] {
                        let (mut by_bound, mut by_exceeds) = (0, 0);
                        for (i, &key) in keys.iter().enumerate() {
                            let out = sq.exceeds(i, worst);
                            if out {
                                assert!(key > worst, "dim {dim} row {i}: {key} <= {worst}");
                            }
                            by_exceeds += usize::from(out);
                            by_bound += usize::from(sq.lower_bound(i) > worst);
                        }
                        assert!(by_exceeds + 2 >= by_bound, "{by_exceeds} vs {by_bound}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_bound_never_exceeds_the_key_and_is_tight_enough_to_prune() {
        for (dim, scale) in [(384, 0.1f32), (128, 100.0), (7, 1e-20), (33, 1e12)] {
            let data = rows(300, dim, 3, scale);
            let list = Sq8List::encode(&data, dim).unwrap();
            assert_eq!(list.len(), 300);
            assert_eq!(list.size_bytes(), 300 * (dim + 12) + 8 * dim);
            for (k, q) in rows(5, dim, 9, scale).chunks_exact(dim).enumerate() {
                let sq = Sq8Query::new(q, &list).unwrap();
                let r: Vec<f64> = q.iter().map(|&v| f64::from(v)).collect();
                let mut pruned = 0;
                for (i, x) in data.chunks_exact(dim).enumerate() {
                    let (lb, key) = (sq.lower_bound(i), sq_dist(x, &r));
                    assert!(lb <= key, "dim {dim} q {k} row {i}: {lb} > {key}");
                    pruned += usize::from(lb > 0.5 * key);
                }
                // On 384-d data the 8-bit bound is within a few % of the key.
                if dim >= 128 {
                    assert!(
                        pruned > 290,
                        "dim {dim}: only {pruned} of 300 bounds near their key"
                    );
                }
            }
            // The query at a vector: the bound is at most 0.
            let x0 = &data[..dim];
            let sq = Sq8Query::new(x0, &list).unwrap();
            assert_eq!(sq.lower_bound(0), f64::NEG_INFINITY);
        }
    }

    #[test]
    fn constant_coordinates_and_single_vectors_are_exact_in_the_codes() {
        let data = [1.5f32, -2.0, 1.5, 3.0, 1.5, 7.0];
        let list = Sq8List::encode(&data, 2).unwrap();
        assert_eq!(list.step[0], 0.0);
        let one = Sq8List::encode(&data[..2], 2).unwrap();
        // Exact codes: only the rounding slack is left of the residual.
        assert!(one.err[0] < 1e-13, "{:?}", one.err);
        let sq = Sq8Query::new(&[0.0, 0.0], &one).unwrap();
        let key = sq_dist(&data[..2], &[0.0, 0.0]);
        let lb = sq.lower_bound(0);
        assert!(lb <= key && lb > 0.999 * key, "{lb} vs {key}");
    }

    #[test]
    fn refuses_what_it_cannot_bound() {
        assert!(Sq8List::encode(&[], 4).is_none());
        assert!(Sq8List::encode(&[1.0, 2.0], 0).is_none());
        assert!(Sq8List::encode(&[1.0, f32::NAN], 2).is_none());
        let list = Sq8List::encode(&[-3e38, 0.0, 3e38, 0.0], 2).unwrap();
        // A query far outside: q − lo overflows f32, so no prepared query.
        assert!(Sq8Query::new(&[3.4e38, 0.0], &list).is_none());
    }

    #[test]
    fn every_path_gives_the_same_bits() {
        for n in [0, 1, 15, 16, 17, 31, 32, 33, 45, 384] {
            let v = rows(1, n, 5, 3.0);
            let c: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(37)).collect();
            assert_eq!(
                sq8_dot(&c, &v).to_bits(),
                sq8_dot_portable(&c, &v).to_bits(),
                "n = {n}"
            );
            let direct: f64 = (0..n).map(|j| f64::from(v[j]) * f64::from(c[j])).sum();
            let scale: f64 = (0..n)
                .map(|j| (f64::from(v[j]) * f64::from(c[j])).abs())
                .sum();
            assert!((f64::from(sq8_dot(&c, &v)) - direct).abs() <= 1e-5 * scale.max(1e-30));
        }
    }

    /// The dot form's `ε` bounds the `f32` dot product's error on the worst
    /// case for cancellation: terms of both signs summing to about zero.
    #[test]
    fn the_dot_products_error_is_within_its_bound() {
        for (dim, scale) in [(384, 0.1f32), (129, 1e3), (40, 1e-18)] {
            let data = rows(50, dim, 21, scale);
            let list = Sq8List::encode(&data, dim).unwrap();
            for q in rows(4, dim, 22, scale).chunks_exact(dim) {
                let sq = Sq8Query::new(q, &list).unwrap();
                for i in 0..50 {
                    let codes = &list.codes[i * dim..(i + 1) * dim];
                    let exact: f64 = (0..dim)
                        .map(|j| {
                            (f64::from(q[j]) - f64::from(list.lo[j]))
                                * f64::from(list.step[j])
                                * f64::from(codes[j])
                        })
                        .sum();
                    let got = f64::from(sq8_dot(codes, &sq.v));
                    assert!(
                        (got - exact).abs() <= sq.eps,
                        "dim {dim} row {i}: {got} vs {exact}"
                    );
                }
            }
        }
    }
}
