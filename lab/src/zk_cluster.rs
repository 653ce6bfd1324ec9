//! The lab's ZooKeeper ensemble: members of Debian's ZooKeeper 3.8 (`QuorumPeerMain` from
//! `/usr/share/java/zookeeper.jar`) on free loopback ports, each with its own `zoo.cfg` and
//! data directory (with its `myid`) in a temporary directory in memory, at the tick a run asks
//! for. The session timeouts the server grants stay at ZooKeeper's defaults (2 to 20 ticks).
//! It asks each member for its role with the `srvr` four-letter word, kills a member
//! (`SIGKILL`: a crash) and restarts it on its own data, and stops every member when dropped.
//! Each member is started with `PR_SET_PDEATHSIG`, so no JVM outlives a lab that is killed.

use crate::servers::{free_port, niced, TempDir};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Debian's server jar; its manifest's `Class-Path` names the jars it needs.
pub const ZK_JAR: &str = "/usr/share/java/zookeeper.jar";
/// A logger for the server's slf4j (Debian's `libslf4j-java`, a dependency of ZooKeeper's):
/// without one it logs nothing, and a member's log is how a failed start explains itself.
const SLF4J_SIMPLE: &str = "/usr/share/java/slf4j-simple.jar";
const JAVA: &str = "java";

fn fail(what: impl Into<String>) -> std::io::Error {
    std::io::Error::other(what.into())
}

/// How the ensemble is set up.
#[derive(Clone, Debug)]
pub struct ZkConfig {
    pub members: usize,
    /// ZooKeeper's `tickTime`, in real ms (a whole number: the server reads an integer).
    pub tick_ms: u64,
    /// How often the leader deletes empty container nodes (`znode.container.checkIntervalMs`;
    /// ZooKeeper's default is a minute).
    pub container_check_ms: u64,
}

impl ZkConfig {
    pub fn new(tick_ms: u64) -> ZkConfig {
        ZkConfig {
            members: 3,
            tick_ms,
            container_check_ms: 100,
        }
    }

    /// `initLimit` and `syncLimit` in ticks: at least ZooKeeper's sample values (10 and 5),
    /// and at least 5 s and 2 s, so a short tick on a busy machine does not drop a follower
    /// that is only slow.
    fn limits(&self) -> (u64, u64) {
        let t = self.tick_ms.max(1);
        (10.max(5000u64.div_ceil(t)), 5.max(2000u64.div_ceil(t)))
    }
}

struct Member {
    id: usize,
    client_port: u16,
    peer_port: u16,
    election_port: u16,
    child: Option<Child>,
}

pub struct ZkCluster {
    dir: TempDir,
    members: Vec<Member>,
    pub config: ZkConfig,
}

/// One four-letter word's answer from the server on `port`, or `None`.
pub fn four_letter(port: u16, word: &str, within: Duration) -> Option<String> {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut s = TcpStream::connect_timeout(&addr, within).ok()?;
    s.set_read_timeout(Some(within)).ok()?;
    s.set_write_timeout(Some(within)).ok()?;
    s.write_all(word.as_bytes()).ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}

/// A member's role from its `srvr` answer: `leader`, `follower`, `standalone`, or `None`
/// (not serving: looking for a leader, or down).
pub fn mode(port: u16) -> Option<String> {
    let srvr = four_letter(port, "srvr", Duration::from_millis(500))?;
    srvr.lines()
        .find_map(|l| l.strip_prefix("Mode: "))
        .map(|m| m.trim().to_string())
}

/// The last zxid a member has seen, from its `srvr` answer (`Zxid: 0x…`).
pub fn zxid(port: u16) -> Option<i64> {
    let srvr = four_letter(port, "srvr", Duration::from_millis(500))?;
    let hex = srvr.lines().find_map(|l| l.strip_prefix("Zxid: 0x"))?;
    i64::from_str_radix(hex.trim(), 16).ok()
}

impl ZkCluster {
    /// Starts the members and waits until every one serves as leader or follower.
    pub fn start(config: ZkConfig) -> std::io::Result<ZkCluster> {
        if !std::path::Path::new(ZK_JAR).exists() {
            return Err(fail(format!(
                "{ZK_JAR} is missing (scripts/setup.sh installs Debian's zookeeper)"
            )));
        }
        let dir = TempDir::in_memory()?;
        let mut members = Vec::new();
        for id in 1..=config.members {
            members.push(Member {
                id,
                client_port: free_port()?,
                peer_port: free_port()?,
                election_port: free_port()?,
                child: None,
            });
        }
        let mut c = ZkCluster {
            dir,
            members,
            config,
        };
        for i in 0..c.members.len() {
            c.write_config(i)?;
        }
        for i in 0..c.members.len() {
            c.spawn(i)?;
        }
        c.wait_until_serving(Duration::from_secs(30))?;
        Ok(c)
    }

    fn member_dir(&self, i: usize) -> std::path::PathBuf {
        self.dir.0.join(format!("zk{}", self.members[i].id))
    }

    fn write_config(&self, i: usize) -> std::io::Result<()> {
        let m = &self.members[i];
        let dir = self.member_dir(i);
        let data = dir.join("data");
        std::fs::create_dir_all(&data)?;
        std::fs::write(data.join("myid"), format!("{}\n", m.id))?;
        let (init, sync) = self.config.limits();
        let mut cfg = format!(
            "tickTime={}\ninitLimit={init}\nsyncLimit={sync}\ndataDir={}\n\
             clientPort={}\nclientPortAddress=127.0.0.1\n\
             admin.enableServer=false\n4lw.commands.whitelist=ruok,srvr,stat,mntr\n\
             preAllocSize=1024\n",
            self.config.tick_ms,
            data.display(),
            m.client_port,
        );
        if self.members.len() > 1 {
            for p in &self.members {
                cfg.push_str(&format!(
                    "server.{}=127.0.0.1:{}:{}\n",
                    p.id, p.peer_port, p.election_port
                ));
            }
        }
        std::fs::write(dir.join("zoo.cfg"), cfg)
    }

    fn spawn(&mut self, i: usize) -> std::io::Result<()> {
        let dir = self.member_dir(i);
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("log"))?;
        let mut cmd: Command = niced(JAVA);
        // A small heap and the serial collector keep three JVMs light; C1 alone (tiered
        // level 1) halves the CPU each spends starting, which on two cores is what a start
        // waits for.
        cmd.args([
            "-Xmx64m",
            "-Xss512k",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData",
        ])
        .arg(format!(
            "-Dznode.container.checkIntervalMs={}",
            self.config.container_check_ms
        ))
        .arg(format!("-Dzookeeper.log.dir={}", dir.display()))
        .arg("-Dorg.slf4j.simpleLogger.showDateTime=true")
        .arg("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS")
        .args(["-cp", &format!("{ZK_JAR}:{SLF4J_SIMPLE}")])
        .arg("org.apache.zookeeper.server.quorum.QuorumPeerMain")
        .arg(dir.join("zoo.cfg"))
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
        // SAFETY: prctl(2) with PR_SET_PDEATHSIG only sets a flag of the child being started;
        // it allocates nothing and is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        self.members[i].child = Some(cmd.spawn()?);
        Ok(())
    }

    /// Every member's client port, in member order.
    pub fn ports(&self) -> Vec<u16> {
        self.members.iter().map(|m| m.client_port).collect()
    }

    /// The connect string a client is given: every member, in member order.
    pub fn connect_string(&self) -> String {
        self.members
            .iter()
            .map(|m| format!("127.0.0.1:{}", m.client_port))
            .collect::<Vec<_>>()
            .join(",")
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Each member's role now (`None`: down or not serving).
    pub fn modes(&self) -> Vec<Option<String>> {
        self.members
            .iter()
            .map(|m| m.child.as_ref().and_then(|_| mode(m.client_port)))
            .collect()
    }

    /// Which member leads now; `None` while none does.
    pub fn leader(&self) -> Option<usize> {
        self.modes()
            .iter()
            .position(|m| matches!(m.as_deref(), Some("leader" | "standalone")))
    }

    /// Waits until every running member serves (leader, follower or standalone) and one leads.
    pub fn wait_until_serving(&self, within: Duration) -> std::io::Result<usize> {
        let until = Instant::now() + within;
        loop {
            let modes = self.modes();
            let serving = self
                .members
                .iter()
                .zip(&modes)
                .all(|(m, mode)| m.child.is_none() || mode.is_some());
            if serving {
                if let Some(l) = self.leader() {
                    return Ok(l);
                }
            }
            if Instant::now() > until {
                return Err(fail(format!(
                    "the ZooKeeper ensemble was not serving within {} s (roles {modes:?}); the \
                     members' last words: {}",
                    within.as_secs(),
                    self.last_words()
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The last line of each member's log.
    fn last_words(&self) -> String {
        (0..self.members.len())
            .map(|i| {
                let log =
                    std::fs::read_to_string(self.member_dir(i).join("log")).unwrap_or_default();
                let last = log.lines().last().unwrap_or("(nothing)").to_string();
                format!("zk{}: {last}", self.members[i].id)
            })
            .collect::<Vec<_>>()
            .join(" | ")
    }

    /// A crash: `SIGKILL` of member `i`'s process.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut c) = self.members.get_mut(i).and_then(|m| m.child.take()) {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Restarts a killed member on its own data directory.
    pub fn restart(&mut self, i: usize) -> std::io::Result<()> {
        if self.members.get(i).is_some_and(|m| m.child.is_none()) {
            self.spawn(i)?;
        }
        Ok(())
    }

    /// Whether every member's process is still running.
    pub fn all_running(&mut self) -> bool {
        self.members.iter_mut().all(|m| {
            m.child
                .as_mut()
                .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
        })
    }

    /// Each running member's process id, resident memory (kB) and CPU time so far (ms, user
    /// and system), from `/proc`.
    pub fn usage(&self) -> Vec<(u32, u64, u64)> {
        // SAFETY: sysconf(3) only reads a configuration value.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
        self.members
            .iter()
            .filter_map(|m| m.child.as_ref())
            .map(|c| {
                let rss = std::fs::read_to_string(format!("/proc/{}/status", c.id()))
                    .ok()
                    .and_then(|s| {
                        s.lines()
                            .find_map(|l| l.strip_prefix("VmRSS:"))
                            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
                    })
                    .unwrap_or(0);
                // Fields 14 and 15 of /proc/PID/stat, counted after the command's parenthesis.
                let cpu = std::fs::read_to_string(format!("/proc/{}/stat", c.id()))
                    .ok()
                    .and_then(|s| {
                        let rest = s.rsplit_once(')')?.1;
                        let f: Vec<&str> = rest.split_whitespace().collect();
                        let u: u64 = f.get(11)?.parse().ok()?;
                        let k: u64 = f.get(12)?.parse().ok()?;
                        Some((u + k) * 1000 / hz)
                    })
                    .unwrap_or(0);
                (c.id(), rss, cpu)
            })
            .collect()
    }
}

impl Drop for ZkCluster {
    fn drop(&mut self) {
        for i in 0..self.members.len() {
            self.kill(i);
        }
    }
}

/// The installed ZooKeeper's version, from the jar's name in Debian's package ("3.8.0").
pub fn version() -> String {
    std::fs::read_dir("/usr/share/java")
        .ok()
        .and_then(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .find_map(|n| {
                    n.strip_prefix("zookeeper-")
                        .and_then(|v| v.strip_suffix(".jar"))
                        .filter(|v| v.chars().next().is_some_and(|c| c.is_ascii_digit()))
                        .map(str::to_string)
                })
        })
        .unwrap_or_else(|| "not installed".to_string())
}
