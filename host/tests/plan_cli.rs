//! `warp plan` prints the same bytes, and exits the same way, through the
//! component (default) and natively (`--native`) on every golden vector.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(instance: &str, native: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_warp"));
    cmd.args(["plan", "--input", "-"]);
    if native {
        cmd.arg("--native");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run warp");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(instance.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn component_and_native_print_the_same_on_every_vector() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let instance = doc["instance"].to_string();
        let (c, n) = (run(&instance, false), run(&instance, true));
        let name = path.display();
        assert_eq!(c.status.code(), n.status.code(), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&c.stdout),
            String::from_utf8_lossy(&n.stdout),
            "{name}"
        );
        assert_eq!(
            String::from_utf8_lossy(&c.stderr),
            String::from_utf8_lossy(&n.stderr),
            "{name}"
        );
        // Refusals exit non-zero with the vector's line.
        if let Some(line) = doc["expected"]["error"].as_str() {
            assert_ne!(c.status.code(), Some(0), "{name}");
            assert_eq!(
                String::from_utf8_lossy(&c.stderr).trim_end(),
                format!("error: {line}"),
                "{name}"
            );
        } else {
            assert!(c.status.success(), "{name}");
        }
        count += 1;
    }
    assert!(count >= 50);
}

/// An integer beyond u64 (`k_max` = 2^64, which serde_json reads as an f64)
/// is refused in one line naming the field and its range, the same through
/// both runtimes, not echoed as the float `1.8446744073709552e+19`.
#[test]
fn an_integer_beyond_u64_is_refused_as_out_of_range() {
    let instance = r#"{"intervals": [[0, 10]], "k_max": 18446744073709551616, "parallelism": 8.0,
        "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}}"#;
    for native in [false, true] {
        let out = run(instance, native);
        assert_eq!(out.status.code(), Some(2), "native {native}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "error: k_max: must be an integer in 0..=18446744073709551615, got a number outside that range\n",
            "native {native}"
        );
        assert!(out.stdout.is_empty());
    }
}
