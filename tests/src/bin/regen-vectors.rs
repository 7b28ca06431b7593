//! Rewrites `tests/vectors/` from the seeded cases and the native planner:
//! `cargo run -p warp-tests --bin regen-vectors [DIR]`. Review the diff.

use std::path::PathBuf;

fn main() {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(warp_tests::vectors_dir, PathBuf::from);
    match warp_tests::write_vectors(&dir) {
        Ok(n) => println!("wrote {n} vectors to {}", dir.display()),
        Err(e) => {
            eprintln!("error: {}: {e}", dir.display());
            std::process::exit(2);
        }
    }
}
