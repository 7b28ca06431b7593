//! The admin API: JSON endpoints under [`ADMIN_PREFIX`] on the S3 port (no S3
//! client sends a path there: bucket names cannot start with `_`). They are
//! not signed; the server only listens on loopback addresses.
//!
//! | request | answer |
//! |---|---|
//! | `GET /__warp/stats[?records=1]` | the meter: `windows` (label, requests, gets, get_bytes, bytes, waves, max_concurrency, mean_concurrency, seconds, methods, statuses, faults; with `records=1` every record), `total`, `faults` (injected since the reset), `in_flight_gets`, `dropped_records`, `settings` |
//! | `POST /__warp/mark?label=L` | opens window `L`: `{"window": index, "label": L}` |
//! | `POST /__warp/reset` | drops records, windows and counts, restarts the draws: `{"reset": true}` |
//! | `GET /__warp/settings` | `{"model": {…}, "faults": {…}}` ([`crate::settings`]) |
//! | `PUT /__warp/settings` (JSON body) | changes any of them; answers the new settings, or 400 `{"error": "…"}` with nothing changed |
//!
//! Errors are `{"error": "one line"}` with 400 (bad input), 404 (unknown
//! path) or 405 (wrong method).

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use serde_json::{Value, json};

use crate::state::State;

/// Path prefix of the admin API.
pub const ADMIN_PREFIX: &str = "/__warp/";
/// Largest settings body, bytes.
const MAX_SETTINGS_BODY: usize = 64 << 10;

fn reply(status: StatusCode, body: &Value) -> Response<s3s::Body> {
    let mut r = Response::new(s3s::Body::from(Bytes::from(body.to_string())));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    r
}

fn error(status: StatusCode, msg: impl Into<String>) -> Response<s3s::Body> {
    reply(status, &json!({ "error": msg.into() }))
}

fn query(req: &Request<impl Sized>, name: &str) -> Option<String> {
    let q = req.uri().query()?;
    url::form_urlencoded::parse(q.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// Answers an admin request (its path starts with [`ADMIN_PREFIX`]).
pub async fn handle(state: &State, req: Request<Incoming>) -> Response<s3s::Body> {
    let path = req.uri().path().to_string();
    let endpoints = [
        ("stats", Method::GET),
        ("mark", Method::POST),
        ("reset", Method::POST),
        ("settings", Method::GET),
        ("settings", Method::PUT),
    ];
    let name = path.trim_start_matches(ADMIN_PREFIX);
    if !endpoints.iter().any(|(n, _)| *n == name) {
        return error(
            StatusCode::NOT_FOUND,
            format!(
                "unknown admin path {path:?}; the admin API is GET /__warp/stats, POST /__warp/mark?label=L, POST /__warp/reset, GET|PUT /__warp/settings"
            ),
        );
    }
    if !endpoints
        .iter()
        .any(|(n, m)| *n == name && m == req.method())
    {
        let allowed: Vec<&str> = endpoints
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, m)| m.as_str())
            .collect();
        return error(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{path} takes {}", allowed.join(" or ")),
        );
    }
    match (req.method().clone(), name) {
        (Method::GET, "stats") => {
            let records = query(&req, "records").as_deref() == Some("1");
            let mut stats = state.meter().stats(records);
            stats["settings"] = state.settings();
            reply(StatusCode::OK, &stats)
        }
        (Method::POST, "mark") => {
            let label = query(&req, "label").unwrap_or_default();
            let now = state.now();
            match state.meter().mark(&label, now) {
                Ok(w) => reply(StatusCode::OK, &json!({ "window": w, "label": label })),
                Err(e) => error(StatusCode::BAD_REQUEST, e),
            }
        }
        (Method::POST, "reset") => {
            state.reset();
            reply(StatusCode::OK, &json!({ "reset": true }))
        }
        (Method::GET, "settings") => reply(StatusCode::OK, &state.settings()),
        (Method::PUT, "settings") => {
            let body = match Limited::new(req.into_body(), MAX_SETTINGS_BODY)
                .collect()
                .await
            {
                Ok(b) => b.to_bytes(),
                Err(e) => {
                    return error(
                        StatusCode::BAD_REQUEST,
                        format!(
                            "the settings body could not be read (at most {MAX_SETTINGS_BODY} bytes): {e}"
                        ),
                    );
                }
            };
            let patch: Value = match serde_json::from_slice(&body) {
                Ok(v) => v,
                Err(e) => {
                    return error(
                        StatusCode::BAD_REQUEST,
                        format!("the settings are not JSON: {e}"),
                    );
                }
            };
            match state.update(&patch) {
                Ok(s) => reply(StatusCode::OK, &s),
                Err(e) => error(StatusCode::BAD_REQUEST, e),
            }
        }
        _ => error(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{path}: method not allowed"),
        ),
    }
}
