//! The planning methods, mirroring the JSON `method` field.

use core::fmt;

/// How to plan (DESIGN §3, §5). [`Method::Warp`] is the one to call.
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
    /// Lance's cloud rule: 64 KiB gaps, ranges split at 16 MiB.
    Lance,
    /// `object_store`'s `get_ranges` default: 1 MiB gaps.
    ObjectStore,
}

impl Method {
    /// The JSON name (`"warp"`, `"min_w"`, …; `"coalesce"` for [`Method::Coalesce`]).
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
            Self::Lance => "lance",
            Self::ObjectStore => "object_store",
        }
    }

    /// Parses a parameterless JSON name.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "warp" => Self::Warp,
            "exact" => Self::Exact,
            "frontier" => Self::Frontier,
            "lagrangian" => Self::Lagrangian,
            "min_w" => Self::MinW,
            "min_b" => Self::MinB,
            "separate" => Self::Separate,
            "lance" => Self::Lance,
            "object_store" => Self::ObjectStore,
            _ => return None,
        })
    }

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
        Self::Lance,
        Self::ObjectStore,
    ];

    /// Whether the plan respects `K_max` (the baselines ignore it).
    pub fn respects_k_max(&self) -> bool {
        !matches!(
            self,
            Self::Separate | Self::Coalesce { .. } | Self::Lance | Self::ObjectStore
        )
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Coalesce {
                max_gap,
                max_span: Some(s),
            } => write!(f, "coalesce(gap={max_gap},span={s})"),
            Self::Coalesce {
                max_gap,
                max_span: None,
            } => write!(f, "coalesce(gap={max_gap})"),
            m => f.write_str(m.name()),
        }
    }
}
