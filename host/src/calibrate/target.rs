//! The object a calibration reads: an index's payload (read only), or a
//! scratch object written for the run and deleted after it.

use object_store::ObjectStoreExt;
use object_store::path::Path;

use super::measure::scratch_bytes;
use crate::error::{Error, Result};
use crate::ivf::manifest::{self, MANIFEST};
use crate::store::StoreLocation;

/// Prefix of scratch object names (`warp-calibrate-scratch-<pid>-<seed>.bin`).
pub const SCRATCH_PREFIX: &str = "warp-calibrate-scratch-";

/// The object range GETs read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Its path in the store.
    pub path: Path,
    /// Its size, bytes.
    pub size: u64,
    /// Whether it is a scratch object (written by [`Target::pick`], removed
    /// by [`Target::remove`]).
    pub scratch: bool,
}

impl Target {
    /// The payload of the index at `loc` when there is one and `scratch` is
    /// false; else a scratch object of `scratch_size` seeded pseudo-random
    /// bytes, written under `loc` now. With `need_index`, a missing index is
    /// an error (before anything is written).
    ///
    /// # Errors
    /// [`Error::Input`] when `need_index` and there is no index;
    /// [`manifest::read`]'s errors; [`Error::Store`] when the scratch PUT
    /// fails.
    pub async fn pick(
        loc: &StoreLocation,
        scratch: bool,
        need_index: bool,
        scratch_size: u64,
        seed: u64,
    ) -> Result<Self> {
        let index = manifest::read(loc).await?.map(|(m, _)| m);
        if need_index && index.is_none() {
            return Err(Error::input(format!(
                "--write-manifest: no index at {} (no {MANIFEST})",
                loc.display
            )));
        }
        if let Some(m) = index.filter(|_| !scratch) {
            return Ok(Self {
                path: loc.child(&m.payload.name),
                size: m.payload.size,
                scratch: false,
            });
        }
        let len = usize::try_from(scratch_size)
            .map_err(|_| Error::input(format!("scratch object of {scratch_size} bytes")))?;
        let path = loc.child(&format!(
            "{SCRATCH_PREFIX}{}-{seed}.bin",
            std::process::id()
        ));
        loc.store
            .put(&path, scratch_bytes(len, seed).into())
            .await
            .map_err(Error::store("put", &path))?;
        Ok(Self {
            path,
            size: scratch_size,
            scratch: true,
        })
    }

    /// Deletes the object if it is a scratch object; an index payload is
    /// never touched.
    ///
    /// # Errors
    /// [`Error::Store`] when the DELETE fails.
    pub async fn remove(&self, loc: &StoreLocation) -> Result<()> {
        if !self.scratch {
            return Ok(());
        }
        loc.store
            .delete(&self.path)
            .await
            .map_err(Error::store("delete", &self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn scratch_objects_are_written_and_removed_and_payloads_kept() {
        let loc = crate::store::open("memory://calibrate-target-test").unwrap();
        let e = Target::pick(&loc, false, true, 4096, 1)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--write-manifest") && e.contains("no manifest.json"),
            "{e}"
        );
        let t = Target::pick(&loc, false, false, 4096, 7).await.unwrap();
        assert!(t.scratch && t.size == 4096);
        let got = loc.store.get(&t.path).await.unwrap().bytes().await.unwrap();
        assert_eq!(&got[..], &scratch_bytes(4096, 7)[..]);
        t.remove(&loc).await.unwrap();
        assert!(loc.store.get(&t.path).await.is_err());
        let payload = Target {
            path: loc.child("payload-x.bin"),
            size: 1,
            scratch: false,
        };
        loc.store
            .put(&payload.path, vec![1u8].into())
            .await
            .unwrap();
        payload.remove(&loc).await.unwrap();
        assert!(
            loc.store.get(&payload.path).await.is_ok(),
            "a payload is never deleted"
        );
    }
}
