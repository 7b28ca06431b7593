//! The `warp` command: parse, run, and print any error as one line on
//! stderr with exit code 2 (clap's own errors included). Help and version go
//! to stdout with exit code 0.

use clap::Parser;
use clap::error::ErrorKind;
use warp_host::cli::{Cli, execute};
use warp_host::error::one_line;
use warp_host::output::note;

fn main() {
    let code = match Cli::try_parse() {
        Ok(cli) => match execute(cli).map_err(anyhow::Error::from) {
            Ok(()) => 0,
            Err(e) => {
                // The outermost message names the field; causes follow after ': '.
                let chain: Vec<String> = e.chain().map(ToString::to_string).collect();
                note(&format!("error: {}", one_line(&chain.join(": "))));
                2
            }
        },
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                let _ = e.print();
                0
            }
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                let _ = e.print();
                2
            }
            _ => {
                // clap's message, its tip and usage, on one line.
                let text = e.render().to_string();
                let kept: Vec<&str> = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("For more information"))
                    .collect();
                note(&one_line(&kept.join("\n")));
                2
            }
        },
    };
    std::process::exit(code);
}
