//! The `warp` command.

use clap::Parser;
use warp_host::cli::{Cli, execute};

fn main() {
    let cli = Cli::parse();
    if let Err(e) = execute(cli) {
        // One line: the outermost message names the field; causes follow after ': '.
        let chain: Vec<String> = e.chain().map(ToString::to_string).collect();
        eprintln!("error: {}", chain.join(": "));
        std::process::exit(2);
    }
}
