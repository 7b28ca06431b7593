//! Cluster order of the payload: which list goes at which position.
//!
//! The order changes only where lists sit in the payload object, never what
//! they hold, so answers are identical under every layout.

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

/// Names accepted by [`cluster_order`].
pub const REORDER_METHODS: &str = "identity";

/// The payload order for reorder method `name`: `order[position] = list_no`.
///
/// # Errors
/// [`Error::Config`] for an unknown method.
pub fn cluster_order(name: &str, input: &OrderInput<'_>) -> Result<Vec<u32>> {
    let nlist = input.sizes.len();
    match name {
        "identity" => Ok((0..nlist as u32).collect()),
        _ => Err(Error::config(
            "--reorder",
            name,
            format!("unknown reorder method (available: {REORDER_METHODS})"),
        )),
    }
}
