//! The lab's etcd cluster: three members of Debian's `etcd` on free loopback ports, their data
//! in a temporary directory in memory, with the heartbeat and election timeout a run asks for.
//! It finds the leader through each member's `/v3/maintenance/status`, kills a member
//! (`SIGKILL`: a crash) and restarts it on its own data, and stops every member when dropped.
//! Each member is started with `PR_SET_PDEATHSIG`, so none outlives a lab that is killed.

use crate::gateway::{id, Gateway};
use crate::servers::{free_port, niced, TempDir};
use serde_json::json;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ETCD: &str = "/usr/bin/etcd";

fn fail(what: impl Into<String>) -> std::io::Error {
    std::io::Error::other(what.into())
}

struct Member {
    name: String,
    client_port: u16,
    peer_port: u16,
    child: Option<Child>,
}

pub struct EtcdCluster {
    dir: TempDir,
    members: Vec<Member>,
    initial: String,
    token: String,
    pub heartbeat_ms: u64,
    pub election_ms: u64,
    status: Gateway,
}

impl EtcdCluster {
    /// Starts `n` members and waits until they have a leader. A member that could not bind
    /// its port (another process took it between the search and the bind) costs one more
    /// start on fresh ports, up to three in all; any other failure is reported at once.
    pub fn start(n: usize, heartbeat_ms: u64, election_ms: u64) -> std::io::Result<EtcdCluster> {
        let mut tries = 0;
        loop {
            tries += 1;
            match Self::start_once(n, heartbeat_ms, election_ms) {
                Err(e) if tries < 3 && e.to_string().contains("address already in use") => {}
                done => return done,
            }
        }
    }

    fn start_once(n: usize, heartbeat_ms: u64, election_ms: u64) -> std::io::Result<EtcdCluster> {
        if !std::path::Path::new(ETCD).exists() {
            return Err(fail(format!(
                "{ETCD} is missing (scripts/setup.sh installs Debian's etcd-server)"
            )));
        }
        let dir = TempDir::in_memory()?;
        let mut members = Vec::new();
        for i in 1..=n {
            members.push(Member {
                name: format!("n{i}"),
                client_port: free_port()?,
                peer_port: free_port()?,
                child: None,
            });
        }
        let initial = members
            .iter()
            .map(|m| format!("{}=http://127.0.0.1:{}", m.name, m.peer_port))
            .collect::<Vec<_>>()
            .join(",");
        let ports = members.iter().map(|m| m.client_port).collect();
        let mut c = EtcdCluster {
            token: format!("fencing-lab-{}", std::process::id()),
            dir,
            members,
            initial,
            heartbeat_ms,
            election_ms,
            status: Gateway::new(ports, Duration::from_millis(800)),
        };
        for i in 0..n {
            c.spawn(i)?;
        }
        c.wait_for_leader(Duration::from_secs(30))?;
        Ok(c)
    }

    fn spawn(&mut self, i: usize) -> std::io::Result<()> {
        let m = &self.members[i];
        let data = self.dir.0.join(&m.name);
        let log = std::fs::File::create(self.dir.0.join(format!("{}.log", m.name)))?;
        let client = format!("http://127.0.0.1:{}", m.client_port);
        let peer = format!("http://127.0.0.1:{}", m.peer_port);
        let mut cmd: Command = niced(ETCD);
        cmd.arg("--name")
            .arg(&m.name)
            .arg("--data-dir")
            .arg(&data)
            .args(["--listen-client-urls", &client])
            .args(["--advertise-client-urls", &client])
            .args(["--listen-peer-urls", &peer])
            .args(["--initial-advertise-peer-urls", &peer])
            .args(["--initial-cluster", &self.initial])
            .args(["--initial-cluster-token", &self.token])
            .args(["--initial-cluster-state", "new"])
            .args(["--heartbeat-interval", &self.heartbeat_ms.to_string()])
            .args(["--election-timeout", &self.election_ms.to_string()])
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
        let child = cmd.spawn()?;
        self.members[i].child = Some(child);
        Ok(())
    }

    /// Every member's client port, in member order.
    pub fn ports(&self) -> Vec<u16> {
        self.members.iter().map(|m| m.client_port).collect()
    }

    pub fn name(&self, i: usize) -> &str {
        self.members.get(i).map_or("?", |m| m.name.as_str())
    }

    /// Which member leads now, as the members that answer say; `None` without a leader.
    pub fn leader(&self) -> Option<usize> {
        let mut ids = Vec::new();
        let mut leader = None;
        for (i, m) in self.members.iter().enumerate() {
            if m.child.is_none() {
                ids.push(None);
                continue;
            }
            let Ok(v) = self
                .status
                .call_on(m.client_port, "maintenance/status", &json!({}))
            else {
                ids.push(None);
                continue;
            };
            let me = v.get("header").and_then(|h| id(h, "member_id"));
            ids.push(me);
            if let Some(l) = id(&v, "leader") {
                if l != 0 && leader.is_none() {
                    leader = Some((i, l));
                }
            }
        }
        let (_, l) = leader?;
        ids.iter().position(|id| *id == Some(l))
    }

    /// Waits until the cluster has a leader and every running member answers.
    pub fn wait_for_leader(&mut self, within: Duration) -> std::io::Result<usize> {
        let until = Instant::now() + within;
        loop {
            let exited = self.members.iter_mut().find_map(|m| {
                let status = m.child.as_mut()?.try_wait().ok()??;
                Some(format!("{} exited ({status})", m.name))
            });
            if let Some(exited) = exited {
                return Err(fail(format!(
                    "an etcd member stopped before the cluster had a leader: {exited}; the members' last words: {}",
                    self.last_words()
                )));
            }
            if let Some(l) = self.leader() {
                let all = self.members.iter().all(|m| {
                    m.child.is_none()
                        || self
                            .status
                            .call_on(m.client_port, "maintenance/status", &json!({}))
                            .is_ok()
                });
                if all {
                    return Ok(l);
                }
            }
            if Instant::now() > until {
                return Err(fail(format!(
                    "the etcd cluster had no leader within {} s; the members' last words: {}",
                    within.as_secs(),
                    self.last_words()
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The last line of each member's log.
    fn last_words(&self) -> String {
        self.members
            .iter()
            .map(|m| {
                let log = std::fs::read_to_string(self.dir.0.join(format!("{}.log", m.name)))
                    .unwrap_or_default();
                let last = log.lines().last().unwrap_or("(nothing)").to_string();
                format!("{}: {last}", m.name)
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
}

impl Drop for EtcdCluster {
    fn drop(&mut self) {
        for i in 0..self.members.len() {
            self.kill(i);
        }
    }
}

/// The installed etcd's version, e.g. "3.4.23".
pub fn version() -> String {
    Command::new(ETCD)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find_map(|l| l.strip_prefix("etcd Version: ").map(str::to_string))
        })
        .unwrap_or_else(|| "not installed".to_string())
}
