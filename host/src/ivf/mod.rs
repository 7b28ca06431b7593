//! IVF indexes: k-means, IVF-Flat and IVF-PQ encoding, the on-store layout
//! and its manifest, and the synthetic SIFT-like generator.
//!
//! On the store an index is `manifest.json` (written last; see
//! [`manifest`]) plus objects named with the build id: the payload (every
//! inverted list contiguous, lists in the reorder method's order), the
//! centroids, and for IVF-PQ the codebooks and the raw vectors used by the
//! rerank. While a build runs, `claim-<build_id>.json` marks its generation
//! as in use ([`claim`]); `warp gc` ([`gc`]) removes only what no manifest,
//! no live claim and no build newer than the manifest can still need.

pub mod build;
pub mod claim;
pub mod distance;
pub mod gc;

pub mod index;
pub mod job;
pub mod kmeans;
pub mod layout;
pub mod manifest;
pub mod pq;
pub mod scan;
pub mod score;
pub mod synthetic;

pub use build::{
    Clustering, IvfBuildParams, TrainedIvf, Workload, is_unit_norm, prepare_vectors, train, write,
    write_claimed,
};
pub use claim::{BuildLease, LeaseParams};
pub use index::Index;
pub use manifest::{IndexKind, ListEntry, Manifest, ObjectRef};
pub use pq::ProductQuantizer;
pub use score::Metric;
