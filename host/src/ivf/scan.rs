//! The distance scans of the query path: IVF-Flat lists, IVF-PQ lists by
//! ADC, and the exact rerank of PQ candidates; the bounded top-k they feed.
//!
//! A list of `count` vectors is `count · code_size` code bytes, then `count`
//! little-endian `u32` ids ([`ListEntry`](super::ListEntry)). A rerank record
//! is `dim` little-endian `f32`, then the CRC32C of those bytes.
//!
//! Every score comes from the query's [`Scorer`] (`f64`, finite and ranked
//! for every finite query). Ties are broken by id, then by row, so the
//! answer never depends on the order lists arrive in (planning changes I/O,
//! never answers).

use std::collections::BinaryHeap;

use super::index::Index;
use super::score::{AdcTable, Key, Scorer};

/// A scored vector: `(key, id, row)`; ordered by key, then id, then row.
pub type Candidate = (Key, u32, u64);

/// Decodes little-endian `f32`s (a trailing partial value is ignored).
pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    let mut v = Vec::with_capacity(bytes.len() / 4);
    f32s_into(bytes, &mut v);
    v
}

/// [`f32s`] into `buf` (cleared first; no allocation once it holds
/// `bytes.len() / 4`). `O(bytes)`.
pub fn f32s_into(bytes: &[u8], buf: &mut Vec<f32>) {
    buf.clear();
    buf.extend(
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
    );
}

/// The `want` smallest candidates seen, in a max-heap.
///
/// # Complexity
/// `O(log want)` per push, `O(want)` memory.
#[derive(Debug)]
pub struct TopK {
    heap: BinaryHeap<Candidate>,
    want: usize,
}

impl TopK {
    /// Keeps the best `want`.
    pub fn new(want: usize) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(want + 1),
            want,
        }
    }

    /// Offers one candidate.
    pub fn push(&mut self, key: Key, id: u32, row: u64) {
        let item = (key, id, row);
        if self.heap.len() < self.want {
            self.heap.push(item);
        } else if let Some(top) = self.heap.peek()
            && item < *top
        {
            self.heap.pop();
            self.heap.push(item);
        }
    }

    /// The kept candidates, best first.
    pub fn into_sorted(self) -> Vec<Candidate> {
        self.heap.into_sorted_vec()
    }
}

/// Scans lists of one index for one query, reusing its buffers.
#[derive(Debug)]
pub struct Scanner<'a> {
    index: &'a Index,
    scorer: &'a Scorer,
    table: AdcTable,
    vector: Vec<f32>,
}

impl<'a> Scanner<'a> {
    /// A scanner of `index` for a query prepared by `scorer`
    /// ([`Index::scorer`]).
    pub fn new(index: &'a Index, scorer: &'a Scorer) -> Self {
        let dim = index.manifest.dim;
        Self {
            index,
            scorer,
            table: AdcTable::default(),
            vector: vec![0.0; dim],
        }
    }

    /// Scores every vector of list `list_no` (its verified `bytes`) into
    /// `top`: the exact key for IVF-Flat, the ADC key of the reconstruction
    /// (list centroid plus codewords) for IVF-PQ.
    ///
    /// # Complexity
    /// Flat: `O(count · dim)`. PQ: `O(m · ksub · dsub)` for the table, then
    /// `O(count · m)`.
    pub fn scan(&mut self, list_no: u32, bytes: &[u8], top: &mut TopK) {
        let m = &self.index.manifest;
        let e = &m.lists[list_no as usize];
        let (code_size, dim) = (m.code_size, m.dim);
        let count = e.count as usize;
        let (codes, ids) = bytes.split_at(count * code_size);
        let id = |i: usize| {
            let b = &ids[i * 4..i * 4 + 4];
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        };
        match &self.index.pq {
            None => {
                let scorer = self.scorer;
                for_each_row(codes, dim, &mut self.vector, |i, row| {
                    top.push(scorer.key(row), id(i), e.first_row + i as u64);
                });
            }
            Some(pq) => {
                let l = list_no as usize;
                let c = &self.index.centroids[l * dim..(l + 1) * dim];
                self.scorer.adc_table(pq, c, &mut self.table);
                for (i, code) in codes.chunks_exact(code_size).enumerate() {
                    top.push(
                        self.scorer.adc_key(&self.table, code),
                        id(i),
                        e.first_row + i as u64,
                    );
                }
            }
        }
    }
}

/// Calls `f(i, row)` for each row `i` of `codes`, rows of `dim`
/// little-endian `f32`s back to back (`buf.len() == dim`). On a
/// little-endian host, bytes aligned for `f32` are read in place; otherwise
/// each row is decoded into `buf` first. The values are the same either way;
/// the copy was as much of a cached scan's CPU as the distances themselves
/// (BENCHMARKS, *Cached lists scanned in place*).
///
/// # Complexity
/// `O(codes.len())`; no allocation.
fn for_each_row(codes: &[u8], dim: usize, buf: &mut [f32], mut f: impl FnMut(usize, &[f32])) {
    debug_assert_eq!(buf.len(), dim);
    if dim == 0 {
        return;
    }
    #[cfg(target_endian = "little")]
    {
        // SAFETY: every bit pattern is a valid `f32`, and `align_to` hands
        // out only the part of `codes` that is aligned for it.
        let (head, floats, tail) = unsafe { codes.align_to::<f32>() };
        if head.is_empty() && tail.is_empty() {
            for (i, row) in floats.chunks_exact(dim).enumerate() {
                f(i, row);
            }
            return;
        }
    }
    for (i, c) in codes.chunks_exact(dim * 4).enumerate() {
        for (v, b) in buf.iter_mut().zip(c.chunks_exact(4)) {
            *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        f(i, buf);
    }
}

/// Checks a rerank record's CRC: `Err((expected, actual))` on a mismatch.
pub fn check_record(record: &[u8], dim: usize) -> Result<(), (u32, u32)> {
    let (v, crc) = record.split_at(dim * 4);
    let expected = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
    let actual = crc32c::crc32c(v);
    if expected == actual {
        Ok(())
    } else {
        Err((expected, actual))
    }
}

/// The key of a (checked) rerank record of `dim` floats under `scorer`,
/// decoded into `buf` (reused across a query's records: no allocation once
/// it holds `dim`). `O(dim)`.
pub fn record_key(scorer: &Scorer, record: &[u8], dim: usize, buf: &mut Vec<f32>) -> Key {
    f32s_into(&record[..dim * 4], buf);
    scorer.key(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_keeps_the_smallest_with_ties_by_id() {
        let mut t = TopK::new(2);
        for (d, id) in [(3.0, 1), (1.0, 9), (1.0, 4), (2.0, 2)] {
            t.push(Key::sum(0.0, d), id, 0);
        }
        let ids: Vec<u32> = t.into_sorted().iter().map(|c| c.1).collect();
        assert_eq!(ids, vec![4, 9]);
    }

    #[test]
    fn rows_read_in_place_equal_rows_decoded() {
        let dim = 3;
        let values: Vec<f32> = (0..4 * dim).map(|i| i as f32 * 1.5 - 7.25).collect();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        // The same rows at every offset modulo 4 of a buffer: aligned (read in
        // place) and not (decoded).
        let mut storage = vec![0u8; bytes.len() + 8];
        for shift in 0..4 {
            storage[shift..shift + bytes.len()].copy_from_slice(&bytes);
            let codes = &storage[shift..shift + bytes.len()];
            let mut buf = vec![0f32; dim];
            let mut got = Vec::new();
            for_each_row(codes, dim, &mut buf, |i, row| got.push((i, row.to_vec())));
            let want: Vec<(usize, Vec<f32>)> = values
                .chunks_exact(dim)
                .map(<[f32]>::to_vec)
                .enumerate()
                .collect();
            assert_eq!(got, want, "shift {shift}");
        }
        let mut buf = Vec::new();
        for_each_row(&bytes, 0, &mut buf, |_, _| panic!("no rows of dimension 0"));
    }

    #[test]
    fn records_are_checked_and_scored() {
        let v = [1f32, 2.0];
        let mut rec: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let crc = crc32c::crc32c(&rec);
        rec.extend_from_slice(&crc.to_le_bytes());
        assert!(check_record(&rec, 2).is_ok());
        let s = Scorer::new(super::super::score::Metric::L2, &[1.0, 0.0], &[10.0; 2]).unwrap();
        let mut buf = vec![9.0; 7];
        assert_eq!(s.distance(record_key(&s, &rec, 2, &mut buf)), 4.0);
        // The buffer is reused, whatever it held: the same key again.
        assert_eq!(s.distance(record_key(&s, &rec, 2, &mut buf)), 4.0);
        assert_eq!(buf, v);
        rec[0] ^= 1;
        assert!(check_record(&rec, 2).is_err());
    }
}
