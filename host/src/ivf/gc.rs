//! Garbage collection of index generations: removes what no manifest names
//! any more, once no reader can still need it.
//!
//! A rebuild in place never deletes (see [`super::manifest`]): the previous
//! generation's objects stay for the readers that opened the previous
//! manifest. [`collect`] removes an object under the index prefix when all of
//! these hold:
//!
//! 1. its name is one [`super::build::write`] writes
//!    ([`generation_object`]: `<role>-<16 hex>.<ext>`); any other object is
//!    never touched;
//! 2. the current `manifest.json` does not name it;
//! 3. it is older than the grace period `older_than` (so a build still
//!    writing its objects is not disturbed);
//! 4. the current manifest is itself older than `older_than` (or there is
//!    none): the switch away from the object's generation happened at least
//!    that long ago, so only a reader that has kept a previous manifest open
//!    for longer than the grace period can still want it. Long-running
//!    readers should reopen the index more often than the grace period.
//!
//! On a local directory it also removes the temporary files object_store
//! writes before renaming (`payload-….bin#1`), which a killed build leaves
//! behind, when older than `older_than`.
//!
//! Objects nested deeper under the prefix (another index below this one) are
//! never looked at.
//!
//! # Complexity
//! One listing of the prefix (streamed: O(1) memory per object besides the
//! manifest) and one DELETE per removed object.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use futures::StreamExt;
use object_store::ObjectStoreExt;
use serde::Serialize;

use super::manifest::{self, MANIFEST, generation_object};
use crate::error::{Error, Result};
use crate::store::StoreLocation;

/// What [`collect`] does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GcParams {
    /// Grace period: nothing younger is removed, and nothing at all while
    /// the current manifest is younger (see the module docs).
    pub older_than: Duration,
    /// Report what would be removed, remove nothing.
    pub dry_run: bool,
    /// The local directory of a `file://` store (see
    /// [`crate::store::local_dir`]), to find temporary files; `None` for
    /// other stores.
    pub local_dir: Option<PathBuf>,
}

/// Why an object is removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GcReason {
    /// A generation object the current manifest does not name.
    Unreferenced,
    /// A temporary file of an interrupted write.
    TempFile,
}

/// One object removed (or, in a dry run, to be removed).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GcItem {
    /// The object name under the prefix (a file name for temporary files).
    pub object: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its age in seconds.
    pub age_s: f64,
    /// Why it goes.
    pub reason: GcReason,
    /// `true` once removed (`false` in a dry run).
    pub deleted: bool,
}

/// What [`collect`] found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GcReport {
    /// Objects removed (or to be removed in a dry run).
    pub items: Vec<GcItem>,
    /// The current manifest's build id, if there is a manifest.
    pub build_id: Option<String>,
    /// Age of the current manifest in seconds.
    pub manifest_age_s: Option<f64>,
    /// Objects kept because the manifest names them (manifest included).
    pub kept_referenced: usize,
    /// Unreferenced generation objects kept because of the grace period.
    pub kept_recent: usize,
    /// Objects kept because warp did not write them (other names).
    pub kept_foreign: usize,
}

fn age(now: SystemTime, then: SystemTime) -> Duration {
    now.duration_since(then).unwrap_or_default()
}

/// Removes unreferenced generation objects and stale temporary files under
/// `loc` (see the module docs for the rules).
///
/// # Errors
/// [`Error::Index`] when the manifest exists but is invalid (nothing is
/// removed when what is referenced is unknown); [`Error::Store`] /
/// [`Error::Io`] when listing or deleting fails.
pub async fn collect(loc: &StoreLocation, params: &GcParams) -> Result<GcReport> {
    let now = SystemTime::now();
    let current = manifest::read(loc).await?;
    let mut report = GcReport::default();
    let referenced: Vec<String> = match &current {
        Some((m, written)) => {
            report.build_id = Some(m.build_id.clone());
            report.manifest_age_s = Some(age(now, *written).as_secs_f64());
            m.objects().map(|r| r.name.clone()).collect()
        }
        None => Vec::new(),
    };
    let switch_is_old = current
        .as_ref()
        .is_none_or(|(_, written)| age(now, *written) >= params.older_than);
    let depth = loc.prefix.parts().count() + 1;
    let mut listing = loc.store.list(Some(&loc.prefix));
    let mut doomed = Vec::new();
    while let Some(meta) = listing.next().await {
        let meta = meta.map_err(Error::store("list", &loc.prefix))?;
        if meta.location.parts().count() != depth {
            continue;
        }
        let Some(name) = meta.location.filename().map(str::to_string) else {
            continue;
        };
        if name == MANIFEST || referenced.contains(&name) {
            report.kept_referenced += 1;
            continue;
        }
        if generation_object(&name).is_none() {
            report.kept_foreign += 1;
            continue;
        }
        let object_age = age(now, SystemTime::from(meta.last_modified));
        if !switch_is_old || object_age < params.older_than {
            report.kept_recent += 1;
            continue;
        }
        doomed.push((meta.location, name, meta.size, object_age));
    }
    drop(listing);
    for (path, name, bytes, object_age) in doomed {
        if !params.dry_run {
            match loc.store.delete(&path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(source) => {
                    return Err(Error::Store {
                        op: "delete",
                        path: path.to_string(),
                        source,
                    });
                }
            }
        }
        report.items.push(GcItem {
            object: name,
            bytes,
            age_s: object_age.as_secs_f64(),
            reason: GcReason::Unreferenced,
            deleted: !params.dry_run,
        });
    }
    if let Some(dir) = &params.local_dir {
        temp_files(dir, loc, now, params, &mut report)?;
    }
    Ok(report)
}

/// Whether a file name is an object_store temporary file: `<name>#<digits>`.
pub fn is_temp_file(name: &str) -> bool {
    name.rsplit_once('#').is_some_and(|(base, n)| {
        !base.is_empty() && !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())
    })
}

/// Removes temporary files older than the grace period in the local
/// directory of the prefix.
fn temp_files(
    root: &std::path::Path,
    loc: &StoreLocation,
    now: SystemTime,
    params: &GcParams,
    report: &mut GcReport,
) -> Result<()> {
    let prefix: &str = loc.prefix.as_ref();
    let dir = if prefix.is_empty() {
        root.to_path_buf()
    } else {
        root.join(prefix)
    };
    let io = |path: &std::path::Path| {
        let path = path.display().to_string();
        move |source| Error::Io { path, source }
    };
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(&dir)(e)),
    };
    for entry in entries {
        let entry = entry.map_err(io(&dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_temp_file(&name) {
            continue;
        }
        let meta = entry.metadata().map_err(io(&entry.path()))?;
        if !meta.is_file() {
            continue;
        }
        let file_age = age(now, meta.modified().map_err(io(&entry.path()))?);
        if file_age < params.older_than {
            report.kept_recent += 1;
            continue;
        }
        if !params.dry_run {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(&entry.path())(e)),
            }
        }
        report.items.push(GcItem {
            object: name,
            bytes: meta.len(),
            age_s: file_age.as_secs_f64(),
            reason: GcReason::TempFile,
            deleted: !params.dry_run,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_file_names() {
        assert!(is_temp_file("payload-0123456789abcdef.bin#1"));
        assert!(is_temp_file("x#42"));
        assert!(!is_temp_file("x#"));
        assert!(!is_temp_file("#1"));
        assert!(!is_temp_file("x#a1"));
        assert!(!is_temp_file("manifest.json"));
    }
}
