//! The rate a link carried while bodies streamed over it, read from the
//! bodies' own start and end times (the load estimate's `C`, ARCHITECTURE
//! §8).
//!
//! # The math
//!
//! Body `j` streamed `L_j` MiB from its headers at `s_j` to its last byte at
//! `e_j`: on average at `ρ_j = L_j / (e_j − s_j)`. Spreading each body's
//! bytes evenly over its own interval, the link carried
//!
//! ```text
//! a(t) = Σ_{j : s_j ≤ t < e_j} ρ_j
//! ```
//!
//! at time `t`, a step function with a step at every `s_j` and `e_j`. On a
//! link of capacity `C` shared by its bodies, `a(t) = C` whenever the
//! bodies in flight together want more than `C` (each gets its fair share,
//! below its own pace), and `a(t) < C` when they want less. The estimate is
//! the `q`-quantile of `a` over the time at least one body streamed
//! (weighted by duration, idle time left out):
//!
//! ```text
//! r_q = min { a : |{t ∈ A : a(t) ≤ a}| ≥ q · |A| },   A = ∪_j [s_j, e_j)
//! ```
//!
//! Unlike the mean rate over a span of completions (MiB over time), `r_q`
//! does not count the time between waves, when every GET waits for its
//! first byte and the link idles, so a link that is full only while bodies
//! stream is read at its capacity rather than at its mean use. Spreading a
//! body's bytes evenly is an approximation (a body shares the link with
//! different others over its life), which reads some moments above `C` and
//! some below it. Replayed over the GETs of `warp` and `object_store_rule`
//! on the load grid's four indexes at `Q` = 32 and 128 over a simulated
//! 1 024 MiB/s link (quiet machine, 14 runs whose link was seen full), the
//! upper quartile ([`LINK_RATE_QUANTILE`](crate::load::LINK_RATE_QUANTILE)) read 807–1 101 MiB/s, 10 of the
//! 14 within ±7 %, where the median of the mean rates over 64 completions
//! (the estimate before) read 526–1 101.
//!
//! # Complexity
//! `O(n log n)` for `n` bodies (two sorts of `2n` events and at most `2n`
//! steps), in scratch space the caller keeps: no allocation once warm.

/// Scratch space for [`link_rate_mib_s`], kept between calls.
#[derive(Debug, Default)]
pub(crate) struct LinkRateScratch {
    /// `(time_ms, rate change MiB/s)`: a body starting or ending.
    events: Vec<(f64, f64)>,
    /// `(rate MiB/s, duration ms)` of each step with a body in flight.
    steps: Vec<(f64, f64)>,
}

/// `r_q` of the module docs, MiB/s, for `bodies` given as `(start_ms,
/// end_ms, mib)` on any common clock; bodies shorter than `min_body_ms`
/// (their bytes came with their headers) are left out. `None` when the
/// bodies streamed for less than `min_span_ms` in all. `O(n log n)`.
pub(crate) fn link_rate_mib_s(
    bodies: impl Iterator<Item = (f64, f64, f64)>,
    q: f64,
    min_body_ms: f64,
    min_span_ms: f64,
    scratch: &mut LinkRateScratch,
) -> Option<f64> {
    let LinkRateScratch { events, steps } = scratch;
    events.clear();
    steps.clear();
    for (start, end, mib) in bodies {
        let ms = end - start;
        if ms >= min_body_ms && mib > 0.0 {
            let rate = mib / (ms / 1000.0);
            events.push((start, rate));
            events.push((end, -rate));
        }
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Walk the events in time order; a step is the time between two of
    // them, at the rate of the bodies then in flight. Counting the bodies
    // (not testing the rate for zero) tells idle time from rounding.
    let (mut rate, mut active, mut last) = (0.0_f64, 0usize, f64::NEG_INFINITY);
    for &(t, change) in events.iter() {
        if active > 0 && t > last {
            steps.push((rate.max(0.0), t - last));
        }
        rate += change;
        if change > 0.0 {
            active += 1;
        } else {
            active = active.saturating_sub(1);
        }
        if active == 0 {
            rate = 0.0;
        }
        last = t;
    }
    let span: f64 = steps.iter().map(|s| s.1).sum();
    if span < min_span_ms {
        return None;
    }
    steps.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut covered = 0.0;
    for &(rate, ms) in steps.iter() {
        covered += ms;
        if covered >= q * span {
            return Some(rate);
        }
    }
    steps.last().map(|s| s.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::LINK_RATE_QUANTILE;

    fn rate(bodies: &[(f64, f64, f64)], q: f64) -> Option<f64> {
        link_rate_mib_s(
            bodies.iter().copied(),
            q,
            0.05,
            20.0,
            &mut LinkRateScratch::default(),
        )
    }

    #[test]
    fn a_link_full_in_waves_is_read_at_its_capacity_not_its_mean_use() {
        // Every 50 ms, eight 1 MiB bodies share a 1 024 MiB/s link for
        // 7.8125 ms; the link idles the rest of the time. Mean use is
        // 160 MiB/s; while bodies stream, the link carries 1 024.
        let wave_ms = 8.0 / 1024.0 * 1000.0;
        let bodies: Vec<_> = (0..20)
            .flat_map(|w| {
                let s = 50.0 * f64::from(w);
                (0..8).map(move |_| (s, s + wave_ms, 1.0))
            })
            .collect();
        let r = rate(&bodies, LINK_RATE_QUANTILE).unwrap();
        assert!((r - 1024.0).abs() < 1e-6, "{r}");
    }

    #[test]
    fn the_quantile_is_weighted_by_time() {
        // 30 ms at 100 MiB/s (one body), then 10 ms at 300 (two overlapping:
        // 100 + 200), then 10 ms at 200.
        let bodies = [(0.0, 40.0, 4.0), (30.0, 50.0, 4.0)];
        let at = |q: f64| rate(&bodies, q).unwrap();
        assert!((at(0.5) - 100.0).abs() < 1e-9, "{}", at(0.5));
        assert!((at(0.75) - 200.0).abs() < 1e-9, "{}", at(0.75));
        assert!((at(0.85) - 300.0).abs() < 1e-9, "{}", at(0.85));
        assert!((at(1.0) - 300.0).abs() < 1e-9, "{}", at(1.0));
    }

    #[test]
    fn bodies_that_came_with_their_headers_or_too_little_time_give_nothing() {
        // Bodies of no duration: left out, nothing streamed.
        assert_eq!(rate(&[(0.0, 0.0, 1.0), (5.0, 5.01, 1.0)], 0.75), None);
        // Streaming for 10 ms in all: under the 20 ms a rate needs.
        assert_eq!(rate(&[(0.0, 5.0, 1.0), (100.0, 105.0, 1.0)], 0.75), None);
        assert_eq!(rate(&[], 0.75), None);
    }

    #[test]
    fn a_warm_scratch_is_reused() {
        let mut scratch = LinkRateScratch::default();
        let bodies: Vec<_> = (0..64)
            .map(|i| (f64::from(i), f64::from(i) + 10.0, 1.0))
            .collect();
        link_rate_mib_s(bodies.iter().copied(), 0.75, 0.05, 20.0, &mut scratch).unwrap();
        let caps = (scratch.events.capacity(), scratch.steps.capacity());
        link_rate_mib_s(bodies.iter().copied(), 0.75, 0.05, 20.0, &mut scratch).unwrap();
        assert_eq!(caps, (scratch.events.capacity(), scratch.steps.capacity()));
    }
}
