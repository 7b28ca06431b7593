//! A GET's body as the chunks it arrived in.
//!
//! A planned GET may span gaps between the intervals it serves (overfetch):
//! on the identity layout `warp` fetches 5–10 MiB a query to use 0.5. Joining
//! each body into one buffer copied every fetched byte, gap bytes included,
//! into freshly mapped memory (a page fault per 4 KiB, the `memmove`, the
//! unmap on drop): a third of a `warp bench` process's CPU on fat plans, and
//! the bytes' CPU price that made fat plans lose on a busy machine. A
//! [`Body`] keeps the chunks instead, and an interval is cut out of them:
//! zero-copy when one chunk holds it, a copy of the interval's own bytes
//! when it straddles chunks. Gap bytes are never touched.
//!
//! # Complexity
//! [`Body::pieces`] is `O(log c + p)` for `c` chunks and `p` pieces returned;
//! memory is the chunks plus `8c` bytes of offsets.

use bytes::Bytes;

/// A body of `len` bytes held as its chunks, in order, none empty.
#[derive(Debug, Default)]
pub(crate) struct Body {
    chunks: Vec<Bytes>,
    /// `starts[i]`: the offset of `chunks[i]` within the body.
    starts: Vec<u64>,
    len: u64,
}

impl Body {
    /// A body of `chunks`, in order (empty ones are dropped). `O(c)`.
    pub(crate) fn new(chunks: Vec<Bytes>) -> Self {
        let mut starts = Vec::with_capacity(chunks.len());
        let mut kept = Vec::with_capacity(chunks.len());
        let mut len = 0u64;
        for c in chunks.into_iter().filter(|c| !c.is_empty()) {
            starts.push(len);
            len += c.len() as u64;
            kept.push(c);
        }
        Self {
            chunks: kept,
            starts,
            len,
        }
    }

    /// Bytes in the body. `O(1)`.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The pieces that make up bytes `lo..hi` of the body (clamped to its
    /// end), in order: zero-copy slices of the chunks. Empty for an empty
    /// or out-of-body range. `O(log c + p)`.
    pub(crate) fn pieces(&self, lo: u64, hi: u64) -> impl Iterator<Item = Bytes> + '_ {
        // An empty range starts past every chunk: nothing is taken.
        let hi = hi.min(self.len);
        let lo = if lo < hi { lo } else { self.len };
        // The chunk holding `lo`: the last one starting at or before it.
        let first = self.starts.partition_point(|&s| s <= lo).saturating_sub(1);
        self.chunks[first..]
            .iter()
            .zip(&self.starts[first..])
            .take_while(move |&(_, &s)| s < hi)
            .filter_map(move |(c, &s)| {
                let a = lo.max(s) - s;
                let b = hi.min(s + c.len() as u64) - s;
                (b > a).then(|| c.slice(a as usize..b as usize))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(parts: &[&'static [u8]]) -> Body {
        Body::new(parts.iter().map(|p| Bytes::from_static(p)).collect())
    }

    fn cut(b: &Body, lo: u64, hi: u64) -> Vec<Vec<u8>> {
        b.pieces(lo, hi).map(|p| p.to_vec()).collect()
    }

    #[test]
    fn a_range_inside_one_chunk_is_one_zero_copy_slice() {
        let b = body(&[b"abcd", b"efgh", b"ij"]);
        assert_eq!(b.len(), 10);
        assert_eq!(cut(&b, 5, 7), vec![b"fg".to_vec()]);
        let whole = &b.chunks[1];
        let p = b.pieces(4, 8).next().unwrap();
        assert_eq!(p.as_ptr(), whole.as_ptr(), "sliced, not copied");
    }

    #[test]
    fn a_range_across_chunks_is_cut_from_each() {
        let b = body(&[b"abcd", b"", b"efgh", b"ij"]);
        assert_eq!(
            cut(&b, 2, 9),
            vec![b"cd".to_vec(), b"efgh".to_vec(), b"i".to_vec()]
        );
        assert_eq!(cut(&b, 0, 10).concat(), b"abcdefghij");
    }

    #[test]
    fn ranges_past_the_end_or_empty_give_nothing_or_the_rest() {
        let b = body(&[b"abcd", b"ef"]);
        assert!(cut(&b, 6, 9).is_empty());
        assert!(cut(&b, 3, 3).is_empty());
        assert!(cut(&b, 5, 2).is_empty());
        assert_eq!(cut(&b, 3, 100), vec![b"d".to_vec(), b"ef".to_vec()]);
        assert!(cut(&Body::default(), 0, 4).is_empty());
    }

    #[test]
    fn every_range_matches_the_joined_body() {
        let b = body(&[b"a", b"bcd", b"efghi", b"j", b"klm"]);
        let joined = b"abcdefghijklm";
        for lo in 0..=14u64 {
            for hi in 0..=14u64 {
                let want: &[u8] = if hi > lo && lo < 13 {
                    &joined[lo as usize..hi.min(13) as usize]
                } else {
                    &[]
                };
                assert_eq!(cut(&b, lo, hi).concat(), want, "{lo}..{hi}");
            }
        }
    }
}
