//! The distance scans of the query path: IVF-Flat lists, IVF-PQ lists by
//! ADC, and the exact rerank of PQ candidates; the bounded top-k they feed.
//!
//! A list of `count` vectors is `count · code_size` code bytes, then `count`
//! little-endian `u32` ids ([`ListEntry`](super::ListEntry)). A rerank record
//! is `dim` little-endian `f32`, then the CRC32C of those bytes.
//!
//! Every score comes from the query's [`Scorer`] (`f64`, finite and ranked
//! for every finite query); an IVF-Flat scan under squared L2 screens each
//! vector with an `f32` lower bound first and keys only those that could be
//! kept ([`Scanner::scan`]), which gives the same top-k. Ties are broken by id, then by row, so the
//! answer never depends on the order lists arrive in (planning changes I/O,
//! never answers).

use std::collections::BinaryHeap;

use super::index::Index;
use super::score::{AdcTable, Key, Scorer, Sq8List, Sq8Query};

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

    /// The value of the worst kept key once `want` are kept (a candidate
    /// whose key's value exceeds it is not kept), else `None`. `O(1)`.
    pub fn bound(&self) -> Option<f64> {
        if self.heap.len() < self.want {
            return None;
        }
        self.heap.peek().map(|c| c.0.value())
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

    /// Scores every vector of list `list_no` (its verified `bytes`, and its
    /// 8-bit `screen` when the payload cache keeps one) into `top`: the
    /// exact key for IVF-Flat, the ADC key of the reconstruction (list
    /// centroid plus codewords) for IVF-PQ.
    ///
    /// IVF-Flat under a scorer that screens ([`Scorer::screens`]: squared
    /// L2, the query inside the data's range) first takes each vector's
    /// `f32` lower bound ([`Scorer::lower_bound`]) and skips the vector when
    /// `top` is full and the bound exceeds its worst key: that key is
    /// exact, so the skipped vector would not have been kept, and `top` ends
    /// exactly as without the screen. Only the vectors that pass pay for the
    /// `f64` key (on 384-d MiniLM lists, all but the first few of a query).
    /// With a cached list's 8-bit `screen` ([`Sq8Query`]) the bound comes
    /// from one byte a coordinate instead of four, the same way.
    ///
    /// # Complexity
    /// Flat: `O(count · dim)`. PQ: `O(m · ksub · dsub)` for the table, then
    /// `O(count · m)`.
    pub fn scan(&mut self, list_no: u32, bytes: &[u8], screen: Option<&Sq8List>, top: &mut TopK) {
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
                let first = e.first_row;
                // A screen of another shape (never: it was made from these
                // bytes) is not used.
                let sq8 = screen
                    .filter(|s| s.len() == count)
                    .and_then(|s| self.scorer.sq8(s));
                let tag = |i: usize| (id(i), first + i as u64);
                match sq8 {
                    Some(sq) => scan_sq8(self.scorer, &sq, codes, dim, &mut self.vector, top, tag),
                    None => scan_flat(self.scorer, codes, dim, &mut self.vector, top, tag),
                }
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

/// Keys each row `i` of `codes` (rows of `dim` little-endian `f32`) into
/// `top` as `(key, tag(i))`, screened by the `f32` bound where `scorer`
/// screens (see [`Scanner::scan`]): the same `top` as keying every row.
///
/// # Complexity
/// `O(rows · dim)`; the `f64` key only for rows that pass the screen.
fn scan_flat(
    scorer: &Scorer,
    codes: &[u8],
    dim: usize,
    buf: &mut [f32],
    top: &mut TopK,
    tag: impl Fn(usize) -> (u32, u64),
) {
    if scorer.screens() {
        scan_bounded(scorer, codes, dim, buf, top, tag, |_, row, worst| {
            scorer.lower_bound(row) > worst
        });
    } else {
        scan_bounded(scorer, codes, dim, buf, top, tag, |_, _, _| false);
    }
}

/// [`scan_flat`] with the bound of a list's 8-bit screen (`sq`, prepared
/// for this query and list) in place of the `f32` one: the same `top`.
/// Reads `dim` bytes of codes a row ([`Sq8Query::exceeds`]), and the row's
/// floats only for rows that pass.
fn scan_sq8(
    scorer: &Scorer,
    sq: &Sq8Query<'_>,
    codes: &[u8],
    dim: usize,
    buf: &mut [f32],
    top: &mut TopK,
    tag: impl Fn(usize) -> (u32, u64),
) {
    scan_bounded(scorer, codes, dim, buf, top, tag, |i, _, worst| {
        sq.exceeds(i, worst)
    });
}

/// The one screened loop: row `i` is skipped when `top` is full and
/// `above(i, row, worst)` proves its key's value above `worst`, the worst
/// key kept (it would not have been kept); every other row is keyed
/// exactly. `O(rows · dim)` plus the bounds.
fn scan_bounded(
    scorer: &Scorer,
    codes: &[u8],
    dim: usize,
    buf: &mut [f32],
    top: &mut TopK,
    tag: impl Fn(usize) -> (u32, u64),
    above: impl Fn(usize, &[f32], f64) -> bool,
) {
    for_each_row(codes, dim, buf, |i, row| {
        if let Some(worst) = top.bound()
            && above(i, row, worst)
        {
            return;
        }
        let (id, row_no) = tag(i);
        top.push(scorer.key(row), id, row_no);
    });
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
    fn the_screened_scan_keeps_exactly_what_keying_every_row_keeps() {
        use super::super::score::Metric;
        let dim = 48;
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        };
        // 600 rows: 100 random; a shell of 300 rows `q + t·v`, `t` falling
        // from 1.003 to 1 by 10⁻⁵, so each arrives a hair below the keys
        // kept before it (a screen that overshot by 10⁻³ would skip it); 60
        // copies of earlier rows (ties by key); more random rows; five rows
        // a hair from the query at the end. Under the inner product the
        // shell's keys fall with `t` when `q·v < 0`.
        let q: Vec<f32> = (0..dim).map(|_| next()).collect();
        let v: Vec<f32> = (0..dim).map(|_| 0.1 * next()).collect();
        let qv: f32 = q.iter().zip(&v).map(|(a, b)| a * b).sum();
        for metric in [Metric::L2, Metric::Dot, Metric::Cosine] {
            let sign = if metric != Metric::L2 && qv > 0.0 {
                -1.0
            } else {
                1.0
            };
            let mut rows: Vec<f32> = Vec::new();
            for r in 0..600 {
                let row: Vec<f32> = match r {
                    100..400 => {
                        let t = sign * (1.0 + (399 - r) as f32 * 1e-5);
                        q.iter().zip(&v).map(|(&a, &b)| a + t * b).collect()
                    }
                    400..460 => rows[(r - 390) * 5 * dim..((r - 390) * 5 + 1) * dim].to_vec(),
                    595.. => q.iter().map(|&v| v + 1e-6 * next()).collect(),
                    _ => (0..dim).map(|_| next()).collect(),
                };
                rows.extend(row);
            }
            let codes: Vec<u8> = rows.iter().flat_map(|v| v.to_le_bytes()).collect();
            let scorer = Scorer::new(metric, &q, &vec![10.0; dim]).unwrap();
            assert!(scorer.screens());
            for k in [1, 5, 10, 100, 600, 700] {
                let mut screened = TopK::new(k);
                let mut buf = vec![0f32; dim];
                // Ids repeat so that ties reach the row number too.
                scan_flat(&scorer, &codes, dim, &mut buf, &mut screened, |i| {
                    ((i % 37) as u32, i as u64)
                });
                let mut every = TopK::new(k);
                for (i, row) in rows.chunks_exact(dim).enumerate() {
                    every.push(scorer.key(row), (i % 37) as u32, i as u64);
                }
                let (a, b) = (screened.into_sorted(), every.into_sorted());
                assert_eq!(a.len(), b.len(), "{metric} k = {k}");
                for (x, y) in a.iter().zip(&b) {
                    assert!(x == y, "{metric} k = {k}: {x:?} vs {y:?}");
                }
                // The cached list's 8-bit screen, under every metric: the
                // same.
                let list = Sq8List::encode(&rows, dim).unwrap();
                let sq = scorer.sq8(&list).unwrap();
                let mut cached = TopK::new(k);
                scan_sq8(&scorer, &sq, &codes, dim, &mut buf, &mut cached, |i| {
                    ((i % 37) as u32, i as u64)
                });
                let c = cached.into_sorted();
                assert_eq!(c.len(), b.len(), "{metric} sq8 k = {k}");
                for (x, y) in c.iter().zip(&b) {
                    assert!(x == y, "{metric} sq8 k = {k}: {x:?} vs {y:?}");
                }
            }
        }
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
