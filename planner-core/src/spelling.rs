//! The text spellings of [`Method`](crate::Method) and
//! [`Layout`](crate::reorder::Layout): byte sizes and the parse error.
//!
//! Each value has one canonical spelling (its `Display`), which `FromStr`
//! reads back; byte sizes are also accepted with a binary unit suffix
//! (`64KiB`, `1MiB`, `1GiB`) and printed with the largest unit that divides
//! them exactly (`65536` prints as `64KiB`).

use core::fmt;

/// The binary units of [`parse_size`] and [`Size`], largest first.
const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];

/// The longest piece of user input an error repeats, in characters.
const ECHO_MAX: usize = 64;

/// `s` cut to 64 characters (with `…` when cut): user input repeated in an
/// error never makes it longer than a line.
pub(crate) fn echo(s: &str) -> String {
    let mut out: String = s.chars().take(ECHO_MAX).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// Parses a byte count: decimal digits, optionally followed by `KiB`, `MiB`
/// or `GiB` (powers of 1024). Returns `None` for anything else or an
/// overflowing product.
///
/// # Examples
/// `"65536"`, `"64KiB"` → 65536; `"1MiB"` → 1048576; `"64K"`, `"1MB"`, `"-1"` → `None`.
pub(crate) fn parse_size(s: &str) -> Option<u64> {
    let (digits, mult) = UNITS
        .iter()
        .find_map(|&(unit, m)| s.strip_suffix(unit).map(|d| (d, m)))
        .unwrap_or((s, 1));
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

/// The canonical spelling of a byte count: with the largest unit of
/// `KiB`/`MiB`/`GiB` dividing it exactly, else plain bytes (`0` is `0`).
pub(crate) struct Size(pub(crate) u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        match UNITS.iter().find(|&&(_, m)| b != 0 && b.is_multiple_of(m)) {
            Some(&(unit, m)) => write!(f, "{}{unit}", b / m),
            None => write!(f, "{b}"),
        }
    }
}

/// A spelling that [`Method`](crate::Method) or
/// [`Layout`](crate::reorder::Layout) does not accept. Its display is one line
/// naming the input (cut to 64 characters) and listing the accepted spellings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    kind: &'static str,
    input: String,
    reason: String,
    accepted: &'static str,
}

impl ParseError {
    pub(crate) fn new(
        kind: &'static str,
        input: &str,
        reason: impl Into<String>,
        accepted: &'static str,
    ) -> Self {
        Self {
            kind,
            input: echo(input),
            reason: reason.into(),
            accepted,
        }
    }

    /// What was being parsed: `method` or `layout`.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The input, cut to 64 characters.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// What is wrong with it (e.g. `unknown method`).
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The accepted spellings, comma-separated (e.g. `warp, exact, …`).
    pub fn accepted(&self) -> &'static str {
        self.accepted
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {:?}: {} (accepted: {})",
            self.kind, self.input, self.reason, self.accepted
        )
    }
}

impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_trip_and_refuse_ambiguous_units() {
        for (s, v) in [
            ("0", 0),
            ("65536", 65536),
            ("64KiB", 65536),
            ("1MiB", 1 << 20),
        ] {
            assert_eq!(parse_size(s), Some(v), "{s}");
        }
        for b in [0, 1, 1000, 1024, 1536, 65536, 1 << 20, 3 << 30, u64::MAX] {
            assert_eq!(parse_size(&Size(b).to_string()), Some(b), "{b}");
        }
        assert_eq!(Size(65536).to_string(), "64KiB");
        assert_eq!(Size(1536).to_string(), "1536");
        for bad in [
            "",
            "64K",
            "1MB",
            "-1",
            "KiB",
            "1 MiB",
            "18446744073709551616",
            "17179869184GiB",
        ] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
