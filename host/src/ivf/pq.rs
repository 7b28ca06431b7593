//! Product quantization: `m` sub-quantizers of 256 centroids (8 bits) each.
//! The query path's ADC tables are [`super::score::AdcTable`].

use rayon::prelude::*;

use super::distance::nearest;
use super::kmeans::{KMeansParams, train};
use crate::error::{Error, Result};

/// Centroids per sub-quantizer (8-bit codes).
pub const KSUB: usize = 256;

/// Lloyd iterations of each sub-quantizer's k-means (faiss's
/// `ProductQuantizer` default; the coarse quantizer runs 10). On the
/// real-embedding set 25 gained about 0.003 of recall@10 over 10 at every
/// nprobe, with and without rerank (BENCHMARKS.md, "IVF-PQ beside FAISS").
pub const PQ_NITER: usize = 25;

/// A trained product quantizer (faiss `ProductQuantizer` with `nbits = 8`).
#[derive(Debug, Clone, PartialEq)]
pub struct ProductQuantizer {
    /// Vector dimension `d`.
    pub dim: usize,
    /// Sub-quantizers `m` (`d` must be a multiple of `m`); also the code size
    /// in bytes.
    pub m: usize,
    /// Codebooks, `m × 256 × (d/m)` row-major.
    pub codebooks: Vec<f32>,
}

impl ProductQuantizer {
    /// Sub-vector dimension `d/m`.
    pub fn dsub(&self) -> usize {
        self.dim / self.m
    }

    /// Trains the `m` codebooks on the rows of `data` (`n × dim`): each by
    /// k-means ([`super::kmeans::train`]) of 256 centroids on its `d/m`
    /// coordinates, [`PQ_NITER`] iterations on a sample of at most `256 ·
    /// 256` of the rows, the `m` sub-quantizers in parallel.
    ///
    /// # Errors
    /// [`Error::Input`] when `m` is zero or does not divide `dim`, or there
    /// are fewer than 256 rows.
    pub fn train(data: &[f32], dim: usize, m: usize, seed: u64) -> Result<Self> {
        if m == 0 || !dim.is_multiple_of(m) {
            return Err(Error::input(format!(
                "--pq-m {m} must be >= 1 and divide the dimension {dim}"
            )));
        }
        let n = data.len() / dim;
        if n < KSUB {
            return Err(Error::input(format!(
                "IVF-PQ needs at least {KSUB} vectors to train its codebooks, got {n}"
            )));
        }
        let dsub = dim / m;
        let books: Vec<Result<Vec<f32>>> = (0..m)
            .into_par_iter()
            .map(|j| {
                train(
                    &sub_vectors(data, dim, j, dsub),
                    dsub,
                    &KMeansParams {
                        niter: PQ_NITER,
                        ..KMeansParams::new(KSUB, seed ^ (j as u64 + 1))
                    },
                    "",
                )
            })
            .collect();
        let mut codebooks = Vec::with_capacity(m * KSUB * dsub);
        for b in books {
            codebooks.extend(b?);
        }
        Ok(Self { dim, m, codebooks })
    }

    /// Codebook `j`: its 256 codewords, `256 × d/m` row-major.
    pub fn codebook(&self, j: usize) -> &[f32] {
        let len = KSUB * self.dsub();
        &self.codebooks[j * len..(j + 1) * len]
    }

    /// Codeword `c` of sub-quantizer `j` (`d/m` floats).
    pub fn codeword(&self, j: usize, c: usize) -> &[f32] {
        let dsub = self.dsub();
        let at = (j * KSUB + c) * dsub;
        &self.codebooks[at..at + dsub]
    }

    /// Encodes the rows of `data` (`n × dim`) into `n × m` bytes: for each
    /// sub-quantizer (in parallel) the nearest codeword of every row's
    /// sub-vector, by the blocked `sgemm` search of k-means
    /// ([`nearest`]): the nearest codeword under squared L2, ties possibly
    /// rounded the other way than a per-row scan would.
    ///
    /// # Complexity
    /// `O(n · 256 · d)` flops; `O(n · (d/m + m))` extra memory per running
    /// sub-quantizer.
    pub fn encode_all(&self, data: &[f32]) -> Vec<u8> {
        let (dim, m, dsub) = (self.dim, self.m, self.dsub());
        let n = data.len() / dim;
        let columns: Vec<Vec<u8>> = (0..m)
            .into_par_iter()
            .map(|j| {
                nearest(&sub_vectors(data, dim, j, dsub), self.codebook(j), dsub)
                    .into_iter()
                    .map(|(c, _)| c as u8)
                    .collect()
            })
            .collect();
        let mut codes = vec![0u8; n * m];
        for (j, col) in columns.iter().enumerate() {
            for (code, &c) in codes.chunks_exact_mut(m).zip(col) {
                code[j] = c;
            }
        }
        codes
    }

    /// Checks a deserialized quantizer's shape.
    ///
    /// # Errors
    /// [`Error::Index`] naming the mismatch.
    pub fn from_parts(dim: usize, m: usize, codebooks: Vec<f32>) -> Result<Self> {
        if m == 0 || !dim.is_multiple_of(m) || codebooks.len() != m * KSUB * (dim / m) {
            return Err(Error::index(format!(
                "codebooks hold {} floats, expected m = {m} x 256 x d/m for d = {dim}",
                codebooks.len()
            )));
        }
        Ok(Self { dim, m, codebooks })
    }
}

/// Coordinates `j·dsub .. (j+1)·dsub` of every row of `data` (`n × dim`),
/// `n × dsub` row-major.
fn sub_vectors(data: &[f32], dim: usize, j: usize, dsub: usize) -> Vec<f32> {
    data.chunks_exact(dim)
        .flat_map(|r| &r[j * dsub..(j + 1) * dsub])
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The brute-force reference of [`ProductQuantizer::encode_all`]: one
    /// vector, each sub-vector against its 256 codewords by `l2_sq`.
    fn encode_one(pq: &ProductQuantizer, x: &[f32], code: &mut [u8]) {
        let dsub = pq.dsub();
        for (j, out) in code.iter_mut().enumerate().take(pq.m) {
            let sub = &x[j * dsub..(j + 1) * dsub];
            let mut best = (0usize, f32::INFINITY);
            for c in 0..KSUB {
                let d = super::super::distance::l2_sq(sub, pq.codeword(j, c));
                if d < best.1 {
                    best = (c, d);
                }
            }
            *out = best.0 as u8;
        }
    }

    #[test]
    fn adc_approximates_l2() {
        use crate::ivf::score::{AdcTable, Metric, Scorer};
        let dim = 8;
        let data: Vec<f32> = (0..600 * dim).map(|i| ((i * 31) % 53) as f32).collect();
        let pq = ProductQuantizer::train(&data, dim, 4, 1).unwrap();
        let mut code = vec![0u8; 4];
        let x = &data[..dim];
        encode_one(&pq, x, &mut code);
        let s = Scorer::new(Metric::L2, x, &[100.0; 8]).unwrap();
        let mut table = AdcTable::default();
        s.adc_table(&pq, &[0.0; 8], &mut table);
        let d = s.distance(s.adc_key(&table, &code));
        assert!(d < 50.0, "self-distance {d}");
        assert!(ProductQuantizer::train(&data, dim, 3, 1).is_err());
    }

    #[test]
    fn encode_all_matches_encode_and_training_is_seeded() {
        let dim = 16;
        let data: Vec<f32> = (0..700 * dim)
            .map(|i| ((i * 7919) % 211) as f32 / 10.0)
            .collect();
        let pq = ProductQuantizer::train(&data, dim, 4, 7).unwrap();
        assert_eq!(pq, ProductQuantizer::train(&data, dim, 4, 7).unwrap());
        assert_eq!(pq.codebook(2), &pq.codebooks[2 * 256 * 4..3 * 256 * 4]);
        let all = pq.encode_all(&data);
        assert_eq!(all.len(), 700 * 4);
        let mut one = vec![0u8; 4];
        for (x, code) in data.chunks_exact(dim).zip(all.chunks_exact(4)) {
            encode_one(&pq, x, &mut one);
            // The sgemm form may round a near tie the other way: then the
            // two codewords are equally near.
            for j in 0..4 {
                let sub = &x[j * 4..(j + 1) * 4];
                let a = crate::ivf::distance::l2_sq(sub, pq.codeword(j, code[j] as usize));
                let b = crate::ivf::distance::l2_sq(sub, pq.codeword(j, one[j] as usize));
                assert!((a - b).abs() <= 1e-3 * (1.0 + b), "{a} vs {b}");
            }
        }
    }
}
