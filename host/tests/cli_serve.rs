//! `warp serve` as a process (issue 19): it prints where it listens, answers
//! exactly what `warp query` prints for the same vector, stops on SIGTERM
//! (exit 0), and refuses a non-loopback address without a token in one
//! line. The server listens on an ephemeral loopback port and is killed if
//! the test fails.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::cli::{CliIndex, cli_index, warp_command};

fn warp() -> Command {
    warp_command()
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

/// A small index (4 stored queries) in a directory of its own for the test
/// `name` (tests run in parallel threads of one process, so a shared
/// directory would be removed under another test's build), removed when
/// dropped. Bind it before the server that reads it, so the server is
/// killed before the directory goes.
fn index(name: &str) -> CliIndex {
    cli_index(&format!("warp-cli-serve-{name}-"), 4, &[])
}

/// `warp serve --bind 127.0.0.1:0 --native --log off` with `args`: the
/// running server (killed when dropped) and its first line.
fn serve(args: &[&str]) -> (Running, Value) {
    serve_logging("off", args)
}

/// `warp serve --bind 127.0.0.1:0 --native --log <log>` with `args`: the
/// running server (killed when dropped; its stderr left to read) and its
/// first line.
fn serve_logging(log: &str, args: &[&str]) -> (Running, Value) {
    let mut child = Running(
        warp()
            .args(["serve", "--bind", "127.0.0.1:0", "--native", "--log", log])
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

/// Runs `cmd` to its end, its stdout and stderr captured; kills it and
/// fails the test when it is not done within `bound` (a hang).
fn output_within(cmd: &mut Command, bound: Duration) -> std::process::Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Running(child);
    let t0 = Instant::now();
    while child.0.try_wait().unwrap().is_none() {
        assert!(
            t0.elapsed() < bound,
            "{cmd:?} still running after {bound:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    child
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    child
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    std::process::Output {
        status: child.0.wait().unwrap(),
        stdout,
        stderr,
    }
}

/// Finding: `--auth-token-file` naming a FIFO blocked `warp serve` and
/// `warp load` forever in the open (and `/dev/zero` grew their memory
/// without bound: the size check read the metadata, 0 for a device, then
/// the whole file; `serve::auth`'s unit tests cover the device and a
/// `/proc` file). Both refuse a file that is not a regular one in one line
/// naming the flag, before any other work. Bounded: 20 s each.
#[cfg(target_os = "linux")]
#[test]
fn a_token_file_that_is_no_regular_file_is_refused_in_one_line() {
    let dir = tempfile::Builder::new()
        .prefix("warp-cli-serve-fifo-")
        .tempdir()
        .unwrap();
    let fifo = dir.path().join("token");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let fifo = fifo.to_str().unwrap();
    let queries = dir.path().join("queries.fvecs");
    std::fs::write(&queries, b"").unwrap();
    let bound = Duration::from_secs(20);
    for (what, out) in [
        (
            "serve",
            output_within(
                warp().args([
                    "serve",
                    "--url",
                    "/nonexistent-warp-index",
                    "--bind",
                    "127.0.0.1:0",
                    "--auth-token-file",
                    fifo,
                ]),
                bound,
            ),
        ),
        (
            "load",
            output_within(
                warp()
                    .args(["load", "--url", "http://127.0.0.1:9", "--queries"])
                    .arg(&queries)
                    .args(["--auth-token-file", fifo]),
                bound,
            ),
        ),
    ] {
        assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        assert!(
            err.contains("--auth-token-file") && err.contains("not a regular file"),
            "{what}: {err}"
        );
    }
}

/// The counter `warp_index_open_failures_total` of the server at `addr`.
fn open_failures(addr: SocketAddr) -> f64 {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("warp_index_open_failures_total "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no warp_index_open_failures_total in {text}"))
}

/// Waits (at most 30 s) until the server at `addr` has failed to open a
/// manifest at least `n` times in all.
fn until_open_failures(addr: SocketAddr, n: f64) {
    let t0 = Instant::now();
    while open_failures(addr) < n {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the bad manifest was not retried"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Finding: a manifest that does not open was logged at every watch
/// interval for as long as it stayed. Now one bad manifest left in place
/// for many checks (each counted by `warp_index_open_failures_total`) is one
/// warning, and another bad manifest is one more.
#[test]
fn a_bad_manifest_is_logged_once_however_often_it_is_checked() {
    let built = index("bad-manifest");
    let url = built.url.to_str().unwrap();
    let (mut child, started) = serve_logging("warn", &["--url", url, "--watch-interval-ms", "10"]);
    let addr: SocketAddr = started["listening"].as_str().unwrap().parse().unwrap();
    // Replaced whole (a rename), never seen half written.
    let replace = |text: &[u8]| {
        let next = built.dir.path().join("manifest.next");
        std::fs::write(&next, text).unwrap();
        std::fs::rename(&next, built.url.join("manifest.json")).unwrap();
    };
    replace(b"{\"not\": \"a manifest\"}");
    until_open_failures(addr, 10.0);
    // Another bad manifest.
    let seen = open_failures(addr);
    replace(b"{\"still not\": \"a manifest\"}");
    until_open_failures(addr, seen + 10.0);
    let _ = child.0.kill();
    let _ = child.0.wait();
    let mut err = String::new();
    child
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let warned = err.lines().filter(|l| l.contains("did not open")).count();
    assert_eq!(warned, 2, "{err}");
}
