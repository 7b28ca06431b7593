//! The text inputs of `warp reorder`: payload sizes per cluster and query
//! logs (probe sets), read within the configured limits.

use std::path::Path;

use crate::config::InputLimits;
use crate::dataset::RAISE_DATA;
use crate::error::{Error, Result};
use crate::formats::read_ivecs;
use crate::input::{RAISE_INPUT, check_file, read_text};

/// Reads a sizes file of at most `limit` bytes: one unsigned integer per
/// non-blank line.
///
/// # Errors
/// An unreadable or too large file, or a line that is not an unsigned
/// 64-bit integer (named by its 1-based number).
pub fn read_sizes(path: &Path, limit: u64) -> Result<Vec<u64>> {
    let text = read_text(path, "--sizes", limit, RAISE_INPUT)?;
    let mut sizes = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let v = line.parse::<u64>().map_err(|_| {
            Error::input(format!(
                "--sizes: {} line {}: {:?} is not an unsigned integer byte count",
                path.display(),
                i + 1,
                crate::error::one_line(line)
            ))
        })?;
        sizes.push(v);
    }
    Ok(sizes)
}

/// Reads a query log into CSR form `(probes, probe_offsets)`: text (one query
/// per line, space-separated ids; at most `limits.input_bytes`) or `.ivecs`
/// (one query per vector; at most `limits.data_bytes`).
///
/// # Errors
/// An unreadable, too large or malformed file (naming the line or vector),
/// a negative id, or more than `u32::MAX` probes.
pub fn read_query_log(path: &Path, limits: &InputLimits) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut probes = Vec::new();
    let mut offsets = vec![0u32];
    let too_many = || Error::input(format!("--query-log: more than {} probes", u32::MAX));
    if path.extension().and_then(|e| e.to_str()) == Some("ivecs") {
        check_file(path, "--query-log", limits.data_bytes, RAISE_DATA)?;
        let (ids, dim) = read_ivecs(path).map_err(|e| Error::input(format!("--query-log: {e}")))?;
        for (q, row) in ids.chunks_exact(dim).enumerate() {
            for &id in row {
                let id = u32::try_from(id).map_err(|_| {
                    Error::input(format!(
                        "--query-log: {} vector {q}: cluster id {id} is negative",
                        path.display()
                    ))
                })?;
                probes.push(id);
            }
            offsets.push(u32::try_from(probes.len()).map_err(|_| too_many())?);
        }
        return Ok((probes, offsets));
    }
    let text = read_text(path, "--query-log", limits.input_bytes, RAISE_INPUT)?;
    for (i, line) in text.lines().enumerate() {
        for tok in line.split_whitespace() {
            let id = tok.parse::<u32>().map_err(|_| {
                Error::input(format!(
                    "--query-log: {} line {}: {:?} is not a cluster id",
                    path.display(),
                    i + 1,
                    crate::error::one_line(tok)
                ))
            })?;
            probes.push(id);
        }
        offsets.push(u32::try_from(probes.len()).map_err(|_| too_many())?);
    }
    Ok((probes, offsets))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_files_parse_and_errors_name_the_line() {
        let dir = tempfile::Builder::new()
            .prefix("warp-reorder-")
            .tempdir()
            .unwrap();
        let log = dir.path().join("log.txt");
        std::fs::write(&log, "0 2 5\n\n3  1\n").unwrap();
        assert_eq!(
            read_query_log(&log, &InputLimits::default()).unwrap(),
            (vec![0, 2, 5, 3, 1], vec![0, 3, 3, 5])
        );
        std::fs::write(&log, "0 2\n1 x\n").unwrap();
        let e = read_query_log(&log, &InputLimits::default())
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("line 2: \"x\" is not a cluster id"), "{e}");
        let sizes = dir.path().join("sizes.txt");
        std::fs::write(&sizes, "10\n 20 \n\n30\n").unwrap();
        assert_eq!(read_sizes(&sizes, 1 << 20).unwrap(), vec![10, 20, 30]);
        std::fs::write(&sizes, "10\n-1\n").unwrap();
        let e = read_sizes(&sizes, 1 << 20).unwrap_err().to_string();
        assert!(
            e.ends_with("line 2: \"-1\" is not an unsigned integer byte count"),
            "{e}"
        );
    }
}
