//! The CPU of an object store served from this machine.
//!
//! # Why
//! When the store's endpoint is loopback (an S3-protocol server, a MinIO or
//! a caching proxy beside the reader), the server runs on the reader's
//! cores: every byte it sends costs it CPU (measured on the project's
//! 2-core VM over warp-s3: 0.44 ms/MiB in the server against 0.35 ms/MiB in
//! the reading process, BENCHMARKS), and that CPU is taken from the cores
//! the reader's own calls need. The CPU meter ([`crate::cpu`]) reads the
//! reading process's clock only, so a gap byte looks half as dear as it is,
//! and plans merge across gaps the shared cores pay for twice.
//!
//! A [`LocalServer`] names the processes listening on the endpoint's port
//! and reads their CPU clocks; the meter adds their CPU to its own in every
//! slice, and prices bytes and GETs by what both spend (ARCHITECTURE §8).
//! Against a remote store there is no such process and nothing changes.
//!
//! # Finding the server
//! Linux only. The listening sockets on the port are read from
//! `/proc/net/tcp` and `/proc/net/tcp6` (state `0A`, the socket's inode);
//! the processes holding one are found by the `socket:[inode]` links under
//! `/proc/PID/fd` (only processes of the same user, or any for a privileged
//! reader, can be read; others are skipped). Each process's CPU is then its
//! POSIX CPU-time clock (`clock_getcpuclockid`): all its threads, user and
//! system, in nanoseconds. The reader's own process is never a peer (its
//! CPU is counted already).
//!
//! # Bounds
//! Discovery reads at most [`MAX_PROC_ENTRIES`] fd links and keeps at most
//! [`MAX_SERVERS`] processes, once, when the store is built; each reading
//! is one `clock_gettime` per process.

/// Most processes one [`LocalServer`] reads (pre-forked servers hold one
/// listening socket in several processes).
pub const MAX_SERVERS: usize = 8;
/// Most `/proc/PID/fd` entries discovery reads before giving up.
pub const MAX_PROC_ENTRIES: usize = 1 << 18;

/// The processes serving a loopback endpoint, and their CPU clocks (module
/// docs).
#[derive(Debug, Clone, PartialEq)]
pub struct LocalServer {
    pids: Vec<u32>,
    #[cfg(unix)]
    clocks: Vec<libc::clockid_t>,
}

impl LocalServer {
    /// The processes other than this one listening on TCP `port` on this
    /// machine; `None` where there is none, none can be read, or off Linux.
    /// Reads `/proc` once (module docs); `O(processes × their fds)`, at
    /// most [`MAX_PROC_ENTRIES`] links.
    pub fn listening_on(port: u16) -> Option<Self> {
        let own = std::process::id();
        let pids: Vec<u32> = listeners(port)
            .into_iter()
            .filter(|&p| p != own)
            .take(MAX_SERVERS)
            .collect();
        let server = Self::from_pids(&pids);
        tracing::debug!(
            target: "warp::cpu",
            port,
            pids = ?server.as_ref().map(|s| s.pids.clone()),
            "loopback store's server processes"
        );
        server
    }

    /// The processes `pids` (at most [`MAX_SERVERS`]), those whose CPU
    /// clock can be read; `None` if none can. `O(pids)`.
    pub fn from_pids(pids: &[u32]) -> Option<Self> {
        #[cfg(unix)]
        {
            let mut s = Self {
                pids: Vec::new(),
                clocks: Vec::new(),
            };
            for &pid in pids.iter().take(MAX_SERVERS) {
                let Ok(raw) = libc::pid_t::try_from(pid) else {
                    continue;
                };
                let mut clock: libc::clockid_t = 0;
                // SAFETY: `clock` is a valid, writable clockid_t for the
                // duration of the call.
                let rc = unsafe { libc::clock_getcpuclockid(raw, &mut clock) };
                if rc == 0 && read_clock_ms(clock).is_some() {
                    s.pids.push(pid);
                    s.clocks.push(clock);
                }
            }
            (!s.pids.is_empty()).then_some(s)
        }
        #[cfg(not(unix))]
        {
            let _ = pids;
            None
        }
    }

    /// The process ids read.
    pub fn pids(&self) -> &[u32] {
        &self.pids
    }

    /// The CPU time the processes have used, ms, summed; `None` once any of
    /// them cannot be read (it exited): a sum missing a process would read
    /// as negative CPU. One `clock_gettime` per process.
    pub fn cpu_ms(&self) -> Option<f64> {
        #[cfg(unix)]
        {
            self.clocks.iter().map(|&c| read_clock_ms(c)).sum()
        }
        #[cfg(not(unix))]
        {
            None
        }
    }
}

#[cfg(unix)]
fn read_clock_ms(clock: libc::clockid_t) -> Option<f64> {
    crate::cpu::clock_ns(clock).map(|ns| ns as f64 / 1e6)
}

/// The processes holding a listening TCP socket on `port` (this one
/// included), in `/proc` order; empty off Linux.
fn listeners(port: u16) -> Vec<u32> {
    #[cfg(target_os = "linux")]
    {
        let mut inodes = Vec::new();
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            if let Ok(text) = std::fs::read_to_string(table) {
                inodes.extend(listening_inodes(&text, port));
            }
        }
        if inodes.is_empty() {
            return Vec::new();
        }
        let links: Vec<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
        holders(&links)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = port;
        Vec::new()
    }
}

/// The inodes of the sockets listening on `port` in a `/proc/net/tcp` or
/// `tcp6` table: rows `sl local rem st … inode`, the local address
/// `HEXADDR:HEXPORT`, state `0A` LISTEN, the inode the tenth field.
/// Malformed rows are skipped. `O(text)`.
fn listening_inodes(table: &str, port: u16) -> Vec<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|row| {
            let f: Vec<&str> = row.split_ascii_whitespace().take(10).collect();
            if f.len() < 10 || f[3] != "0A" {
                return None;
            }
            let (_, hex_port) = f[1].rsplit_once(':')?;
            (u16::from_str_radix(hex_port, 16).ok()? == port)
                .then(|| f[9].parse().ok())
                .flatten()
                .filter(|&inode| inode != 0)
        })
        .collect()
}

/// The processes with an open fd whose link is one of `links`, at most
/// [`MAX_SERVERS`] + 1 (this process may be among them), reading at most
/// [`MAX_PROC_ENTRIES`] fd entries.
#[cfg(target_os = "linux")]
fn holders(links: &[String]) -> Vec<u32> {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut read = 0usize;
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            read += 1;
            if read > MAX_PROC_ENTRIES {
                return found;
            }
            let Ok(target) = std::fs::read_link(fd.path()) else {
                continue;
            };
            if target
                .to_str()
                .is_some_and(|t| links.iter().any(|l| l == t))
            {
                found.push(pid);
                break;
            }
        }
        if found.len() > MAX_SERVERS {
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 777 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 99 1 0000000000000000 100 0 0 10 0
   3: garbage
";

    #[test]
    fn only_listening_rows_on_the_port_are_read() {
        // Port 0x1F90 = 8080: the LISTEN row, not the connected one (01).
        assert_eq!(listening_inodes(TABLE, 8080), vec![4242]);
        assert_eq!(listening_inodes(TABLE, 22), vec![99]);
        assert!(listening_inodes(TABLE, 9000).is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_listener_is_found_by_its_port_and_this_process_is_never_a_peer() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert!(listeners(port).contains(&std::process::id()));
        assert_eq!(LocalServer::listening_on(port), None);
        drop(l);
        assert!(!listeners(port).contains(&std::process::id()));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn another_process_cpu_clock_is_read_and_an_exited_one_is_not() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        let server = LocalServer::from_pids(&[child.id()]).expect("the child's clock");
        assert_eq!(server.pids(), &[child.id()]);
        let t0 = server.cpu_ms().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let t1 = server.cpu_ms().unwrap();
        assert!(t1 > t0, "{t0} {t1}");
        child.kill().unwrap();
        child.wait().unwrap();
        // Reaped: its clock is gone, and a sum without it is refused.
        assert_eq!(server.cpu_ms(), None);
        assert_eq!(LocalServer::from_pids(&[child.id()]), None);
    }
}
