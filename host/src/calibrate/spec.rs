//! The ARCHITECTURE §5 `surrogate` JSON form, as a serde type (for the index
//! manifest and `warp calibrate --out`).

use std::path::Path;

use planner_core::{Breakpoint, Surrogate};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::input::read_text;

/// The largest surrogate file read, bytes (1 MiB), whatever the general input
/// bound (`WARP_MAX_INPUT_BYTES`, 64 MiB by default) allows: a surrogate is a
/// handful of numbers. `warp calibrate --out` writes an affine one in ~50 bytes
/// and a piecewise one at its default `--sizes 4K..64M` (15 breakpoints) in
/// under 600; 1 MiB holds some 30 000 breakpoints. A larger file (or an
/// endless one, `/dev/zero`) is refused once this many bytes are read.
pub const MAX_SURROGATE_BYTES: u64 = 1 << 20;

/// A request-time surrogate in the ARCHITECTURE §5 form:
/// `{"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}` or
/// `{"piecewise": [[bytes, ms], ...]}` — the same text `warp plan` reads in
/// an instance's `surrogate` field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SurrogateSpec {
    /// `t(L) = fixed_ms + per_mib_ms · L / 2^20`.
    Affine {
        /// Fixed per-request latency, ms.
        fixed_ms: f64,
        /// Time per MiB, ms.
        per_mib_ms: f64,
    },
    /// Breakpoints `[bytes, ms]`, linear between them.
    Piecewise(Vec<(u64, f64)>),
}

impl SurrogateSpec {
    /// Reads a surrogate file in this form (e.g. `warp calibrate --out`) of
    /// at most `limit` bytes (see [`MAX_SURROGATE_BYTES`]); `flag` names it
    /// in errors, `raise` says how to raise the limit.
    ///
    /// # Errors
    /// [`Error::Input`] / [`Error::Io`] for a too large or unreadable file,
    /// [`Error::Config`] on `flag` when it is not this form, and
    /// [`SurrogateSpec::to_surrogate`]'s errors.
    pub fn read(path: &Path, flag: &str, limit: u64, raise: &str) -> Result<Surrogate> {
        let text = read_text(path, flag, limit, raise)?;
        let spec: SurrogateSpec = serde_json::from_str(text.trim()).map_err(|e| {
            Error::config(
                flag,
                path.display(),
                format!("not a ARCHITECTURE §5 surrogate: {e}"),
            )
        })?;
        spec.to_surrogate()
    }

    /// The planner's surrogate, validated.
    ///
    /// # Errors
    /// [`Error::Plan`] naming the bad field (negative, non-finite,
    /// decreasing, unsorted or empty).
    pub fn to_surrogate(&self) -> Result<Surrogate> {
        let s = match self {
            SurrogateSpec::Affine {
                fixed_ms,
                per_mib_ms,
            } => Surrogate::Affine {
                fixed_ms: *fixed_ms,
                per_mib_ms: *per_mib_ms,
            },
            SurrogateSpec::Piecewise(points) => Surrogate::Piecewise(
                points
                    .iter()
                    .map(|&(bytes, ms)| Breakpoint { bytes, ms })
                    .collect(),
            ),
        };
        s.validate().map_err(Error::from)?;
        Ok(s)
    }

    /// The JSON text (one line).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl From<&Surrogate> for SurrogateSpec {
    fn from(s: &Surrogate) -> Self {
        match s {
            Surrogate::Affine {
                fixed_ms,
                per_mib_ms,
            } => SurrogateSpec::Affine {
                fixed_ms: *fixed_ms,
                per_mib_ms: *per_mib_ms,
            },
            Surrogate::Piecewise(points) => {
                SurrogateSpec::Piecewise(points.iter().map(|p| (p.bytes, p.ms)).collect())
            }
        }
    }
}
