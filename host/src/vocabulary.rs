//! One canonical spelling per concept: the planning method and the payload
//! layout. The spellings are planner-core's own ([`Method`]'s and
//! [`Layout`]'s `FromStr`/`Display`); this module only adapts them to the
//! host's `Result<_, String>` value parsers, so every flag, config key and
//! manifest field reads and prints them the same way.

use planner_core::Method;
use planner_core::reorder::Layout;

/// The methods [`parse_method`] accepts, for help and errors.
pub const METHODS: &str = Method::SPELLINGS;

/// The layouts [`parse_layout`] accepts, for help and errors.
pub const LAYOUTS: &str = Layout::SPELLINGS;

/// Parses a planning method (`warp`, `min_w`, `lance_rule`,
/// `coalesce:64KiB:8MiB`, …): [`Method`]'s `FromStr`, and refuses a method
/// no plan can use (`coalesce:GAP:0`, a zero SPAN) where it is named — a
/// flag, a request's `method` — not at every query's plan.
///
/// # Errors
/// planner-core's one-line message listing the accepted spellings, or the
/// zero SPAN.
pub fn parse_method(s: &str) -> Result<Method, String> {
    match s.parse::<Method>().map_err(|e| e.to_string())? {
        // No plan can use it: refused here, where the method is named, not
        // by every query that plans with it (or by none, when each list is
        // in the cache).
        Method::Coalesce {
            max_span: Some(0), ..
        } => Err(format!(
            "method {s:?}: SPAN must be at least 1 byte (or leave it out: coalesce:GAP has no cap)"
        )),
        m => Ok(m),
    }
}

/// The canonical spelling of `m` ([`Method`]'s `Display`), the inverse of
/// [`parse_method`].
pub fn method_name(m: &Method) -> String {
    m.to_string()
}

/// Parses a payload layout `NAME[:PARAM]` ([`Layout`]'s `FromStr`): `PARAM`
/// is the PCA dimension count of `pca_zorder`/`pca_hilbert` or the seed of
/// `random`/`spectral`.
///
/// # Errors
/// planner-core's one-line message: unknown name, a parameter the layout
/// does not take, or one out of range.
pub fn parse_layout(s: &str) -> Result<Layout, String> {
    s.parse::<Layout>().map_err(|e| e.to_string())
}

/// The canonical spelling of `layout` ([`Layout`]'s `Display`, always with
/// its parameter: `pca_zorder:5`), the inverse of [`parse_layout`].
pub fn layout_name(layout: &Layout) -> String {
    layout.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_and_layouts_round_trip_through_their_canonical_name() {
        for m in Method::ALL {
            assert_eq!(parse_method(&method_name(&m)).unwrap(), m);
        }
        assert!(parse_method("lance").is_err());
        for s in [
            "identity",
            "pca_zorder:4",
            "pca_hilbert:16",
            "spectral:7",
            "greedy_tour",
        ] {
            assert_eq!(layout_name(&parse_layout(s).unwrap()), s);
        }
        let e = parse_layout("pca_zorder:20").unwrap_err();
        assert!(e.contains("1..=16") && e.contains("20"), "{e}");
    }
}
