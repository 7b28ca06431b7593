//! Where plans come from: the planner component, or `planner_core`
//! natively — the backends of `warp-planned-store` ([`crate::store::planned::backend`]),
//! re-exported — and the policy names of the CLI.

use planner_core::Method;

use crate::error::{Error, Result};

pub use crate::store::planned::backend::{
    BackendError, BackendFactory, BackendPool, ComponentBackend, NativeBackend, PlanBackend,
    component_factory, component_factory_with, native_factory, native_factory_with,
};

/// Parses a policy (a [`Method`] spelling: `warp`, `separate`,
/// `coalesce:1MiB`, `lance_rule`, … — see [`Method::SPELLINGS`]).
///
/// # Errors
/// [`Error::Config`] naming the policy and listing the accepted spellings.
pub fn parse_policy(s: &str) -> Result<Method> {
    s.parse()
        .map_err(|e: planner_core::ParseError| Error::config("policy", s, e.to_string()))
}

/// The canonical spelling of a policy (its `Display`, e.g. `coalesce:64KiB`).
pub fn policy_name(m: &Method) -> String {
    m.to_string()
}
