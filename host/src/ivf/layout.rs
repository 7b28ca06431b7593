//! Cluster order of the payload: which list goes at which position.
//!
//! The order changes only where lists sit in the payload object, never what
//! they hold, so answers are identical under every layout.

use planner_core::reorder::{Layout, ReorderInput, reorder};

use crate::error::{Error, Result};

/// What a reordering method may use.
#[derive(Debug, Clone, Copy)]
pub struct OrderInput<'a> {
    /// Centroids, `nlist × dim` row-major.
    pub centroids: &'a [f32],
    /// Dimension.
    pub dim: usize,
    /// Payload bytes of each list.
    pub sizes: &'a [u64],
    /// Probe sets of a sample workload, concatenated (list numbers).
    pub probes: &'a [u32],
    /// `probes[probe_offsets[q]..probe_offsets[q + 1]]` is query `q`'s set.
    pub probe_offsets: &'a [u32],
}

/// Names accepted by [`cluster_order`]; `:N` sets the PCA dimensions
/// (`pca_zorder:4`) or the seed (`random:7`, `spectral:7`).
pub const REORDER_METHODS: &str =
    "identity, random[:SEED], pca_1d, pca_zorder[:DIMS], pca_hilbert[:DIMS], spectral[:SEED]";

/// Parses a reorder method name (see [`REORDER_METHODS`]).
///
/// # Errors
/// [`Error::Config`] for an unknown name or a bad parameter.
pub fn parse_layout(name: &str) -> Result<Layout> {
    let bad = |reason: String| Error::config("--reorder", name, reason);
    let (base, param) = match name.split_once(':') {
        Some((b, p)) => (b, Some(p)),
        None => (name, None),
    };
    let layout = Layout::from_name(base).ok_or_else(|| {
        bad(format!(
            "unknown reorder method (available: {REORDER_METHODS})"
        ))
    })?;
    match param {
        None => Ok(layout),
        Some(p) => {
            let v: u64 = p
                .parse()
                .map_err(|_| bad(format!("parameter {p:?} is not a non-negative integer")))?;
            if layout.dims().is_some() {
                let dims = u32::try_from(v).map_err(|_| bad(format!("{v} dimensions")))?;
                layout
                    .with_dims(dims)
                    .ok_or_else(|| bad("no dimension parameter".into()))
            } else {
                layout
                    .with_seed(v)
                    .ok_or_else(|| bad(format!("{base} takes no parameter")))
            }
        }
    }
}

/// The payload order for reorder method `name`: `order[position] = list_no`,
/// computed by `planner_core::reorder`.
///
/// # Errors
/// [`Error::Config`] for an unknown method; [`Error::Input`] when the
/// reorder refuses the input (e.g. `spectral` without a query log).
pub fn cluster_order(name: &str, input: &OrderInput<'_>) -> Result<Vec<u32>> {
    let layout = parse_layout(name)?;
    reorder(
        &ReorderInput {
            centroids: input.centroids,
            dim: input.dim,
            sizes: input.sizes,
            probes: input.probes,
            probe_offsets: input.probe_offsets,
        },
        &layout,
    )
    .map_err(|e| Error::input(format!("reorder {name}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_parameters() {
        assert_eq!(parse_layout("identity").unwrap(), Layout::Identity);
        assert_eq!(
            parse_layout("pca_zorder:3").unwrap(),
            Layout::PcaZOrder { dims: 3 }
        );
        assert_eq!(
            parse_layout("spectral:9").unwrap(),
            Layout::Spectral { seed: 9 }
        );
        assert!(parse_layout("pca_1d:3").is_err());
        assert!(
            parse_layout("zigzag")
                .unwrap_err()
                .to_string()
                .contains("unknown reorder")
        );
        let centroids: Vec<f32> = (0..16).map(|i| i as f32).collect();
        let order = cluster_order(
            "pca_zorder",
            &OrderInput {
                centroids: &centroids,
                dim: 2,
                sizes: &[1; 8],
                probes: &[],
                probe_offsets: &[0],
            },
        )
        .unwrap();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..8).collect::<Vec<u32>>());
    }
}
