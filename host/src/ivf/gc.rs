//! Garbage collection of index generations: removes what no manifest names
//! any more, once no reader and no build can still need it.
//!
//! A rebuild in place never deletes (see [`super::manifest`]): the previous
//! generation's objects stay for the readers that opened the previous
//! manifest. A build in progress has written objects that nothing names
//! yet; it marks them with a claim ([`super::claim`]). [`collect`] removes an
//! object directly under the index prefix only when all of these hold:
//!
//! 1. **warp wrote it**: a generation object ([`generation_object`]:
//!    `<role>-<16 hex>.<ext>`), a claim ([`claim_object`]:
//!    `claim-<16 hex>.json`) or, on a local directory, a temporary file of an
//!    interrupted write ([`is_temp_file`]: `<name>#<digits>`). Any other
//!    name, and anything nested deeper (another index below this one), is
//!    never touched;
//! 2. **the current `manifest.json` does not name it**;
//! 3. **no live claim covers its generation**: a claim is live while its
//!    `LastModified` is younger than the lease `ttl` its body declares
//!    (default 10 min, capped at 24 h; [`GcParams::claim_ttl`] when the body
//!    cannot be read). A claim that appears while gc runs, or vanishes while
//!    gc runs (its build just ended), counts as live;
//! 4. **it is older than the current manifest** (`LastModified` strictly
//!    before the manifest's), unless its generation's claim is stale. An
//!    unclaimed object at least as new as the manifest may belong to a build
//!    still running whose claim the listing missed (a build that claimed
//!    after the listing had passed `claim-…` wrote all its objects after gc
//!    read the manifest), or to a build by a warp without claims; it goes
//!    once a later manifest makes it older. A stale claim means its builder
//!    is gone (it gave up at `ttl / 2`), so its objects may go at once;
//! 5. **the grace period has passed**: the object is older than
//!    `older_than`, and so is the current manifest (or there is none): the
//!    switch away from the object's generation happened at least that long
//!    ago, so only a reader that has kept a previous manifest open for
//!    longer can still want it. Long-running readers should reopen the
//!    index more often than the grace period.
//!
//! A stale claim itself is removed once it is older than the grace period
//! and no unreferenced object of its generation is kept; it goes after
//! them, so an interrupted gc leaves the claim that marks the rest as
//! abandoned. Temporary files follow the rule of the object they were
//! becoming: `payload-….bin#1` that of its generation, `claim-….json#1`
//! kept while younger than the claim ttl (a claim being written),
//! `manifest.json#1` kept while any claim is live (a publish in progress),
//! any other only by the grace period.
//!
//! # The grace floor
//!
//! `older_than` below [`MIN_GRACE`] (15 min) is refused unless
//! [`GcParams::force`]. Claims protect builds that write them, so the grace
//! is what protects everything else, and 15 minutes is chosen for that: it
//! is longer than the default claim ttl (10 min), so an object whose claim gc
//! could not see or trust (a build by a warp without claims, a gc host whose
//! clock runs minutes ahead of the store's) still outlives a whole lease
//! period; and it is longer than the time a reader normally holds a manifest
//! (a query: under a second; `warp bench`: minutes). A shorter grace is for
//! tests and for stores with no concurrent readers or builds.
//!
//! # Consistency
//!
//! A listing is not a snapshot, so [`collect`] reads the manifest, lists the
//! prefix, reads every claim, lists again (a claim that appeared meanwhile
//! protects its generation), then reads the manifest again: if it changed (a
//! build published during the run) nothing is removed and the report says
//! so (`manifest_changed`). What remains is the time between that last read
//! and the DELETEs: an object removed then is of a generation with no live
//! claim and older than the manifest, whose build either ended or gave up
//! its lease. A build that gave up cannot publish (it checks its lease
//! before the manifest PUT and fails), and one that passed its last check
//! has `ttl / 2` for its PUT to land before gc calls its claim stale; and it
//! HEADs every object before publishing (see [`super::build::write_claimed`]).
//! The clocks compared are the store's (`LastModified` of objects, claims and
//! manifest) with each other, and gc's own clock with the store's for ages:
//! they must agree to well within `ttl / 2` and the grace period.
//!
//! # Complexity
//! Two listings of the prefix, two GETs of the manifest, one GET per claim
//! (at most [`MAX_CLAIM_BYTES`] each) and one DELETE per removed object;
//! memory O(objects directly under the prefix).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use futures::StreamExt;
use object_store::ObjectStoreExt;
use object_store::path::Path;
use serde::Serialize;

use super::claim::{ClaimBody, DEFAULT_TTL, MAX_CLAIM_BYTES, MAX_TTL, claim_object};
use super::manifest::{self, MANIFEST, generation_object};
use crate::error::{Error, Result};
use crate::store::StoreLocation;

/// Shortest grace period [`collect`] accepts without [`GcParams::force`]:
/// 15 minutes (see the module docs for why).
pub const MIN_GRACE: Duration = Duration::from_secs(15 * 60);

/// What [`collect`] does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GcParams {
    /// Grace period: nothing younger is removed, and nothing at all while
    /// the current manifest is younger (see the module docs). At least
    /// [`MIN_GRACE`] unless `force`.
    pub older_than: Duration,
    /// Accept a grace period below [`MIN_GRACE`].
    pub force: bool,
    /// Report what would be removed, remove nothing.
    pub dry_run: bool,
    /// The local directory of a `file://` store (see
    /// [`crate::store::local_dir`]), to find temporary files; `None` for
    /// other stores.
    pub local_dir: Option<PathBuf>,
    /// Lease length assumed for a claim whose body cannot be read or does
    /// not say. Default [`DEFAULT_TTL`].
    pub claim_ttl: Duration,
}

impl GcParams {
    /// Removal (not a dry run) with grace `older_than`, no force, no local
    /// directory, the default claim ttl.
    pub fn new(older_than: Duration) -> Self {
        Self {
            older_than,
            force: false,
            dry_run: false,
            local_dir: None,
            claim_ttl: DEFAULT_TTL,
        }
    }

    /// Checks the grace floor and the claim ttl.
    ///
    /// # Errors
    /// [`Error::Config`] for `older_than` below [`MIN_GRACE`] without
    /// `force`, or a `claim_ttl` of zero or above [`MAX_TTL`].
    pub fn validate(&self) -> Result<()> {
        let show = |d: Duration| humantime::format_duration(d).to_string();
        if self.older_than < MIN_GRACE && !self.force {
            return Err(Error::config(
                "--older-than",
                show(self.older_than),
                format!(
                    "is below the {} floor: readers of the previous manifest and builds that gc cannot see may still need what it would remove; pass --force to collect anyway",
                    show(MIN_GRACE)
                ),
            ));
        }
        if self.claim_ttl.is_zero() || self.claim_ttl > MAX_TTL {
            return Err(Error::config(
                "claim ttl",
                show(self.claim_ttl),
                format!("must be above 0 and at most {}", show(MAX_TTL)),
            ));
        }
        Ok(())
    }
}

/// Why an object is removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GcReason {
    /// A generation object the current manifest does not name.
    Unreferenced,
    /// A temporary file of an interrupted write.
    TempFile,
    /// The claim of a build that is gone (older than its ttl).
    StaleClaim,
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

/// A live claim: a build that may still be writing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveClaim {
    /// The claimed generation.
    pub build_id: String,
    /// Age of the claim's last renewal (store time), seconds.
    pub age_s: f64,
    /// The lease length it declares (or the assumed one), seconds.
    pub ttl_s: f64,
    /// The building host, when the claim says.
    pub host: Option<String>,
    /// The building process, when the claim says.
    pub pid: Option<u32>,
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
    /// `true` when the manifest changed while gc ran: nothing was removed.
    pub manifest_changed: bool,
    /// Objects kept because the manifest names them (manifest included).
    pub kept_referenced: usize,
    /// Objects kept because a live claim covers their generation.
    pub kept_claimed: usize,
    /// Unclaimed generation objects kept because they are not older than
    /// the manifest (a build may still be writing them).
    pub kept_newer: usize,
    /// Objects (claims included) kept because of the grace period.
    pub kept_recent: usize,
    /// Objects kept because warp did not write them (other names).
    pub kept_foreign: usize,
    /// The live claims.
    pub live_claims: Vec<LiveClaim>,
}

fn age(now: SystemTime, then: SystemTime) -> Duration {
    now.duration_since(then).unwrap_or_default()
}

/// A claim found under the prefix.
#[derive(Debug, Clone)]
struct ClaimSeen {
    path: Path,
    bytes: u64,
    /// Latest `LastModified` seen.
    renewed: SystemTime,
    ttl: Duration,
    body: Option<ClaimBody>,
    /// Vanished while gc ran, or appeared while it ran.
    in_flux: bool,
}

/// What keeps an object, or that it may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Claimed,
    Newer,
    Recent,
    Remove,
}

/// The facts every verdict is drawn from.
struct Judge<'a> {
    now: SystemTime,
    params: &'a GcParams,
    manifest_time: Option<SystemTime>,
    switch_is_old: bool,
    live: HashSet<String>,
    stale: HashSet<String>,
}

impl Judge<'_> {
    /// The verdict on an unreferenced object (or temporary file) of
    /// generation `id` written at `time`.
    fn generation(&self, id: &str, time: SystemTime) -> Verdict {
        if self.live.contains(id) {
            Verdict::Claimed
        } else if !self.stale.contains(id) && self.manifest_time.is_some_and(|m| time >= m) {
            Verdict::Newer
        } else {
            self.grace(time)
        }
    }

    /// The grace-period rule alone.
    fn grace(&self, time: SystemTime) -> Verdict {
        if !self.switch_is_old || age(self.now, time) < self.params.older_than {
            Verdict::Recent
        } else {
            Verdict::Remove
        }
    }

    fn count(report: &mut GcReport, v: Verdict) {
        match v {
            Verdict::Claimed => report.kept_claimed += 1,
            Verdict::Newer => report.kept_newer += 1,
            Verdict::Recent => report.kept_recent += 1,
            Verdict::Remove => {}
        }
    }
}

/// The objects directly under the prefix, with their names.
async fn children(loc: &StoreLocation) -> Result<Vec<(String, object_store::ObjectMeta)>> {
    let depth = loc.prefix.parts().count() + 1;
    let mut listing = loc.store.list(Some(&loc.prefix));
    let mut out = Vec::new();
    while let Some(meta) = listing.next().await {
        let meta = meta.map_err(Error::store("list", &loc.prefix))?;
        if meta.location.parts().count() != depth {
            continue;
        }
        if let Some(name) = meta.location.filename().map(str::to_string) {
            out.push((name, meta));
        }
    }
    Ok(out)
}

/// Reads a claim's body: its ttl (capped at [`MAX_TTL`]) and a fresher
/// `LastModified`. `Ok(false)` when it vanished (its build just ended).
async fn read_claim(
    loc: &StoreLocation,
    seen: &mut ClaimSeen,
    fallback_ttl: Duration,
) -> Result<bool> {
    match crate::store::get_bounded(loc, &seen.path, MAX_CLAIM_BYTES).await {
        Ok((bytes, written)) => {
            seen.renewed = seen.renewed.max(written);
            seen.body = serde_json::from_slice::<ClaimBody>(&bytes).ok();
            seen.ttl = seen
                .body
                .as_ref()
                .and_then(|b| Duration::try_from_secs_f64(b.ttl_s).ok())
                .filter(|t| !t.is_zero())
                .map_or(fallback_ttl, |t| t.min(MAX_TTL));
            Ok(true)
        }
        Err(Error::Store {
            source: object_store::Error::NotFound { .. },
            ..
        }) => Ok(false),
        // Too large or not the announced size: not a claim warp wrote.
        Err(Error::Index { .. }) => Ok(true),
        Err(e) => Err(e),
    }
}

/// Removes unreferenced generation objects, stale claims and stale
/// temporary files under `loc` (see the module docs for the rules).
///
/// # Errors
/// [`GcParams::validate`]'s (nothing is read then); [`Error::Index`] when
/// the manifest exists but is invalid (nothing is removed when what is
/// referenced is unknown); [`Error::Store`] / [`Error::Io`] when listing,
/// reading or deleting fails.
pub async fn collect(loc: &StoreLocation, params: &GcParams) -> Result<GcReport> {
    params.validate()?;
    let now = SystemTime::now();
    let current = manifest::read(loc).await?;
    let mut report = GcReport::default();
    let referenced: HashSet<String> = match &current {
        Some((m, written)) => {
            report.build_id = Some(m.build_id.clone());
            report.manifest_age_s = Some(age(now, *written).as_secs_f64());
            m.objects().map(|r| r.name.clone()).collect()
        }
        None => HashSet::new(),
    };

    // The first listing: sort names into kinds.
    let mut claims: HashMap<String, ClaimSeen> = HashMap::new();
    let mut generations = Vec::new();
    for (name, meta) in children(loc).await? {
        if name == MANIFEST || referenced.contains(&name) {
            report.kept_referenced += 1;
        } else if let Some(id) = claim_object(&name) {
            claims.insert(
                id.to_string(),
                ClaimSeen {
                    path: meta.location,
                    bytes: meta.size,
                    renewed: SystemTime::from(meta.last_modified),
                    ttl: params.claim_ttl,
                    body: None,
                    in_flux: false,
                },
            );
        } else if let Some(id) = generation_object(&name) {
            let id = id.to_string();
            generations.push((meta, name, id));
        } else {
            report.kept_foreign += 1;
        }
    }
    for seen in claims.values_mut() {
        if !read_claim(loc, seen, params.claim_ttl).await? {
            seen.in_flux = true;
        }
    }
    // The second listing: claims made while gc ran.
    for (name, meta) in children(loc).await? {
        let Some(id) = claim_object(&name) else {
            continue;
        };
        let written = SystemTime::from(meta.last_modified);
        claims
            .entry(id.to_string())
            .and_modify(|c| c.renewed = c.renewed.max(written))
            .or_insert(ClaimSeen {
                path: meta.location,
                bytes: meta.size,
                renewed: written,
                ttl: params.claim_ttl,
                body: None,
                in_flux: true,
            });
    }

    let (mut live, mut stale) = (HashSet::new(), HashSet::new());
    for (id, c) in &claims {
        let claim_age = age(now, c.renewed);
        if c.in_flux || claim_age < c.ttl {
            live.insert(id.clone());
            report.live_claims.push(LiveClaim {
                build_id: id.clone(),
                age_s: claim_age.as_secs_f64(),
                ttl_s: c.ttl.as_secs_f64(),
                host: c.body.as_ref().map(|b| b.host.clone()),
                pid: c.body.as_ref().map(|b| b.pid),
            });
        } else {
            stale.insert(id.clone());
        }
    }
    report
        .live_claims
        .sort_by(|a, b| a.build_id.cmp(&b.build_id));
    let manifest_time = current.as_ref().map(|(_, written)| *written);
    let judge = Judge {
        now,
        params,
        manifest_time,
        switch_is_old: manifest_time.is_none_or(|w| age(now, w) >= params.older_than),
        live,
        stale,
    };

    // Verdicts.
    let mut doomed: Vec<(Path, GcItem)> = Vec::new();
    let mut kept_generations: HashSet<String> = HashSet::new();
    for (meta, name, id) in generations {
        let time = SystemTime::from(meta.last_modified);
        let verdict = judge.generation(&id, time);
        Judge::count(&mut report, verdict);
        if verdict == Verdict::Remove {
            doomed.push((
                meta.location,
                GcItem {
                    object: name,
                    bytes: meta.size,
                    age_s: age(now, time).as_secs_f64(),
                    reason: GcReason::Unreferenced,
                    deleted: false,
                },
            ));
        } else {
            kept_generations.insert(id);
        }
    }
    let temps = match &params.local_dir {
        Some(dir) => temp_files(dir, loc, &judge, &mut report, &mut kept_generations)?,
        None => Vec::new(),
    };
    let mut stale_claims = Vec::new();
    let mut ids: Vec<&String> = judge.stale.iter().collect();
    ids.sort();
    for id in ids {
        let c = &claims[id];
        let claim_age = age(now, c.renewed);
        if kept_generations.contains(id) || claim_age < params.older_than {
            report.kept_recent += 1;
            continue;
        }
        stale_claims.push((
            c.path.clone(),
            GcItem {
                object: c.path.filename().unwrap_or_default().to_string(),
                bytes: c.bytes,
                age_s: claim_age.as_secs_f64(),
                reason: GcReason::StaleClaim,
                deleted: false,
            },
        ));
    }

    // The manifest again: a build that published during the run changes
    // what is referenced; then nothing is removed.
    if manifest::read(loc).await? != current {
        report.manifest_changed = true;
        return Ok(report);
    }
    for (path, mut item) in doomed {
        if !params.dry_run {
            delete(loc, &path).await?;
            item.deleted = true;
        }
        report.items.push(item);
    }
    for (path, mut item) in temps {
        if !params.dry_run {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(Error::Io {
                        path: path.display().to_string(),
                        source,
                    });
                }
            }
            item.deleted = true;
        }
        report.items.push(item);
    }
    for (path, mut item) in stale_claims {
        if !params.dry_run {
            delete(loc, &path).await?;
            item.deleted = true;
        }
        report.items.push(item);
    }
    Ok(report)
}

/// DELETE, an absent object being fine.
async fn delete(loc: &StoreLocation, path: &Path) -> Result<()> {
    match loc.store.delete(path).await {
        Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
        Err(source) => Err(Error::Store {
            op: "delete",
            path: path.to_string(),
            source,
        }),
    }
}

/// Whether a file name is an object_store temporary file: `<name>#<digits>`.
pub fn is_temp_file(name: &str) -> bool {
    name.rsplit_once('#').is_some_and(|(base, n)| {
        !base.is_empty() && !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())
    })
}

/// The temporary files in the local directory of the prefix that may go
/// (see the module docs), counting the kept ones in `report`.
fn temp_files(
    root: &std::path::Path,
    loc: &StoreLocation,
    judge: &Judge<'_>,
    report: &mut GcReport,
    kept_generations: &mut HashSet<String>,
) -> Result<Vec<(PathBuf, GcItem)>> {
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
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(&dir)(e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io(&dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_temp_file(&name) {
            continue;
        }
        let meta = match entry.metadata() {
            Ok(m) => m,
            // Renamed into place or removed since the directory was read.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io(&entry.path())(e)),
        };
        if !meta.is_file() {
            continue;
        }
        let time = meta.modified().map_err(io(&entry.path()))?;
        let base = name.rsplit_once('#').map_or("", |(b, _)| b);
        let verdict = if let Some(id) = generation_object(base) {
            let v = judge.generation(id, time);
            if v != Verdict::Remove {
                kept_generations.insert(id.to_string());
            }
            v
        } else if let Some(id) = claim_object(base) {
            if judge.live.contains(id) {
                Verdict::Claimed
            } else if age(judge.now, time) < judge.params.claim_ttl.max(judge.params.older_than) {
                Verdict::Recent
            } else {
                Verdict::Remove
            }
        } else if base == MANIFEST && !judge.live.is_empty() {
            Verdict::Claimed
        } else {
            judge.grace(time)
        };
        Judge::count(report, verdict);
        if verdict == Verdict::Remove {
            out.push((
                entry.path(),
                GcItem {
                    object: name,
                    bytes: meta.len(),
                    age_s: age(judge.now, time).as_secs_f64(),
                    reason: GcReason::TempFile,
                    deleted: false,
                },
            ));
        }
    }
    Ok(out)
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

    #[test]
    fn the_grace_floor_needs_force() {
        let e = GcParams::new(Duration::from_secs(60))
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--older-than") && e.contains("15m") && e.contains("--force"),
            "{e}"
        );
        assert!(!e.contains('\n'));
        assert!(GcParams::new(MIN_GRACE).validate().is_ok());
        let forced = GcParams {
            force: true,
            ..GcParams::new(Duration::ZERO)
        };
        assert!(forced.validate().is_ok());
    }
}
