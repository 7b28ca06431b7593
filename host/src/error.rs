//! The host's error type, and the rules every error line obeys.
//!
//! One variant per kind of failure, each naming what is wrong; `Display` is
//! the one line the `warp` command prints. Whatever a variant carries (a
//! server's response body, a URL, a value the user typed), its `Display`
//! passes through [`one_line`]:
//!
//! - line breaks and runs of white space become one space;
//! - an S3 XML error body becomes `S3 <Code>: <Message>` (nothing else of it
//!   is kept: bucket names, keys and request ids are dropped);
//! - URL user info (`scheme://user:password@host`) becomes `***@host`, and
//!   the value of every secret-looking `name=value` pair (`X-Amz-Signature`,
//!   `X-Amz-Credential`, `X-Amz-Security-Token`, `…secret…`, `…token…`,
//!   `…password…`, `…credential…`, `…signature…`, access keys) becomes `***`;
//! - echoed content is cut to [`MAX_ECHO`] characters and the whole line to
//!   [`MAX_ERROR_LINE`], each cut marked with `…`.

use std::fmt;

use crate::formats::FormatError;

/// Longest piece of echoed user or server content (a value, a server
/// message, a response body) in an error line, in characters.
pub const MAX_ECHO: usize = 200;

/// Longest error line, in characters.
pub const MAX_ERROR_LINE: usize = 600;

/// Why a host operation failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A vector file could not be read or written.
    Format(FormatError),
    /// An object-store operation failed.
    Store {
        /// The operation (`get`, `put`, `head`, …).
        op: &'static str,
        /// The object path inside the store.
        path: String,
        /// The store's error.
        source: object_store::Error,
    },
    /// The store URL is not usable.
    Url {
        /// The URL with any credentials removed.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// The planner refused a request.
    Plan(planner_core::PlanError),
    /// The planner component failed (trap, limit, instantiation).
    Planner {
        /// The component's message.
        reason: String,
    },
    /// The index on the store is missing, of another format, or inconsistent.
    Index {
        /// What is wrong, naming the field or object.
        reason: String,
    },
    /// Bytes read from the store do not match their recorded CRC32C.
    Checksum {
        /// The object.
        object: String,
        /// What was checked (e.g. `list 17`).
        what: String,
        /// The CRC32C in the manifest.
        expected: u32,
        /// The CRC32C of the bytes read.
        actual: u32,
    },
    /// A configuration value is invalid.
    Config {
        /// The setting (`io_slots`, `WARP_CACHE_BYTES`, `--nprobe`, …).
        key: String,
        /// The value given.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// Input data (vectors, queries, parameters) are unusable.
    Input {
        /// What is wrong.
        reason: String,
    },
    /// Two planning policies returned different answers (planning must change
    /// I/O only).
    ResultMismatch {
        /// The reference policy.
        reference: String,
        /// The policy that differs.
        policy: String,
        /// The first query whose answer differs.
        query: usize,
    },
    /// A benchmark run failed more of its queries than its bound allows
    /// (`warp bench --max-error-rate`).
    TooManyFailures {
        /// The run (policy, layout, Q, cache).
        run: String,
        /// Queries that failed when the run was stopped.
        failed: usize,
        /// Queries the run issues (warm-up included).
        queries: usize,
        /// The bound on `failed / queries`.
        max_rate: f64,
        /// The first failure's message.
        first: String,
    },
    /// A local file operation failed.
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// `Result` with the host [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The message before [`one_line`] is applied.
    fn raw(&self) -> String {
        match self {
            Error::Format(e) => e.to_string(),
            Error::Store { op, path, source } => {
                format!("store {op} {}: {}", bound(path, MAX_ECHO), chain(source))
            }
            Error::Url { url, reason } => {
                format!("store URL {}: {reason}", bound(&redact_url(url), MAX_ECHO))
            }
            Error::Plan(e) => format!("planner: {e}"),
            Error::Planner { reason } => format!("planner component: {reason}"),
            Error::Index { reason } => format!("index: {reason}"),
            Error::Checksum {
                object,
                what,
                expected,
                actual,
            } => format!(
                "checksum mismatch in {} ({what}): manifest says {expected:08x}, read {actual:08x}",
                bound(object, MAX_ECHO)
            ),
            Error::Config { key, value, reason } => format!(
                "{} = {:?}: {reason}",
                bound(key, MAX_ECHO),
                bound(value, MAX_ECHO)
            ),
            Error::Input { reason } => reason.clone(),
            Error::ResultMismatch {
                reference,
                policy,
                query,
            } => format!(
                "policy {policy} returned a different answer than {reference} for query {query}: planning must never change answers"
            ),
            Error::TooManyFailures {
                run,
                failed,
                queries,
                max_rate,
                first,
            } => format!(
                "{run}: {failed} of {queries} queries failed, more than --max-error-rate {max_rate} allows ({}); first failure: {}",
                (max_rate * *queries as f64).floor(),
                bound(first, MAX_ECHO)
            ),
            Error::Io { path, source } => format!("{}: {source}", bound(path, MAX_ECHO)),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&one_line(&self.raw()))
    }
}

/// `Display` already includes the cause (the CLI prints one line), so no
/// `source` is reported: printing the chain would repeat it.
impl std::error::Error for Error {}

impl From<FormatError> for Error {
    fn from(e: FormatError) -> Self {
        Error::Format(e)
    }
}

impl From<warp_planned_store::BackendError> for Error {
    fn from(e: warp_planned_store::BackendError) -> Self {
        match e {
            warp_planned_store::BackendError::Refused(p) => Error::Plan(p),
            warp_planned_store::BackendError::Failed { reason, .. } => Error::Planner { reason },
            other => Error::Planner {
                reason: other.to_string(),
            },
        }
    }
}

/// A [`PlannedStore`](crate::store::PlannedStore) error without the path of
/// a read (a builder's setting): see [`crate::store::into_host`].
impl From<warp_planned_store::PlannedError> for Error {
    fn from(e: warp_planned_store::PlannedError) -> Self {
        crate::store::into_host(e, "")
    }
}

impl From<planner_core::PlanError> for Error {
    fn from(e: planner_core::PlanError) -> Self {
        Error::Plan(e)
    }
}

impl Error {
    /// An [`Error::Input`] with `reason`.
    pub fn input(reason: impl Into<String>) -> Self {
        Error::Input {
            reason: reason.into(),
        }
    }

    /// An [`Error::Index`] with `reason`.
    pub fn index(reason: impl Into<String>) -> Self {
        Error::Index {
            reason: reason.into(),
        }
    }

    /// The [`Error::Store`] of a failed `op` (`"get"`, `"put"`, …) on
    /// `path`, as a `map_err` argument: `.map_err(Error::store("put", &path))`.
    /// The path is rendered only when there is an error.
    pub fn store<'a, P: std::fmt::Display + ?Sized>(
        op: &'static str,
        path: &'a P,
    ) -> impl FnOnce(object_store::Error) -> Self + 'a {
        move |source| Error::Store {
            op,
            path: path.to_string(),
            source,
        }
    }

    /// An [`Error::Config`].
    pub fn config(key: impl Into<String>, value: impl ToString, reason: impl Into<String>) -> Self {
        Error::Config {
            key: key.into(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}

/// An error and its `source()` chain as one text (one implementation for
/// every crate of the workspace: [`warp_planned_store::error_chain`]).
pub use warp_planned_store::error_chain as chain;

/// `text` cut to at most `max` characters, the cut marked with `…`.
///
/// # Complexity
/// O(max).
pub fn bound(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((at, _)) => {
            let keep = text[..at]
                .char_indices()
                .nth(max.saturating_sub(1))
                .map_or(at, |(i, _)| i);
            format!("{}…", &text[..keep])
        }
    }
}

/// Makes `text` a safe error line: one line, S3 XML bodies reduced to code and
/// message, secrets redacted, content bounded (see the module docs).
///
/// # Complexity
/// O(length of `text`).
pub fn one_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat = s3_xml_to_text(&flat);
    let flat = bound_bodies(&flat);
    let flat = redact_text(&flat);
    bound(&flat, MAX_ERROR_LINE)
}

/// The text between `<tag>` and `</tag>`, if any.
fn xml_field<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&format!("</{tag}>"))? + start;
    Some(xml[start..end].trim())
}

/// Replaces an S3 XML error document (`<?xml …?><Error><Code>…</Code>
/// <Message>…</Message>…</Error>`) by `S3 <Code>: <Message>`.
fn s3_xml_to_text(text: &str) -> String {
    let Some(start) = ["<?xml", "<Error>", "<Error "]
        .iter()
        .filter_map(|m| text.find(m))
        .min()
    else {
        return text.to_string();
    };
    let end = text[start..]
        .find("</Error>")
        .map_or(text.len(), |e| start + e + "</Error>".len());
    let xml = &text[start..end];
    let code = xml_field(xml, "Code");
    let message = xml_field(xml, "Message");
    let summary = match (code, message) {
        (Some(c), Some(m)) => format!("S3 {}: {}", bound(c, 64), bound(m, MAX_ECHO)),
        (Some(c), None) => format!("S3 {}", bound(c, 64)),
        (None, Some(m)) => format!("S3: {}", bound(m, MAX_ECHO)),
        (None, None) => format!("XML response body ({} bytes, not shown)", xml.len()),
    };
    format!("{}{summary}{}", &text[..start], &text[end..])
}

/// Cuts a server response body echoed by object_store (`… status code:
/// 503 Service Unavailable: <body>` or `… error response: <body>`) to
/// [`MAX_ECHO`] characters.
fn bound_bodies(text: &str) -> String {
    for marker in ["non-2xx status code: ", "Server returned error response: "] {
        if let Some(at) = text.find(marker) {
            let body_from = at + marker.len();
            // After `status code: ` comes `NNN Reason: body`.
            let body_from = if marker.starts_with("non-2xx") {
                text[body_from..]
                    .find(": ")
                    .map_or(text.len(), |i| body_from + i + 2)
            } else {
                body_from
            };
            return format!(
                "{}{}",
                &text[..body_from],
                bound(&text[body_from..], MAX_ECHO)
            );
        }
    }
    text.to_string()
}

/// Whether a `name=value` pair with this name carries a secret.
fn secret_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "signature",
        "credential",
        "token",
        "secret",
        "password",
        "passwd",
        "accesskey",
        "access_key",
        "access-key",
        "apikey",
        "api_key",
        "sig",
    ]
    .iter()
    .any(|s| n == *s || (s.len() > 3 && n.contains(s)))
}

/// Characters that end a URL or a `name=value` value in free text.
fn ends_token(c: char) -> bool {
    c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | ',' | ')' | ';')
}

/// Characters that end a URL in free text (for finding its user info: a
/// `,` or `)` inside user info must not hide the `@` after it).
fn ends_url(c: char) -> bool {
    c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`')
}

/// Redacts URL user info and secret `name=value` values in free text.
///
/// A URL's user info is everything between `://` and the last `@` of the
/// URL token (the token ends at white space or a quote): a secret holding a
/// `/` (AWS secret keys do) is redacted whole, at the price of over-redacting
/// a path that contains `@`.
///
/// # Complexity
/// O(length of `text`).
pub fn redact_text(text: &str) -> String {
    // 1. user info.
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let token_end = tail.find(ends_url).unwrap_or(tail.len());
        let token = &tail[..token_end];
        match token.rfind('@') {
            Some(at) => {
                out.push_str("***");
                out.push_str(&token[at..]);
            }
            None => out.push_str(token),
        }
        rest = &tail[token_end..];
    }
    out.push_str(rest);
    // 2. secret name=value pairs.
    let text = out;
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' {
            let name_start = text[..i]
                .char_indices()
                .rev()
                .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
                .map_or(0, |(p, c)| p + c.len_utf8());
            let name = &text[name_start..i];
            if !name.is_empty() && secret_name(name) {
                let value_end = text[i + 1..]
                    .find(|c: char| ends_token(c) || c == '&' || c == '#')
                    .map_or(text.len(), |e| i + 1 + e);
                let value = &text[i + 1..value_end];
                // Switches (`AWS_SKIP_SIGNATURE=true`) are not secrets.
                let switch = matches!(value, "true" | "false");
                if value_end > i + 1 && !switch {
                    out.push_str(&text[last..=i]);
                    out.push_str("***");
                    last = value_end;
                    i = value_end;
                    continue;
                }
            }
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    out
}

/// `url` with its user info replaced by `***` and secret query values by
/// `***` (see [`redact_text`]).
pub fn redact_url(url: &str) -> String {
    redact_text(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = "Generic S3 error: Error performing GET http://127.0.0.1:9/AKIA:SECRET@b/x in 2ms - Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>\n  <Code>NoSuchBucket</Code>\n  <Message>The specified bucket does not exist</Message>\n  <BucketName>AKIA:SECRET@b</BucketName>\n</Error>";

    #[test]
    fn s3_bodies_become_code_and_message_on_one_line() {
        let line = one_line(XML);
        assert!(!line.contains('\n'), "{line}");
        assert!(
            line.contains("S3 NoSuchBucket: The specified bucket does not exist"),
            "{line}"
        );
        assert!(!line.contains("SECRET"), "{line}");
        assert!(!line.contains("<?xml"), "{line}");
    }

    #[test]
    fn query_secrets_and_userinfo_are_redacted() {
        let t = "GET https://u:p@h.example/b/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2F2026&X-Amz-Signature=abcdef&x-amz-security-token=tok failed";
        let r = redact_text(t);
        for s in ["u:p", "AKIA", "abcdef", "=tok"] {
            assert!(!r.contains(s), "{s}: {r}");
        }
        assert!(r.ends_with("x-amz-security-token=*** failed"), "{r}");
        assert!(r.contains("X-Amz-Algorithm=AWS4"), "{r}");
        assert!(r.contains("https://***@h.example/b/k"), "{r}");
        // A secret key with '/' in the user info is redacted whole.
        let r = redact_text("s3://AKIA:wJal/K7M@bucket/x");
        assert_eq!(r, "s3://***@bucket/x");
        assert_eq!(
            redact_text("AWS_SECRET_ACCESS_KEY=abc/def next"),
            "AWS_SECRET_ACCESS_KEY=*** next"
        );
        assert_eq!(redact_text("s3://bucket/p?x=1"), "s3://bucket/p?x=1");
        assert_eq!(
            redact_text("AWS_SKIP_SIGNATURE=true for"),
            "AWS_SKIP_SIGNATURE=true for"
        );
        assert_eq!(redact_text("s3://a,b:S)@bucket/x"), "s3://***@bucket/x");
        assert_eq!(redact_text("é=1 ü-token=abc"), "é=1 ü-token=***");
    }

    #[test]
    fn echoed_content_is_bounded() {
        let big = "k".repeat(1 << 20);
        let e = Error::config("--key", &big, "unknown");
        let line = e.to_string();
        assert!(line.chars().count() <= MAX_ERROR_LINE, "{}", line.len());
        assert!(line.contains('…'));
        let e = Error::input(format!("duplicate key {big}"));
        assert!(e.to_string().chars().count() <= MAX_ERROR_LINE);
        let html = format!(
            "Server returned non-2xx status code: 503 Service Unavailable: <html>{}</html>",
            "x".repeat(5000)
        );
        let line = one_line(&html);
        assert!(
            line.starts_with(
                "Server returned non-2xx status code: 503 Service Unavailable: <html>"
            )
        );
        assert!(line.chars().count() < 300, "{}", line.len());
    }

    #[test]
    fn bound_counts_characters() {
        assert_eq!(bound("abc", 3), "abc");
        assert_eq!(bound("abcd", 3), "ab…");
        assert_eq!(bound("ééééé", 4), "ééé…");
        assert_eq!(bound("", 0), "");
    }

    #[test]
    fn every_variant_is_one_line() {
        let e = Error::Url {
            url: "s3://k:s@b/x".into(),
            reason: "two\nlines".into(),
        };
        assert_eq!(e.to_string(), "store URL s3://***@b/x: two lines");
        let e = Error::Io {
            path: "a\nb".into(),
            source: std::io::Error::other("x\ny"),
        };
        assert_eq!(e.to_string(), "a b: x y");
    }
}
