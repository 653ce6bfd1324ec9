//! The calls a real client makes for an etcd run, through the JSON gateway etcd serves on its
//! client port (`/v3/lease/grant`, `/v3/lease/keepalive`, `/v3/lock/lock`, `/v3/lock/unlock`,
//! `/v3/kv/txn`; keys and values in base64, int64s as strings), each with the `etcdctl` line
//! that does the same. The lab does not send these lines: its etcd clients
//! (`lab/src/etcd_client.rs`) make the same calls on their own against a real cluster and are
//! compared by history, so every entry is a `Note` and nothing here claims a server's reply.

use super::command::{Act, Command, Who};
use super::ops::Line;
use crate::sim::scenario::Scenario;
use crate::sim::sort;
use crate::sim::trace::*;
use crate::sim::words;

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding, as the gateway's JSON carries keys and values.
pub fn base64(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(B64[(n >> (18 - 6 * k) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn entry(at_ms: u64, who: Who, step: Option<usize>, lines: Vec<Line>) -> Command {
    Command {
        at_ms,
        who,
        step,
        act: Act::Note,
        lines,
    }
}

/// The session (lease) a client used at `t`: its latest one started by then.
fn session_at(e: &EtcdTrace, client: usize, t: u64) -> Option<&SessionSpan> {
    e.sessions
        .iter()
        .rfind(|x| x.client == client && x.start_ms <= t)
}

/// Every call of the run of `s` that produced `t`, in time order.
pub fn plan(s: &Scenario, t: &Trace) -> Vec<Command> {
    let Some(e) = &t.etcd else {
        return Vec::new();
    };
    let ttl = s.lock.ttl_ms;
    let name = base64(&s.key);
    let mut out: Vec<(u64, u8, Command)> = Vec::new();
    let setup = entry(
        0,
        Who::Setup,
        None,
        vec![Line::note(format!(
            "etcd {} on {} members; the model's milliseconds stand for the gateway's TTL seconds",
            e.version,
            e.members.len()
        ))],
    );
    out.push((0, 0, setup));
    for o in &e.outages {
        let m = e.members.get(o.member).map_or("?", String::as_str);
        let what = match o.kind {
            MemberOutageKind::Crash => format!("kill member {m}"),
            MemberOutageKind::Partition => format!("cut member {m} off from everyone"),
        };
        let line = Line::note(format!("{what} until {} ms", o.end_ms));
        out.push((
            o.start_ms,
            0,
            entry(o.start_ms, Who::Instance(0), None, vec![line]),
        ));
    }
    for x in &e.sessions {
        for &at in &x.keepalives_ms {
            let lines = vec![
                Line::new(
                    format!("POST /v3/lease/keepalive {{\"ID\":\"{}\"}}", x.lease),
                    format!(
                        "{{\"result\":{{\"ID\":\"{}\",\"TTL\":\"{ttl}\"}}}}",
                        x.lease
                    ),
                ),
                Line::note(format!("etcdctl lease keep-alive --once {}", x.lease)),
            ];
            out.push((at, 1, entry(at, Who::Client(x.client), None, lines)));
        }
    }
    for r in &e.revisions {
        if r.cause == RevisionCause::Revoke {
            let lease = session_at(e, r.client, r.at_ms).map_or("?", |x| x.lease.as_str());
            let line = Line::note(format!(
                "the leader revokes lease {lease} ({}'s) and deletes its key: revision {}",
                t.client_name(r.client),
                r.revision
            ));
            out.push((
                r.at_ms,
                1,
                entry(r.at_ms, Who::Instance(0), None, vec![line]),
            ));
        }
    }
    for (i, step) in t.steps.iter().enumerate() {
        let c = step.client;
        let at = step.at_ms;
        let lease = session_at(e, c, at).map_or("?".to_string(), |x| x.lease.clone());
        let key = base64(&format!("{}/{lease}", s.key));
        let mut lines = Vec::new();
        let new_session = e.sessions.iter().any(|x| x.client == c && x.start_ms == at);
        let lock_call = format!("POST /v3/lock/lock {{\"name\":\"{name}\",\"lease\":\"{lease}\"}}");
        match &step.outcome {
            Outcome::Granted { .. } | Outcome::Queued { .. } if new_session => {
                lines.push(Line::new(
                    format!("POST /v3/lease/grant {{\"TTL\":{ttl}}}"),
                    format!("{{\"ID\":\"{lease}\",\"TTL\":\"{ttl}\"}}"),
                ));
                lines.push(Line::note(format!("etcdctl lease grant {ttl}")));
            }
            _ => {}
        }
        match &step.outcome {
            Outcome::Granted { .. } => {
                let waited = e.waits.iter().any(|w| w.client == c && w.end_ms == at);
                let rev = t
                    .leases
                    .iter()
                    .rfind(|l| l.holder == c && l.start_ms <= at)
                    .map_or(0, |l| l.generation);
                let reply = format!("{{\"key\":\"{key}\"}}  (create revision {rev})");
                if waited {
                    lines.push(Line::new(
                        "(the lock call waiting since its key was put returns)",
                        reply,
                    ));
                } else {
                    lines.push(Line::new(lock_call, reply));
                    lines.push(Line::note(format!("etcdctl lock --ttl={ttl} {}", s.key)));
                }
            }
            Outcome::Queued { revision, behind } => {
                lines.push(Line::new(
                    lock_call,
                    format!(
                        "(no answer yet: key put at revision {revision}, waiting for {behind}'s)"
                    ),
                ));
                lines.push(Line::note(format!("etcdctl lock --ttl={ttl} {}", s.key)));
            }
            Outcome::GrantedExpired { .. } => {
                lines.push(Line::new(
                    "(the lock call waiting since its key was put returns)",
                    format!("{{\"key\":\"{key}\"}}  (3.4: although the key is gone)"),
                ));
            }
            Outcome::SessionExpired { by_lock: true } => {
                lines.push(Line::new(
                    "(the lock call waiting since its key was put returns)",
                    "{\"error\":\"session expired\"}",
                ));
            }
            Outcome::SessionExpired { by_lock: false } => {
                lines.push(Line::new(
                    format!("POST /v3/lease/keepalive {{\"ID\":\"{lease}\"}}"),
                    format!(
                        "{{\"result\":{{\"ID\":\"{lease}\",\"TTL\":\"0\"}}}}  (lease not found)"
                    ),
                ));
                lines.push(Line::note(format!(
                    "etcdctl lease keep-alive --once {lease}"
                )));
            }
            Outcome::Renewed { lease_until_ms, .. } => {
                lines.push(Line::new(
                    format!("POST /v3/lease/keepalive {{\"ID\":\"{lease}\"}}"),
                    format!("{{\"result\":{{\"ID\":\"{lease}\",\"TTL\":\"{ttl}\"}}}}  (until {lease_until_ms} ms)"),
                ));
            }
            Outcome::Released { own, .. } => {
                let reply = if *own {
                    "{}  (key deleted)"
                } else {
                    "{}  (no key to delete)"
                };
                lines.push(Line::new(
                    format!("POST /v3/lock/unlock {{\"key\":\"{key}\"}}"),
                    reply,
                ));
            }
            Outcome::Stored { write, verdict } if s.storage.create_guard => {
                let w = t.writes.get(*write);
                let rev = w.and_then(|w| w.generation).unwrap_or(0);
                let ok = verdict.is_accepted();
                lines.push(Line::new(
                    format!(
                        "POST /v3/kv/txn {{\"compare\":[{{\"target\":\"CREATE\",\"key\":\"{key}\",\"createRevision\":\"{rev}\"}}],\"success\":[{{\"requestPut\":{{\"key\":\"{}\",\"value\":\"…\"}}}}]}}",
                        base64(&format!("balance/{}", s.key))
                    ),
                    format!("{{\"succeeded\":{ok}}}  ({})", words::verdict_text(verdict)),
                ));
            }
            Outcome::Stored { verdict, .. } => {
                lines.push(Line::note(format!(
                    "storage: {}",
                    words::verdict_text(verdict)
                )));
            }
            Outcome::NoLeader => {
                lines.push(Line::note("no leader: the call waits for an election"))
            }
            _ => lines.push(Line::note(step.text.clone())),
        }
        out.push((at, 2, entry(at, Who::Client(c), Some(i), lines)));
    }
    sort::sort_by_key(&mut out, |(at, class, _)| (*at, *class));
    out.into_iter().map(|(_, _, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads_as_the_gateway_expects() {
        assert_eq!(base64("acct:1"), "YWNjdDox");
        assert_eq!(base64("a"), "YQ==");
        assert_eq!(base64("ab"), "YWI=");
        assert_eq!(base64(""), "");
    }
}
