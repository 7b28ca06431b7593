//! The `warp` command: parse, run, and print any error as one line on
//! stderr with exit code 2 (clap's own errors included). Help and version go
//! to stdout with exit code 0.

use clap::Parser;
use clap::error::ErrorKind;
use warp_host::cli::{Cli, execute};
use warp_host::error::one_line;
use warp_host::output::{Output, note};

/// The process's allocator. A planned read hands each interval over as one
/// buffer, so an interval that straddles a body's chunks is copied into a
/// fresh allocation of its size (hundreds of KiB to MiB, every query). glibc
/// serves and frees those from per-thread arenas that it trims back to the
/// kernel, and each new buffer then faults its pages in again: beside six
/// CPU-bound processes on the 2-core VM that churn was two thirds of the
/// process's CPU time (BENCHMARKS.md, "The allocator"). mimalloc keeps freed
/// pages for reuse within a short delay, so the copy lands in warm memory.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
            // Help and version are the command's output: written like any
            // other (a full disk is one error line and exit 2, a closed pipe
            // ends quietly).
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                let written = Output::stdout(false).and_then(|mut out| {
                    // A closed pipe (Flow::Stop) ends quietly, like any output.
                    let _ = out.text(&e.render().to_string())?;
                    out.finish()
                });
                match written {
                    Ok(()) => 0,
                    Err(err) => {
                        note(&format!("error: {}", one_line(&err.to_string())));
                        2
                    }
                }
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
