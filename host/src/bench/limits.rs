//! Bounds on the numeric flags of `warp bench` and `warp demo`, checked
//! before any work so a bad value costs nothing (one line naming the flag).
//!
//! The bounds are what this kind of machine can finish: a run's memory no
//! longer grows with its query count (see [`Suite`](super::Suite)), so the limits
//! on counts bound *time* (a million queries at ~1 000 QPS is ~17 minutes per
//! run), and the limits on concurrency bound tasks and sockets in flight.

use crate::error::{Error, Result};

/// Most queries measured per run (`--queries`).
pub const MAX_QUERIES: usize = 1_000_000;
/// Most warm-up queries per run (`--warmup`).
pub const MAX_WARMUP: usize = 100_000;
/// Largest `--repeat` of `warp bench`.
pub const MAX_REPEAT: usize = 20;
/// Largest query concurrency `Q` (`--concurrency`).
pub const MAX_CONCURRENCY: usize = 4096;
/// Largest number of Q values or cache sizes in one sweep.
pub const MAX_SWEEP: usize = 32;

/// Checks `min <= value <= max` for `flag`.
///
/// # Errors
/// [`Error::Config`] naming the flag, the value and the range.
pub fn check_range(flag: &str, value: usize, min: usize, max: usize) -> Result<usize> {
    if value < min || value > max {
        return Err(Error::config(
            flag,
            value,
            format!("must be within {min}..={max}"),
        ));
    }
    Ok(value)
}

/// Parses a comma-separated list of query concurrencies, each within
/// `1..=MAX_CONCURRENCY`, at most [`MAX_SWEEP`] of them.
///
/// # Errors
/// [`Error::Config`] naming `flag` for a non-number, a value out of range, or
/// too many values.
pub fn parse_concurrency(flag: &str, s: &str) -> Result<Vec<usize>> {
    parse_list(flag, s, MAX_CONCURRENCY)
}

/// Parses a comma-separated list of integers, each within `1..=max`, at most
/// [`MAX_SWEEP`] of them (`--concurrency`, `--nprobe`).
///
/// # Errors
/// [`Error::Config`] naming `flag` for a non-number, a value out of range, or
/// too many values.
pub fn parse_list(flag: &str, s: &str, max: usize) -> Result<Vec<usize>> {
    let qs: Vec<usize> = s
        .split(',')
        .map(|x| {
            let x = x.trim();
            let q = x
                .parse::<usize>()
                .map_err(|_| Error::config(flag, x, "expected integers >= 1"))?;
            check_range(flag, q, 1, max)
        })
        .collect::<Result<_>>()?;
    if qs.len() > MAX_SWEEP {
        return Err(Error::config(
            flag,
            s,
            format!("at most {MAX_SWEEP} values"),
        ));
    }
    Ok(qs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_named_and_bounded() {
        assert_eq!(
            parse_concurrency("--concurrency", "8, 32,128").unwrap(),
            [8, 32, 128]
        );
        for bad in ["0", "x", "8,,32", "5000", "-1"] {
            let e = parse_concurrency("--concurrency", bad)
                .unwrap_err()
                .to_string();
            assert!(e.contains("--concurrency"), "{bad}: {e}");
        }
        let e = check_range("--queries", 1_000_000_000, 1, MAX_QUERIES)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--queries") && e.contains("1000000000"), "{e}");
        assert_eq!(check_range("--queries", 5, 1, 10).unwrap(), 5);
        assert_eq!(parse_list("--nprobe", "4,8,16", 64).unwrap(), [4, 8, 16]);
        let e = parse_list("--nprobe", "4,128", 64).unwrap_err().to_string();
        assert!(e.contains("--nprobe") && e.contains("1..=64"), "{e}");
    }
}
