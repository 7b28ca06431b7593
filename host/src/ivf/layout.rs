//! Cluster order of the payload: which list goes at which position.
//!
//! The order changes only where lists sit in the payload object, never what
//! they hold, so answers are identical under every layout.

use planner_core::reorder::{Layout, ReorderInput, reorder};

use crate::error::{Error, Result};
use crate::ivf::TrainedIvf;
use crate::ivf::distance::knn;

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

/// Names accepted by [`cluster_order`] (see [`crate::vocabulary::parse_layout`]).
pub const REORDER_METHODS: &str = crate::vocabulary::LAYOUTS;

/// Parses a layout name (see [`crate::vocabulary::parse_layout`], the one
/// parser of layouts).
///
/// # Errors
/// [`Error::Config`] on `--layout` for an unknown name or a bad parameter.
pub fn parse_layout(name: &str) -> Result<Layout> {
    crate::vocabulary::parse_layout(name).map_err(|reason| Error::config("--layout", name, reason))
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

/// The payload order for layout `name` of a trained index, using a sample
/// workload of base vectors (about 2,000 rows, 16 probes each) for layouts
/// that read a query log (`spectral`).
///
/// # Complexity
/// `O(s · nlist · dim)` for the sample's `s ≤ 2000` probe sets, plus the
/// reorder's own cost.
///
/// # Errors
/// [`Error::Config`] for an unknown layout; reorder errors.
pub fn order_for(name: &str, trained: &TrainedIvf, base: &[f32], seed: u64) -> Result<Vec<u32>> {
    let _ = seed;
    let dim = trained.dim;
    let sizes = trained.list_sizes();
    let (probes, offsets) = if parse_layout(name)? == Layout::Identity {
        (Vec::new(), vec![0u32])
    } else {
        let n = base.len() / dim;
        let step = (n / 2000).max(1);
        let sample: Vec<f32> = (0..n)
            .step_by(step)
            .flat_map(|i| base[i * dim..(i + 1) * dim].iter().copied())
            .collect();
        let nprobe = 16.min(trained.nlist());
        let near = knn(&sample, &trained.centroids, dim, nprobe);
        let mut probes = Vec::new();
        let mut offsets = vec![0u32];
        for r in near {
            probes.extend(r.into_iter().map(|(_, l)| l));
            offsets.push(probes.len() as u32);
        }
        (probes, offsets)
    };
    cluster_order(
        name,
        &OrderInput {
            centroids: &trained.centroids,
            dim,
            sizes: &sizes,
            probes: &probes,
            probe_offsets: &offsets,
        },
    )
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
                .contains("unknown layout")
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
