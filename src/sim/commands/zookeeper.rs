//! The commands of a ZooKeeper run as a reader could type them: the lock recipe's calls in
//! `zkCli.sh` words (`create -e -s /lock/lock- ""`, `ls /lock`, `stat` for the node's `cZxid`,
//! `get -w` on the node it waits behind, `delete`), the server's own transactions (a session
//! expired, the empty parent reaped) and each debit's SQL as the storage runs it, in time
//! order. The lab does not replay ZooKeeper scenarios: every entry is a `Note` to it, so
//! nothing here claims a real ensemble answered so.

use super::command::{Act, Command, Who};
use super::ops::{self, Debit, DebitEnd, Line};
use super::scripts::SCHEMA_SQL;
use crate::sim::scenario::Scenario;
use crate::sim::sort;
use crate::sim::trace::*;

const PARENT: &str = "/lock";

fn entry(at_ms: u64, who: Who, step: Option<usize>, lines: Vec<Line>) -> Command {
    Command {
        at_ms,
        who,
        step,
        act: Act::Note,
        lines,
    }
}

fn path(n: &ZkNode) -> String {
    format!("{PARENT}/{}", n.name())
}

/// Whether node `n` is under the parent at `t`: created by then and not yet deleted.
fn alive(n: &ZkNode, t: u64) -> bool {
    n.created_ms <= t && (n.end == ZkNodeEnd::Open || n.end_ms > t)
}

/// The children of `/lock` at `t`, as `ls` prints them.
fn ls_reply(z: &ZkTrace, t: u64) -> String {
    let mut names: Vec<String> = z
        .nodes
        .iter()
        .filter(|n| alive(n, t))
        .map(ZkNode::name)
        .collect();
    names.sort();
    format!("[{}]", names.join(", "))
}

/// `stat`'s answer for a node: its creation zxid and its owner, the two lines that matter here.
fn stat_reply(z: &ZkTrace, n: &ZkNode) -> String {
    let owner = z.sessions.get(n.session).map_or("?", |s| s.id.as_str());
    format!("cZxid = {}  …  ephemeralOwner = {owner}", zxid_hex(n.czxid))
}

/// The client's newest node created by `t`.
fn node_of(z: &ZkTrace, client: usize, t: u64) -> Option<&ZkNode> {
    z.nodes
        .iter()
        .rfind(|n| n.client == client && n.created_ms <= t)
}

/// The live node just below `n`, the one the lock recipe watches.
fn below<'a>(z: &'a ZkTrace, n: &ZkNode, t: u64) -> Option<&'a ZkNode> {
    z.nodes
        .iter()
        .filter(|m| alive(m, t) && m.sequence < n.sequence)
        .max_by_key(|m| m.sequence)
}

/// The lines a lock call sends at `t` before its node exists: the session's connect when it
/// is the client's first, and the parent's creation when the parent was gone.
fn before_create(z: &ZkTrace, client: usize, t: u64) -> Vec<Line> {
    let mut lines = Vec::new();
    if let Some(x) = z
        .sessions
        .iter()
        .find(|x| x.client == client && x.start_ms == t)
    {
        lines.push(Line::new(
            format!(
                "zkCli.sh -timeout {} -server zk1:2181",
                z.requested_timeout_ms
            ),
            format!(
                "session {} (negotiated timeout {} ms)",
                x.id, z.session_timeout_ms
            ),
        ));
    }
    let created = z
        .parent
        .iter()
        .any(|p| p.at_ms == t && p.what == ParentChange::Created);
    let by_me = z
        .zxids
        .iter()
        .any(|m| m.at_ms == t && m.cause == ZxidCause::CreateParent && m.client == Some(client));
    if created && by_me {
        // The recipe's create fails first on the missing parent (a zxid of its own).
        lines.push(Line::new(
            format!("create -e -s {PARENT}/lock- \"\""),
            format!("Node does not exist: {PARENT}/lock-"),
        ));
        lines.push(Line::new(
            format!("create -c {PARENT} \"\""),
            format!("Created {PARENT}"),
        ));
    }
    lines
}

/// `create` for node `n` and the `ls` that finds where it stands.
fn create_lines(z: &ZkTrace, n: &ZkNode, t: u64) -> Vec<Line> {
    vec![
        Line::new(
            format!("create -e -s {PARENT}/lock- \"\""),
            format!("Created {}", path(n)),
        ),
        Line::new(format!("ls {PARENT}"), ls_reply(z, t)),
    ]
}

/// The words of the fence a holder sends, for the note after its grant.
fn fence_note(z: &ZkTrace, n: &ZkNode, fence: Option<u64>) -> Line {
    Line::note(match fence {
        None => "lowest node: the lock is held; no fence is sent".to_string(),
        Some(f) if z.fence == "sequence" => {
            format!("lowest node: the lock is held; fence: the sequence {f}")
        }
        Some(f) => format!(
            "lowest node: the lock is held; fence: the cZxid {} ({f})",
            zxid_hex(n.czxid)
        ),
    })
}

/// The ensemble's own transactions and the partitions, each at its instant.
fn server_entries(z: &ZkTrace, t: &Trace) -> Vec<Command> {
    let mut out = Vec::new();
    let zk = Who::Instance(0);
    for p in &z.partitions {
        let who = t.client_name(p.client);
        out.push(entry(
            p.start_ms,
            zk,
            None,
            vec![Line::note(format!(
                "{who} is cut off from the ensemble until {} ms (the storage stays reachable)",
                p.end_ms
            ))],
        ));
        if p.end_ms <= t.end_ms {
            out.push(entry(
                p.end_ms,
                zk,
                None,
                vec![Line::note(format!("{who} reaches the ensemble again"))],
            ));
        }
    }
    for m in z.zxids.iter().filter(|m| m.at_ms <= t.end_ms) {
        let line = match m.cause {
            ZxidCause::CloseSession => {
                let who = m.client.map_or("?", |c| t.client_name(c));
                let session = z
                    .sessions
                    .iter()
                    .find(|x| Some(x.client) == m.client && x.end_ms == m.at_ms);
                let id = session.map_or("?", |x| x.id.as_str());
                let gone: Vec<String> = z
                    .nodes
                    .iter()
                    .filter(|n| {
                        Some(n.client) == m.client
                            && n.end == ZkNodeEnd::SessionExpired
                            && n.end_ms == m.at_ms
                    })
                    .map(ZkNode::name)
                    .collect();
                let nodes = if gone.is_empty() {
                    String::new()
                } else {
                    format!(" and deletes its node {}", gone.join(", "))
                };
                Line::note(format!(
                    "the leader expires session {id} ({who}'s){nodes}: zxid {}",
                    zxid_hex(m.zxid)
                ))
            }
            ZxidCause::DeleteParent => Line::new(
                format!("delete {PARENT}"),
                format!(
                    "(no output: the empty container is reaped, zxid {})",
                    zxid_hex(m.zxid)
                ),
            ),
            _ => continue,
        };
        out.push(entry(m.at_ms, zk, None, vec![line]));
    }
    for p in z
        .parent
        .iter()
        .filter(|p| p.what == ParentChange::Kept && p.at_ms <= t.end_ms)
    {
        out.push(entry(
            p.at_ms,
            zk,
            None,
            vec![Line::new(
                format!("delete {PARENT}"),
                format!("Node not empty: {PARENT}"),
            )],
        ));
    }
    out
}

/// The storage's transaction for a debit, as the other services' runs write it.
fn store_lines(s: &Scenario, t: &Trace, write: usize, verdict: &DebitVerdict) -> Vec<Line> {
    let Some(w) = t.writes.get(write) else {
        return Vec::new();
    };
    let debit = Debit {
        amount: w.amount,
        token: w.token,
        key: w.idempotency_key.clone().filter(|_| s.storage.idempotency),
        rule: s.storage.fence_rule,
    };
    let end = match verdict {
        DebitVerdict::Duplicate { .. } => DebitEnd::Duplicate,
        DebitVerdict::Rejected { .. } => DebitEnd::Rejected,
        DebitVerdict::Accepted { balance } => DebitEnd::Accepted {
            balance: *balance,
            new_value: false,
        },
    };
    let mut lines = vec![Line::note(format!(
        "{}'s debit of {} reaches the storage",
        t.client_name(w.client),
        w.amount
    ))];
    lines.extend(debit.lines(end));
    lines
}

/// One client step's lines.
fn step_lines(s: &Scenario, t: &Trace, z: &ZkTrace, step: &Step) -> Vec<Line> {
    let (c, at) = (step.client, step.at_ms);
    match &step.outcome {
        Outcome::Granted { fence, .. } => {
            let Some(n) = node_of(z, c, at) else {
                return vec![Line::note(step.text.clone())];
            };
            let waited = z
                .waits
                .iter()
                .any(|w| w.client == c && w.end_ms == at && w.end == ZkWaitEnd::Granted);
            let mut lines = if waited {
                vec![
                    Line::note("the watch fires (NodeDeleted): the lower node is gone"),
                    Line::new(format!("ls {PARENT}"), ls_reply(z, at)),
                ]
            } else {
                let mut l = before_create(z, c, at);
                l.extend(create_lines(z, n, at));
                l
            };
            lines.push(Line::new(format!("stat {}", path(n)), stat_reply(z, n)));
            lines.push(fence_note(z, n, *fence));
            lines
        }
        Outcome::NodeWaits { .. } => {
            let Some(n) = node_of(z, c, at) else {
                return vec![Line::note(step.text.clone())];
            };
            let mut lines = before_create(z, c, at);
            lines.extend(create_lines(z, n, at));
            if let Some(m) = below(z, n, at) {
                lines.push(Line::new(
                    format!("get -w {}", path(m)),
                    format!(
                        "\"\"  (a watch is set: {} is lower, {}'s)",
                        m.name(),
                        t.client_name(m.client)
                    ),
                ));
            }
            lines
        }
        Outcome::Released { own: true, .. } => match node_of(z, c, at) {
            Some(n) => vec![Line::new(
                format!("delete {}", path(n)),
                "(no output: deleted)",
            )],
            None => vec![Line::note(step.text.clone())],
        },
        Outcome::Released { own: false, .. } => match node_of(z, c, at) {
            Some(n) => vec![Line::new(
                format!("delete {}", path(n)),
                format!("Node does not exist: {}", path(n)),
            )],
            None => vec![Line::note(step.text.clone())],
        },
        Outcome::ConnectionLoss => vec![Line::new(
            "(the request in flight)",
            "KeeperErrorCode = ConnectionLoss",
        )],
        Outcome::ZkNotice {
            notice: ZkNotice::Lost,
        } => vec![
            Line::new(
                "(the client reconnects)",
                "KeeperErrorCode = Session expired",
            ),
            Line::note(format!("Curator: {}", step.text)),
        ],
        Outcome::ZkNotice { .. } => vec![Line::note(format!("Curator: {}", step.text))],
        Outcome::Stored { write, verdict } => store_lines(s, t, *write, verdict),
        _ => vec![Line::note(step.text.clone())],
    }
}

/// Every command of the run of `s` that produced `t`, in time order: the setup, the ensemble's
/// own transactions and the clients' calls, then reading the account back.
pub fn plan(s: &Scenario, t: &Trace) -> Vec<Command> {
    let Some(z) = &t.zookeeper else {
        return Vec::new();
    };
    let mut setup = vec![Line::note(format!(
        "ZooKeeper 3.8, three servers, tickTime={} ms; sessions ask for {} ms and get {} ms; \
         each client pings every third of it (the pings are on the lane)",
        z.tick_time_ms, z.requested_timeout_ms, z.session_timeout_ms
    ))];
    setup.extend(
        SCHEMA_SQL
            .iter()
            .map(|q| Line::new(q.to_string(), "CREATE TABLE")),
    );
    setup.push(Line::new(
        ops::seed_account_sql(s.storage.balance),
        "INSERT 0 1",
    ));
    let mut out = vec![entry(0, Who::Setup, None, setup)];
    let mut timed: Vec<(u8, Command)> = server_entries(z, t).into_iter().map(|c| (0, c)).collect();
    for (i, step) in t.steps.iter().enumerate() {
        let lines = step_lines(s, t, z, step);
        timed.push((
            1,
            entry(step.at_ms, Who::Client(step.client), Some(i), lines),
        ));
    }
    // The ensemble's own transactions come first at an instant (an expiry before the grant it
    // lets through), then the clients' steps in the run's order.
    sort::sort_by_key(&mut timed, |(class, c)| (c.at_ms, *class));
    out.extend(timed.into_iter().map(|(_, c)| c));
    let sql = ops::final_state_sql();
    out.push(entry(
        t.end_ms,
        Who::Setup,
        None,
        vec![Line::new(
            sql,
            ops::final_state_reply(t.final_balance, t.last_fence),
        )],
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::{preset, presets};
    use crate::sim::run;

    fn lines(id: &str) -> Vec<String> {
        let s = preset(id).expect("a preset");
        let t = run(&s);
        plan(&s, &t)
            .iter()
            .flat_map(|c| {
                let who = match c.who {
                    Who::Client(i) => t.client_name(i).to_string(),
                    Who::Instance(_) => "zk".to_string(),
                    Who::Setup => "setup".to_string(),
                };
                c.lines
                    .iter()
                    .map(move |l| format!("{} {who}: {} → {}", c.at_ms, l.text, l.reply))
            })
            .collect()
    }

    #[track_caller]
    fn check(id: &str, expected: &[&str]) {
        let got = lines(id);
        for e in expected {
            assert!(
                got.iter().any(|l| l.contains(e)),
                "{id}: no line contains {e:?}; lines:\n{}",
                got.join("\n")
            );
        }
    }

    #[test]
    fn each_step_reads_as_a_zkcli_line() {
        check(
            "zk-pause-czxid",
            &[
                "0 A: create -e -s /lock/lock- \"\" → Created /lock/lock-0000000000",
                "0 A: ls /lock → [lock-0000000000]",
                "0 A: stat /lock/lock-0000000000 → cZxid = 0x100000022",
                "20 B: create -e -s /lock/lock- \"\" → Created /lock/lock-0000000001",
                "20 B: ls /lock → [lock-0000000000, lock-0000000001]",
                "20 B: get -w /lock/lock-0000000000 →",
                "45 zk: -- the leader expires session 0x10000a5ec0de0000 (A's) and deletes its node lock-0000000000",
                "45 B: ls /lock → [lock-0000000001]",
                "45 B: stat /lock/lock-0000000001 → cZxid = 0x100000024",
                "60 B: delete /lock/lock-0000000001 → (no output: deleted)",
                "62 A: UPDATE accounts SET balance = balance - 10, last_fence = 34 WHERE id = 1 AND last_fence < 34 RETURNING balance → UPDATE 0",
                "70 A: delete /lock/lock-0000000000 → Node does not exist: /lock/lock-0000000000",
                "setup: SELECT balance, last_fence FROM accounts WHERE id = 1 → balance 90, last_fence 36",
            ],
        );
        check(
            "zk-parent-sequence",
            &[
                "12 A: create -e -s /lock/lock- \"\" → Created /lock/lock-000000000",
                "50 zk: delete /lock → (no output: the empty container is reaped",
                "55 B: create -e -s /lock/lock- \"\" → Node does not exist: /lock/lock-",
                "55 B: create -c /lock \"\" → Created /lock",
                "55 B: create -e -s /lock/lock- \"\" → Created /lock/lock-0000000000",
                "55 B: -- lowest node: the lock is held; fence: the sequence 0",
                "74 A: UPDATE accounts SET balance = balance - 10, last_fence = ",
                "RETURNING balance → UPDATE 1 (balance 80)",
            ],
        );
        check(
            "zk-suspended-ignored",
            &[
                "12 zk: -- A is cut off from the ensemble until 62 ms",
                "32 A: -- Curator: SUSPENDED: no answer from the ensemble",
                "62 A: (the client reconnects) → KeeperErrorCode = Session expired",
                "no fence is sent",
            ],
        );
    }

    #[test]
    fn every_zookeeper_preset_is_in_time_order_and_ends_with_the_balance() {
        for p in presets()
            .into_iter()
            .filter(|p| p.scenario.lock.zookeeper().is_some())
        {
            let t = run(&p.scenario);
            let list = plan(&p.scenario, &t);
            assert!(
                list.windows(2).all(|w| w[0].at_ms <= w[1].at_ms),
                "{}: out of order",
                p.id
            );
            assert!(
                t.steps
                    .iter()
                    .enumerate()
                    .all(|(i, _)| list.iter().any(|c| c.step == Some(i))),
                "{}: a step without its entry",
                p.id
            );
            let last = list.last().expect("the final read");
            assert_eq!(
                last.lines[0].reply,
                ops::final_state_reply(t.final_balance, t.last_fence)
            );
        }
    }
}
