//! Plans: merged requests, their objectives and their cost.

use crate::objective::Parallelism;
use crate::surrogate::Surrogate;

/// One merged Range-GET: the byte range `[offset, offset + len)` covering the
/// required intervals `first..=last` (inclusive indices into the input).
///
/// For every WaRP method and for `separate`/`coalesce`, the range is exactly
/// `[start(first), end(last))`. The `lance` baseline also splits long ranges into
/// near-equal pieces; a piece then lists the intervals it intersects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Request {
    /// First interval covered (inclusive).
    pub first: u32,
    /// Last interval covered (inclusive).
    pub last: u32,
    /// First byte requested.
    pub offset: u64,
    /// Bytes requested.
    pub len: u64,
}

/// The figures of a plan `π` (ARCHITECTURE §2 and §5).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PlanSummary {
    /// `|π|`, the number of GETs.
    pub requests: usize,
    /// `Σ L_g`, bytes fetched.
    pub bytes: u64,
    /// `bytes − Σ |I_i|`, gap bytes fetched and discarded.
    pub overfetch_bytes: u64,
    /// `W(π) = Σ_g t(L_g)`, summed in request order.
    pub w_ms: f64,
    /// `B(π) = max_g t(L_g)` (0 for the empty plan).
    pub b_ms: f64,
    /// `T_P(π) = W/P + (1 − 1/P)·B`.
    pub t_ms: f64,
    /// A certified lower bound on `min T_P` over every plan with at most `K_max`
    /// requests, where the method has one.
    pub lower_bound_ms: Option<f64>,
}

/// Computes `W`, `B`, `T_P`, bytes and overfetch of `requests`;
/// `required_bytes = Σ |I_i|`. `lower_bound_ms` is left `None`.
///
/// # Complexity
/// `O(|π|)` surrogate evaluations; no allocation.
pub fn summarize(
    requests: &[Request],
    required_bytes: u64,
    surrogate: &Surrogate,
    p: Parallelism,
) -> PlanSummary {
    let mut w = 0.0;
    let mut b: f64 = 0.0;
    let mut bytes = 0u64;
    for r in requests {
        let t = surrogate.eval(r.len);
        w += t;
        // Not `f64::max`: on wasm32 that is a call to `fmax` (t is finite, >= 0).
        if t > b {
            b = t;
        }
        bytes += r.len;
    }
    PlanSummary {
        requests: requests.len(),
        bytes,
        overfetch_bytes: bytes - required_bytes,
        w_ms: w,
        b_ms: b,
        t_ms: p.t_p(w, b),
        lower_bound_ms: None,
    }
}

/// Object-store prices used for cost accounting (ARCHITECTURE §2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pricing {
    /// Dollars per 1,000 GET requests.
    pub per_1k_get: f64,
    /// Dollars per GiB transferred.
    pub per_gib_transfer: f64,
}

impl Default for Pricing {
    /// S3 Standard, same region: $0.0004 per 1,000 GETs, no transfer charge.
    fn default() -> Self {
        Self {
            per_1k_get: 0.0004,
            per_gib_transfer: 0.0,
        }
    }
}

impl Pricing {
    /// `GETs · per_1k_get / 1000 + bytes · per_gib_transfer / 2^30`.
    pub fn dollars(&self, requests: usize, bytes: u64) -> f64 {
        requests as f64 * self.per_1k_get / 1000.0
            + bytes as f64 * self.per_gib_transfer / 1_073_741_824.0
    }
}
