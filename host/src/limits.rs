//! The bounds of one planning call: [`PlanLimits`] (planner-core's), which
//! the host derives from its configuration with
//! [`InputLimits::plan_limits`](crate::config::InputLimits::plan_limits).

pub use planner_core::PlanLimits;
