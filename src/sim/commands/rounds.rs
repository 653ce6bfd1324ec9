//! Redlock's requests, one command per instance: each `SET NX PX` (or fenced `EVALSHA`),
//! extension and release, at the instant it reaches its instance, with the reply the trace
//! implies (a key span that starts or is renewed there, or ends there), or no reply when the
//! instance was down or cut off. The instance's own crashes and restarts are entries too.

use super::command::{Act, Command, Who};
use super::lookup::Run;
use super::ops::{Line, RedisCmd, RedisReply};
use super::scripts::Script;
use crate::sim::scenario::InstanceEvent;
use crate::sim::trace::{MessageSpan, Purpose, SpanEnd, Target};

pub fn plan(run: &Run) -> Vec<Command> {
    // A single Redis answers at once: its commands are the steps themselves.
    if run.s.lock.redlock().is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for m in &run.t.messages {
        if let (Target::Lock, Some(instance)) = (m.target, m.instance) {
            if let Some(c) = request(run, m, instance) {
                out.push(c);
            }
        }
    }
    out
}

/// The round (index into `acquisitions`) a request belongs to: the acquisition round of its
/// generation, or the extension of the lock of its generation under way when it was sent.
fn round_of(run: &Run, m: &MessageSpan, purpose: Purpose) -> Option<usize> {
    run.t.acquisitions.iter().rposition(|a| {
        a.client == m.client
            && a.purpose == purpose
            && a.generation == m.generation
            && a.start_ms <= m.sent_ms
            && m.sent_ms <= a.end_ms
    })
}

fn request(run: &Run, m: &MessageSpan, i: usize) -> Option<Command> {
    let c = m.client;
    let key = run.s.key.clone();
    let ttl_ms = run.s.lock.ttl_ms;
    let fenced = run.s.lock.redlock().is_some_and(|r| r.fence);
    let delivered = !m.lost && run.reachable(i, c, m.arrived_ms);
    // Where the request met the failure: at once if it was lost on the way out, on arrival if
    // the instance was cut off or down by then. A request that got through is listed when it
    // ran on its instance, one that reached a dead instance when it got there; one cut off,
    // when it left (it never reaches the instance, and its reply never comes).
    let failed_at = if m.lost { m.sent_ms } else { m.arrived_ms };
    let lat = m.arrived_ms.saturating_sub(m.sent_ms);
    let missing = if run.down(i, failed_at) {
        RedisReply::Down
    } else {
        RedisReply::Cut
    };
    let at_ms = match (delivered, &missing) {
        (true, _) => m.arrived_ms,
        (false, RedisReply::Down) => failed_at,
        (false, _) => m.sent_ms,
    };
    let granted_span = run.t.leases.iter().find(|l| {
        l.instance == i
            && l.holder == c
            && l.generation == m.generation
            && l.start_ms == m.arrived_ms
    });
    // A token-checked release ends only a key of its own value; a bare DEL any key.
    let ended_here = run.t.leases.iter().any(|l| {
        l.instance == i
            && l.end_ms == m.arrived_ms
            && matches!(l.end, SpanEnd::Released | SpanEnd::Deleted)
            && (m.label == "DEL" || (l.holder == c && l.generation == m.generation))
    });
    let (cmd, reply, round) = match m.label.as_str() {
        "SET NX PX" => {
            let round = round_of(run, m, Purpose::Acquire);
            let value = run.value(c, m.generation);
            let reply = match (delivered, granted_span, fenced) {
                (false, _, _) => missing,
                (true, Some(l), true) => RedisReply::Int(l.fence.unwrap_or(0) as i64),
                (true, Some(_), false) => RedisReply::Ok,
                (true, None, _) => RedisReply::Nil,
            };
            let cmd = if fenced {
                RedisCmd::AcquireFenced {
                    key,
                    fence_key: format!("fence:{}", run.s.key),
                    value,
                    ttl_ms,
                }
            } else {
                RedisCmd::SetNx { key, value, ttl_ms }
            };
            (cmd, reply, round)
        }
        "extend" => {
            let round = round_of(run, m, Purpose::Extend);
            let renewed =
                run.t.leases.iter().any(|l| {
                    l.instance == i && l.holder == c && l.renewals_ms.contains(&m.arrived_ms)
                });
            let reply = if delivered {
                RedisReply::Int(i64::from(renewed))
            } else {
                missing
            };
            let value = run.value(c, m.generation);
            (RedisCmd::Extend { key, value, ttl_ms }, reply, round)
        }
        "release" | "DEL" => {
            // A voluntary release carries the value of the lock the client holds; the undo
            // after a failed round, that round's (the engine records which).
            let value = run.value(c, m.generation);
            let reply = if delivered {
                RedisReply::Int(i64::from(ended_here))
            } else {
                missing
            };
            let cmd = if m.label == "DEL" {
                RedisCmd::Del { key }
            } else {
                RedisCmd::ReleaseChecked { key, value }
            };
            (cmd, reply, None)
        }
        _ => return None,
    };
    Some(Command::redis(
        at_ms,
        Who::Client(c),
        None,
        (i, cmd, reply),
        (round, m.arrived_ms.saturating_add(lat)),
    ))
}

/// An instance's outages, in order: crashes whose down times overlap or touch merged into
/// one, `(killed at, back at, keys kept)`; the keys are kept only if every crash of the
/// outage keeps them.
fn outages(events: &[InstanceEvent]) -> Vec<(u64, u64, bool)> {
    let mut crashes: Vec<(u64, u64, bool)> = events
        .iter()
        .filter_map(|e| match e {
            InstanceEvent::Crash {
                at_ms,
                down_ms,
                persistent,
            } => Some((*at_ms, at_ms.saturating_add(*down_ms), *persistent)),
            _ => None,
        })
        .collect();
    crashes.sort();
    let mut out: Vec<(u64, u64, bool)> = Vec::new();
    for (at, back, kept) in crashes {
        match out.last_mut() {
            Some(last) if at <= last.1 => {
                last.1 = last.1.max(back);
                last.2 &= kept;
            }
            _ => out.push((at, back, kept)),
        }
    }
    out
}

/// Each instance's crashes and restarts, and a comment for its partitions and clock jumps.
pub fn instance_events(run: &Run) -> Vec<Command> {
    let Some(r) = run.s.lock.redlock() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, inst) in r.instances.iter().enumerate() {
        let name = &inst.name;
        // Crashes whose down times overlap are one outage: killed at the first, back at the
        // end of the last, with its keys only if no crash of the outage loses them.
        for (at_ms, back, persistent) in outages(&inst.events) {
            let how = if persistent {
                "its keys are on disk (append-only file, fsync always)"
            } else {
                "it keeps nothing on disk"
            };
            out.push(Command::act(
                at_ms,
                Who::Instance(i),
                None,
                Act::Down {
                    instance: i,
                    persistent,
                },
                &format!("{name} is killed; {how}"),
            ));
            let text = if persistent {
                format!("{name} restarts and reloads its keys from the append-only file")
            } else if r.fence {
                // The setup's SET that seeded the counter is not run again.
                format!(
                    "{name} restarts empty: every key is gone, the fence counter \
                     fence:{} among them, so its next INCR answers 1",
                    run.s.key
                )
            } else {
                format!("{name} restarts empty: every key is gone")
            };
            let mut up = Command::act(
                back,
                Who::Instance(i),
                None,
                Act::Up {
                    instance: i,
                    persistent,
                },
                &text,
            );
            // Scripts live in memory only: a restarted server needs them loaded again.
            for s in Script::ALL {
                up.lines.push(Line::new(
                    RedisCmd::ScriptLoad(s).text(),
                    RedisReply::Bulk(s.sha().to_string()).text(),
                ));
            }
            out.push(up);
        }
        for e in &inst.events {
            match e {
                InstanceEvent::Crash { .. } => {}
                InstanceEvent::Partition {
                    at_ms,
                    duration_ms,
                    client,
                } => {
                    let who = client.clone().unwrap_or_else(|| "every client".to_string());
                    let until = at_ms.saturating_add(*duration_ms);
                    out.push(Command::note(
                        *at_ms,
                        Who::Instance(i),
                        None,
                        format!("{name} is cut off from {who} until {until} ms: requests between them are dropped"),
                    ));
                }
                InstanceEvent::ClockJump { at_ms, by_ms, .. } => out.push(Command::note(
                    *at_ms,
                    Who::Instance(i),
                    None,
                    format!("{name}'s clock moves {by_ms:+} ms"),
                )),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::outages;
    use crate::sim::scenario::InstanceEvent;

    fn crash(at_ms: u64, down_ms: u64, persistent: bool) -> InstanceEvent {
        InstanceEvent::Crash {
            at_ms,
            down_ms,
            persistent,
        }
    }

    #[test]
    fn overlapping_crashes_are_one_outage_that_keeps_keys_only_if_every_crash_does() {
        for (events, want) in [
            (vec![crash(70, 5, false)], vec![(70, 75, false)]),
            // Killed again at 59 while it would come back at 75: back at 138, empty.
            (
                vec![crash(70, 5, false), crash(59, 79, false)],
                vec![(59, 138, false)],
            ),
            (
                vec![crash(3, 30, true), crash(32, 54, false)],
                vec![(3, 86, false)],
            ),
            (
                vec![crash(3, 30, true), crash(33, 5, true)],
                vec![(3, 38, true)],
            ),
            (
                vec![crash(10, 5, true), crash(40, 5, false)],
                vec![(10, 15, true), (40, 45, false)],
            ),
        ] {
            assert_eq!(outages(&events), want, "{events:?}");
        }
    }
}
