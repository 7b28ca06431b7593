//! Who may call: on a loopback address anyone on the machine; on any other
//! address only a caller with the bearer token (`--auth-token-file`), unless
//! the operator says `--insecure-no-auth`. Tokens are compared in constant
//! time (`subtle`) and never logged or echoed.

use std::io::Read;
use std::net::SocketAddr;
use std::path::Path;

use subtle::ConstantTimeEq;

use crate::error::{Error, Result};

/// Longest token file read, bytes.
pub const MAX_TOKEN_BYTES: u64 = 4096;
/// Shortest token accepted, bytes (a guessable token is no token).
pub const MIN_TOKEN_BYTES: usize = 16;

/// The access rule of a server.
#[derive(Clone, PartialEq, Eq)]
pub enum Access {
    /// No token asked for (loopback, or `--insecure-no-auth`).
    Open,
    /// `Authorization: Bearer <token>` required.
    Token(Vec<u8>),
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Access::Open => f.write_str("Open"),
            // Never the token itself.
            Access::Token(_) => f.write_str("Token(***)"),
        }
    }
}

impl Access {
    /// The rule for `bind`: a token from `token_file` if given; else open on
    /// loopback or when `insecure` — any other address is refused.
    ///
    /// # Errors
    /// [`Error::Config`] naming `--bind` (a non-loopback address with neither
    /// a token nor `--insecure-no-auth`) or `--auth-token-file` (unreadable,
    /// too long, too short); the message never contains the token.
    pub fn for_bind(bind: SocketAddr, token_file: Option<&Path>, insecure: bool) -> Result<Self> {
        if let Some(path) = token_file {
            return Ok(Access::Token(read_token_file(path)?));
        }
        if bind.ip().is_loopback() || insecure {
            return Ok(Access::Open);
        }
        Err(Error::config(
            "--bind",
            bind,
            "a non-loopback address needs --auth-token-file (or --insecure-no-auth): anyone who reaches it could query the index",
        ))
    }

    /// Whether a request with this `Authorization` header value may pass.
    pub fn allows(&self, authorization: Option<&[u8]>) -> bool {
        match self {
            Access::Open => true,
            Access::Token(token) => {
                // The scheme is case-insensitive (RFC 9110 §11.1).
                let Some(given) = authorization
                    .filter(|h| h.len() > 7 && h[..7].eq_ignore_ascii_case(b"bearer "))
                    .map(|h| &h[7..])
                else {
                    return false;
                };
                // Constant time in the token's content (lengths may differ).
                given.ct_eq(token.as_slice()).into()
            }
        }
    }
}

/// The bearer token in `path` (`--auth-token-file` of `warp serve` and
/// `warp load`), surrounding whitespace trimmed. Only a regular file is
/// read (a FIFO would block the open, a device like `/dev/zero` never
/// ends), and at most [`MAX_TOKEN_BYTES`] + 1 bytes of it whatever its
/// metadata says (a `/proc` file's size is 0).
///
/// # Errors
/// [`Error::Config`] naming `--auth-token-file`: unreadable, not a regular
/// file, longer than [`MAX_TOKEN_BYTES`], or not at least
/// [`MIN_TOKEN_BYTES`] printable ASCII characters without spaces. The
/// message never contains the token.
pub fn read_token_file(path: &Path) -> Result<Vec<u8>> {
    let shown = path.display().to_string();
    let unreadable = |e: std::io::Error| {
        Error::config("--auth-token-file", &shown, format!("cannot read it: {e}"))
    };
    let not_regular = || {
        Error::config(
            "--auth-token-file",
            &shown,
            "not a regular file (a pipe or device is not read; give a file holding the token)",
        )
    };
    // Checked before opening: opening a FIFO blocks until a writer comes.
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let file = std::fs::File::open(path).map_err(unreadable)?;
    // The file opened may not be the one looked at (replaced in between).
    if !file.metadata().map_err(unreadable)?.is_file() {
        return Err(not_regular());
    }
    let mut text = Vec::new();
    file.take(MAX_TOKEN_BYTES + 1)
        .read_to_end(&mut text)
        .map_err(unreadable)?;
    if text.len() as u64 > MAX_TOKEN_BYTES {
        return Err(Error::config(
            "--auth-token-file",
            &shown,
            format!("longer than {MAX_TOKEN_BYTES} bytes"),
        ));
    }
    let token = text.trim_ascii().to_vec();
    if token.len() < MIN_TOKEN_BYTES || token.iter().any(|b| !b.is_ascii_graphic()) {
        return Err(Error::config(
            "--auth-token-file",
            &shown,
            format!(
                "the token must be at least {MIN_TOKEN_BYTES} printable ASCII characters without spaces"
            ),
        ));
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_open_other_addresses_need_a_token() {
        let lo: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert_eq!(Access::for_bind(lo, None, false).unwrap(), Access::Open);
        let e = Access::for_bind(any, None, false).unwrap_err().to_string();
        assert!(
            e.contains("--bind") && e.contains("--auth-token-file"),
            "{e}"
        );
        assert_eq!(Access::for_bind(any, None, true).unwrap(), Access::Open);
        let dir = tempfile::Builder::new()
            .prefix("warp-auth-")
            .tempdir()
            .unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "s3cr3t-token-0123456789\n").unwrap();
        let access = Access::for_bind(any, Some(&file), false).unwrap();
        assert!(access.allows(Some(b"Bearer s3cr3t-token-0123456789")));
        assert!(access.allows(Some(b"bearer s3cr3t-token-0123456789")));
        assert!(access.allows(Some(b"BEARER s3cr3t-token-0123456789")));
        assert!(!access.allows(Some(b"Basic s3cr3t-token-0123456789")));
        assert!(!access.allows(Some(b"Bearer s3cr3t-token-012345678")));
        assert!(!access.allows(Some(b"s3cr3t-token-0123456789")));
        assert!(!access.allows(None));
        assert_eq!(format!("{access:?}"), "Token(***)");
        std::fs::write(&file, "short").unwrap();
        let e = Access::for_bind(any, Some(&file), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("at least 16") && !e.contains("short\""), "{e}");
    }

    #[test]
    fn a_token_file_is_a_regular_file_read_up_to_its_bound() {
        let dir = tempfile::Builder::new()
            .prefix("warp-auth-")
            .tempdir()
            .unwrap();
        let e = read_token_file(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("--auth-token-file") && e.contains("not a regular file"),
            "{e}"
        );
        let long = dir.path().join("long");
        std::fs::write(&long, "x".repeat(MAX_TOKEN_BYTES as usize + 1)).unwrap();
        let e = read_token_file(&long).unwrap_err().to_string();
        assert!(e.contains("longer than 4096 bytes"), "{e}");
        assert!(!e.contains("xxxx"), "{e}");
        let exact = dir.path().join("exact");
        std::fs::write(&exact, "y".repeat(MAX_TOKEN_BYTES as usize)).unwrap();
        assert_eq!(read_token_file(&exact).unwrap().len(), 4096);
    }

    /// A device never ends and a `/proc` file says it has 0 bytes: neither
    /// is read past the bound (`/dev/zero` is refused as no regular file,
    /// `/proc/self/smaps`, a "regular" file of size 0 holding far more than
    /// 4096 bytes, is cut at the bound and refused as too long).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_device_or_a_proc_file_is_refused_without_reading_it_whole() {
        let e = read_token_file(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a regular file"), "{e}");
        let smaps = Path::new("/proc/self/smaps");
        assert_eq!(std::fs::metadata(smaps).unwrap().len(), 0);
        let e = read_token_file(smaps).unwrap_err().to_string();
        assert!(e.contains("longer than 4096 bytes"), "{e}");
    }
}
