//! Seeded synthetic probe intervals: the instances of the planner's
//! benchmarks, its allocation test and its examples.

use crate::Interval;

/// `n` sorted, disjoint intervals shaped like the probes of one IVF query whose
/// cluster payloads lie back to back in one object.
///
/// Payloads are 4 KiB–1 MiB. Within a clump of co-probed clusters the next
/// probed payload starts `g·u` bytes later (`g` uniform in 0–3 skipped
/// payloads, `u` uniform below 512 KiB); one gap in six starts a new clump
/// 8–72 MiB away. The stream is xorshift64 from `seed | 1`, so the instance
/// is a pure function of `(n, seed)` on every platform.
///
/// # Complexity
/// `O(n)` time; one allocation (the returned vector).
pub fn ivf_probes(n: usize, seed: u64) -> Vec<Interval> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut at = 0u64;
    (0..n)
        .map(|_| {
            let gap = if next() % 6 == 0 {
                (next() % 64 + 8) << 20
            } else {
                (next() % 4) * (next() % (512 << 10))
            };
            let len = 4096 + next() % ((1 << 20) - 4096);
            at += gap;
            let iv = Interval::new(at, len);
            at += len;
            iv
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_are_sorted_disjoint_and_seeded() {
        let a = ivf_probes(500, 3);
        assert_eq!(a, ivf_probes(500, 3));
        assert_ne!(a, ivf_probes(500, 4));
        for w in a.windows(2) {
            assert!(w[0].offset + w[0].len <= w[1].offset);
        }
        assert!(a.iter().all(|iv| (4096..1 << 20).contains(&iv.len)));
    }
}
