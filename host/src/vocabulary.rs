//! One canonical spelling per concept: the planning method and the payload
//! layout, parsed and printed by one function each. Every flag, config key
//! and manifest field goes through these (the `warp` flags use them as clap
//! value parsers).
//!
//! When planner-core gains `FromStr`/`Display` for [`Method`] and
//! [`Layout`], only the bodies here change.

use planner_core::Method;
use planner_core::reorder::{Layout, MAX_DIMS};

use crate::config::parse_bytes;

/// The methods [`parse_method`] accepts, for help and errors.
pub const METHODS: &str = "warp, exact, frontier, lagrangian, min_w, min_b, separate, lance, object_store, coalesce:GAP (bytes, K/M suffix)";

/// The layouts [`parse_layout`] accepts, for help and errors.
pub const LAYOUTS: &str =
    "identity, random[:SEED], pca_1d, pca_zorder[:DIMS], pca_hilbert[:DIMS], spectral[:SEED]";

/// Parses a planning method: a canonical name of [`Method`] (`warp`,
/// `min_w`, `object_store`, …) or `coalesce:GAP` with `GAP` in bytes and an
/// optional `K`/`M` suffix.
///
/// # Errors
/// A one-line message listing the accepted names.
pub fn parse_method(s: &str) -> Result<Method, String> {
    if let Some(gap) = s.strip_prefix("coalesce:") {
        let max_gap = parse_bytes(gap).map_err(|_| {
            format!("coalesce:GAP needs a byte count (e.g. coalesce:64K), got {gap:?}")
        })?;
        return Ok(Method::Coalesce {
            max_gap,
            max_span: None,
        });
    }
    Method::from_name(s).ok_or_else(|| format!("unknown method {s:?} (expected one of {METHODS})"))
}

/// The canonical spelling of `m`, the inverse of [`parse_method`]
/// (`coalesce:65536` for a coalesce without a span cap).
pub fn method_name(m: &Method) -> String {
    match m {
        Method::Coalesce {
            max_gap,
            max_span: None,
        } => format!("coalesce:{max_gap}"),
        m => m.to_string(),
    }
}

/// Parses a payload layout `NAME[:PARAM]`: `PARAM` is the PCA dimension
/// count `1..=MAX_DIMS` of `pca_zorder`/`pca_hilbert`, or the seed of
/// `random`/`spectral`.
///
/// # Errors
/// A one-line message: unknown name, a parameter the layout does not take,
/// or one out of range.
pub fn parse_layout(s: &str) -> Result<Layout, String> {
    let (base, param) = match s.split_once(':') {
        Some((b, p)) => (b, Some(p)),
        None => (s, None),
    };
    let layout = Layout::from_name(base)
        .ok_or_else(|| format!("unknown layout {base:?} (expected one of {LAYOUTS})"))?;
    let Some(p) = param else {
        return Ok(layout);
    };
    let v: u64 = p
        .parse()
        .map_err(|_| format!("{s}: parameter {p:?} is not a non-negative integer"))?;
    if layout.dims().is_some() {
        let dims = u32::try_from(v)
            .ok()
            .filter(|d| (1..=MAX_DIMS).contains(d))
            .ok_or_else(|| format!("{s}: PCA dimensions must be in 1..={MAX_DIMS}, got {v}"))?;
        layout
            .with_dims(dims)
            .ok_or_else(|| format!("{s}: {base} takes no dimensions"))
    } else {
        layout
            .with_seed(v)
            .ok_or_else(|| format!("{s}: {base} takes no parameter"))
    }
}

/// The canonical spelling of `layout`, the inverse of [`parse_layout`]: the
/// name alone when the parameter is the default (`pca_zorder`), else
/// `name:param` (`pca_zorder:4`, `spectral:7`).
pub fn layout_name(layout: &Layout) -> String {
    let base = Layout::from_name(layout.name());
    match (layout.dims(), layout.seed()) {
        _ if base == Some(*layout) => layout.name().to_string(),
        (Some(d), _) => format!("{}:{d}", layout.name()),
        (_, Some(s)) => format!("{}:{s}", layout.name()),
        _ => layout.name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::reorder::DEFAULT_DIMS;

    #[test]
    fn methods_round_trip_through_their_canonical_name() {
        for m in Method::ALL {
            let m = match m {
                Method::Coalesce { max_gap, .. } => Method::Coalesce {
                    max_gap,
                    max_span: None,
                },
                m => m,
            };
            assert_eq!(parse_method(&method_name(&m)).unwrap(), m);
        }
        assert_eq!(
            parse_method("coalesce:64K").unwrap(),
            Method::Coalesce {
                max_gap: 65536,
                max_span: None
            }
        );
        assert!(
            parse_method("policy")
                .unwrap_err()
                .contains("unknown method")
        );
        assert!(parse_method("coalesce:x").is_err());
    }

    #[test]
    fn layouts_round_trip_and_name_the_bad_part() {
        for s in [
            "identity",
            "pca_zorder",
            "pca_zorder:4",
            "pca_hilbert:16",
            "spectral:7",
            "random",
            "pca_1d",
        ] {
            assert_eq!(layout_name(&parse_layout(s).unwrap()), s);
        }
        assert_eq!(
            parse_layout("pca_zorder").unwrap(),
            Layout::PcaZOrder { dims: DEFAULT_DIMS }
        );
        let e = parse_layout("pca_zorder:20").unwrap_err();
        assert!(e.contains("1..=16") && e.contains("20"), "{e}");
        assert!(parse_layout("pca_1d:3").unwrap_err().contains("takes no"));
        assert!(
            parse_layout("zigzag")
                .unwrap_err()
                .contains("unknown layout")
        );
    }
}
