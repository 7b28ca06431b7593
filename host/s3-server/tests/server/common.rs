//! Helpers: starting a server, an object_store client for it, raw HTTP.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::{ClientOptions, RetryConfig};
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
    let mut s = TcpStream::connect(server.addr()).await.unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
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
