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
//! # Losing it and finding it again
//! A server can exit and be started again while the reader lives (an
//! operator restarts warp-s3 or MinIO under a long-running `warp serve`).
//! Its clock then fails to read, or, if the kernel gave its pid to another
//! process, reads that process: so each reading also checks that every
//! process still has the start time (`/proc/PID/stat`, field 22) it had
//! when found (the file is kept open and read again, one `pread` a reading:
//! `procfs::ProcFile`). A server lost either way is looked for again on the same
//! port, at most once per [`REDISCOVER_FIRST`], doubling while nothing is
//! found up to [`REDISCOVER_MAX`] (a store whose server is gone for good
//! costs one `/proc` scan a minute). Each server found gets a new epoch:
//! the meter subtracts two readings only within one epoch, never a new
//! process's clock from an old one's.
//!
//! The look runs on a thread of its own (`warp-peer-look`), never on the
//! caller's: the caller is the GET that closes a CPU slice, on a Tokio
//! worker, and a scan of up to [`MAX_PROC_ENTRIES`] fd links can take
//! longer than the GETs it would hold up (each link is a `readlink`). The
//! readings taken while it runs are `None`, as while nothing is found; the
//! first reading after it ends adopts what it found.
//!
//! # Bounds
//! Discovery reads at most [`MAX_PROC_ENTRIES`] fd links and keeps at most
//! [`MAX_SERVERS`] processes, when the store is built and after a loss as
//! above, one look at a time per server; each reading is one
//! `clock_gettime` and one `pread` of `/proc/PID/stat` per process, kept
//! open (one descriptor per process).

use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
use crate::procfs::ProcFile;

/// Most processes one [`LocalServer`] reads (pre-forked servers hold one
/// listening socket in several processes).
pub const MAX_SERVERS: usize = 8;
/// Most `/proc/PID/fd` entries discovery reads before giving up.
pub const MAX_PROC_ENTRIES: usize = 1 << 18;

/// The first wait before a lost server is looked for again (module docs).
pub const REDISCOVER_FIRST: Duration = Duration::from_secs(1);
/// The longest wait between two looks for a lost server.
pub const REDISCOVER_MAX: Duration = Duration::from_secs(60);

/// The processes serving a loopback endpoint, and their CPU clocks (module
/// docs).
#[derive(Debug)]
pub struct LocalServer {
    /// The processes read, at most [`MAX_SERVERS`]; empty while lost.
    processes: Vec<Process>,
    /// The port the processes were found listening on; `None` for a
    /// server named by its pids, which is never looked for again.
    port: Option<u16>,
    /// Which server found on `port` this is: 0 the first, one more each
    /// time a lost server is found again.
    epoch: u64,
    /// When the last look for the server ended, and the wait before the
    /// next one while it is lost.
    looked: Instant,
    retry: Duration,
    /// A look in progress on its own thread: what it found (the server on
    /// the port, or `None`) arrives here when it ends.
    look: Option<Receiver<Option<LocalServer>>>,
}

/// One process of a [`LocalServer`]: its pid, CPU clock and start time.
#[derive(Debug)]
struct Process {
    pid: u32,
    #[cfg(unix)]
    clock: libc::clockid_t,
    /// Its start time, clock ticks after boot, when found (`None` where
    /// `/proc` does not say): a pid whose start time changed is another
    /// process.
    start: Option<u64>,
    /// Its `/proc/PID/stat`, kept open to read the start time again.
    stat: Stat,
}

impl Process {
    /// Whether the pid still names the process found: its start time reads
    /// as when found (or `/proc` never said). One `pread`.
    #[cfg(unix)]
    fn same(&self) -> bool {
        self.start.is_none() || self.stat.start_ticks() == self.start
    }
}

/// One reading of a [`LocalServer`]'s clocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerCpu {
    /// Which server was read ([`LocalServer`], module docs): readings of
    /// two epochs are of different processes and are never subtracted.
    pub epoch: u64,
    /// The CPU time its processes have used, ms, summed.
    pub ms: f64,
    /// How many processes were read.
    pub processes: usize,
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
        let server = Self::from_pids(&pids).map(|s| Self {
            port: Some(port),
            ..s
        });
        tracing::debug!(
            target: "warp::cpu",
            port,
            pids = ?server.as_ref().map(Self::pids),
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
                processes: Vec::new(),
                port: None,
                epoch: 0,
                looked: Instant::now(),
                retry: REDISCOVER_FIRST,
                look: None,
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
                    let stat = Stat::open(pid);
                    s.processes.push(Process {
                        pid,
                        clock,
                        start: stat.start_ticks(),
                        stat,
                    });
                }
            }
            (!s.processes.is_empty()).then_some(s)
        }
        #[cfg(not(unix))]
        {
            let _ = pids;
            None
        }
    }

    /// The process ids read (none while the server is lost). `O(processes)`.
    pub fn pids(&self) -> Vec<u32> {
        self.processes.iter().map(|p| p.pid).collect()
    }

    /// The server's CPU now: its processes' CPU time summed, with the epoch
    /// of the server read; `None` while it is lost. A server is lost once
    /// one of its processes cannot be read (it exited: a sum missing a
    /// process would read as negative CPU) or has another start time (its
    /// pid was given to another process); it is then looked for again on
    /// its port, on a thread of its own and with the waits of the module
    /// docs, and a server found there is read under the next epoch from the
    /// first reading after the look ends. One `clock_gettime` and one
    /// `/proc/PID/stat` read per process; never a `/proc` scan.
    pub fn read(&mut self) -> Option<ServerCpu> {
        if let Some(ms) = self.cpu_ms() {
            return Some(self.reading(ms));
        }
        self.processes.clear();
        let port = self.port?;
        if let Some(look) = &self.look {
            let found = match look.try_recv() {
                Ok(found) => found,
                Err(TryRecvError::Empty) => return None,
                // The look's thread ended, or never started, without a
                // word: found nothing.
                Err(TryRecvError::Disconnected) => None,
            };
            self.look = None;
            self.looked = Instant::now();
            let Some(found) = found else {
                self.retry = (self.retry * 2).min(REDISCOVER_MAX);
                return None;
            };
            self.processes = found.processes;
            self.epoch += 1;
            self.retry = REDISCOVER_FIRST;
            return self.cpu_ms().map(|ms| self.reading(ms));
        }
        if self.looked.elapsed() >= self.retry {
            self.look = Some(look_on(port));
        }
        None
    }

    fn reading(&self, ms: f64) -> ServerCpu {
        ServerCpu {
            epoch: self.epoch,
            ms,
            processes: self.processes.len(),
        }
    }

    /// The processes' CPU time, ms, summed; `None` if there are none or
    /// one cannot be read or has another start time.
    fn cpu_ms(&self) -> Option<f64> {
        #[cfg(unix)]
        {
            if self.processes.is_empty() || !self.processes.iter().all(Process::same) {
                return None;
            }
            self.processes.iter().map(|p| read_clock_ms(p.clock)).sum()
        }
        #[cfg(not(unix))]
        {
            None
        }
    }

    /// Sets the first wait before a lost server is looked for again
    /// (tests).
    #[cfg(test)]
    fn with_retry(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }
}

/// Starts a look for the server listening on `port` on a thread of its own
/// (module docs). A thread that cannot be started drops the sender unused,
/// which [`LocalServer::read`] takes as a look that found nothing, and the
/// next one waits twice as long.
fn look_on(port: u16) -> Receiver<Option<LocalServer>> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("warp-peer-look".into())
        .spawn(move || {
            let _ = tx.send(LocalServer::listening_on(port));
        });
    if let Err(e) = spawned {
        tracing::debug!(target: "warp::cpu", port, error = %e, "no thread to look for the server");
    }
    rx
}

/// A process's `/proc/PID/stat`, opened when the process is found and read
/// again at each reading ([`ProcFile`]); nothing off Linux.
#[derive(Debug)]
struct Stat {
    #[cfg(target_os = "linux")]
    file: ProcFile,
}

impl Stat {
    fn open(pid: u32) -> Self {
        #[cfg(target_os = "linux")]
        {
            Self {
                file: ProcFile::open(&format!("/proc/{pid}/stat")),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = pid;
            Self {}
        }
    }

    /// The process's start time, clock ticks after boot: field 22 of
    /// `/proc/PID/stat`, counted after the command's closing parenthesis
    /// (the command may hold spaces and parentheses). `None` off Linux, or
    /// where the process is gone (a file kept open then reads nothing, even
    /// when its pid names another process) or the line is malformed. One
    /// `pread`; the field lies within the line's first 1 KiB.
    fn start_ticks(&self) -> Option<u64> {
        #[cfg(target_os = "linux")]
        {
            self.file.read::<1024, _>(parse_start_ticks)
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}

/// Field 22 of a `/proc/PID/stat` line (module docs): the 20th field after
/// the `)` that ends field 2. `O(line)`.
fn parse_start_ticks(stat: &str) -> Option<u64> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_ascii_whitespace().nth(19)?.parse().ok()
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
        assert!(LocalServer::listening_on(port).is_none());
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
        assert_eq!(server.pids(), [child.id()]);
        let t0 = server.cpu_ms().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let t1 = server.cpu_ms().unwrap();
        assert!(t1 > t0, "{t0} {t1}");
        child.kill().unwrap();
        child.wait().unwrap();
        // Reaped: its clock is gone, and a sum without it is refused.
        assert_eq!(server.cpu_ms(), None);
        assert!(LocalServer::from_pids(&[child.id()]).is_none());
        // Named by its pids, it has no port to be looked for on.
        let mut server = server.with_retry(Duration::ZERO);
        assert_eq!(server.read(), None);
        assert!(server.pids().is_empty());
    }

    #[test]
    fn the_start_time_is_field_22_after_the_command() {
        let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 4 0 987654 123456789 2000";
        assert_eq!(parse_start_ticks(line), Some(987_654));
        assert_eq!(parse_start_ticks("4242 (x) S 1 2"), None);
        assert_eq!(parse_start_ticks("no parenthesis"), None);
        #[cfg(target_os = "linux")]
        assert!(Stat::open(std::process::id()).start_ticks().is_some());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pid_with_another_start_time_is_another_process() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let mut server = LocalServer::from_pids(&[child.id()]).expect("the child's clock");
        let read = server.read().expect("its own start time");
        assert_eq!((read.epoch, read.processes), (0, 1));
        // As if the pid had been given to a process started later.
        server.processes[0].start = server.processes[0].start.map(|t| t + 1);
        assert_eq!(server.read(), None);
        assert!(server.pids().is_empty());
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// Not a test of its own: the listener of
    /// `a_restarted_server_is_found_again_under_a_new_epoch`, run as its
    /// child process (this test binary, filtered to this function, with
    /// the port in `WARP_TEST_LISTEN_PORT`).
    #[test]
    #[ignore = "the child process of another test"]
    fn listen_on_the_port_in_the_environment() {
        let Some(port) = std::env::var("WARP_TEST_LISTEN_PORT")
            .ok()
            .and_then(|p| p.parse::<u16>().ok())
        else {
            return;
        };
        let _listener = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
        std::thread::sleep(Duration::from_secs(30));
    }

    /// A child listening on `port`, killed when dropped.
    #[cfg(target_os = "linux")]
    struct Listener(std::process::Child);

    #[cfg(target_os = "linux")]
    impl Listener {
        fn start(port: u16) -> Self {
            let child = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--ignored",
                    "--exact",
                    "peer::tests::listen_on_the_port_in_the_environment",
                ])
                .env("WARP_TEST_LISTEN_PORT", port.to_string())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let l = Self(child);
            let deadline = Instant::now() + Duration::from_secs(10);
            while !listeners(port).contains(&l.0.id()) {
                assert!(Instant::now() < deadline, "no listener on {port}");
                std::thread::sleep(Duration::from_millis(20));
            }
            l
        }
    }

    #[cfg(target_os = "linux")]
    impl Drop for Listener {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_restarted_server_is_found_again_under_a_new_epoch() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let first = Listener::start(port);
        let mut server = LocalServer::listening_on(port)
            .expect("the child")
            .with_retry(Duration::ZERO);
        assert_eq!(server.pids(), [first.0.id()]);
        assert_eq!(server.read().map(|r| (r.epoch, r.processes)), Some((0, 1)));
        drop(first);
        // Gone, and nothing listens on the port yet: the look is on a
        // thread of its own, not the reader's.
        assert_eq!(server.read(), None);
        assert!(server.look.is_some());
        let second = Listener::start(port);
        // The look runs on its own thread: readings are `None` until the
        // first one after it ends.
        let deadline = Instant::now() + Duration::from_secs(10);
        let read = loop {
            if let Some(r) = server.read() {
                break r;
            }
            assert!(Instant::now() < deadline, "not found again");
            std::thread::sleep(Duration::from_millis(5));
        };
        assert_eq!((read.epoch, read.processes), (1, 1));
        assert_eq!(server.pids(), [second.0.id()]);
        // Read again within its epoch.
        assert_eq!(server.read().map(|r| r.epoch), Some(1));
    }
}
