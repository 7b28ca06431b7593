//! Bounded reading of the files and streams a command reads whole.
//!
//! Every input is refused, with one line naming the flag, before it can
//! exceed its bound: [`read_text`] stops reading at `limit + 1` bytes (so
//! `--input /dev/zero` costs at most `limit` bytes of memory), and
//! [`check_file`] checks a vector file's size before a reader loads it.
//! The limits come from [`crate::config::HostConfig`] (`input_bytes` for
//! JSON and text, `data_bytes` for vectors).

use std::io::{IsTerminal, Read};
use std::path::Path;

use crate::error::{Error, Result};

fn too_large(flag: &str, what: &str, limit: u64, raise: &str) -> Error {
    Error::input(format!(
        "{flag}: {what} is larger than the limit of {limit} bytes (raise it with {raise})"
    ))
}

/// How to raise the input-size limit, for [`read_text`]'s `raise`.
pub const RAISE_INPUT: &str = "--max-input-bytes or WARP_MAX_INPUT_BYTES";

/// Reads the text file `path` (`-` = standard input) of at most `limit`
/// bytes. `flag` names it in errors; `raise` says how to raise the limit.
///
/// # Errors
/// [`Error::Input`] naming `flag` when the input is larger than `limit` or
/// not UTF-8; [`Error::Io`] when it cannot be read.
pub fn read_text(path: &Path, flag: &str, limit: u64, raise: &str) -> Result<String> {
    let stdin = path.as_os_str() == "-";
    let name = if stdin {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    let io = |source| Error::Io {
        path: format!("{flag}: {name}"),
        source,
    };
    let mut bytes = Vec::new();
    let cap = limit.saturating_add(1);
    if stdin {
        std::io::stdin()
            .lock()
            .take(cap)
            .read_to_end(&mut bytes)
            .map_err(io)?;
    } else {
        std::fs::File::open(path)
            .and_then(|f| f.take(cap).read_to_end(&mut bytes))
            .map_err(io)?;
    }
    if bytes.len() as u64 > limit {
        return Err(too_large(flag, &name, limit, raise));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::input(format!(
            "{flag}: {name} is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Checks that the vector file `path` is a regular file of at most `limit`
/// bytes, before a reader loads it whole.
///
/// # Errors
/// [`Error::Input`] naming `flag` for a pipe, device or directory (its size
/// is unknown), or a file larger than `limit`; [`Error::Io`] when it does
/// not exist.
pub fn check_file(path: &Path, flag: &str, limit: u64, raise: &str) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|source| Error::Io {
        path: format!("{flag}: {}", path.display()),
        source,
    })?;
    if !meta.is_file() {
        return Err(Error::input(format!(
            "{flag}: {} is not a regular file (vector files are read whole; give a file)",
            path.display()
        )));
    }
    if meta.len() > limit {
        return Err(too_large(flag, &path.display().to_string(), limit, raise));
    }
    Ok(())
}

/// Whether standard input is a terminal (then a command reading it says so
/// on stderr instead of waiting without a word).
pub fn stdin_is_terminal() -> bool {
    std::io::stdin().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_within_the_limit_and_refuses_beyond() {
        let dir = tempfile::Builder::new()
            .prefix("warp-input-")
            .tempdir()
            .unwrap();
        let f = dir.path().join("x.json");
        std::fs::write(&f, "0123456789").unwrap();
        assert_eq!(read_text(&f, "--input", 10, "--x").unwrap(), "0123456789");
        let e = read_text(&f, "--input", 9, "--max-input-bytes")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--input: ") && e.contains("limit of 9 bytes"),
            "{e}"
        );
        assert!(check_file(&f, "--queries", 10, "--x").is_ok());
        assert!(check_file(&f, "--queries", 9, "--x").is_err());
        let e = check_file(dir.path(), "--queries", 9, "--x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::write(&f, [0xff, 0xfe]).unwrap();
        assert!(
            read_text(&f, "--input", 10, "--x")
                .unwrap_err()
                .to_string()
                .contains("UTF-8")
        );
    }
}
