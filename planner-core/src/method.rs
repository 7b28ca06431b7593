//! The planning methods, mirroring the JSON `method` field.

use core::fmt;
use core::str::FromStr;

use crate::spelling::{ParseError, Size, parse_size};

/// How to plan (ARCHITECTURE §3, §5). [`Method::Warp`] is the one to call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// WaRP: the fastest path that certifies `(1 + ε)`: the adaptive frontier
    /// search with Lagrangian evaluations, falling back to the exact
    /// thresholded DP only at caps whose gap blocks the stop rule.
    #[default]
    Warp,
    /// Every candidate cap with the exact thresholded DP: the optimum (reference).
    Exact,
    /// The paper's adaptive frontier search with the exact thresholded DP at each cap.
    Frontier,
    /// The frontier search with Lagrangian evaluations only, stopped early where
    /// a gap cannot be closed: fast, certified lower bound, no `(1 + ε)` promise.
    Lagrangian,
    /// Sum-minimizing DP: `min W` under `K_max` (the `P = 1` optimum).
    MinW,
    /// `min B` under `K_max`, ties broken by `W` (the `P = ∞` optimum).
    MinB,
    /// One request per interval.
    Separate,
    /// Merge neighbours with gap `≤ max_gap` (and span `≤ max_span`).
    Coalesce {
        /// Largest gap merged, bytes.
        max_gap: u64,
        /// Largest merged span, bytes; `None` for no cap.
        max_span: Option<u64>,
    },
    /// A model of Lance's cloud I/O scheduler rule (not Lance itself): merge
    /// gaps `≤ 64 KiB`, split ranges longer than 16 MiB.
    LanceRule,
    /// `object_store`'s `get_ranges` default rule: merge gaps `≤ 1 MiB`.
    ObjectStoreRule,
}

impl Method {
    /// The base name (`"warp"`, `"min_w"`, …; `"coalesce"` for
    /// [`Method::Coalesce`], whose full spelling is its `Display`).
    pub fn name(&self) -> &'static str {
        match self {
            Self::Warp => "warp",
            Self::Exact => "exact",
            Self::Frontier => "frontier",
            Self::Lagrangian => "lagrangian",
            Self::MinW => "min_w",
            Self::MinB => "min_b",
            Self::Separate => "separate",
            Self::Coalesce { .. } => "coalesce",
            Self::LanceRule => "lance_rule",
            Self::ObjectStoreRule => "object_store_rule",
        }
    }

    /// Every accepted spelling, as listed in parse errors.
    pub const SPELLINGS: &'static str = "warp, exact, frontier, lagrangian, min_w, min_b, separate, \
         coalesce:GAP[:SPAN] (bytes, or with KiB/MiB/GiB), lance_rule, object_store_rule";

    /// Every parameterless method, and the object_store-like coalesce, for sweeps.
    pub const ALL: [Method; 10] = [
        Self::Warp,
        Self::Exact,
        Self::Frontier,
        Self::Lagrangian,
        Self::MinW,
        Self::MinB,
        Self::Separate,
        Self::Coalesce {
            max_gap: 256 * 1024,
            max_span: Some(8 * 1024 * 1024),
        },
        Self::LanceRule,
        Self::ObjectStoreRule,
    ];

    /// Whether the plan respects `K_max` (the baselines ignore it).
    pub fn respects_k_max(&self) -> bool {
        !matches!(
            self,
            Self::Separate | Self::Coalesce { .. } | Self::LanceRule | Self::ObjectStoreRule
        )
    }
}

/// The canonical spelling: the [`Method::name`], and for coalesce
/// `coalesce:GAP` or `coalesce:GAP:SPAN` with sizes in the largest binary unit
/// that divides them (`coalesce:64KiB:8MiB`, `coalesce:1000`).
impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Coalesce { max_gap, max_span } => {
                write!(f, "coalesce:{}", Size(*max_gap))?;
                match max_span {
                    Some(s) => write!(f, ":{}", Size(*s)),
                    None => Ok(()),
                }
            }
            m => f.write_str(m.name()),
        }
    }
}

/// Reads the [`Display`](fmt::Display) spelling back; sizes may also be plain
/// bytes or use another binary unit (`coalesce:65536` = `coalesce:64KiB`).
///
/// # Errors
/// A [`ParseError`] naming the input and listing [`Method::SPELLINGS`].
///
/// # Examples
/// ```
/// use planner_core::Method;
///
/// let m: Method = "coalesce:65536:8MiB".parse().unwrap();
/// assert_eq!(m, Method::Coalesce { max_gap: 64 << 10, max_span: Some(8 << 20) });
/// assert_eq!(m.to_string(), "coalesce:64KiB:8MiB");
/// assert_eq!("lance_rule".parse::<Method>(), Ok(Method::LanceRule));
/// assert!("lance".parse::<Method>().unwrap_err().to_string().contains("lance_rule"));
/// ```
impl FromStr for Method {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, ParseError> {
        let bad = |reason: &str| ParseError::new("method", s, reason, Self::SPELLINGS);
        if let Some(params) = s.strip_prefix("coalesce:") {
            let mut parts = params.split(':');
            let size = |p: Option<&str>, what: &str| {
                p.and_then(parse_size)
                    .ok_or_else(|| bad(&format!("{what} is not a byte size")))
            };
            let max_gap = size(parts.next(), "GAP")?;
            let max_span = parts.next().map(|p| size(Some(p), "SPAN")).transpose()?;
            if parts.next().is_some() {
                return Err(bad("coalesce takes at most GAP and SPAN"));
            }
            return Ok(Self::Coalesce { max_gap, max_span });
        }
        Ok(match s {
            "warp" => Self::Warp,
            "exact" => Self::Exact,
            "frontier" => Self::Frontier,
            "lagrangian" => Self::Lagrangian,
            "min_w" => Self::MinW,
            "min_b" => Self::MinB,
            "separate" => Self::Separate,
            "lance_rule" => Self::LanceRule,
            "object_store_rule" => Self::ObjectStoreRule,
            "coalesce" => return Err(bad("coalesce needs a GAP, e.g. coalesce:1MiB")),
            _ => return Err(bad("unknown method")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_round_trips_through_its_spelling() {
        let mut all = Method::ALL.to_vec();
        all.extend([
            Method::Coalesce {
                max_gap: 0,
                max_span: None,
            },
            Method::Coalesce {
                max_gap: 1000,
                max_span: Some(u64::MAX),
            },
        ]);
        for m in all {
            let text = m.to_string();
            assert_eq!(text.parse::<Method>(), Ok(m), "{text}");
        }
        assert_eq!(
            Method::Coalesce {
                max_gap: 1 << 20,
                max_span: None
            }
            .to_string(),
            "coalesce:1MiB"
        );
    }

    #[test]
    fn errors_name_the_input_and_list_the_spellings() {
        for bad in [
            "lance",
            "object_store",
            "coalesce",
            "coalesce:",
            "coalesce:64K",
            "coalesce:1:2:3",
            "Warp",
            "",
        ] {
            let e = bad.parse::<Method>().unwrap_err().to_string();
            assert!(e.starts_with(&format!("method {bad:?}: ")), "{e}");
            assert!(e.contains(Method::SPELLINGS), "{e}");
        }
        let long = "x".repeat(10_000);
        assert!(long.parse::<Method>().unwrap_err().to_string().len() < 400);
    }
}
