//! A build's claim on its generation: a lease object that `warp gc` honours.
//!
//! # Why
//!
//! A build writes its generation's objects one after the other and publishes
//! them by writing `manifest.json` last (see [`super::manifest`]). Until that
//! PUT, nothing names those objects, so without more information `warp gc`
//! cannot tell them from the leftovers of a failed build, and an object's age
//! is no guide: on S3 a multipart object's `LastModified` is the time its
//! upload *started*, so a long upload looks old the moment it appears. With a
//! short grace period gc deleted a payload between its PUT and the manifest
//! PUT, the build still reported success, and every later query failed with
//! `Object … not found`.
//!
//! # The claim
//!
//! Before anything else touches the store — before any data is read or
//! generated, before training — a build PUTs `claim-<build_id>.json` under
//! the index prefix ([`BuildLease::acquire`]; body: [`ClaimBody`]). A missing
//! bucket or an unwritable location therefore fails in one line before any
//! computing. The claim is a lease of length `ttl` ([`LeaseParams`], default
//! [`DEFAULT_TTL`] = 10 min): a background task rewrites it every `renew`
//! ([`DEFAULT_RENEW`] = 30 s) while the build trains and writes, so its
//! `LastModified` (the store's clock) stays recent. `warp gc` treats a claim
//! whose `LastModified` is younger than the `ttl` written in its body as
//! live and never removes an object of that generation ([`super::gc`]).
//!
//! # Losing the lease
//!
//! The holder counts its lease as lost once no renewal has succeeded for
//! `ttl / 2`, measured on its own monotonic clock from the moment the last
//! successful renewal was *sent* (the store stamps the object at or after
//! that moment, so the holder never believes in a lease the store dates
//! later than it does). Losing is final: a later successful PUT does not
//! revive it. The build then fails with one line, removes the objects it
//! wrote and publishes nothing ([`BuildLease::check`] is called before every
//! object PUT and before the manifest PUT).
//!
//! The factor two is the safety margin. gc calls a claim stale only when it
//! is `ttl` old by gc's clock, while the holder stopped trusting it at
//! `ttl / 2` by its own: a holder that passed its last check just before
//! `ttl / 2` still has `ttl / 2` (5 min by default) for its manifest PUT to
//! land before any gc may act on the stale claim, and the clocks of the gc
//! host and of the store may differ by up to that much without a live claim
//! looking stale. (Without conditional writes on every store there is no
//! fencing token; the margin is what makes the window one of minutes of
//! stalled PUT or clock error, not of milliseconds.)
//!
//! # Cost
//! One PUT of a few hundred bytes at the start, one every `renew`, one
//! before publishing and one DELETE at the end.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use object_store::ObjectStoreExt;
use object_store::path::Path;
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::error::{Error, Result};
use crate::store::StoreLocation;

/// Default lease length: 10 minutes.
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);
/// Default renewal period: 30 seconds (ten renewals per half lease).
pub const DEFAULT_RENEW: Duration = Duration::from_secs(30);
/// Longest lease: 24 hours (a dead build's objects are kept that long at
/// most because of its claim; gc also caps a claim's declared `ttl` there).
pub const MAX_TTL: Duration = Duration::from_secs(24 * 3600);
/// Largest claim body gc reads: 64 KiB (a claim is a few hundred bytes).
pub const MAX_CLAIM_BYTES: u64 = 64 << 10;

/// The lease of a build's claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseParams {
    /// Lease length: gc counts the claim live while it is younger; the
    /// holder gives it up after `ttl / 2` without a successful renewal.
    /// Default [`DEFAULT_TTL`].
    pub ttl: Duration,
    /// Renewal period. Default [`DEFAULT_RENEW`].
    pub renew: Duration,
}

impl Default for LeaseParams {
    fn default() -> Self {
        Self {
            ttl: DEFAULT_TTL,
            renew: DEFAULT_RENEW,
        }
    }
}

impl LeaseParams {
    /// Checks `1 ms ≤ renew`, `4·renew ≤ ttl ≤ MAX_TTL` (at least two
    /// renewals fit in the half lease the holder waits before giving up).
    ///
    /// # Errors
    /// [`Error::Config`] naming the value.
    pub fn validate(&self) -> Result<()> {
        let show = |d: Duration| humantime::format_duration(d).to_string();
        if self.renew < Duration::from_millis(1) {
            return Err(Error::config(
                "lease renew",
                show(self.renew),
                "must be at least 1ms",
            ));
        }
        if self.ttl < self.renew * 4 || self.ttl > MAX_TTL {
            return Err(Error::config(
                "lease ttl",
                show(self.ttl),
                format!(
                    "must be between 4 × renew ({}) and {}",
                    show(self.renew * 4),
                    show(MAX_TTL)
                ),
            ));
        }
        Ok(())
    }
}

/// The body of `claim-<build_id>.json` (JSON). `warp gc` reads `ttl_s`;
/// the rest says who holds the claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimBody {
    /// The build id (16 hex digits), as in the object name.
    pub build_id: String,
    /// Host name of the building machine (`unknown` when not found).
    pub host: String,
    /// Process id of the build.
    pub pid: u32,
    /// When the build claimed its generation (RFC 3339, UTC, the holder's
    /// clock).
    pub started: String,
    /// When the claim was last renewed (RFC 3339, UTC, the holder's clock).
    pub renewed: String,
    /// Lease length, seconds: the claim is live while its `LastModified` is
    /// younger.
    pub ttl_s: f64,
    /// Renewal period, seconds.
    pub renew_s: f64,
}

/// The claim object name of build `build_id`: `claim-<build_id>.json`.
pub fn claim_name(build_id: &str) -> String {
    format!("claim-{build_id}.json")
}

/// The build id of a claim object name (`claim-<16 hex digits>.json`), or
/// `None` for any other name.
pub fn claim_object(name: &str) -> Option<&str> {
    let id = name.strip_prefix("claim-")?.strip_suffix(".json")?;
    (id.len() == 16 && id.bytes().all(|c| c.is_ascii_hexdigit())).then_some(id)
}

/// A fresh build id: 16 hex digits from the operating system's randomness
/// (64 bits: two concurrent builds collide with probability 2⁻⁶⁴).
pub fn new_build_id() -> String {
    format!("{:016x}", rand::random::<u64>())
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| crate::error::bound(h.trim(), 253))
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

/// What the holder knows about its lease.
#[derive(Debug)]
struct State {
    /// When the last successful renewal (or the claim itself) was sent.
    last_ok: Instant,
    /// Set once the lease is found lost; final.
    lost: bool,
    /// The last failed renewal's error, for the message.
    last_error: Option<String>,
}

/// The state shared by the holder and its renewal task.
#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    /// `ttl / 2`.
    half: Duration,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the lease is still held now (marks it lost when not).
    fn held(&self) -> bool {
        self.held_at(Instant::now())
    }

    /// Whether the lease is held at `now` (marks it lost when not).
    fn held_at(&self, now: Instant) -> bool {
        let mut s = self.lock();
        if !s.lost && now.saturating_duration_since(s.last_ok) >= self.half {
            s.lost = true;
        }
        !s.lost
    }

    /// Records a renewal sent at `sent` that succeeded: it counts only if
    /// the lease was still held when it was sent.
    fn renewed(&self, sent: Instant) {
        let mut s = self.lock();
        if s.lost || sent.saturating_duration_since(s.last_ok) >= self.half {
            s.lost = true;
        } else if sent > s.last_ok {
            s.last_ok = sent;
        }
    }

    fn failed(&self, error: String) {
        self.lock().last_error = Some(error);
    }
}

/// A build's claim on its generation, renewed in the background while it
/// lives (see the module docs).
///
/// Made by [`BuildLease::acquire`]; consumed by [`BuildLease::release`]
/// (or by [`super::build::write_claimed`], which releases it). Dropping it
/// stops the renewals and leaves the claim to expire (gc removes it once
/// stale).
#[derive(Debug)]
pub struct BuildLease {
    loc: StoreLocation,
    build_id: String,
    path: Path,
    params: LeaseParams,
    body: ClaimBody,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// One PUT of the claim with `renewed` = now.
async fn put_claim(loc: &StoreLocation, path: &Path, body: &ClaimBody) -> Result<()> {
    let mut body = body.clone();
    body.renewed = rfc3339(SystemTime::now());
    let bytes = serde_json::to_vec(&body).expect("a claim serializes");
    loc.store
        .put(path, bytes.into())
        .await
        .map_err(Error::store("put", path))?;
    Ok(())
}

impl BuildLease {
    /// Claims a fresh generation at `loc`: makes the build id, PUTs
    /// `claim-<id>.json`, and starts renewing it every `params.renew` on the
    /// current tokio runtime (which must keep running while the build
    /// computes: a multi-thread runtime when the caller blocks its thread).
    ///
    /// # Errors
    /// [`LeaseParams::validate`]'s; [`Error::Store`] when the claim cannot
    /// be written (a missing bucket, an unwritable directory): nothing else
    /// has been done then.
    pub async fn acquire(loc: &StoreLocation, params: &LeaseParams) -> Result<Self> {
        params.validate()?;
        let build_id = new_build_id();
        let path = loc.child(&claim_name(&build_id));
        let now = rfc3339(SystemTime::now());
        let body = ClaimBody {
            build_id: build_id.clone(),
            host: host_name(),
            pid: std::process::id(),
            started: now.clone(),
            renewed: now,
            ttl_s: params.ttl.as_secs_f64(),
            renew_s: params.renew.as_secs_f64(),
        };
        let sent = Instant::now();
        put_claim(loc, &path, &body).await?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                last_ok: sent,
                lost: false,
                last_error: None,
            }),
            half: params.ttl / 2,
        });
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(renew_loop(
            loc.clone(),
            path.clone(),
            body.clone(),
            *params,
            Arc::clone(&shared),
            stopped,
        ));
        Ok(Self {
            loc: loc.clone(),
            build_id,
            path,
            params: *params,
            body,
            shared,
            stop: Some(stop),
            task: Some(task),
        })
    }

    /// The build id of the claimed generation.
    pub fn build_id(&self) -> &str {
        &self.build_id
    }

    /// Where the generation is claimed.
    pub fn location(&self) -> &StoreLocation {
        &self.loc
    }

    /// The lease's parameters.
    pub fn params(&self) -> &LeaseParams {
        &self.params
    }

    /// `Ok` while the lease is held: the last successful renewal was sent
    /// less than `ttl / 2` ago (monotonic clock). No I/O.
    ///
    /// # Errors
    /// [`Error::Index`] naming the claim, how long it went unrenewed and the
    /// last renewal error, once the lease is lost (final).
    pub fn check(&self) -> Result<()> {
        if self.shared.held() {
            return Ok(());
        }
        let last_error = self.shared.lock().last_error.clone();
        let show = |d: Duration| humantime::format_duration(d).to_string();
        Err(Error::index(format!(
            "build {} lost its claim {} on {}: not renewed for {} (half its {} lease{}), so gc may remove its objects; nothing was published",
            self.build_id,
            claim_name(&self.build_id),
            self.loc.display,
            show(self.shared.half),
            show(self.params.ttl),
            last_error.map_or_else(String::new, |e| format!("; last renewal error: {e}")),
        )))
    }

    /// Renews the claim now (before publishing: the manifest PUT then
    /// happens with a fresh claim).
    ///
    /// # Errors
    /// [`BuildLease::check`]'s when the lease is lost (before or during the
    /// PUT); [`Error::Store`] when the PUT fails.
    pub async fn renew(&self) -> Result<()> {
        self.check()?;
        let sent = Instant::now();
        if let Err(e) = put_claim(&self.loc, &self.path, &self.body).await {
            self.shared.failed(e.to_string());
            return Err(e);
        }
        self.shared.renewed(sent);
        self.check()
    }

    /// Stops the renewals (waiting for one in flight, so it cannot land
    /// after the delete) and deletes the claim. A failed delete is ignored:
    /// the claim expires and gc removes it.
    pub async fn release(mut self) {
        drop(self.stop.take());
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
        let _ = self.loc.store.delete(&self.path).await;
    }
}

/// Renews the claim every `params.renew` until stopped or lost. Each PUT
/// is bounded by `ttl / 2` (a hung PUT cannot outlive the lease anyway).
async fn renew_loop(
    loc: StoreLocation,
    path: Path,
    body: ClaimBody,
    params: LeaseParams,
    shared: Arc<Shared>,
    mut stopped: oneshot::Receiver<()>,
) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(params.renew) => {}
            _ = &mut stopped => return,
        }
        if !shared.held() {
            return;
        }
        let sent = Instant::now();
        match tokio::time::timeout(shared.half, put_claim(&loc, &path, &body)).await {
            Ok(Ok(())) => shared.renewed(sent),
            Ok(Err(e)) => shared.failed(e.to_string()),
            Err(_) => shared.failed(format!(
                "the PUT did not finish within {}",
                humantime::format_duration(shared.half)
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_names() {
        let id = "0123456789abcdef";
        assert_eq!(claim_object(&claim_name(id)), Some(id));
        assert_eq!(claim_object("claim-0123456789abcde.json"), None);
        assert_eq!(claim_object("claim-0123456789abcdeg.json"), None);
        assert_eq!(claim_object("claim-0123456789abcdef.bin"), None);
        assert_eq!(claim_object("payload-0123456789abcdef.bin"), None);
        let a = new_build_id();
        assert_eq!(a.len(), 16);
        assert_ne!(a, new_build_id());
    }

    #[test]
    fn lease_params_are_bounded() {
        assert!(LeaseParams::default().validate().is_ok());
        let p = |ttl, renew| LeaseParams {
            ttl: Duration::from_millis(ttl),
            renew: Duration::from_millis(renew),
        };
        assert!(p(400, 100).validate().is_ok());
        let e = p(300, 100).validate().unwrap_err().to_string();
        assert!(e.contains("lease ttl") && e.contains("4 × renew"), "{e}");
        assert!(p(4, 0).validate().is_err());
        assert!(p(25 * 3600 * 1000, 1000).validate().is_err());
    }

    #[test]
    fn a_lost_lease_stays_lost() {
        let ms = Duration::from_millis;
        let t0 = Instant::now();
        let fresh = || Shared {
            state: Mutex::new(State {
                last_ok: t0,
                lost: false,
                last_error: None,
            }),
            half: ms(100),
        };
        let shared = fresh();
        assert!(shared.held_at(t0 + ms(50)));
        // A renewal sent in time moves the deadline, however late it answers.
        shared.renewed(t0 + ms(60));
        assert!(shared.held_at(t0 + ms(150)));
        assert!(!shared.held_at(t0 + ms(161)));
        // Nothing revives a lost lease.
        shared.renewed(t0 + ms(170));
        assert!(!shared.held_at(t0 + ms(171)));
        // A renewal sent after the deadline does not count, even unobserved.
        let shared = fresh();
        shared.renewed(t0 + ms(100));
        assert!(!shared.held_at(t0 + ms(101)));
    }
}
