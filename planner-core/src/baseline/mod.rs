//! Baselines the planner is measured against: what readers do today.

pub(crate) mod coalesce;
pub(crate) mod lance_rule;
pub(crate) mod separate;

/// `object_store`'s `get_ranges` default: merge ranges whose gap is at most 1 MiB
/// (`OBJECT_STORE_COALESCE_DEFAULT`), no span cap.
pub const OBJECT_STORE_COALESCE_GAP: u64 = 1024 * 1024;

/// Lance's cloud scheduler: merge ranges closer than 64 KiB ...
pub const LANCE_BLOCK_SIZE: u64 = 64 * 1024;

/// ... and split any merged range longer than 16 MiB into near-equal pieces.
pub const LANCE_MAX_IOP_SIZE: u64 = 16 * 1024 * 1024;
