//! The ZooKeeper lane: each holding of the lock as a bar labelled with its node's name and the
//! fence its holder sends (the czxid, the sequence suffix, or none), and, where the next
//! holding leaves room, what ended it (the holder's delete, or its session's expiry); under it
//! every client's session as a thin line with a tick at each ping the leader heard and a cross
//! where it expired, each lock call that waited behind a lower node as a dashed line, each
//! stretch a client was cut off from the ensemble as a shaded band and the SUSPENDED and LOST
//! stretches its client library reported as marks on its line, and every removal and creation
//! of the lock parent `/lock` as a mark across the lane.

use super::node::El;
use super::text;
use crate::sim::trace::{ParentChange, ZkNode, ZkNodeEnd, ZkSessionEnd, ZkState, ZkStateEnd};
use crate::sim::trace::{ZkTrace, ZkWaitEnd};
use crate::sim::Trace;
use crate::ui::lanes::geometry::{colour_class, text_width_px, LaneKind, Layout};

/// The fence the holder of node `n` sends, as the bar writes it: "czxid 0x100000025", "seq 2",
/// or "no fence" when the lock hands none out.
fn fence_label(t: &Trace, z: &ZkTrace, n: &ZkNode) -> String {
    let fenced = t
        .leases
        .iter()
        .find(|l| Some(l.start_ms) == n.granted_ms && l.holder == n.client)
        .is_none_or(|l| l.fence.is_some());
    if !fenced {
        "no fence".to_string()
    } else if z.fence == "sequence" {
        format!("seq {}", n.sequence)
    } else {
        format!("czxid {}", crate::sim::trace::zxid_hex(n.czxid))
    }
}

fn node_end_words(e: ZkNodeEnd) -> &'static str {
    match e {
        ZkNodeEnd::Open => "still held",
        ZkNodeEnd::Deleted => "deleted by unlock",
        ZkNodeEnd::SessionExpired => "session expired",
    }
}

fn wait_words(e: ZkWaitEnd) -> &'static str {
    match e {
        ZkWaitEnd::Granted => "then its node was lowest: the lock",
        ZkWaitEnd::Expired => "then its session expired, and its node with it",
        ZkWaitEnd::Abandoned => "until it crashed",
        ZkWaitEnd::Open => "still waiting at the end",
    }
}

fn state_words(state: ZkState, end: ZkStateEnd) -> String {
    let then = match end {
        ZkStateEnd::Reconnected => ", then RECONNECTED: the session had lived",
        ZkStateEnd::Lost => ", then LOST: the session had expired",
        ZkStateEnd::Open => "",
    };
    match state {
        ZkState::Suspended => {
            format!("SUSPENDED: no answer from the ensemble, the lock may or may not be held{then}")
        }
        ZkState::Lost => format!("LOST: the session expired and its lock node is gone{then}"),
    }
}

fn line(x1: i32, x2: i32, y1: i32, y2: i32) -> El {
    El::new("line")
        .a("x1", x1)
        .a("x2", x2)
        .a("y1", y1)
        .a("y2", y2)
}

fn titled(class: String, testid: String, title: String) -> El {
    El::g()
        .a("class", class)
        .a("data-testid", testid)
        .child(El::new("title").text(title))
}

pub(super) fn zk_lane(l: &Layout, t: &Trace) -> Option<El> {
    let (lane, z) = (l.lane(LaneKind::Lock)?, t.zookeeper.as_ref()?);
    let top = lane.top_px;
    let bottom = top + lane.height_px;
    let end = l.axis.end_ms;
    let x_of = |ms: u64| l.axis.x(ms.min(end));
    let bar_y = top + 6;
    let bar_h = 20;
    let clients = t.clients.len().max(1) as i32;
    // Session lines share the room under the bar, one row per client, above the parent marks'
    // words.
    let row_gap = (20 / clients).clamp(3, 7);
    let session_y = |c: usize| top + 34 + row_gap * c as i32;
    let held: Vec<&ZkNode> = z.nodes.iter().filter(|n| n.granted_ms.is_some()).collect();
    // Where the last parent mark's words end, so the next is written only with room.
    let mut words_until: Option<i32> = None;
    let parent_marks: Vec<(i32, &str, String, &str, bool)> = z
        .parent
        .iter()
        .filter(|p| p.at_ms <= end)
        .map(|p| {
            let x = x_of(p.at_ms);
            let (word, title, class) = match p.what {
                ParentChange::Removed => ("/lock removed", format!("at {} ms the empty container /lock is removed: the next node's sequence starts again at 0", p.at_ms), "removed"),
                ParentChange::Created => ("/lock created", format!("at {} ms a lock call creates /lock again", p.at_ms), "created"),
                ParentChange::Kept => ("/lock kept", format!("at {} ms /lock is not removed: it has children", p.at_ms), "kept"),
            };
            let room = words_until.is_none_or(|u| x > u + 4);
            if room {
                words_until = Some(x + 3 + text_width_px(word));
            }
            (x, word, title, class, room)
        })
        .collect();
    let mut g = El::g()
        .a("class", "fp-lane fp-lock-lane fp-zk-lane")
        .a("data-testid", "lane-zookeeper")
        .child(text("lane-name", 10, top + 28, "ZooKeeper"))
        .child(text(
            "muted small",
            10,
            top + 44,
            format!("/lock · tick {} ms", z.tick_time_ms),
        ));
    for p in z.partitions.iter().filter(|p| p.start_ms <= end) {
        let x0 = x_of(p.start_ms);
        let x1 = x_of(p.end_ms).max(x0 + 2);
        let y = session_y(p.client);
        let who = t.client_name(p.client);
        let why = format!("{who} cut off from the ensemble from {} to {} ms: no ping is answered; the storage stays reachable", p.start_ms, p.end_ms);
        g.push(
            titled("fp-zk-partition".into(), "zk-partition".into(), why).child(
                El::new("rect")
                    .a("x", x0)
                    .a("y", y - 4)
                    .a("width", x1 - x0)
                    .a("height", 8),
            ),
        );
    }
    for (x, _, title, class, _) in &parent_marks {
        g.push(
            titled(
                format!("fp-zk-parent {class}"),
                "zk-parent".into(),
                title.clone(),
            )
            .child(line(*x, *x, top + 2, bottom - 2)),
        );
    }
    // The words go after every mark's line, so a later mark's line never runs over an
    // earlier mark's words: the words' halo hides it.
    for (x, word, _, class, _) in parent_marks.iter().filter(|m| m.4) {
        let class = format!("muted small halo fp-zk-parent-words {class}");
        g.push(text(class, x + 3, bottom - 4, *word));
    }
    for (i, n) in held.iter().enumerate() {
        let start = n.granted_ms.unwrap_or(n.created_ms);
        let x0 = x_of(start);
        let x1 = x_of(n.end_ms).max(x0 + 2);
        let who = t.client_name(n.client);
        let fence = fence_label(t, z, n);
        let name = n.name();
        let full = format!("{name} · {fence}");
        // The label is bold: a seventh wider than `text_width_px` counts.
        let label = [full.as_str(), name.as_str(), fence.as_str(), who]
            .into_iter()
            .find(|s| text_width_px(s) * 8 / 7 + 12 <= x1 - x0)
            .unwrap_or("");
        let ended = node_end_words(n.end);
        let lost = n.end == ZkNodeEnd::SessionExpired;
        // The words go after the bar only where the next holding leaves room.
        let room = held
            .get(i + 1)
            .and_then(|m| m.granted_ms)
            .map_or(l.axis.x(end) + 200, x_of)
            - x1;
        let show_end =
            n.end != ZkNodeEnd::Open && n.end_ms <= end && text_width_px(ended) + 8 < room;
        let class = format!(
            "fp-lease {}{}",
            colour_class(n.client),
            if lost { " lost" } else { "" }
        );
        let why = format!(
            "{who} holds the lock with /lock/{name} (czxid {}, sequence {}) from {start} to {} ms ({ended}); it sends {fence}",
            crate::sim::trace::zxid_hex(n.czxid),
            n.sequence,
            n.end_ms
        );
        let mut k = titled(class, format!("lease-{i}"), why)
            .child(
                El::new("rect")
                    .a("x", x0)
                    .a("y", bar_y)
                    .a("width", x1 - x0)
                    .a("height", bar_h)
                    .a("rx", 4),
            )
            .child(
                El::new("text")
                    .a("x", x0 + 6)
                    .a("y", bar_y + 14)
                    .text(label),
            );
        if show_end {
            let class = if lost {
                "small halo bad"
            } else {
                "small halo muted"
            };
            k.push(text(class, x1 + 3, bar_y + 14, ended).a("data-testid", "holding-end"));
        }
        g.push(k);
    }
    for s in z.sessions.iter().filter(|s| s.start_ms <= end) {
        let x0 = x_of(s.start_ms);
        let x1 = x_of(s.end_ms).max(x0 + 2);
        let y = session_y(s.client);
        let who = t.client_name(s.client);
        let expired = s.end == ZkSessionEnd::Expired && s.end_ms <= end;
        let how = if expired {
            format!("expired by the leader at {} ms", s.end_ms)
        } else {
            "alive at the end".to_string()
        };
        let why = format!(
            "{who}'s session {} from {} ms, {} pings heard, {how}",
            s.id,
            s.start_ms,
            s.pings_ms.len()
        );
        let class = format!("fp-session fp-zk-session {}", colour_class(s.client));
        let mut session = titled(class, "zk-session".into(), why).child(line(x0, x1, y, y));
        for &p in s.pings_ms.iter().filter(|&&p| p <= end) {
            let x = x_of(p);
            session.push(line(x, x, y - 3, y + 3).a("class", "ping"));
        }
        if expired {
            session.push(
                El::g()
                    .a("class", "expired")
                    .a("data-testid", "zk-expired")
                    .child(line(x1 - 3, x1 + 3, y - 3, y + 3))
                    .child(line(x1 - 3, x1 + 3, y + 3, y - 3)),
            );
        }
        g.push(session);
    }
    for s in z.states.iter().filter(|s| s.start_ms <= end) {
        let x0 = x_of(s.start_ms);
        let x1 = x_of(s.end_ms).max(x0 + 2);
        let y = session_y(s.client) + 2;
        let who = t.client_name(s.client);
        let class = match s.state {
            ZkState::Suspended => "suspended",
            ZkState::Lost => "lost",
        };
        let words = format!(
            "{who}'s client says {} from {} ms",
            state_words(s.state, s.end),
            s.start_ms
        );
        g.push(
            El::g()
                .a("class", format!("fp-zk-state {class}"))
                .a("data-testid", format!("zk-{class}"))
                .a("role", "img")
                .a("aria-label", words.clone())
                .child(El::new("title").text(words))
                .child(line(x0, x1, y, y)),
        );
    }
    for w in z.waits.iter().filter(|w| w.start_ms <= end) {
        let x0 = x_of(w.start_ms);
        let x1 = x_of(w.end_ms).max(x0 + 2);
        let y = session_y(w.client) - 2;
        let who = t.client_name(w.client);
        let node = z
            .nodes
            .get(w.node)
            .map_or_else(|| "?".to_string(), ZkNode::name);
        let why = format!(
            "{who}'s {node} waits behind a lower node from {} to {} ms, {}",
            w.start_ms,
            w.end_ms,
            wait_words(w.end)
        );
        let class = format!("fp-pg-wait {}", colour_class(w.client));
        g.push(titled(class, "zk-wait".into(), why).child(line(x0, x1, y, y)));
    }
    Some(g)
}
