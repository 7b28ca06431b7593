//! Builds the planner component that `warp_component` embeds.
//!
//! 1. `cargo build --profile component -p planner-wasm --target wasm32-unknown-unknown`
//!    (the cargo running this script, its own target directory inside `OUT_DIR`,
//!    so the outer build's lock is never contended);
//! 2. wraps the core module into a component with `wit-component` (the
//!    `wasm-tools component new` step, no external binary);
//! 3. writes `$OUT_DIR/planner.component.wasm`, included by `src/lib.rs`.
//!
//! Set `WARP_PLANNER_COMPONENT=/path/to/planner.wasm` to embed a prebuilt
//! component instead (skips both steps).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What goes into the component, relative to the workspace root: the sources and
/// manifests of planner-core and planner-wasm, the WIT package and the workspace's
/// manifest and lockfile. Only these are watched: planner-core/ also holds fuzz/
/// (whose ignored target/, corpus/ and artifacts/ change on every fuzz run),
/// benches, examples and tests, none of which is in the component, and watching a
/// whole directory reruns this script, and rebuilds every variant of warp-host,
/// whenever anything below it is touched. `scripts/test.d/10-lint` checks that a
/// file written under planner-core/fuzz leaves warp-host fresh.
const COMPONENT_INPUTS: [&str; 7] = [
    "planner-core/src",
    "planner-core/Cargo.toml",
    "planner-wasm/src",
    "planner-wasm/Cargo.toml",
    "wit",
    "Cargo.toml",
    "Cargo.lock",
];

fn main() {
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest_dir
        .ancestors()
        .nth(2)
        .expect("host/component/ lives two levels below the workspace root");
    let dest = out_dir.join("planner.component.wasm");

    println!("cargo:rerun-if-env-changed=WARP_PLANNER_COMPONENT");
    if let Some(prebuilt) = env::var_os("WARP_PLANNER_COMPONENT") {
        println!("cargo:rerun-if-changed={}", Path::new(&prebuilt).display());
        std::fs::copy(&prebuilt, &dest).expect("copy WARP_PLANNER_COMPONENT");
        return;
    }
    for input in COMPONENT_INPUTS {
        println!("cargo:rerun-if-changed={}", root.join(input).display());
    }

    let target_dir = out_dir.join("planner-wasm-target");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args([
            "build",
            "--quiet",
            "--profile",
            "component",
            "--package",
            "planner-wasm",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .arg("--target-dir")
        .arg(&target_dir);
    // Flags meant for the host build must not leak into the wasm build.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_LLVM_COV",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd.status().expect("run cargo for planner-wasm");
    assert!(
        status.success(),
        "building planner-wasm for wasm32-unknown-unknown failed ({status}); \
         is the target installed? `rustup target add wasm32-unknown-unknown`"
    );

    let core = target_dir.join("wasm32-unknown-unknown/component/planner_wasm.wasm");
    let module = std::fs::read(&core).unwrap_or_else(|e| panic!("{}: {e}", core.display()));
    let component = wit_component::ComponentEncoder::default()
        .validate(true)
        .module(&module)
        .and_then(|enc| enc.encode())
        .unwrap_or_else(|e| panic!("wrapping {} into a component: {e:#}", core.display()));
    std::fs::write(&dest, component).expect("write the component");
}
