//! The lab's own servers: `redis-server` (one per lock instance) and a PostgreSQL cluster, on
//! free loopback ports in a temporary directory, stopped and removed when dropped. PostgreSQL
//! refuses to run as root, so as root its tools run through `runuser -u postgres --` in a
//! directory that user owns. Nothing listens beyond 127.0.0.1.

use crate::resp::Redis;
use fencing_playground::sim::commands::RedisReply;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

const PG_BIN: &str = "/usr/lib/postgresql/15/bin";
pub const PG_USER: &str = "lab";

/// The lowest port the kernel hands out as a connection's own (ephemeral) port, read from
/// `/proc/sys/net/ipv4/ip_local_port_range`; 32768 (Linux's default) when it cannot be read.
fn ephemeral_low() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(32768)
}

/// Where this process's port search goes next (0 until the first call picks a start).
static NEXT_PORT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A loopback port for a server the lab starts, free when asked.
///
/// Not port 0's answer: that port comes from the ephemeral range, and between this check and
/// the server's own bind any outgoing connection on the machine may take it as its source port
/// (a CI run lost an etcd member to exactly that: `bind: address already in use`). So the
/// search runs below the ephemeral range, from a start that differs per process, and never
/// offers the same port twice within one process.
pub fn free_port() -> std::io::Result<u16> {
    use std::sync::atomic::Ordering;
    const LOW: u32 = 15000;
    let high = u32::from(ephemeral_low()).max(LOW + 2000);
    let span = high - LOW;
    if NEXT_PORT.load(Ordering::Relaxed) == 0 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let start = (std::process::id().wrapping_mul(7919) ^ nanos) % span;
        let _ = NEXT_PORT.compare_exchange(0, start + 1, Ordering::Relaxed, Ordering::Relaxed);
    }
    for _ in 0..span {
        let n = NEXT_PORT.fetch_add(1, Ordering::Relaxed);
        let port = (LOW + n % span) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    Err(fail(format!(
        "no free loopback port between {LOW} and {high}"
    )))
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// How much more CPU weight the lab's servers and conductor ask for. Timing is what the lab
/// measures, so on a loaded machine its processes should wake first; as root this is granted,
/// otherwise `nice` warns and runs them as they are.
const NICENESS: &str = "-10";

/// `program` run through `nice`, so it and its children get the lab's priority.
pub fn niced(program: &str) -> Command {
    let mut c = Command::new("nice");
    c.args(["-n", NICENESS, program]);
    c
}

/// Gives the calling thread the lab's priority (best effort: as root it is granted). The
/// conductor calls it on the thread that keeps the schedule.
pub fn prioritise_this_thread() {
    let tid = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    if let Some(tid) = tid {
        let _ = Command::new("renice")
            .args(["-n", NICENESS, "-p", &tid])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn fail(what: impl Into<String>) -> std::io::Error {
    std::io::Error::other(what.into())
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new() -> std::io::Result<TempDir> {
        TempDir::under(std::env::temp_dir())
    }

    /// A directory in memory (`/dev/shm`) where the machine has one, else in the temporary
    /// directory. A Redis that keeps its keys writes its append-only file here: a killed
    /// process loses nothing the kernel holds, so the restart reads every key back, while an
    /// `fsync` to disk would wait on whatever else the machine is writing (a build beside the
    /// lab made one `SET` 200 ms late).
    pub fn in_memory() -> std::io::Result<TempDir> {
        let shm = PathBuf::from("/dev/shm");
        if shm.is_dir() {
            if let Ok(d) = TempDir::under(shm) {
                return Ok(d);
            }
        }
        TempDir::new()
    }

    /// A new directory under `base`: named by the process, a count within it (the lab's
    /// workers make theirs at the same instant) and the time.
    fn under(base: PathBuf) -> std::io::Result<TempDir> {
        static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let p = base.join(format!("fencing-lab-{}-{n}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&p)?;
        Ok(TempDir(p))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One `redis-server`, restartable on the same port and directory.
pub struct RedisServer {
    pub port: u16,
    dir: PathBuf,
    /// Keys survive a restart: append-only file with `appendfsync always`.
    persistent: bool,
    /// Its own wall clock (the lab's clock shim and its offset file), when the scenario moves it.
    clock: Option<std::sync::Arc<crate::shim::ClockFile>>,
    child: Option<Child>,
}

impl RedisServer {
    pub fn start(dir: &Path, persistent: bool) -> std::io::Result<RedisServer> {
        RedisServer::start_clocked(dir, persistent, None)
    }

    /// A server whose wall clock is `clock`'s (at every restart too), or the machine's.
    pub fn start_clocked(
        dir: &Path,
        persistent: bool,
        clock: Option<std::sync::Arc<crate::shim::ClockFile>>,
    ) -> std::io::Result<RedisServer> {
        std::fs::create_dir_all(dir)?;
        let mut r = RedisServer {
            port: free_port()?,
            dir: dir.to_path_buf(),
            persistent,
            clock,
            child: None,
        };
        r.up()?;
        Ok(r)
    }

    /// Starts the process and waits until it answers PING.
    pub fn up(&mut self) -> std::io::Result<()> {
        let mut cmd = niced("redis-server");
        cmd.args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args([
                "--save",
                "",
                "--protected-mode",
                "yes",
                "--loglevel",
                "warning",
            ])
            .arg("--dir")
            .arg(&self.dir);
        if self.persistent {
            cmd.args(["--appendonly", "yes", "--appendfsync", "always"]);
        } else {
            cmd.args(["--appendonly", "no"]);
        }
        if let Some(c) = &self.clock {
            cmd.envs(c.env()?);
        }
        let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            // A server replaying its append-only file answers `-LOADING` until it is done.
            if let Ok(mut c) = Redis::connect(self.port) {
                if let Ok(RedisReply::Bulk(pong)) = c.call(&["PING".to_string()]) {
                    if pong == "PONG" {
                        return Ok(());
                    }
                }
            }
            if Instant::now() > deadline {
                return Err(fail(format!(
                    "redis-server on port {} did not start",
                    self.port
                )));
            }
            sleep(Duration::from_millis(2));
        }
    }

    /// Kills the process at once (SIGKILL): a crash, with no chance to save anything.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// A crash that loses the keys on a server that keeps them at another crash: after the
    /// kill, its files go too, so the restart comes up empty.
    pub fn crash_losing_keys(&mut self) -> std::io::Result<()> {
        self.kill();
        if self.persistent {
            std::fs::remove_dir_all(&self.dir)?;
            std::fs::create_dir_all(&self.dir)?;
        }
        Ok(())
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A PostgreSQL cluster in its own directory, run by `pg_ctl`.
pub struct Postgres {
    pub port: u16,
    data: PathBuf,
    root: bool,
}

impl Postgres {
    pub fn start(dir: &Path) -> std::io::Result<Postgres> {
        let root = is_root();
        std::fs::create_dir_all(dir)?;
        if root {
            run(Command::new("chown").arg("postgres:postgres").arg(dir))?;
        }
        let data = dir.join("data");
        let pg = Postgres {
            port: free_port()?,
            data,
            root,
        };
        run(pg.tool("initdb")?.arg("-D").arg(&pg.data).args([
            "-A",
            "trust",
            "-U",
            PG_USER,
            "--no-sync",
            "-E",
            "UTF8",
        ]))?;
        let opts = format!(
            "-c listen_addresses=127.0.0.1 -p {} -k {} -c fsync=off -c synchronous_commit=off",
            pg.port,
            dir.display()
        );
        run(pg
            .tool("pg_ctl")?
            .arg("-D")
            .arg(&pg.data)
            .args(["-o", &opts, "-l"])
            .arg(dir.join("postgres.log"))
            .args(["-w", "start"]))?;
        Ok(pg)
    }

    /// A PostgreSQL tool, as the `postgres` user when the lab runs as root.
    fn tool(&self, name: &str) -> std::io::Result<Command> {
        let path = format!("{PG_BIN}/{name}");
        if !Path::new(&path).exists() {
            return Err(fail(format!("{path} is missing: run scripts/setup.sh")));
        }
        Ok(if self.root {
            let mut c = niced("runuser");
            c.args(["-u", "postgres", "--", &path]);
            c
        } else {
            niced(&path)
        })
    }

    /// `postgres --version`, e.g. "postgres (PostgreSQL) 15.18 (Debian …)" → "15.18".
    pub fn version() -> String {
        let v = version_of(Command::new(format!("{PG_BIN}/postgres")).arg("--version"));
        v.split_whitespace().nth(2).unwrap_or(&v).to_string()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Ok(mut c) = self.tool("pg_ctl") {
            let _ = c
                .arg("-D")
                .arg(&self.data)
                .args(["-m", "immediate", "-w", "stop"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}

fn run(cmd: &mut Command) -> std::io::Result<()> {
    let out = cmd.stdin(Stdio::null()).output()?;
    if out.status.success() {
        Ok(())
    } else {
        Err(fail(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

fn version_of(cmd: &mut Command) -> String {
    cmd.output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|e| format!("unknown ({e})"))
}

/// `redis-server --version`, e.g. "Redis server v=7.0.15 …" → "7.0.15".
pub fn redis_version() -> String {
    let v = version_of(Command::new("redis-server").arg("--version"));
    v.split_whitespace()
        .find_map(|w| w.strip_prefix("v="))
        .unwrap_or(&v)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_ports_are_distinct_bindable_and_below_the_ephemeral_range() {
        let low = ephemeral_low();
        // Each port was bindable when offered (free_port binds it to see); binding it again here
        // would race with the lab's other processes (the presets run beside these tests, each
        // starting servers on ports of its own).
        let ports: Vec<u16> = (0..50).map(|_| free_port().expect("a free port")).collect();
        let mut seen = ports.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(
            seen.len(),
            ports.len(),
            "a port was offered twice: {ports:?}"
        );
        for p in ports {
            assert!(
                p < low.max(17000),
                "port {p} is in the ephemeral range (from {low})"
            );
        }
    }
}
