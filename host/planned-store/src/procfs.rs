//! `/proc` files kept open and read again (Linux).
//!
//! The CPU meter reads the completing thread's `/proc/thread-self/schedstat`
//! every 4th GET, `/proc/stat` and `/proc/loadavg` every slice, and a
//! loopback store's server processes' `/proc/PID/stat` with every reading of
//! their clocks. Opening such a file each time takes five system calls (open,
//! fstat, two reads, close); a [`ProcFile`] is opened once and read again
//! from its start with one `pread` at offset 0, which makes the kernel's
//! seq_file generate the text anew. Over warp-s3 (synthetic identity,
//! `Q` = 128, 12 000 queries, quiet, `perf record`, two runs each) the opens
//! took 1.25–1.44 % of the reading process's CPU samples and 0.23–0.30 %
//! kept open, and the process's samples for the same queries fell 2.4 %.
//!
//! A `/proc/PID/...` file stays bound to the process it was opened for: once
//! that process is gone it reads nothing, even when its pid names another
//! process.

use std::fs::File;
use std::os::unix::fs::FileExt;

/// A `/proc` file opened once (module docs); `None` inside where it could
/// not be opened, and then every reading is `None`. One descriptor each.
#[derive(Debug)]
pub(crate) struct ProcFile(Option<File>);

impl ProcFile {
    /// Opens `path`. `O(1)`, one `open`.
    pub(crate) fn open(path: &str) -> Self {
        Self(File::open(path).ok())
    }

    /// The file's first `N` bytes at most, as text, given to `parse`; `None`
    /// if it cannot be read (the process it names is gone) or is not UTF-8.
    /// One `pread`; `N` bytes of stack.
    pub(crate) fn read<const N: usize, T>(
        &self,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        let mut buf = [0u8; N];
        let n = self.0.as_ref()?.read_at(&mut buf, 0).ok()?;
        parse(std::str::from_utf8(&buf[..n]).ok()?)
    }
}
