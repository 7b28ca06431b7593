//! The index manifest: what a reader needs to find and verify every byte.
//!
//! Stored as `manifest.json` under the index prefix: one line of JSON, then
//! a line `crc32c=<8 hex digits>` over the JSON bytes. It is written after
//! every object it names, so a reader either sees a complete previous build
//! or a complete new one.
//!
//! # Generations
//!
//! Every build is a generation: its objects are named
//! `<role>-<build_id>.<ext>` ([`generation_object`]), the build id being 16
//! random hex digits unique to the build, so a build never overwrites an
//! object any manifest points to. A rebuild in place writes the new
//! generation's objects, then replaces `manifest.json` in one PUT (atomic on
//! S3 and on local files), and deletes nothing: a reader that opened the
//! previous manifest keeps reading the previous generation.
//!
//! While it runs, a build holds a claim on its generation,
//! `claim-<build_id>.json`, written before anything else and renewed as a
//! lease ([`super::claim`]). Before the manifest PUT it renews the claim and
//! checks that every object the manifest names exists with its size; after
//! the PUT it deletes the claim. Objects no manifest names any more are
//! removed by `warp gc --older-than D` (see [`super::gc`]), which never
//! touches the objects of a generation with a live claim, nor unclaimed ones
//! at least as new as the current manifest (a build may still be writing
//! them).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Largest manifest read: 256 MiB (about 2.5 million lists). A larger
/// `manifest.json` is refused before its body is read.
pub const MAX_MANIFEST_BYTES: u64 = 256 << 20;

/// Roles of the objects of a generation, as the first part of their names.
pub const OBJECT_ROLES: [&str; 6] = [
    "payload",
    "vectors",
    "centroids",
    "codebooks",
    "queries",
    "groundtruth",
];

/// The build id of an object name written by [`super::build::write`]
/// (`<role>-<16 hex digits>.<ext>` with a role of [`OBJECT_ROLES`]), or
/// `None` for any other name (which `warp gc` never touches).
pub fn generation_object(name: &str) -> Option<&str> {
    let (role, rest) = name.split_once('-')?;
    let (id, ext) = rest.split_once('.')?;
    let ok = OBJECT_ROLES.contains(&role)
        && id.len() == 16
        && id.bytes().all(|c| c.is_ascii_hexdigit())
        && matches!(ext, "bin" | "fvecs" | "ivecs");
    ok.then_some(id)
}

/// Reads and validates the manifest at `loc`, refusing one larger than
/// [`MAX_MANIFEST_BYTES`] before reading it. `Ok(None)` when there is none.
///
/// Returns the manifest and when it was written (the store's
/// `last_modified`).
///
/// # Errors
/// [`Error::Index`] for a manifest too large or invalid (see
/// [`Manifest::from_bytes`]); [`Error::Store`] when reading fails otherwise.
pub async fn read(
    loc: &crate::store::StoreLocation,
) -> Result<Option<(Manifest, std::time::SystemTime)>> {
    let path = loc.child(MANIFEST);
    let (bytes, written) = match crate::store::get_bounded(loc, &path, MAX_MANIFEST_BYTES).await {
        Ok(got) => got,
        Err(Error::Store {
            source: object_store::Error::NotFound { .. },
            ..
        }) => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(Some((Manifest::from_bytes(&bytes)?, written)))
}

/// Replaces the manifest at `loc` with `manifest`, validated first: one PUT,
/// so a reader sees the previous manifest or this one, never a mix, and a
/// failed write leaves the previous one in place.
///
/// # Errors
/// [`Manifest::validate`]'s; [`Error::Store`] when the PUT fails.
pub async fn write(loc: &crate::store::StoreLocation, manifest: &Manifest) -> Result<()> {
    use object_store::ObjectStoreExt;
    manifest.validate()?;
    let path = loc.child(MANIFEST);
    loc.store
        .put(&path, manifest.to_bytes().into())
        .await
        .map_err(Error::store("put", &path))?;
    Ok(())
}

/// Stores `surrogate` (a calibration's choice) in the manifest of the index
/// at `loc`, every other field kept; query and bench then plan with it.
///
/// # Errors
/// [`Error::Input`] when there is no index at `loc`; [`read`]'s and
/// [`write()`]'s errors.
pub async fn set_surrogate(
    loc: &crate::store::StoreLocation,
    surrogate: crate::calibrate::SurrogateSpec,
) -> Result<()> {
    let (mut manifest, _) = read(loc)
        .await?
        .ok_or_else(|| Error::input(format!("no index at {} (no {MANIFEST})", loc.display)))?;
    manifest.surrogate = Some(surrogate);
    write(loc, &manifest).await
}

/// Version of the on-store format this host writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Name of the manifest object under the index prefix.
pub const MANIFEST: &str = "manifest.json";

/// The index kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexKind {
    /// Lists hold the raw `f32` vectors.
    IvfFlat,
    /// Lists hold residual PQ codes (`m` bytes per vector); raw vectors for
    /// rerank live in a separate object.
    IvfPq,
}

/// One object of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectRef {
    /// Object name under the index prefix.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// CRC32C of the whole object (checked for the small objects read at
    /// open; payload lists carry their own).
    pub crc32c: u32,
}

/// One inverted list (cluster) in the payload object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListEntry {
    /// Byte offset in the payload.
    pub offset: u64,
    /// Byte length: `count · (code_size + 4)` (codes, then `u32` ids).
    pub len: u64,
    /// Vectors in the list.
    pub count: u64,
    /// CRC32C of the list's bytes.
    pub crc32c: u32,
    /// Row of the list's first vector in payload order (index into the
    /// rerank vectors object).
    pub first_row: u64,
}

/// The manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// Unique id of the build; part of every object name.
    pub build_id: String,
    /// The index kind.
    pub kind: IndexKind,
    /// The metric vectors are ranked by: `"l2"` (squared Euclidean),
    /// `"cosine"` (the stored vectors are unit-norm; distance `1 − cos`) or
    /// `"dot"` (inner product; distance `−q·x`). See
    /// [`crate::ivf::score::Metric`].
    pub metric: String,
    /// Vector dimension.
    pub dim: usize,
    /// Vectors indexed.
    pub n: u64,
    /// Clusters (inverted lists).
    pub nlist: usize,
    /// PQ sub-quantizers (`ivf_pq` only).
    pub pq_m: Option<usize>,
    /// Bytes per encoded vector: `4·dim` (flat) or `m` (PQ).
    pub code_size: usize,
    /// The spelling of the layout the payload was written in
    /// (`planner_core::reorder::Layout`, e.g. `pca_zorder:5`). Stored under
    /// the field name `reorder`, which older readers expect.
    #[serde(rename = "reorder")]
    pub layout: String,
    /// `order[position] = list_no`: the payload layout.
    pub order: Vec<u32>,
    /// Per `list_no`.
    pub lists: Vec<ListEntry>,
    /// The payload object (lists contiguous, in `order`).
    pub payload: ObjectRef,
    /// Centroids, `nlist × dim` little-endian `f32`.
    pub centroids: ObjectRef,
    /// PQ codebooks, `m × 256 × dim/m` little-endian `f32`.
    pub codebooks: Option<ObjectRef>,
    /// Raw vectors in payload order, each `dim` `f32` then its CRC32C
    /// (IVF-PQ rerank).
    pub vectors: Option<ObjectRef>,
    /// Query vectors (`.fvecs` bytes), when the build had them.
    pub queries: Option<ObjectRef>,
    /// Ground-truth neighbour ids (`.ivecs` bytes) of the queries.
    pub groundtruth: Option<ObjectRef>,
    /// The request-time surrogate measured by `warp calibrate
    /// --write-manifest` (ARCHITECTURE §5 form); readers plan with it unless a flag
    /// overrides. Optional and omitted when absent, so manifests without it
    /// read as before and older readers ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surrogate: Option<crate::calibrate::SurrogateSpec>,
}

impl Manifest {
    /// The manifest's metric.
    ///
    /// # Errors
    /// [`Error::Index`] for a name other than `l2`, `cosine` or `dot`.
    pub fn metric(&self) -> Result<crate::ivf::score::Metric> {
        crate::ivf::score::Metric::from_name(&self.metric).ok_or_else(|| {
            Error::index(format!(
                "metric {:?} is not supported (this host reads {})",
                crate::error::bound(&self.metric, 40),
                crate::ivf::score::METRIC_NAMES
            ))
        })
    }

    /// Serializes with the trailing CRC line.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = serde_json::to_vec(self).expect("manifest serializes");
        let crc = crc32c::crc32c(&body);
        body.extend_from_slice(format!("\ncrc32c={crc:08x}\n").as_bytes());
        body
    }

    /// Every object of the index (payload, centroids, and the optional
    /// codebooks, vectors, queries and ground truth), `manifest.json`
    /// excluded.
    pub fn objects(&self) -> impl Iterator<Item = &ObjectRef> {
        [
            Some(&self.payload),
            Some(&self.centroids),
            self.codebooks.as_ref(),
            self.vectors.as_ref(),
            self.queries.as_ref(),
            self.groundtruth.as_ref(),
        ]
        .into_iter()
        .flatten()
    }

    /// Parses and validates a manifest.
    ///
    /// # Errors
    /// [`Error::Index`] when the CRC line is missing or wrong, the JSON does
    /// not parse, the format version differs, or the lists are inconsistent
    /// (see [`Manifest::validate`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let text = std::str::from_utf8(bytes).map_err(|_| Error::index("manifest is not UTF-8"))?;
        let text = text.trim_end_matches('\n');
        let (body, crc_line) = text
            .rsplit_once('\n')
            .ok_or_else(|| Error::index("manifest has no crc32c line (incomplete write?)"))?;
        let expected = crc_line
            .strip_prefix("crc32c=")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| {
                Error::index(format!(
                    "manifest crc line {:?} is malformed",
                    crate::error::bound(crc_line, 40)
                ))
            })?;
        let actual = crc32c::crc32c(body.as_bytes());
        if actual != expected {
            return Err(Error::Checksum {
                object: MANIFEST.into(),
                what: "manifest body".into(),
                expected,
                actual,
            });
        }
        let m: Manifest = serde_json::from_str(body)
            .map_err(|e| Error::index(format!("manifest does not parse: {e}")))?;
        m.validate()?;
        Ok(m)
    }

    /// Checks internal consistency: version, metric, shapes, that `order`
    /// is a permutation, and that lists tile the payload contiguously in
    /// `order` with lengths matching their counts.
    ///
    /// # Errors
    /// [`Error::Index`] naming the first inconsistency.
    pub fn validate(&self) -> Result<()> {
        let bad = |reason: String| Err(Error::index(reason));
        if self.format_version != FORMAT_VERSION {
            return bad(format!(
                "format_version {} is not supported (this host reads {FORMAT_VERSION})",
                self.format_version
            ));
        }
        self.metric()?;
        for r in self.objects() {
            if generation_object(&r.name) != Some(self.build_id.as_str()) {
                return bad(format!(
                    "object name {:?} is not <role>-<build_id>.<ext> of build {:?}",
                    crate::error::bound(&r.name, 80),
                    crate::error::bound(&self.build_id, 40)
                ));
            }
        }
        if self.dim == 0 || self.nlist == 0 {
            return bad(format!(
                "dim {} / nlist {} must be >= 1",
                self.dim, self.nlist
            ));
        }
        let code_size = match (self.kind, self.pq_m) {
            (IndexKind::IvfFlat, None) => 4 * self.dim,
            (IndexKind::IvfPq, Some(m)) if m > 0 && self.dim.is_multiple_of(m) => m,
            _ => {
                return bad(format!(
                    "pq_m {:?} does not fit kind {:?}",
                    self.pq_m, self.kind
                ));
            }
        };
        if self.code_size != code_size {
            return bad(format!(
                "code_size {} should be {code_size}",
                self.code_size
            ));
        }
        if self.lists.len() != self.nlist || self.order.len() != self.nlist {
            return bad(format!(
                "{} lists and {} order entries for nlist {}",
                self.lists.len(),
                self.order.len(),
                self.nlist
            ));
        }
        let mut seen = vec![false; self.nlist];
        let (mut offset, mut row) = (0u64, 0u64);
        for (pos, &l) in self.order.iter().enumerate() {
            let l = l as usize;
            if l >= self.nlist || std::mem::replace(&mut seen[l], true) {
                return bad(format!("order[{pos}] = {l} is out of range or repeated"));
            }
            let e = &self.lists[l];
            if e.offset != offset || e.first_row != row {
                return bad(format!(
                    "list {l} starts at byte {} row {}, expected byte {offset} row {row}",
                    e.offset, e.first_row
                ));
            }
            if Some(e.len) != e.count.checked_mul(code_size as u64 + 4) {
                return bad(format!(
                    "list {l} has {} bytes for {} vectors",
                    e.len, e.count
                ));
            }
            offset += e.len;
            row += e.count;
        }
        if offset != self.payload.size || row != self.n {
            return bad(format!(
                "lists cover {offset} bytes / {row} vectors, payload has {} bytes / n = {}",
                self.payload.size, self.n
            ));
        }
        let cbytes = (self.nlist * self.dim * 4) as u64;
        if self.centroids.size != cbytes {
            return bad(format!(
                "centroids object has {} bytes, expected {cbytes}",
                self.centroids.size
            ));
        }
        if self.kind == IndexKind::IvfPq && self.codebooks.is_none() {
            return bad("ivf_pq index without codebooks".into());
        }
        if let Some(v) = &self.vectors
            && v.size != self.n * (self.dim as u64 * 4 + 4)
        {
            return bad(format!(
                "vectors object has {} bytes for {} vectors",
                v.size, self.n
            ));
        }
        if let Some(s) = &self.surrogate
            && let Err(e) = s.to_surrogate()
        {
            return bad(format!("surrogate: {e}"));
        }
        Ok(())
    }
}
