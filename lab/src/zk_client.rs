//! `fencing-lab client --zookeeper …`: one client of a ZooKeeper scenario as its own OS
//! process, written from ZooKeeper's documented lock recipe ("Recipes and Solutions: Locks")
//! and not from the model: it shares the scenario reader and the debit's SQL, and no engine or
//! decision code.
//!
//! The client talks to the ensemble through `zookeeper-client` (its tasks on a one-worker
//! tokio runtime, so its pings go on while the main thread sleeps to a due time; a `SIGSTOP`
//! of the process stalls them with everything else). Its session is opened by its first lock
//! call, with the scenario's session timeout (`lock.ttlMs`), scaled. A lock is the recipe: create
//! `<dir>/lock-` `EPHEMERAL_SEQUENTIAL`, list the children, hold when its node has the lowest
//! sequence, otherwise watch (`exists` with a watch) the next lower node and list again when
//! it goes. The lock's directory is created when missing as a container node, as Curator
//! does, so the server deletes it once it is empty. A release deletes the client's node. The
//! fence of a debit is the node's `czxid` (from the create's `Stat`) or its sequence number,
//! as the scenario's `lock.zookeeper.fence` says; the debit goes to PostgreSQL with the
//! storage's fence rule. The client stops believing it holds the lock when the library reports
//! the session expired (Curator's LOST); while it reports a disconnection (Curator's
//! SUSPENDED) the client writes nothing under `onSuspended: stop_writing` and carries on under
//! `keep_going`. A lock wanted after an expiry opens a new session first. The library's state
//! watcher keeps only the latest state: two changes closer than its task wakes show as one.
//!
//! Each operation is one printed line with real times (µs since the run's start):
//! `zk session T ID TIMEOUT_MS`, `zk node I T0 T1 PATH SEQUENCE CZXID`,
//! `zk state T ID WORD CURATOR_WORD`, `op lock I T0 T1 granted FENCE` (or `gone …`),
//! `op unlock I T0 T1 released|gone|nothing`, `op send|skip|store …` as the other clients'.

use crate::client::{pg_connect, say, transaction, Out};
use crate::clock::{mono_us, sleep_until_us};
use fencing_playground::sim::commands::ops::Debit;
use fencing_playground::sim::scenario::Event;
use fencing_playground::sim::Scenario;
use std::io::BufRead;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use zookeeper_client as zk;

/// Which number of its node a client sends with a debit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fence {
    /// The zxid of the transaction that created the node (`Stat.czxid`).
    Czxid,
    /// The sequence number the server appended to the node's name.
    Sequence,
}

/// What the client does while the library reports it disconnected (Curator's SUSPENDED).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnSuspended {
    /// It carries on as if it held the lock until it hears the session expired.
    KeepGoing,
    /// It writes nothing while disconnected or expired, and carries on once reconnected.
    StopWriting,
}

/// The scenario's ZooKeeper settings (`lock.zookeeper`, the session timeout `lock.ttlMs`),
/// read from the JSON here, so the client depends on no more of the model than its reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZkLock {
    /// The session timeout the client asks for (scenario ms; the server clamps it to 2 to 20
    /// ticks).
    pub session_timeout_ms: u64,
    /// The ensemble's `tickTime` (scenario ms).
    pub tick_time_ms: u64,
    pub fence: Fence,
    pub on_suspended: OnSuspended,
}

/// Reads a scenario with a `lock.zookeeper` object: the object is taken out and read here,
/// the rest goes through the model's reader. Without the object: `None`.
pub fn read_scenario(text: &str) -> Result<(Scenario, Option<ZkLock>), String> {
    let mut v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
    let ttl = v.pointer("/lock/ttlMs").and_then(serde_json::Value::as_u64);
    let raw = v
        .get_mut("lock")
        .and_then(serde_json::Value::as_object_mut)
        .and_then(|l| l.remove("zookeeper"));
    let zk = match raw {
        None => None,
        Some(z) => {
            let word = |field: &str| z.get(field).and_then(serde_json::Value::as_str);
            let fence = match word("fence") {
                None | Some("czxid") => Fence::Czxid,
                Some("sequence") => Fence::Sequence,
                Some(other) => {
                    return Err(format!(
                        "lock.zookeeper.fence: {other:?} is neither \"czxid\" nor \"sequence\""
                    ))
                }
            };
            let on_suspended = match word("onSuspended") {
                None | Some("keep_going") => OnSuspended::KeepGoing,
                Some("stop_writing") => OnSuspended::StopWriting,
                Some(other) => {
                    return Err(format!(
                        "lock.zookeeper.onSuspended: {other:?} is neither \"keep_going\" nor \
                         \"stop_writing\""
                    ))
                }
            };
            Some(ZkLock {
                session_timeout_ms: ttl.ok_or("lock.ttlMs: expected a whole number of ms")?,
                tick_time_ms: z
                    .get("tickTimeMs")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(5),
                fence,
                on_suspended,
            })
        }
    };
    let s = Scenario::from_value(v).map_err(|e| e.to_string())?;
    Ok((s, zk))
}

/// Where the client finds its servers, from the conductor's arguments.
pub struct Setup {
    pub index: usize,
    /// The ensemble's client ports, the one to try first first.
    pub ports: Vec<u16>,
    pub pg_ports: Vec<(usize, u16)>,
    /// Real microseconds per simulated millisecond.
    pub scale: u64,
    /// The lock's directory (`/lock`, or one of the run's own on a shared ensemble).
    pub dir: String,
    /// The run's end (scenario ms): the session lives until then.
    pub until_ms: u64,
    pub scenario: Scenario,
    pub zk: ZkLock,
}

/// The node this process believes holds the lock, and its fence.
#[derive(Clone)]
struct Held {
    path: String,
    fence: i64,
}

/// When a state watcher saw nothing (yet).
const NEVER: u64 = u64::MAX;

/// One session and what its state watcher has seen, with when (µs since the run's start).
struct Session {
    client: zk::Client,
    /// When the library reported the session expired or closed (every request on it fails
    /// from then on), or `NEVER`.
    ended_at: Arc<AtomicU64>,
    /// When the library's latest report, a disconnection (Curator's SUSPENDED), came, or
    /// `NEVER` while it is connected.
    suspended_at: Arc<AtomicU64>,
}

struct Client {
    s: Scenario,
    zk: ZkLock,
    scale: u64,
    start_us: Arc<std::sync::atomic::AtomicU64>,
    rt: tokio::runtime::Runtime,
    connect: String,
    dir: String,
    session: Option<Session>,
    held: Option<Held>,
    /// The current event's due instant (µs since the run's start).
    due_us: u64,
    pg: Vec<(usize, Option<postgres::Client>)>,
    out: Out,
    writes: Vec<std::thread::JoinHandle<()>>,
}

/// The library's session states in words, with Curator's name for each.
fn state_words(s: zk::SessionState) -> (&'static str, &'static str) {
    match s {
        zk::SessionState::Disconnected => ("disconnected", "SUSPENDED"),
        zk::SessionState::SyncConnected => ("connected", "RECONNECTED"),
        zk::SessionState::ConnectedReadOnly => ("read_only", "READ_ONLY"),
        zk::SessionState::Expired => ("expired", "LOST"),
        zk::SessionState::AuthFailed => ("auth_failed", "LOST"),
        zk::SessionState::Closed => ("closed", "LOST"),
    }
}

fn terminal(s: zk::SessionState) -> bool {
    matches!(
        s,
        zk::SessionState::Expired | zk::SessionState::AuthFailed | zk::SessionState::Closed
    )
}

/// An error's word for a printed line: `gone` when the session is (the node went with it).
fn gone_word(e: &zk::Error) -> &'static str {
    match e {
        zk::Error::SessionExpired | zk::Error::ClientClosed | zk::Error::NoNode => "gone",
        zk::Error::ConnectionLoss | zk::Error::Timeout => "lost",
        _ => "error",
    }
}

/// The options of the lock's nodes: open to anyone, as the recipe's examples are.
fn node_options(mode: zk::CreateMode) -> zk::CreateOptions<'static> {
    mode.with_acls(zk::Acls::anyone_all())
}

/// A node's sequence number from its name (`lock-0000000003` → 3).
pub fn sequence_of(name: &str) -> Option<i64> {
    let digits = name.rsplit('-').next()?;
    (digits.len() == 10 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// Runs one client; the conductor writes the start instant on stdin after `ready`.
pub fn run(setup: Setup) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("zk-session")
        .build()
        .map_err(|e| format!("cannot start the client's runtime: {e}"))?;
    let connect = setup
        .ports
        .iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect::<Vec<_>>()
        .join(",");
    let mut pg = Vec::new();
    for (event, port) in &setup.pg_ports {
        pg.push((*event, Some(pg_connect(*port)?)));
    }
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    let mut c = Client {
        scale: setup.scale,
        start_us: Arc::new(std::sync::atomic::AtomicU64::new(mono_us())),
        rt,
        connect,
        dir: setup.dir,
        session: None,
        held: None,
        due_us: 0,
        pg,
        out,
        writes: Vec::new(),
        zk: setup.zk,
        s: setup.scenario,
    };
    // The session is opened by the first lock call, as the model's client opens it: its
    // createSession is a transaction (a zxid) at the instant the model has it.
    say(&c.out, "ready".into());
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let start_us: u64 = line.trim().parse().map_err(|_| "no start instant")?;
    c.start_us.store(start_us, Ordering::SeqCst);
    let events = c.s.clients[setup.index].events.clone();
    let mut agenda: Vec<(u64, usize)> = events
        .iter()
        .enumerate()
        // Pauses and crashes are done to the process by the conductor.
        .filter(|(_, e)| {
            !matches!(
                e,
                Event::Pause { .. } | Event::Crash { .. } | Event::ClockJump { .. }
            )
        })
        .map(|(i, e)| (e.at_ms(), i))
        .collect();
    agenda.sort();
    for (due_ms, i) in agenda {
        sleep_until_us(start_us + due_ms * c.scale);
        c.due_us = due_ms * c.scale;
        if let Err(e) = c.event(i, &events[i]) {
            say(&c.out, format!("error {e}"));
        }
    }
    for w in std::mem::take(&mut c.writes) {
        let _ = w.join();
    }
    sleep_until_us(start_us + setup.until_ms * c.scale);
    c.close();
    Ok(())
}

impl Client {
    /// Ends the session when the run ends (its `closeSession` is a transaction, which must not
    /// fall into the next run on the same ensemble): the library sends it once the last
    /// handle is dropped; the state watcher sees `closed`.
    fn close(&mut self) {
        let Some(session) = self.session.take() else {
            return;
        };
        let ended = session.ended_at.clone();
        drop(session);
        let until = mono_us() + 2_000_000;
        while ended.load(Ordering::SeqCst) == NEVER && mono_us() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn now_us(&self) -> u64 {
        mono_us().saturating_sub(self.start_us.load(Ordering::SeqCst))
    }

    /// Opens a session with the scenario's timeout (scaled) and starts its state watcher,
    /// which prints every state the library reports.
    fn open_session(&mut self) -> Result<(), String> {
        let timeout = Duration::from_micros(self.zk.session_timeout_ms * self.scale);
        let connect = self.connect.clone();
        let t0 = self.now_us();
        let client = self
            .rt
            .block_on(async move {
                zk::Client::connector()
                    .with_session_timeout(timeout)
                    .connect(&connect)
                    .await
            })
            .map_err(|e| format!("cannot open a ZooKeeper session: {e}"))?;
        let id = client.session_id().0;
        say(
            &self.out,
            format!(
                "zk session {t0} {} {id:#x} {}",
                self.now_us(),
                client.session_timeout().as_millis()
            ),
        );
        let ended_at = Arc::new(AtomicU64::new(NEVER));
        let suspended_at = Arc::new(AtomicU64::new(NEVER));
        let mut watcher = client.state_watcher();
        let (out, start, flag) = (self.out.clone(), self.start_us.clone(), ended_at.clone());
        let cut = suspended_at.clone();
        self.rt.spawn(async move {
            loop {
                let st = watcher.changed().await;
                let t = mono_us().saturating_sub(start.load(Ordering::SeqCst));
                let (word, curator) = state_words(st);
                if terminal(st) {
                    flag.store(t, Ordering::SeqCst);
                }
                let since = if st == zk::SessionState::Disconnected {
                    t
                } else {
                    NEVER
                };
                cut.store(since, Ordering::SeqCst);
                say(&out, format!("zk state {t} {id:#x} {word} {curator}"));
                if terminal(st) {
                    break;
                }
            }
        });
        self.session = Some(Session {
            client,
            ended_at,
            suspended_at,
        });
        Ok(())
    }

    /// Whether the library has told this process its session ended.
    fn session_ended(&self) -> bool {
        self.session
            .as_ref()
            .is_none_or(|s| s.ended_at.load(Ordering::SeqCst) != NEVER)
    }

    /// Whether the library had told this process its session ended by the current event's
    /// due instant. An event runs on what the process knew when it fell due: one that fell due
    /// while the process was stopped runs when it wakes, before anything the library tells it
    /// on waking (the model's order; this library, which declares a session expired by itself
    /// 7/5 of the timeout after its last answer, may report that within microseconds of the
    /// wake, a race with the process's own work that the model's client does not have).
    fn knew_ended(&self) -> bool {
        self.session
            .as_ref()
            .is_none_or(|s| s.ended_at.load(Ordering::SeqCst) <= self.due_us)
    }

    /// Whether the library's latest report by the due instant was a disconnection.
    fn knew_suspended(&self) -> bool {
        self.session
            .as_ref()
            .is_some_and(|s| s.suspended_at.load(Ordering::SeqCst) <= self.due_us)
    }

    /// What the client believed it held at the due instant: nothing once its session was
    /// known to be gone.
    fn holding(&mut self) -> Option<Held> {
        if self.held.is_some() && self.knew_ended() {
            self.held = None;
        }
        self.held.clone()
    }

    fn event(&mut self, i: usize, e: &Event) -> Result<(), String> {
        match e {
            Event::Acquire { .. } => self.acquire(i),
            Event::Release { .. } => {
                self.release(i);
                Ok(())
            }
            Event::Debit {
                amount,
                idempotency_key,
                ..
            } => self.debit(i, *amount, idempotency_key.clone()),
            other => Err(format!(
                "the ZooKeeper client does not do {:?} events",
                std::mem::discriminant(other)
            )),
        }
    }

    fn acquire(&mut self, i: usize) -> Result<(), String> {
        let t0 = self.now_us();
        if self.holding().is_some() {
            say(&self.out, format!("op lock {i} {t0} {t0} already"));
            return Ok(());
        }
        if self.session_ended() {
            self.open_session()?;
        }
        let Some(session) = self.session.as_ref() else {
            return Err("no session".into());
        };
        let client = session.client.clone();
        let dir = self.dir.clone();
        let prefix = format!("{dir}/lock-");
        let created = self.rt.block_on(create_node(&client, &dir, &prefix));
        let (path, stat, seq) = match created {
            Ok(x) => x,
            Err(e) => {
                say(
                    &self.out,
                    format!("op lock {i} {t0} {} {} {e}", self.now_us(), gone_word(&e)),
                );
                return Ok(());
            }
        };
        say(
            &self.out,
            format!(
                "zk node {i} {t0} {} {path} {seq} {}",
                self.now_us(),
                stat.czxid
            ),
        );
        let (out, start) = (self.out.clone(), self.start_us.clone());
        let waited = self
            .rt
            .block_on(wait_until_lowest(&client, &dir, &path, i, out, start));
        let t1 = self.now_us();
        match waited {
            Ok(()) => {
                let fence = match self.zk.fence {
                    Fence::Czxid => stat.czxid,
                    Fence::Sequence => seq,
                };
                self.held = Some(Held { path, fence });
                say(&self.out, format!("op lock {i} {t0} {t1} granted {fence}"));
            }
            Err(e) => say(
                &self.out,
                format!("op lock {i} {t0} {t1} {} {e}", gone_word(&e)),
            ),
        }
        Ok(())
    }

    fn release(&mut self, i: usize) {
        let t0 = self.now_us();
        // A client told its session expired knows its node went with it.
        let Some(held) = self.holding() else {
            say(&self.out, format!("op unlock {i} {t0} {t0} nothing"));
            return;
        };
        let Some(client) = self.session.as_ref().map(|s| s.client.clone()) else {
            say(&self.out, format!("op unlock {i} {t0} {t0} gone"));
            return;
        };
        self.held = None;
        let r = self.rt.block_on(client.delete(&held.path, None));
        let word = match &r {
            Ok(()) => "released".to_string(),
            Err(e) => format!("{} {e}", gone_word(e)),
        };
        say(
            &self.out,
            format!("op unlock {i} {t0} {} {word}", self.now_us()),
        );
    }

    fn debit(&mut self, i: usize, amount: i64, key: Option<String>) -> Result<(), String> {
        let t0 = self.now_us();
        let Some(held) = self.holding() else {
            say(&self.out, format!("op skip {i} {t0} {t0} -"));
            return Ok(());
        };
        let suspended = self.knew_suspended();
        if suspended && self.zk.on_suspended == OnSuspended::StopWriting {
            say(&self.out, format!("op skip {i} {t0} {t0} suspended"));
            return Ok(());
        }
        say(&self.out, format!("op send {i} {t0} {t0} {}", held.fence));
        let debit = Debit {
            amount,
            token: u64::try_from(held.fence)
                .ok()
                .filter(|_| self.s.lock.fencing),
            key: key.filter(|_| self.s.storage.idempotency),
            rule: self.s.storage.fence_rule,
        };
        let Some(mut pg) = self
            .pg
            .iter_mut()
            .find(|(e, _)| *e == i)
            .and_then(|x| x.1.take())
        else {
            return Err(format!("no session kept for write {i}"));
        };
        let (out, start) = (self.out.clone(), self.start_us.load(Ordering::SeqCst));
        self.writes.push(std::thread::spawn(move || {
            let line = match transaction(&mut pg, &debit, start) {
                Ok((t_in, t_end, word)) => format!("op store {i} {t_in} {t_end} {word}"),
                Err(e) => format!("error {e}"),
            };
            say(&out, line);
        }));
        Ok(())
    }
}

/// The recipe's first step: `create(<dir>/lock-, EPHEMERAL_SEQUENTIAL)`; when the directory is
/// missing, it is made (its ancestors persistent, itself a container) and the create retried.
async fn create_node(
    c: &zk::Client,
    dir: &str,
    prefix: &str,
) -> Result<(String, zk::Stat, i64), zk::Error> {
    let options = node_options(zk::CreateMode::EphemeralSequential);
    let first = c.create(prefix, b"", &options).await;
    let (stat, seq) = match first {
        Err(zk::Error::NoNode) => {
            make_dir(c, dir).await?;
            c.create(prefix, b"", &options).await?
        }
        other => other?,
    };
    let seq = seq.into_i64();
    Ok((format!("{prefix}{seq:010}"), stat, seq))
}

/// Creates `dir`'s ancestors (persistent) and `dir` itself (a container), each unless present.
async fn make_dir(c: &zk::Client, dir: &str) -> Result<(), zk::Error> {
    let parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    let mut path = String::new();
    for (k, part) in parts.iter().enumerate() {
        path.push('/');
        path.push_str(part);
        let mode = if k + 1 == parts.len() {
            zk::CreateMode::Container
        } else {
            zk::CreateMode::Persistent
        };
        match c.create(&path, b"", &node_options(mode)).await {
            Ok(_) | Err(zk::Error::NodeExists) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The recipe's wait: list the children; the lowest sequence holds; otherwise watch the next
/// lower node and list again once it is deleted (or already gone).
async fn wait_until_lowest(
    c: &zk::Client,
    dir: &str,
    mine: &str,
    i: usize,
    out: Out,
    start: Arc<std::sync::atomic::AtomicU64>,
) -> Result<(), zk::Error> {
    let my_seq = sequence_of(mine).ok_or(zk::Error::NoNode)?;
    loop {
        let mut children: Vec<(i64, String)> = c
            .list_children(dir)
            .await?
            .into_iter()
            .filter(|n| n.starts_with("lock-"))
            .filter_map(|n| sequence_of(&n).map(|s| (s, n)))
            .collect();
        children.sort();
        if !children.iter().any(|(s, _)| *s == my_seq) {
            // The client's own node is gone: its session ended under it.
            return Err(zk::Error::NoNode);
        }
        let Some((_, below)) = children.iter().rev().find(|(s, _)| *s < my_seq) else {
            return Ok(());
        };
        let below = format!("{dir}/{below}");
        let (stat, watcher) = c.check_and_watch_stat(&below).await?;
        if stat.is_none() {
            continue;
        }
        let t = mono_us().saturating_sub(start.load(Ordering::SeqCst));
        say(&out, format!("zk wait {i} {t} {below}"));
        let ev = watcher.changed().await;
        if ev.event_type == zk::EventType::Session && terminal(ev.session_state) {
            return Err(zk::Error::SessionExpired);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_is_the_ten_digit_suffix() {
        assert_eq!(sequence_of("lock-0000000003"), Some(3));
        assert_eq!(sequence_of("/a/lock/lock-0000000012"), Some(12));
        assert_eq!(sequence_of("lock-12"), None);
        assert_eq!(sequence_of("lock-"), None);
    }
}
