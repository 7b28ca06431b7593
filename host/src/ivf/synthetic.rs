//! A seeded SIFT-like data generator: a Gaussian mixture in 128-d with
//! non-negative components and a decaying per-dimension spread, so clusters
//! overlap the way descriptor data does.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

/// Parameters of [`generate`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyntheticParams {
    /// Base vectors. Default 100 000.
    pub n: usize,
    /// Query vectors (drawn from the same mixture). Default 1 000.
    pub nq: usize,
    /// Dimension. Default 128 (SIFT).
    pub dim: usize,
    /// Mixture components. Default 64.
    pub components: usize,
    /// Seed; the same seed gives the same bytes on every machine.
    pub seed: u64,
}

impl Default for SyntheticParams {
    fn default() -> Self {
        Self {
            n: 100_000,
            nq: 1_000,
            dim: 128,
            components: 64,
            seed: 42,
        }
    }
}

/// Rows generated per seeded block (fixes the output independently of the
/// thread count).
const BLOCK: usize = 4096;

/// Generates `(base, queries)`, each row-major with `params.dim` columns.
pub fn generate(params: &SyntheticParams) -> (Vec<f32>, Vec<f32>) {
    let dim = params.dim.max(1);
    let g = params.components.max(1);
    let mut rng = ChaCha8Rng::seed_from_u64(params.seed);
    // Component centres in [0, 64)^d, spread decaying over dimensions (a
    // component-specific random permutation of the decay keeps dims mixed).
    let mut centres = vec![0f32; g * dim];
    let mut spread = vec![0f32; g * dim];
    for c in 0..g {
        let scale = rng.random_range(6.0f32..14.0);
        for j in 0..dim {
            centres[c * dim + j] = rng.random_range(0.0f32..64.0);
            let rank = rng.random_range(0..dim) as f32;
            spread[c * dim + j] = scale / (1.0 + rank / 32.0);
        }
    }
    let draw = |rows: usize, stream: u64| -> Vec<f32> {
        let mut out = vec![0f32; rows * dim];
        out.par_chunks_mut(BLOCK * dim)
            .enumerate()
            .for_each(|(b, chunk)| {
                let mut r = ChaCha8Rng::seed_from_u64(
                    params.seed ^ stream.wrapping_mul(0xA076_1D64_78BD_642F) ^ (b as u64 + 1),
                );
                for row in chunk.chunks_exact_mut(dim) {
                    let c = r.random_range(0..g);
                    for (j, x) in row.iter_mut().enumerate() {
                        let z: f32 = StandardNormal.sample(&mut r);
                        *x = (centres[c * dim + j] + spread[c * dim + j] * z).max(0.0);
                    }
                }
            });
        out
    };
    (draw(params.n, 1), draw(params.nq, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_shaped() {
        let p = SyntheticParams {
            n: 5000,
            nq: 10,
            dim: 16,
            components: 8,
            seed: 1,
        };
        let (a, q) = generate(&p);
        assert_eq!((a.len(), q.len()), (5000 * 16, 160));
        assert_eq!(generate(&p).0, a);
        assert!(a.iter().all(|x| x.is_finite() && *x >= 0.0));
    }
}
