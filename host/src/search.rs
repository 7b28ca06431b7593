//! Opening an index for search: the store (with preload and simulation as
//! configured), the index, the planner backend, and the [`Searcher`] over
//! them; plus the tokio runtime the commands run it on.

use std::sync::Arc;

use crate::config::{HostConfig, PlannerKind};
use crate::error::{Error, Result};
use crate::query::{BackendFactory, Index, Searcher, native_factory};
use crate::store;

/// The planner factory for `kind` and its name (`native`, `component`).
///
/// # Errors
/// [`Error::Planner`] when the component cannot be loaded.
pub fn backend_factory(kind: PlannerKind) -> Result<(BackendFactory, &'static str)> {
    match kind {
        PlannerKind::Native => Ok((native_factory(), "native")),
        PlannerKind::Component => Ok((crate::query::component_factory()?, "component")),
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
    let mut loc = store::open_existing(&cfg.url)?;
    if preload {
        loc = store::preload(&loc).await?;
    }
    if let Some(sim) = cfg.simulate {
        loc = loc.simulated(sim);
    }
    let index = Arc::new(Index::open(loc).await?);
    let (factory, name) = backend_factory(cfg.planner)?;
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

/// A multi-threaded tokio runtime for a command.
///
/// # Errors
/// [`Error::Io`] when the runtime cannot start.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Io {
            path: "tokio runtime".into(),
            source,
        })
}
