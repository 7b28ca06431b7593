//! Writes the planner component embedded in `warp-host` (built by
//! `host/component/build.rs`) to a file, for Node, Python and other embedders:
//! `cargo run --release -p warp-tests --example write-component -- OUT.wasm`
//! (`scripts/build-component` runs this).

use std::path::PathBuf;

fn main() {
    let out = std::env::args_os().nth(1).map_or_else(
        || PathBuf::from("target/planner-component/planner.wasm"),
        PathBuf::from,
    );
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).expect("create the output directory");
    }
    let bytes = warp_component::COMPONENT_WASM;
    std::fs::write(&out, bytes).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    println!("{} ({} bytes)", out.display(), bytes.len());
}
