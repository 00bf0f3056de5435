//! Live-cluster test harness for `redis-keylint`.
//!
//! The linter's claims about hash slots, hash tags and cross-slot errors are only
//! worth something if a real Redis Cluster agrees with them. This crate starts
//! throwaway three-master Redis Clusters on loopback ports and talks to them with
//! a small blocking RESP2 client, so integration tests can compare the workspace's
//! slot engine (and anything else) with what the server actually does.
//!
//! * [`Conn`] is one TCP connection to `127.0.0.1:<port>`: [`Conn::cmd`] sends one
//!   command, [`Conn::pipeline`] sends many in batches. Replies are [`Reply`]s; a
//!   server error is an ordinary `Reply::Error`, only I/O and protocol failures are
//!   `Err`.
//! * [`Cluster::start`] launches three `redis-server` processes in a private temp
//!   dir, assigns slots `0-5460`, `5461-10922` and `10923-16383`, joins them and
//!   waits until every node reports a healthy cluster. Dropping the [`Cluster`]
//!   stops the servers and removes the temp dir; a watchdog process also stops
//!   them if the test process dies without unwinding.
//! * [`redis_server_path`] finds the server binary. The live tests need it and fail
//!   loudly (never skip) when it is missing.
//!
//! ```no_run
//! use conformance::{Cluster, Reply};
//!
//! let cluster = Cluster::start();
//! let slot = 12739; // CLUSTER KEYSLOT 123456789
//! let mut conn = cluster.conn_for_slot(slot);
//! assert_eq!(conn.cmd(&["SET", "123456789", "v"]).unwrap(), Reply::Simple("OK".into()));
//! ```

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Read and write timeout of every [`Conn`], and its connect timeout.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Commands written per batch by [`Conn::pipeline`] before reading their replies.
const PIPELINE_BATCH: usize = 1000;
/// Slot ranges of the three masters, in node order.
const SLOT_RANGES: [(u16, u16); 3] = [(0, 5460), (5461, 10922), (10923, 16383)];
/// How long a fresh server may take to answer `PING`.
const PING_DEADLINE: Duration = Duration::from_secs(10);
/// How long the nodes may take to agree on a healthy cluster.
const CONVERGE_DEADLINE: Duration = Duration::from_secs(30);
/// Attempts of [`Cluster::start`] (the first one plus three retries with new ports).
const START_ATTEMPTS: usize = 4;
/// Deepest nesting of arrays accepted in a reply.
const MAX_DEPTH: usize = 64;
/// Largest bulk string or array accepted in a reply.
const MAX_LEN: i64 = 512 * 1024 * 1024;

// ---------------------------------------------------------------------------
// RESP2 replies
// ---------------------------------------------------------------------------

/// One RESP2 reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `+OK`: a simple string.
    Simple(String),
    /// `-ERR …`: an error reply, without the leading `-`.
    Error(String),
    /// `:42`: an integer.
    Int(i64),
    /// `$…`: a bulk string; `None` is the null bulk string `$-1`.
    Bulk(Option<Vec<u8>>),
    /// `*…`: an array; `None` is the null array `*-1`.
    Array(Option<Vec<Reply>>),
}

impl Reply {
    /// True for an error reply.
    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }

    /// The first word of an error reply, such as `"CROSSSLOT"`, `"MOVED"`, `"ASK"`,
    /// `"EXECABORT"` or `"ERR"`; `None` for any other reply.
    pub fn error_prefix(&self) -> Option<&str> {
        match self {
            Reply::Error(e) => e.split_ascii_whitespace().next(),
            _ => None,
        }
    }

    /// The value of an integer reply.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Reply::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The bytes of a non-null bulk string or of a simple string.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Reply::Bulk(Some(b)) => Some(b),
            Reply::Simple(s) => Some(s.as_bytes()),
            _ => None,
        }
    }
}

fn protocol_error(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

/// Appends one command as a RESP array of bulk strings.
fn encode_command<A: AsRef<[u8]>>(out: &mut Vec<u8>, args: &[A]) {
    out.push(b'*');
    out.extend_from_slice(args.len().to_string().as_bytes());
    out.extend_from_slice(b"\r\n");
    for arg in args {
        let arg = arg.as_ref();
        out.push(b'$');
        out.extend_from_slice(arg.len().to_string().as_bytes());
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
}

/// Reads one `\r\n`-terminated line, without the terminator.
fn read_line<R: BufRead>(r: &mut R) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    r.read_until(b'\n', &mut line)?;
    if line.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed by the server",
        ));
    }
    if !line.ends_with(b"\r\n") {
        return Err(protocol_error(format!(
            "reply line not terminated by CRLF: {}",
            line.escape_ascii()
        )));
    }
    line.truncate(line.len() - 2);
    Ok(line)
}

fn parse_int(bytes: &[u8]) -> io::Result<i64> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| protocol_error(format!("bad integer in reply: {}", bytes.escape_ascii())))
}

/// Reads one complete RESP2 reply.
fn read_reply<R: BufRead>(r: &mut R) -> io::Result<Reply> {
    read_reply_at(r, 0)
}

fn read_reply_at<R: BufRead>(r: &mut R, depth: usize) -> io::Result<Reply> {
    if depth > MAX_DEPTH {
        return Err(protocol_error("reply nested too deeply"));
    }
    let line = read_line(r)?;
    let (&kind, rest) = line
        .split_first()
        .ok_or_else(|| protocol_error("empty reply line"))?;
    match kind {
        b'+' => Ok(Reply::Simple(String::from_utf8_lossy(rest).into_owned())),
        b'-' => Ok(Reply::Error(String::from_utf8_lossy(rest).into_owned())),
        b':' => Ok(Reply::Int(parse_int(rest)?)),
        b'$' => {
            let len = parse_int(rest)?;
            if len < 0 {
                return Ok(Reply::Bulk(None));
            }
            if len > MAX_LEN {
                return Err(protocol_error(format!("bulk string too long: {len}")));
            }
            let mut buf = vec![0u8; len as usize + 2];
            r.read_exact(&mut buf)?;
            if !buf.ends_with(b"\r\n") {
                return Err(protocol_error("bulk string not terminated by CRLF"));
            }
            buf.truncate(len as usize);
            Ok(Reply::Bulk(Some(buf)))
        }
        b'*' => {
            let len = parse_int(rest)?;
            if len < 0 {
                return Ok(Reply::Array(None));
            }
            if len > MAX_LEN {
                return Err(protocol_error(format!("array too long: {len}")));
            }
            let mut items = Vec::with_capacity((len as usize).min(1024));
            for _ in 0..len {
                items.push(read_reply_at(r, depth + 1)?);
            }
            Ok(Reply::Array(Some(items)))
        }
        other => Err(protocol_error(format!(
            "unknown reply type byte {:?} in line {}",
            other as char,
            line.escape_ascii()
        ))),
    }
}

// ---------------------------------------------------------------------------
// Connection
// ---------------------------------------------------------------------------

/// One blocking RESP2 connection to a server on `127.0.0.1`.
///
/// Reads and writes time out after about 10 seconds.
#[derive(Debug)]
pub struct Conn {
    port: u16,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    /// Connects to `127.0.0.1:port`.
    pub fn connect(port: u16) -> io::Result<Conn> {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT)?;
        stream.set_read_timeout(Some(IO_TIMEOUT))?;
        stream.set_write_timeout(Some(IO_TIMEOUT))?;
        stream.set_nodelay(true)?;
        let writer = stream.try_clone()?;
        Ok(Conn {
            port,
            reader: BufReader::with_capacity(64 * 1024, stream),
            writer,
        })
    }

    /// The port this connection talks to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Sends one command and reads its reply. A server error is `Ok(Reply::Error(_))`.
    pub fn cmd<A: AsRef<[u8]>>(&mut self, args: &[A]) -> io::Result<Reply> {
        let mut buf = Vec::new();
        encode_command(&mut buf, args);
        self.writer.write_all(&buf)?;
        read_reply(&mut self.reader)
    }

    /// Sends many commands, in batches of 1000, and returns their replies in order.
    pub fn pipeline(&mut self, cmds: &[Vec<Vec<u8>>]) -> io::Result<Vec<Reply>> {
        let mut replies = Vec::with_capacity(cmds.len());
        let mut buf = Vec::new();
        for batch in cmds.chunks(PIPELINE_BATCH) {
            buf.clear();
            for cmd in batch {
                encode_command(&mut buf, cmd);
            }
            self.writer.write_all(&buf)?;
            for _ in batch {
                replies.push(read_reply(&mut self.reader)?);
            }
        }
        Ok(replies)
    }
}

// ---------------------------------------------------------------------------
// Outside programs
// ---------------------------------------------------------------------------

/// Runs an outside program for a live test (a Python or Node.js script, a package
/// installer) and returns its standard output.
///
/// # Panics
///
/// When it cannot be started or exits unsuccessfully; the message starts with
/// `what` and holds the program's stdout and stderr.
pub fn run_ok(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// ---------------------------------------------------------------------------
// Finding redis-server
// ---------------------------------------------------------------------------

const NOT_FOUND: &str = "redis-server not found: the live-cluster tests need it. Install it with \
`apt-get install -y redis-server` (Debian/Ubuntu) or `brew install redis`, or set \
REDIS_SERVER=/path/to/redis-server.";

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// The `redis-server` binary: `$REDIS_SERVER` if set, else the first one on `PATH`.
///
/// # Panics
///
/// When there is none, with a message saying how to install it. Live tests must
/// fail, not skip, without a server.
pub fn redis_server_path() -> PathBuf {
    if let Some(explicit) = std::env::var_os("REDIS_SERVER").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(&explicit);
        if is_executable(&path) {
            return path;
        }
        panic!(
            "REDIS_SERVER={} is not an executable file. {NOT_FOUND}",
            path.display()
        );
    }
    let name: OsString = format!("redis-server{}", std::env::consts::EXE_SUFFIX).into();
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path_var)
        .map(|dir| dir.join(&name))
        .find(|candidate| is_executable(candidate))
        .unwrap_or_else(|| panic!("{NOT_FOUND}"))
}

// ---------------------------------------------------------------------------
// Cluster
// ---------------------------------------------------------------------------

/// Ports (client and bus) handed to clusters of this process that are still alive,
/// so parallel tests in one process never pick the same ones.
static RESERVED_PORTS: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn reserved_ports() -> std::sync::MutexGuard<'static, BTreeSet<u16>> {
    RESERVED_PORTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A running three-master Redis Cluster on loopback ports, owned by one test.
///
/// Dropping it stops every `redis-server` it started (SIGTERM, then SIGKILL) and
/// removes its temp dir.
#[derive(Debug)]
pub struct Cluster {
    ports: Vec<u16>,
    children: Vec<Child>,
    dir: PathBuf,
    /// A `sh` that kills the servers when its stdin closes, i.e. when this process
    /// dies without running `Drop`.
    watchdog: Option<Child>,
    /// Ports registered in `RESERVED_PORTS` by this cluster.
    reserved: Vec<u16>,
}

/// Why one attempt at starting a cluster failed.
#[derive(Debug)]
enum StartError {
    /// Probably a port collision with another process: try again with new ports.
    Retry(String),
    /// Something else: give up.
    Fatal(String),
}

impl Cluster {
    /// Starts a fresh three-master cluster and waits until it is healthy.
    ///
    /// Safe to call from many tests at once; each call gets its own servers, ports
    /// and temp dir. Retries with new ports when ports collide.
    ///
    /// # Panics
    ///
    /// When `redis-server` is missing (see [`redis_server_path`]) or the cluster does
    /// not come up; the message includes the tail of the server logs.
    pub fn start() -> Cluster {
        let server = redis_server_path();
        let mut failures = String::new();
        for attempt in 1..=START_ATTEMPTS {
            match Cluster::try_start(&server) {
                Ok(cluster) => return cluster,
                Err(StartError::Retry(msg)) => {
                    let _ = writeln!(failures, "attempt {attempt}: {msg}");
                }
                Err(StartError::Fatal(msg)) => {
                    let _ = writeln!(failures, "attempt {attempt}: {msg}");
                    panic!(
                        "could not start a Redis Cluster with {}:\n{failures}",
                        server.display()
                    );
                }
            }
        }
        panic!(
            "could not start a Redis Cluster with {} after {START_ATTEMPTS} attempts \
             (ports kept colliding):\n{failures}",
            server.display()
        );
    }

    /// The client ports of the three masters, in node order.
    pub fn ports(&self) -> &[u16] {
        &self.ports
    }

    /// A new connection to node `node` (an index into [`Cluster::ports`]).
    ///
    /// # Panics
    ///
    /// When `node` is out of range or the node does not accept the connection.
    pub fn conn(&self, node: usize) -> Conn {
        let port = *self
            .ports
            .get(node)
            .unwrap_or_else(|| panic!("no node {node}: the cluster has {}", self.ports.len()));
        Conn::connect(port)
            .unwrap_or_else(|e| panic!("cannot connect to node {node} at 127.0.0.1:{port}: {e}"))
    }

    /// The node (an index into [`Cluster::ports`]) that owns `slot`.
    ///
    /// # Panics
    ///
    /// When `slot` is not below 16384.
    pub fn node_for_slot(&self, slot: u16) -> usize {
        SLOT_RANGES
            .iter()
            .position(|&(lo, hi)| (lo..=hi).contains(&slot))
            .unwrap_or_else(|| panic!("slot {slot} out of range 0..16384"))
    }

    /// A new connection to the node that owns `slot`.
    pub fn conn_for_slot(&self, slot: u16) -> Conn {
        self.conn(self.node_for_slot(slot))
    }

    fn try_start(server: &Path) -> Result<Cluster, StartError> {
        let dir = make_temp_dir().map_err(|e| {
            StartError::Fatal(format!(
                "cannot create a temp dir under {}: {e}",
                std::env::temp_dir().display()
            ))
        })?;
        let mut cluster = Cluster {
            ports: Vec::new(),
            children: Vec::new(),
            watchdog: spawn_watchdog(&dir),
            dir,
            reserved: Vec::new(),
        };
        let ports = pick_ports(SLOT_RANGES.len()).map_err(StartError::Fatal)?;
        cluster.reserved = ports.iter().flat_map(|&p| [p, p + 10000]).collect();
        for &port in &ports {
            cluster.spawn_node(server, port)?;
        }
        cluster.wait_for_ping()?;
        for (node, &(lo, hi)) in SLOT_RANGES.iter().enumerate() {
            let lo = lo.to_string();
            let hi = hi.to_string();
            cluster.expect_ok(node, &["CLUSTER", "ADDSLOTSRANGE", &lo, &hi])?;
        }
        // Every pair meets directly: quicker than waiting for gossip to spread.
        for from in 0..ports.len() {
            for to in &ports[from + 1..] {
                let port = to.to_string();
                cluster.expect_ok(from, &["CLUSTER", "MEET", "127.0.0.1", &port])?;
            }
        }
        cluster.wait_until_healthy()?;
        Ok(cluster)
    }

    fn spawn_node(&mut self, server: &Path, port: u16) -> Result<(), StartError> {
        let log_path = self.log_path(port);
        let log = File::create(&log_path)
            .map_err(|e| StartError::Fatal(format!("cannot create {}: {e}", log_path.display())))?;
        let log2 = log
            .try_clone()
            .map_err(|e| StartError::Fatal(format!("cannot clone log file handle: {e}")))?;
        let port_s = port.to_string();
        let child = Command::new(server)
            .args(["--port", &port_s, "--bind", "127.0.0.1"])
            .args(["--cluster-enabled", "yes"])
            .args(["--cluster-config-file", &format!("nodes-{port}.conf")])
            .arg("--dir")
            .arg(&self.dir)
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .args(["--protected-mode", "no", "--loglevel", "warning"])
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .spawn()
            .map_err(|e| StartError::Fatal(format!("cannot run {}: {e}", server.display())))?;
        if let Some(stdin) = self.watchdog.as_mut().and_then(|w| w.stdin.as_mut()) {
            tell_watchdog(stdin, child.id());
        }
        self.children.push(child);
        self.ports.push(port);
        Ok(())
    }

    fn log_path(&self, port: u16) -> PathBuf {
        self.dir.join(format!("redis-{port}.log"))
    }

    /// The last lines of every node's log, for failure messages.
    fn log_tails(&self) -> String {
        let mut out = String::new();
        for &port in &self.ports {
            let text = fs::read(self.log_path(port))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_else(|e| format!("(cannot read log: {e})"));
            let text = if text.trim().is_empty() {
                "(empty)".to_string()
            } else {
                text
            };
            let lines: Vec<&str> = text.lines().collect();
            let tail = &lines[lines.len().saturating_sub(25)..];
            let _ = writeln!(out, "--- redis-server 127.0.0.1:{port} log (tail) ---");
            for line in tail {
                let _ = writeln!(out, "{line}");
            }
        }
        out
    }

    /// An error if a node has exited: retryable when its log says a port was taken.
    fn check_alive(&mut self) -> Result<(), StartError> {
        for (node, child) in self.children.iter_mut().enumerate() {
            if let Ok(Some(status)) = child.try_wait() {
                let port = self.ports[node];
                let log = fs::read(self.log_path(port)).unwrap_or_default();
                let collided = String::from_utf8_lossy(&log).contains("already in use");
                let msg = format!(
                    "redis-server on port {port} exited early ({status}){}\n{}",
                    if collided {
                        format!(": port {port} or {} was taken", u32::from(port) + 10000)
                    } else {
                        String::new()
                    },
                    self.log_tails()
                );
                return Err(if collided {
                    StartError::Retry(msg)
                } else {
                    StartError::Fatal(msg)
                });
            }
        }
        Ok(())
    }

    /// Waits until every node answers `PING` and is the process this cluster started.
    fn wait_for_ping(&mut self) -> Result<(), StartError> {
        let deadline = Instant::now() + PING_DEADLINE;
        for node in 0..self.ports.len() {
            let port = self.ports[node];
            let pid = self.children[node].id();
            loop {
                self.check_alive()?;
                let last_error = match ping_and_pid(port) {
                    Ok(Some(server_pid)) if server_pid == pid => break,
                    Ok(Some(server_pid)) => {
                        return Err(StartError::Retry(format!(
                            "port {port} is served by another redis-server (pid {server_pid}, \
                             ours is {pid})"
                        )))
                    }
                    Ok(None) => "no process_id in INFO server".to_string(),
                    Err(e) => e.to_string(),
                };
                if Instant::now() > deadline {
                    return Err(StartError::Fatal(format!(
                        "redis-server on port {port} did not answer PING within {:?}: \
                         {last_error}\n{}",
                        PING_DEADLINE,
                        self.log_tails()
                    )));
                }
                thread::sleep(Duration::from_millis(20));
            }
        }
        Ok(())
    }

    fn expect_ok(&self, node: usize, args: &[&str]) -> Result<(), StartError> {
        let port = self.ports[node];
        let reply = Conn::connect(port).and_then(|mut c| c.cmd(args));
        match reply {
            Ok(Reply::Simple(s)) if s == "OK" => Ok(()),
            other => Err(StartError::Fatal(format!(
                "`{}` on port {port} gave {other:?}\n{}",
                args.join(" "),
                self.log_tails()
            ))),
        }
    }

    /// Polls until every node reports `cluster_state:ok`, knows all masters and maps
    /// every slot to the expected master.
    fn wait_until_healthy(&mut self) -> Result<(), StartError> {
        let deadline = Instant::now() + CONVERGE_DEADLINE;
        loop {
            self.check_alive()?;
            let problems: Vec<String> = (0..self.ports.len())
                .filter_map(|node| {
                    self.health_problem(node)
                        .map(|p| format!("node {node}: {p}"))
                })
                .collect();
            if problems.is_empty() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(StartError::Fatal(format!(
                    "cluster not healthy after {:?}:\n{}\n{}",
                    CONVERGE_DEADLINE,
                    problems.join("\n"),
                    self.log_tails()
                )));
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// What is still wrong with `node`'s view of the cluster, if anything.
    fn health_problem(&self, node: usize) -> Option<String> {
        let port = self.ports[node];
        let mut conn = match Conn::connect(port) {
            Ok(c) => c,
            Err(e) => return Some(format!("cannot connect: {e}")),
        };
        let info = match conn.cmd(&["CLUSTER", "INFO"]) {
            Ok(Reply::Bulk(Some(b))) => String::from_utf8_lossy(&b).into_owned(),
            other => return Some(format!("CLUSTER INFO gave {other:?}")),
        };
        let field = |name: &str| {
            info.lines()
                .filter_map(|l| l.trim().split_once(':'))
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
                .unwrap_or_default()
        };
        let masters = SLOT_RANGES.len().to_string();
        for (name, want) in [
            ("cluster_state", "ok"),
            ("cluster_known_nodes", masters.as_str()),
            ("cluster_size", masters.as_str()),
            ("cluster_slots_ok", "16384"),
        ] {
            let got = field(name);
            if got != want {
                return Some(format!("{name}:{got} (want {want})"));
            }
        }
        let slots = match conn.cmd(&["CLUSTER", "SLOTS"]) {
            Ok(r) => r,
            Err(e) => return Some(format!("CLUSTER SLOTS failed: {e}")),
        };
        let Some(mut ranges) = parse_cluster_slots(&slots) else {
            return Some(format!("unexpected CLUSTER SLOTS reply {slots:?}"));
        };
        ranges.sort_unstable();
        let mut next = 0u32;
        for &(lo, hi, owner) in &ranges {
            if u32::from(lo) != next {
                return Some(format!("CLUSTER SLOTS does not cover slot {next}"));
            }
            let want = self.ports[self.node_for_slot(lo)];
            if owner != want || self.node_for_slot(hi) != self.node_for_slot(lo) {
                return Some(format!(
                    "CLUSTER SLOTS maps {lo}-{hi} to port {owner}, expected {want}"
                ));
            }
            next = u32::from(hi) + 1;
        }
        if next != 16384 {
            return Some(format!("CLUSTER SLOTS does not cover slot {next}"));
        }
        None
    }
}

/// `(first slot, last slot, master port)` for each entry of a `CLUSTER SLOTS` reply.
fn parse_cluster_slots(reply: &Reply) -> Option<Vec<(u16, u16, u16)>> {
    let Reply::Array(Some(entries)) = reply else {
        return None;
    };
    entries
        .iter()
        .map(|entry| {
            let Reply::Array(Some(fields)) = entry else {
                return None;
            };
            let lo = u16::try_from(fields.first()?.as_int()?).ok()?;
            let hi = u16::try_from(fields.get(1)?.as_int()?).ok()?;
            let Reply::Array(Some(master)) = fields.get(2)? else {
                return None;
            };
            let port = u16::try_from(master.get(1)?.as_int()?).ok()?;
            Some((lo, hi, port))
        })
        .collect()
}

/// Sends `PING` to a port and returns the server's `process_id`.
fn ping_and_pid(port: u16) -> io::Result<Option<u32>> {
    let mut conn = Conn::connect(port)?;
    match conn.cmd(&["PING"])? {
        Reply::Simple(s) if s == "PONG" => {}
        other => return Err(protocol_error(format!("PING gave {other:?}"))),
    }
    let info = conn.cmd(&["INFO", "server"])?;
    let text = String::from_utf8_lossy(info.as_bytes().unwrap_or_default()).into_owned();
    Ok(text
        .lines()
        .find_map(|l| l.trim().strip_prefix("process_id:"))
        .and_then(|v| v.parse().ok()))
}

/// Picks `n` loopback ports `p < 55535` such that `p` and `p + 10000` (the cluster bus
/// port) are free now and not reserved by another cluster of this process, and
/// reserves them.
fn pick_ports(n: usize) -> Result<Vec<u16>, String> {
    let mut reserved = reserved_ports();
    let mut held = Vec::new();
    let mut ports = Vec::new();
    for _ in 0..1000 {
        if ports.len() == n {
            break;
        }
        let Ok(listener) = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)) else {
            continue;
        };
        let Ok(addr) = listener.local_addr() else {
            continue;
        };
        let port = addr.port();
        if port >= 55535 || reserved.contains(&port) || reserved.contains(&(port + 10000)) {
            continue;
        }
        let Ok(bus) = TcpListener::bind((Ipv4Addr::LOCALHOST, port + 10000)) else {
            continue;
        };
        reserved.insert(port);
        reserved.insert(port + 10000);
        held.push((listener, bus));
        ports.push(port);
    }
    if ports.len() == n {
        Ok(ports)
    } else {
        for p in &ports {
            reserved.remove(p);
            reserved.remove(&(p + 10000));
        }
        Err(format!(
            "could not find {n} free loopback port pairs (p, p+10000)"
        ))
    }
}

/// Creates a fresh, uniquely named dir under the system temp dir.
fn make_temp_dir() -> io::Result<PathBuf> {
    let base = std::env::temp_dir();
    loop {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let name = format!(
            "redis-keylint-conformance-{}-{}-{nanos}",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let dir = base.join(name);
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Starts a `sh` that reads server pids from its stdin and, when the stdin closes
/// (this process exited, however it died), terminates them and removes `dir`. Best
/// effort: `None` if there is no `sh`. `Drop` kills it before cleaning up itself.
fn spawn_watchdog(dir: &Path) -> Option<Child> {
    if !cfg!(unix) {
        return None;
    }
    const SCRIPT: &str = "trap '' INT HUP PIPE
pids=''
while read -r p; do pids=\"$pids $p\"; done
if [ -n \"$pids\" ]; then
  kill -TERM $pids 2>/dev/null
  sleep 2
  kill -KILL $pids 2>/dev/null
  sleep 1
fi
rm -rf -- \"$1\"
exit 0";
    Command::new("sh")
        .args(["-c", SCRIPT, "sh"])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()
}

fn tell_watchdog(stdin: &mut ChildStdin, pid: u32) {
    let _ = writeln!(stdin, "{pid}");
    let _ = stdin.flush();
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Stop the watchdog first so it can never signal a reused pid later.
        if let Some(mut watchdog) = self.watchdog.take() {
            let _ = watchdog.kill();
            let _ = watchdog.wait();
        }
        for child in &mut self.children {
            if matches!(child.try_wait(), Ok(None)) {
                let _ = Command::new("kill")
                    .args(["-TERM", &child.id().to_string()])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
            }
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        for child in &mut self.children {
            loop {
                match child.try_wait() {
                    Ok(None) if Instant::now() < deadline => {
                        thread::sleep(Duration::from_millis(10));
                    }
                    Ok(None) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        break;
                    }
                    _ => break,
                }
            }
        }
        {
            let mut reserved = reserved_ports();
            for p in &self.reserved {
                reserved.remove(p);
            }
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8]) -> io::Result<Reply> {
        read_reply(&mut &bytes[..])
    }

    #[test]
    fn encodes_commands() {
        let mut out = Vec::new();
        encode_command(&mut out, &["SET", "k", ""]);
        assert_eq!(out, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
    }

    #[test]
    fn parses_every_reply_type() {
        assert_eq!(parse(b"+OK\r\n").unwrap(), Reply::Simple("OK".into()));
        assert_eq!(parse(b":-7\r\n").unwrap(), Reply::Int(-7));
        assert_eq!(parse(b"$-1\r\n").unwrap(), Reply::Bulk(None));
        assert_eq!(parse(b"*-1\r\n").unwrap(), Reply::Array(None));
        assert_eq!(
            parse(b"$4\r\na\r\nb\r\n").unwrap(),
            Reply::Bulk(Some(b"a\r\nb".to_vec()))
        );
        let nested = parse(b"*2\r\n*1\r\n:1\r\n$0\r\n\r\n").unwrap();
        assert_eq!(
            nested,
            Reply::Array(Some(vec![
                Reply::Array(Some(vec![Reply::Int(1)])),
                Reply::Bulk(Some(Vec::new())),
            ]))
        );
        let err = parse(b"-MOVED 3999 127.0.0.1:6381\r\n").unwrap();
        assert!(err.is_error());
        assert_eq!(err.error_prefix(), Some("MOVED"));
    }

    #[test]
    fn rejects_bad_input() {
        assert!(parse(b"").is_err());
        assert!(parse(b"+OK\n").is_err());
        assert!(parse(b"?x\r\n").is_err());
        assert!(parse(b":x\r\n").is_err());
        assert!(parse(b"$3\r\nab").is_err());
        assert!(parse(b"*2\r\n:1\r\n").is_err());
    }

    #[test]
    fn accessors() {
        assert_eq!(Reply::Int(3).as_int(), Some(3));
        assert_eq!(Reply::Simple("x".into()).as_int(), None);
        assert_eq!(Reply::Bulk(Some(b"v".to_vec())).as_bytes(), Some(&b"v"[..]));
        assert_eq!(Reply::Bulk(None).as_bytes(), None);
        assert_eq!(Reply::Simple("OK".into()).error_prefix(), None);
        assert_eq!(
            Reply::Error("CROSSSLOT Keys in request don't hash to the same slot".into())
                .error_prefix(),
            Some("CROSSSLOT")
        );
    }

    #[test]
    fn parses_cluster_slots() {
        let entry = |lo: i64, hi: i64, port: i64| {
            Reply::Array(Some(vec![
                Reply::Int(lo),
                Reply::Int(hi),
                Reply::Array(Some(vec![
                    Reply::Bulk(Some(b"127.0.0.1".to_vec())),
                    Reply::Int(port),
                    Reply::Bulk(Some(b"id".to_vec())),
                ])),
            ]))
        };
        let reply = Reply::Array(Some(vec![entry(0, 5460, 7000), entry(5461, 16383, 7001)]));
        assert_eq!(
            parse_cluster_slots(&reply),
            Some(vec![(0, 5460, 7000), (5461, 16383, 7001)])
        );
        assert_eq!(parse_cluster_slots(&Reply::Int(1)), None);
    }
}
