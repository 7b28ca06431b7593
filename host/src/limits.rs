//! The bounds of one planning call: [`PlanLimits`] (planner-core's), which
//! the host derives from its configuration with
//! [`Limits::plan_limits`](crate::config::Limits::plan_limits).

pub use planner_core::PlanLimits;
