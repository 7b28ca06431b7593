//! Checks s3s runs after a request's signature is verified and before its
//! input is parsed ([`S3Access::check`]):
//!
//! - a signature is required (s3s's default);
//! - a presigned URL's `X-Amz-Expires` must be in `1..=604800` seconds, as
//!   S3 requires (`400 AuthorizationQueryParametersError` otherwise);
//! - a GET or HEAD whose `Range` starts past any object's end (`bytes=N-`
//!   with `N` over `i64::MAX`, which s3s cannot parse and would answer
//!   `400`) is answered as any other past-the-end range: `416 InvalidRange`,
//!   after the object's existence and `If-Match`/`If-None-Match` are checked
//!   as the operation does.

use std::sync::Arc;

use s3s::access::{S3Access, S3AccessContext};
use s3s::dto::ETagCondition;
use s3s::path::S3Path;
use s3s::{S3ErrorCode, S3Result, s3_error};

use crate::s3::{check_conditions, storage_error};
use crate::state::State;

/// Longest lifetime of a presigned URL, seconds (7 days, S3's bound).
pub const MAX_PRESIGNED_EXPIRES_SECS: u64 = 604_800;

/// The [`S3Access`] of the server (see the module docs).
#[derive(Debug, Clone)]
pub struct Access {
    state: Arc<State>,
}

impl Access {
    /// The checks over `state`'s storage.
    pub fn new(state: Arc<State>) -> Self {
        Self { state }
    }

    /// The answer to a GET or HEAD of `bucket/key` whose range starts past
    /// the end of every object: what [`crate::s3::Backend`]'s GET and HEAD
    /// answer for a range past the object's end.
    fn past_end(&self, cx: &S3AccessContext<'_>, bucket: &str, key: &str) -> S3Result<()> {
        let object = self
            .state
            .storage()
            .get(bucket, key)
            .map_err(storage_error)?;
        let condition = |name: http::HeaderName| {
            cx.headers()
                .get(name)
                .map(|v| ETagCondition::parse_http_header(v.as_bytes()))
        };
        match (
            condition(http::header::IF_MATCH).transpose(),
            condition(http::header::IF_NONE_MATCH).transpose(),
        ) {
            (Ok(if_match), Ok(if_none_match)) => {
                check_conditions(&object, if_match.as_ref(), if_none_match.as_ref())?;
                Err(S3ErrorCode::InvalidRange.into())
            }
            // A malformed condition: s3s refuses it as it parses the input.
            _ => Ok(()),
        }
    }
}

#[async_trait::async_trait]
impl S3Access for Access {
    async fn check(&self, cx: &mut S3AccessContext<'_>) -> S3Result<()> {
        if cx.credentials().is_none() {
            return Err(s3_error!(AccessDenied, "Signature is required"));
        }
        check_presigned_expires(cx.uri().query())
            .map_err(|m| s3_error!(AuthorizationQueryParametersError, "warp-s3: {m}"))?;
        if matches!(cx.s3_op().name(), "GetObject" | "HeadObject")
            && let S3Path::Object { bucket, key } = cx.s3_path()
            && cx
                .headers()
                .get(http::header::RANGE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(starts_past_any_object)
        {
            return self.past_end(cx, bucket, key);
        }
        Ok(())
    }
}

/// Checks a presigned URL's `X-Amz-Expires` (when the query has one).
///
/// # Errors
/// A one-line message naming the parameter and its range.
pub fn check_presigned_expires(query: Option<&str>) -> Result<(), String> {
    let Some(query) = query else { return Ok(()) };
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
        if k == "X-Amz-Expires" {
            match v.parse::<u64>() {
                Ok(n) if (1..=MAX_PRESIGNED_EXPIRES_SECS).contains(&n) => {}
                _ => {
                    return Err(format!(
                        "X-Amz-Expires = {v:?} is outside 1..={MAX_PRESIGNED_EXPIRES_SECS} seconds (a presigned URL lasts at most 7 days)"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Whether `range` is a well-formed `bytes=first-[last]` whose `first` is
/// over `i64::MAX`: past the end of any object (none is that long), though
/// s3s refuses to parse it.
pub fn starts_past_any_object(range: &str) -> bool {
    let Some((first, last)) = range.strip_prefix("bytes=").and_then(|r| r.split_once('-')) else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(first) || !(last.is_empty() || digits(last)) {
        return false;
    }
    let max = i64::MAX.to_string();
    // `first > last` is malformed (s3s answers 400 as it parses it).
    magnitude(first) > magnitude(&max) && (last.is_empty() || magnitude(first) <= magnitude(last))
}

/// A decimal string's sort key by value (its digits may be more than a u64
/// holds): length without leading zeros, then the digits.
fn magnitude(digits: &str) -> (usize, &str) {
    let d = digits.trim_start_matches('0');
    (d.len(), d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presigned_urls_last_one_second_to_seven_days() {
        let q = |e: &str| check_presigned_expires(Some(&format!("X-Amz-Date=x&X-Amz-Expires={e}")));
        assert!(q("1").is_ok());
        assert!(q("604800").is_ok());
        assert!(check_presigned_expires(None).is_ok());
        assert!(check_presigned_expires(Some("list-type=2")).is_ok());
        for bad in ["604801", "0", "-1", "x", "99999999999999999999"] {
            let e = q(bad).unwrap_err();
            assert!(
                e.contains("X-Amz-Expires") && e.contains("1..=604800"),
                "{e}"
            );
        }
    }

    #[test]
    fn ranges_past_any_object_are_recognized() {
        assert!(starts_past_any_object("bytes=18446744073709551615-"));
        assert!(starts_past_any_object("bytes=9223372036854775808-"));
        assert!(starts_past_any_object("bytes=99999999999999999999999-"));
        assert!(starts_past_any_object(
            "bytes=9223372036854775808-9223372036854775809"
        ));
        // s3s parses these itself (or refuses them as malformed).
        for other in [
            "bytes=9223372036854775807-",
            "bytes=0009223372036854775807-",
            "bytes=0-18446744073709551615",
            "bytes=-18446744073709551615",
            "bytes=18446744073709551615-1",
            "bytes=18446744073709551615",
            "bytes=x-",
            "bytes= 18446744073709551615-",
            "items=18446744073709551615-",
        ] {
            assert!(!starts_past_any_object(other), "{other}");
        }
    }
}
