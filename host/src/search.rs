//! Opening an index for search: the store (with preload and simulation as
//! configured), the index, the planner backend, and the [`Searcher`] over
//! them; plus the tokio runtime the commands run it on.

use std::sync::Arc;

use crate::config::{HostConfig, InputLimits, PlannerKind};
use crate::error::{Error, Result};
use crate::query::{BackendFactory, Index, Searcher, component_factory_with, native_factory_with};
use crate::store::{self, Deadline, PlannedError};

/// The planner factory for `kind` under the configured `limits`
/// (`WARP_PLAN_MEMORY_BYTES`, `WARP_PLAN_DEADLINE_MS`) and its name
/// (`native`, `component`).
///
/// # Errors
/// [`Error::Planner`] when the component cannot be loaded.
pub fn backend_factory(
    kind: PlannerKind,
    limits: &InputLimits,
) -> Result<(BackendFactory, &'static str)> {
    let caps = limits.plan_limits();
    match kind {
        PlannerKind::Native => Ok((native_factory_with(caps), "native")),
        PlannerKind::Component => Ok((component_factory_with(caps)?, "component")),
    }
}

/// Opens the index of `cfg` (copied into memory first when `preload`, then
/// wrapped in the configured simulation) and a searcher over it with the
/// configured I/O slots, cache and planner.
///
/// # Errors
/// Store, index and planner errors.
pub async fn open_searcher(
    cfg: &HostConfig,
    preload: bool,
    read: crate::query::ReadConfig,
) -> Result<(Arc<Searcher>, &'static str)> {
    open_searcher_at(store::open_existing(&cfg.url)?, cfg, preload, read).await
}

/// As [`open_searcher`] on an already opened location (the store, prefix
/// and display of `cfg.url`, or any store a caller wraps).
///
/// # Errors
/// Store, index and planner errors.
pub async fn open_searcher_at(
    mut loc: store::StoreLocation,
    cfg: &HostConfig,
    preload: bool,
    read: crate::query::ReadConfig,
) -> Result<(Arc<Searcher>, &'static str)> {
    if preload {
        loc = store::preload(&loc).await?;
    }
    if let Some(sim) = cfg.simulate {
        loc = loc.simulated(sim);
    }
    let index = Arc::new(Index::open(loc).await?);
    let (factory, name) = backend_factory(cfg.planner, &cfg.limits)?;
    Ok((
        Arc::new(Searcher::with_read_config(
            index,
            cfg.io_slots,
            cfg.cache_bytes,
            factory,
            read,
        )?),
        name,
    ))
}

/// Runs `work` — operation `op` (e.g. `"open"`) on `path` (the index's
/// display name) — within `deadline`, if any: past it the work is dropped
/// (every read it had in flight is cancelled) and the call fails with the
/// deadline error the planned read gives ([`crate::store::deadline_exceeded`]
/// finds it).
/// This is how a query's one deadline covers everything the query does —
/// opening the index, reading stored queries, routing, fetching, scanning —
/// and not only its planned reads.
///
/// # Errors
/// `work`'s own error, or the deadline miss.
pub async fn within<T>(
    deadline: Option<Deadline>,
    op: &'static str,
    path: &str,
    work: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    let Some(d) = deadline else {
        return work.await;
    };
    match tokio::time::timeout_at(d.at, work).await {
        Ok(r) => r,
        Err(_) => Err(Error::Store {
            op,
            path: path.to_string(),
            source: PlannedError::DeadlineExceeded {
                deadline: d.budget,
                path: path.to_string(),
            }
            .into(),
        }),
    }
}

/// A multi-threaded tokio runtime for a command.
///
/// # Errors
/// [`Error::Io`] when the runtime cannot start.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    started(tokio::runtime::Builder::new_multi_thread().enable_all())
}

/// A tokio runtime on the calling thread alone (`warp load`: a client that
/// should take as little of the machine as it can).
///
/// # Errors
/// [`Error::Io`] when the runtime cannot start.
pub fn current_thread_runtime() -> Result<tokio::runtime::Runtime> {
    started(tokio::runtime::Builder::new_current_thread().enable_all())
}

/// Builds `builder`'s runtime, its error as [`Error::Io`].
fn started(builder: &mut tokio::runtime::Builder) -> Result<tokio::runtime::Runtime> {
    builder.build().map_err(|source| Error::Io {
        path: "tokio runtime".into(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use planner_core::{Interval, Method, PlanError, PlanRequest, Surrogate};

    use crate::query::BackendError;

    use super::*;

    #[test]
    fn the_search_planners_obey_the_configured_limits() {
        let intervals: Vec<Interval> = (0..64).map(|i| Interval::new(i * 100, 10)).collect();
        let req = PlanRequest {
            intervals: &intervals,
            k_max: 64,
            parallelism: Some(8.0),
            surrogate: &Surrogate::S3,
            epsilon: 0.01,
            method: Method::Warp,
        };
        let tight = InputLimits {
            plan_memory_bytes: 1,
            ..InputLimits::default()
        };
        for kind in [PlannerKind::Native, PlannerKind::Component] {
            let (factory, _) = backend_factory(kind, &tight).unwrap();
            let e = factory().unwrap().plan(&req).unwrap_err();
            assert!(
                matches!(
                    e,
                    BackendError::Refused(PlanError::MemoryLimit { limit: 1, .. })
                ),
                "{kind:?}: {e}"
            );
            let (factory, _) = backend_factory(kind, &InputLimits::default()).unwrap();
            assert!(factory().unwrap().plan(&req).is_ok(), "{kind:?}");
        }
    }
}
