//! Cluster order of the payload: which list goes at which position.
//!
//! The order changes only where lists sit in the payload object, never what
//! they hold, so answers are identical under every layout. The layout itself
//! is a [`Layout`] (parsed once, by [`crate::vocabulary::parse_layout`]); this
//! module only gathers what `planner_core::reorder` reads from a trained
//! index.

use planner_core::reorder::{Layout, ReorderInput, TOUR_MAX_CLUSTERS, reorder};

use crate::error::{Error, Result};
use crate::ivf::TrainedIvf;
use crate::ivf::distance::knn_by;

/// Base vectors sampled (at most) as the probe log of a layout.
pub const SAMPLE_QUERIES: usize = 2000;

/// Lists each sampled vector probes.
pub const SAMPLE_NPROBE: usize = 16;

/// `warp build`'s layout when none is asked for: [`Layout::GreedyTour`] up to
/// [`TOUR_MAX_CLUSTERS`] lists, [`Layout::default`] (`pca_zorder`) above, where
/// the tour's `C²/2` distances are refused.
pub fn default_for(nlist: usize) -> Layout {
    if nlist <= TOUR_MAX_CLUSTERS {
        Layout::GreedyTour
    } else {
        Layout::default()
    }
}

/// The payload order of `layout` for a trained index: `order[position] =
/// list_no`, computed by `planner_core::reorder`. A layout that reads a
/// query log (`spectral`, [`Layout::reads_query_log`]) gets a sample workload:
/// every `⌈n / 2000⌉`-th base vector, probing its [`SAMPLE_NPROBE`] nearest
/// centroids (its co-access signal); the others read the centroids alone.
///
/// # Complexity
/// For `spectral`, `O(s · nlist · dim)` for the sample's `s ≤ 2000` probe
/// sets; plus the reorder's own cost.
///
/// # Errors
/// [`Error::Input`] when the reorder refuses the input, naming the layout.
pub fn order_for(layout: &Layout, trained: &TrainedIvf, base: &[f32]) -> Result<Vec<u32>> {
    let dim = trained.dim;
    let sizes = trained.list_sizes();
    let (probes, offsets) = if layout.reads_query_log() {
        sample_probe_log(trained, base)
    } else {
        (Vec::new(), vec![0u32])
    };
    reorder(
        &ReorderInput {
            centroids: &trained.centroids,
            dim,
            sizes: &sizes,
            probes: &probes,
            probe_offsets: &offsets,
        },
        layout,
    )
    .map_err(|e| Error::input(format!("reorder {layout}: {e}")))
}

/// The probe log of [`order_for`]'s sample, in CSR form `(probes, offsets)`.
fn sample_probe_log(trained: &TrainedIvf, base: &[f32]) -> (Vec<u32>, Vec<u32>) {
    let dim = trained.dim;
    let n = base.len() / dim;
    let step = (n / SAMPLE_QUERIES).max(1);
    let sample: Vec<f32> = (0..n)
        .step_by(step)
        .flat_map(|i| base[i * dim..(i + 1) * dim].iter().copied())
        .collect();
    let nprobe = SAMPLE_NPROBE.min(trained.nlist());
    let near = knn_by(
        &sample,
        &trained.centroids,
        dim,
        nprobe,
        trained.metric.proximity(),
    );
    let mut probes = Vec::new();
    let mut offsets = vec![0u32];
    for r in near {
        probes.extend(r.into_iter().map(|(_, l)| l));
        offsets.push(probes.len() as u32);
    }
    (probes, offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trained(nlist: usize, dim: usize) -> TrainedIvf {
        TrainedIvf {
            dim,
            centroids: (0..nlist * dim).map(|i| (i * 7 % 13) as f32).collect(),
            assign: (0..4 * nlist as u32).map(|i| i % nlist as u32).collect(),
            pq: None,
            codes: None,
            metric: crate::ivf::score::Metric::L2,
            spherical: false,
            train_rows: 4 * nlist,
        }
    }

    #[test]
    fn the_build_default_is_the_tour_up_to_its_bound() {
        assert_eq!(default_for(1), Layout::GreedyTour);
        assert_eq!(default_for(TOUR_MAX_CLUSTERS), Layout::GreedyTour);
        assert_eq!(default_for(TOUR_MAX_CLUSTERS + 1), Layout::default());
    }

    #[test]
    fn every_layout_orders_every_list_once() {
        let t = trained(8, 2);
        let base: Vec<f32> = (0..64).map(|i| i as f32 * 0.5).collect();
        for layout in [
            Layout::Identity,
            Layout::PcaZOrder { dims: 2 },
            Layout::Random { seed: 3 },
            Layout::Spectral { seed: 1 },
            Layout::GreedyTour,
        ] {
            let order = order_for(&layout, &t, &base).unwrap();
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..8).collect::<Vec<u32>>(), "{layout}");
        }
        assert_eq!(
            order_for(&Layout::Identity, &t, &base).unwrap(),
            (0..8).collect::<Vec<u32>>()
        );
    }
}
