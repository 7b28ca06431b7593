//! Helpers: starting a server, an object_store client for it, raw HTTP.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::{ClientOptions, RetryConfig};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use warp_s3_server::{FaultConfig, RunningServer, ServerConfig, SimulateConfig};

pub(crate) const KEY: &str = "test-access";
pub(crate) const SECRET: &str = "test-secret";
pub(crate) const BUCKET: &str = "bench";

/// No latency at all.
pub(crate) fn instant() -> SimulateConfig {
    SimulateConfig {
        first_byte_ms: 0.0,
        per_mib_ms: 0.0,
        link_mib_per_s: 0.0,
        tail_probability: 0.0,
        ..SimulateConfig::s3()
    }
}

/// A server with bucket [`BUCKET`], `model` and `faults`.
pub(crate) async fn server(model: SimulateConfig, faults: FaultConfig) -> RunningServer {
    let mut cfg = ServerConfig::new(KEY, SECRET);
    cfg.buckets = vec![BUCKET.into()];
    cfg.model = model;
    cfg.faults = faults;
    warp_s3_server::start(cfg).await.expect("server starts")
}

/// object_store's S3 client for `server` with `secret`, no retries.
pub(crate) fn client_with(server: &RunningServer, secret: &str) -> Arc<AmazonS3> {
    Arc::new(
        AmazonS3Builder::new()
            .with_endpoint(server.endpoint())
            .with_bucket_name(BUCKET)
            .with_region("us-east-1")
            .with_access_key_id(KEY)
            .with_secret_access_key(secret)
            .with_virtual_hosted_style_request(false)
            .with_client_options(
                ClientOptions::new()
                    .with_allow_http(true)
                    .with_timeout(Duration::from_secs(30)),
            )
            .with_retry(RetryConfig {
                max_retries: 0,
                ..RetryConfig::default()
            })
            .build()
            .expect("client"),
    )
}

/// object_store's S3 client for `server`.
pub(crate) fn client(server: &RunningServer) -> Arc<AmazonS3> {
    client_with(server, SECRET)
}

/// Runs `f` with a bound of `secs` seconds.
pub(crate) async fn bounded<F: Future>(secs: u64, f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(secs), f)
        .await
        .expect("the test ran past its time bound")
}

/// Sends one raw HTTP/1.1 request (`Connection: close`); the status and body.
pub(crate) async fn raw(
    server: &RunningServer,
    method: &str,
    path: &str,
    body: &str,
) -> (u16, String) {
    raw_with(server, method, path, &[], body).await
}

/// [`raw`] with extra `headers`.
async fn raw_with(
    server: &RunningServer,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &str,
) -> (u16, String) {
    let mut s = TcpStream::connect(server.addr()).await.unwrap();
    let extra: String = headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}\r\n"))
        .collect();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.addr(),
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// `raw` for the admin API, the body parsed as JSON.
pub(crate) async fn admin(
    server: &RunningServer,
    method: &str,
    path: &str,
    body: &str,
) -> (u16, serde_json::Value) {
    let (status, text) = raw(server, method, path, body).await;
    (
        status,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::Null),
    )
}

/// Seeded pseudo-random bytes.
pub(crate) fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Sends one raw request signed with SigV4 (`UNSIGNED-PAYLOAD`) as
/// [`KEY`]/[`SECRET`]: what object_store cannot send (keys with control
/// characters, chosen list parameters). `path` is sent and signed as written
/// (already percent-encoded); `query` pairs and `headers` (lower-case names,
/// all signed) are encoded here. The status and body.
pub(crate) async fn signed(
    server: &RunningServer,
    method: &str,
    path: &str,
    query: &[(&str, &str)],
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let (y, m, d) = civil(secs / 86_400);
    let t = secs % 86_400;
    let date = format!("{y:04}{m:02}{d:02}");
    let stamp = format!("{date}T{:02}{:02}{:02}Z", t / 3600, t / 60 % 60, t % 60);
    let mut query: Vec<(String, String)> = query
        .iter()
        .map(|(k, v)| (uri_encode(k), uri_encode(v)))
        .collect();
    query.sort();
    let query = query
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    let mut all: Vec<(String, String)> = vec![
        ("host".into(), server.addr().to_string()),
        ("x-amz-content-sha256".into(), "UNSIGNED-PAYLOAD".into()),
        ("x-amz-date".into(), stamp.clone()),
    ];
    all.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    all.sort();
    let names = all
        .iter()
        .map(|(k, _)| k.as_str())
        .collect::<Vec<_>>()
        .join(";");
    let canonical_headers: String = all.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
    let request =
        format!("{method}\n{path}\n{query}\n{canonical_headers}\n{names}\nUNSIGNED-PAYLOAD");
    let scope = format!("{date}/us-east-1/s3/aws4_request");
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{stamp}\n{scope}\n{}",
        hex(&Sha256::digest(request.as_bytes()))
    );
    let mut key = format!("AWS4{SECRET}").into_bytes();
    for part in [date.as_str(), "us-east-1", "s3", "aws4_request"] {
        key = hmac(&key, part.as_bytes());
    }
    let signature = hex(&hmac(&key, to_sign.as_bytes()));
    let auth = format!(
        "AWS4-HMAC-SHA256 Credential={KEY}/{scope}, SignedHeaders={names}, Signature={signature}"
    );
    let mut sent: Vec<(String, String)> = all.into_iter().filter(|(k, _)| k != "host").collect();
    sent.push(("authorization".into(), auth));
    let target = if query.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{query}")
    };
    raw_with(server, method, &target, &sent, body).await
}

/// HMAC-SHA256 of `msg` under `key`.
fn hmac(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |b: u8| block.iter().map(|k| k ^ b).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(msg)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SigV4's encoding: all but `A-Za-z0-9-_.~` as `%XX`.
fn uri_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The (year, month, day) of day `days` since 1970-01-01.
fn civil(days: u64) -> (i64, i64, i64) {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}
