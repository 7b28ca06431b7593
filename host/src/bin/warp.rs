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

/// mimalloc's `mi_option_purge_delay` (its position in `mi_option_t`,
/// mimalloc v3's mimalloc.h, the one `libmimalloc-sys` builds by default; it
/// names the options around it but not this one).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// mimalloc's `mi_option_allow_thp`, likewise (v3).
const MI_OPTION_ALLOW_THP: libmimalloc_sys::mi_option_t = 43;

/// Sets mimalloc's options for the query path, each unless its variable in
/// the environment says otherwise (mimalloc read those when the process
/// loaded, so a value set there stands; `mi_option_set_default` would be
/// too late for the rest). O(1), before any thread.
///
/// - Never hand freed pages back to the kernel (`MIMALLOC_PURGE_DELAY`,
///   set to −1). mimalloc's default purges memory left unused for a second;
///   the query path frees and re-allocates its body chunks and straddling
///   copies all the time, so purged arena memory is faulted in again at
///   once. Over warp-s3 on the 2-vCPU VM (`warp bench --k-max 6`, real
///   MiniLM, 14.5 MiB a query) that was ~1 600 page faults a second (~50 of
///   them huge pages) and 9–17 s of system time per 1 700 queries against
///   8–10 s without purging, at the same plans (BENCHMARKS, *Where a fat
///   plan's CPU went over warp-s3*; ARCHITECTURE §7). The bound on memory
///   is then the high-water mark of what the process held at once, which
///   `--max-fetch-mib`, the cache size and the index bound; it is not
///   returned after a burst.
/// - No transparent huge pages (`MIMALLOC_ALLOW_THP`, set to 0). mimalloc
///   advises its arenas for them, so each first touch of a new arena page
///   faults in and zeroes 2 MiB; as the heap grows to its high-water mark
///   (a fatter plan's is higher) the kernel's `clear_page_erms` took 9 % of
///   the process's CPU samples (`perf record`, real MiniLM over warp-s3,
///   `Q` = 128, 8 000 queries), 0.4 % without, and the process's system
///   time fell by a fifth beside six CPU-bound loops (BENCHMARKS, *Latest,
///   2026-12-06 20:32*).
fn configure_allocator() {
    let from_env = |names: &[&str]| names.iter().any(|n| std::env::var_os(n).is_some());
    if !from_env(&["MIMALLOC_PURGE_DELAY", "MIMALLOC_RESET_DELAY"]) {
        // SAFETY: called first thing in `main`, before any other thread
        // exists (mimalloc's option setters are not thread-safe); the
        // option is in range.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
    if !from_env(&["MIMALLOC_ALLOW_THP"]) {
        // SAFETY: as above.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ALLOW_THP, 0) };
        // mimalloc reads the option when it maps memory, and may have
        // mapped (and advised) its first arena before `main`: the kernel's
        // per-process switch covers every mapping, those included.
        #[cfg(target_os = "linux")]
        // SAFETY: PR_SET_THP_DISABLE takes an integer flag and no pointer.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
        }
    }
}

fn main() {
    configure_allocator();
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

#[cfg(test)]
mod tests {
    use std::os::raw::c_long;

    use super::{MI_OPTION_ALLOW_THP, MI_OPTION_PURGE_DELAY};

    /// Asserts that mimalloc's option `index` holds `default`, or the value
    /// of its variable `env`: read before `configure_allocator` runs (tests
    /// do not call `main`), a hand-written index naming another option
    /// reads another value.
    fn assert_option(index: libmimalloc_sys::mi_option_t, env: &str, default: c_long, name: &str) {
        // SAFETY: reading an option is thread-safe and the index is in range.
        let value = unsafe { libmimalloc_sys::mi_option_get(index) };
        let want = std::env::var(env)
            .ok()
            .and_then(|v| v.parse::<c_long>().ok())
            .unwrap_or(default);
        assert_eq!(
            value, want,
            "mi_option_t {index} is not {name} in this mimalloc"
        );
    }

    /// THP: mimalloc's default is 1 on Linux.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_option_index_is_allow_thp() {
        assert_option(MI_OPTION_ALLOW_THP, "MIMALLOC_ALLOW_THP", 1, "allow_thp");
    }

    /// The purge delay: mimalloc v3's default is 1 000 ms.
    #[test]
    fn the_option_index_is_the_purge_delay() {
        assert_option(
            MI_OPTION_PURGE_DELAY,
            "MIMALLOC_PURGE_DELAY",
            1000,
            "purge_delay",
        );
    }
}
