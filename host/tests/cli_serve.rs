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

fn index() -> PathBuf {
    let d = std::env::temp_dir().join(format!("warp-cli-serve-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let url = d.join("index");
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
    url
}

#[test]
fn serve_answers_what_query_prints_and_stops_on_sigterm() {
    let url = index();
    let url = url.to_str().unwrap();
    let mut child = Running(
        warp()
            .args([
                "serve",
                "--url",
                url,
                "--bind",
                "127.0.0.1:0",
                "--native",
                "--log",
                "off",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut first = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let started: Value = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}: {first:?}"));
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
