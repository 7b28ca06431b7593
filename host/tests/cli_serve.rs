//! `warp serve` as a process (issue 19): it prints where it listens, answers
//! exactly what `warp query` prints for the same vector, stops on SIGTERM
//! (exit 0), and refuses a non-loopback address without a token in one
//! line. The server listens on an ephemeral loopback port and is killed if
//! the test fails.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn warp() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_warp"));
    c.env_remove("WARP_URL");
    c
}

/// Kills the server when dropped (a failing assertion included).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn post(addr: SocketAddr, body: &str) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "POST /v1/search HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap())
}

/// A built index in a scratch directory of its own, removed when dropped (a
/// failing assertion included). Bind it before the server that reads it, so
/// the server is killed before the directory goes.
struct Built {
    /// The index, `index` in `dir`.
    url: PathBuf,
    /// The scratch directory, also for the test's other files.
    dir: tempfile::TempDir,
}

/// A small index built by `warp build` in a directory of its own for the
/// test `name` (tests run in parallel threads of one process, so a shared
/// directory would be removed under another test's build).
fn index(name: &str) -> Built {
    let dir = tempfile::Builder::new()
        .prefix(&format!("warp-cli-serve-{name}-"))
        .tempdir()
        .unwrap();
    let url = dir.path().join("index");
    let out = warp()
        .args([
            "build",
            "--url",
            url.to_str().unwrap(),
            "--synthetic",
            "3000",
            "--synthetic-queries",
            "4",
        ])
        .args([
            "--dim", "16", "--nlist", "32", "--niter", "3", "--seed", "5",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    Built { url, dir }
}

/// `warp serve --bind 127.0.0.1:0 --native --log off` with `args`: the
/// running server (killed when dropped) and its first line.
fn serve(args: &[&str]) -> (Running, Value) {
    let mut child = Running(
        warp()
            .args(["serve", "--bind", "127.0.0.1:0", "--native", "--log", "off"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut first = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let started = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}: {first:?}"));
    (child, started)
}

#[test]
fn serve_answers_what_query_prints_and_stops_on_sigterm() {
    let built = index("query");
    let url = built.url.to_str().unwrap();
    let (mut child, started) = serve(&["--url", url]);
    let addr: SocketAddr = started["listening"].as_str().unwrap().parse().unwrap();
    let vector = "0.5,1,1.5,2,2.5,3,3.5,4,4.5,5,5.5,6,6.5,7,7.5,8";
    for method in ["warp", "lance_rule", "separate"] {
        let q = warp()
            .args([
                "query", "--url", url, "--native", "--method", method, "--nprobe", "8",
            ])
            .arg(format!("--vector={vector}"))
            .output()
            .unwrap();
        assert!(q.status.success(), "{q:?}");
        let printed: Value = serde_json::from_slice(&q.stdout).unwrap();
        let values: Vec<f64> = vector.split(',').map(|v| v.parse().unwrap()).collect();
        let (status, served) = post(
            addr,
            &json!({"vector": values, "method": method, "nprobe": 8}).to_string(),
        );
        assert_eq!(status, 200, "{served}");
        assert_eq!(served["neighbors"], printed["neighbors"], "{method}");
        assert_eq!(served["generation"], started["generation"]);
    }
    // SIGTERM: drain, exit 0.
    let pid = child.0.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "warp serve did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_public_address_without_a_token_is_refused_in_one_line() {
    let out = warp()
        .args([
            "serve",
            "--url",
            "/nonexistent-warp-index",
            "--bind",
            "0.0.0.0:0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--bind") && err.contains("--auth-token-file"),
        "{err}"
    );
}

/// The one file in `dir` whose name starts with `prefix`.
fn stored(dir: &std::path::Path, prefix: &str) -> PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix}* in {}", dir.display()))
}

#[test]
fn warp_load_drives_a_served_index_and_counts_what_failed() {
    let built = index("load");
    let url = &built.url;
    let token = "load-test-token-0123456789";
    let token_file = built.dir.path().join("token");
    std::fs::write(&token_file, format!("{token}\n")).unwrap();
    let (_child, started) = serve(&[
        "--url",
        url.to_str().unwrap(),
        "--max-in-flight",
        "3",
        "--auth-token-file",
        token_file.to_str().unwrap(),
    ]);
    let endpoint = format!("http://{}", started["listening"].as_str().unwrap());
    let queries = stored(url, "queries-");
    let truth = stored(url, "groundtruth-");
    let load = |extra: &[&str]| {
        let out = warp()
            .args([
                "load",
                "--url",
                &endpoint,
                "--concurrency",
                "3",
                "--warmup",
                "4",
            ])
            .args(["--count", "40", "--nprobe", "32", "--timeout-ms", "30000"])
            .arg("--queries")
            .arg(&queries)
            .arg("--groundtruth")
            .arg(&truth)
            .args(extra)
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!text.contains(token), "the token was printed: {text}");
        (out, text)
    };

    // With the token: every query answered, recall exact (nprobe = nlist).
    let (out, text) = load(&["--json", "--auth-token-file", token_file.to_str().unwrap()]);
    assert!(out.status.success(), "{text}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["queries"], 40, "{r}");
    assert_eq!(r["failed"], 0, "{r}");
    assert_eq!(r["statuses"], json!({"200": 44}), "{r}");
    assert_eq!(r["recall_at_10"], 1.0, "{r}");
    assert!(r["qps"].as_f64().unwrap() > 0.0, "{r}");
    assert!(
        r["p50_ms"].as_f64().unwrap() <= r["p99_ms"].as_f64().unwrap(),
        "{r}"
    );
    assert!(r["client_cores"].as_f64().is_some(), "{r}");

    // Without it: the first 401 fails the run in one line naming the status.
    let (out, text) = load(&[]);
    assert_eq!(out.status.code(), Some(2), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("HTTP 401") && err.contains("--max-error-rate"),
        "{err}"
    );

    // Failures allowed: counted by status, nothing measured.
    let (out, text) = load(&["--json", "--max-error-rate", "1"]);
    assert!(out.status.success(), "{text}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["queries"], 0, "{r}");
    assert_eq!(r["failed"], 40, "{r}");
    assert_eq!(r["statuses"], json!({"401": 44}), "{r}");

    // Ground truth of another shape is refused before any request.
    let (out, text) = load(&["--groundtruth", queries.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{text}");
}
