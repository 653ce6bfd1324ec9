//! The PostgreSQL lane of an advisory lock: each holding of the lock as a bar labelled with its
//! holder and "no fence" (the server mints none), ended in the words of what ended it (an
//! unlock, a COMMIT, a timeout, a closed socket, a failover); under it every client's session as
//! a thin line with its backend pid, each lock call that waited as a dashed line in its
//! client's colour, and every failover as a mark across the lane.

use super::node::El;
use super::text;
use crate::sim::trace::{PgWaitEnd, SessionEnd, SpanEnd};
use crate::sim::Trace;
use crate::ui::lanes::geometry::{colour_class, text_width_px, LaneKind, Layout};

/// What ended a holding, in the words of the server: the holder's session tells why a holding
/// that did not end by the holder's own hand ended.
fn holding_end(t: &Trace, holder: usize, end: &SpanEnd, end_ms: u64, xact: bool) -> &'static str {
    let session_end = t.advisory.as_ref().and_then(|a| {
        a.sessions
            .iter()
            .find(|s| s.client == holder && s.end_ms == end_ms)
            .map(|s| s.end)
    });
    match (end, session_end) {
        (SpanEnd::Open, _) => "still held",
        (SpanEnd::Released, _) if xact => "COMMIT released it",
        (SpanEnd::Released, _) => "pg_advisory_unlock",
        (_, Some(SessionEnd::IdleTimeout)) => "idle_session_timeout",
        (_, Some(SessionEnd::IdleInTransactionTimeout)) => "idle-in-transaction timeout",
        (_, Some(SessionEnd::Keepalive)) => "keepalive gave up",
        (_, Some(SessionEnd::Failover)) | (SpanEnd::Forgotten, _) => "lost in the failover",
        (_, Some(SessionEnd::ClientCrashed)) | (SpanEnd::Crashed, _) => "socket closed",
        _ => "session ended",
    }
}

fn wait_words(e: PgWaitEnd) -> &'static str {
    match e {
        PgWaitEnd::Granted => "then got the lock",
        PgWaitEnd::Failed => "then its session ended under the call",
        PgWaitEnd::Abandoned => "until it crashed",
        PgWaitEnd::Open => "still waiting at the end",
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

pub(super) fn advisory_lane(l: &Layout, t: &Trace) -> Option<El> {
    let (lane, a) = (l.lane(LaneKind::Lock)?, t.advisory.as_ref()?);
    let top = lane.top_px;
    let end = l.axis.end_ms;
    let xact = a.level == "transaction";
    let bar_y = top + 6;
    let bar_h = 20;
    let clients = t.clients.len().max(1) as i32;
    // Session lines share the room under the bar, one row per client.
    let row_gap = (30 / clients).clamp(3, 8);
    let session_y = |c: usize| top + 34 + row_gap * c as i32;
    let mut g = El::g()
        .a("class", "fp-lane fp-lock-lane fp-advisory-lane")
        .a("data-testid", "lane-advisory")
        .child(text("lane-name", 10, top + 28, "PostgreSQL"))
        .child(text(
            "muted small",
            10,
            top + 44,
            format!("lock {} · {}", a.lock_id, a.level),
        ));
    for &at in a.failovers_ms.iter().filter(|&&at| at <= end) {
        let x = l.axis.x(at);
        let why = format!(
            "failover at {at} ms: the standby is promoted with no sessions and no advisory locks"
        );
        g.push(
            titled("fp-failover".into(), "pg-failover".into(), why)
                .child(line(x, x, top + 2, top + lane.height_px - 2))
                .child(text(
                    "bad small",
                    x + 3,
                    top + lane.height_px - 4,
                    "failover",
                )),
        );
    }
    for (i, h) in t.leases.iter().enumerate() {
        let x0 = l.axis.x(h.start_ms);
        let x1 = l.axis.x(h.end_ms).max(x0 + 2);
        let who = t.client_name(h.holder);
        let mut label = format!("{who} · no fence");
        if text_width_px(&label) + 10 > x1 - x0 {
            label = who.to_string();
        }
        let ended = holding_end(t, h.holder, &h.end, h.end_ms, xact);
        let lost = !matches!(h.end, SpanEnd::Open | SpanEnd::Released);
        // The words go after the bar only where the next holding leaves room.
        let room = t
            .leases
            .get(i + 1)
            .map_or(i32::MAX, |n| l.axis.x(n.start_ms) - x1);
        let show_end = lost && h.end_ms <= end && text_width_px(ended) + 8 < room;
        let class = format!(
            "fp-lease {}{}",
            colour_class(h.holder),
            if lost { " lost" } else { "" }
        );
        let why = format!(
            "{who} holds advisory lock {} from {} to {} ms ({ended}); the server mints no fence",
            a.lock_id, h.start_ms, h.end_ms
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
            k.push(
                text("bad small halo", x1 + 3, bar_y + 14, ended).a("data-testid", "holding-end"),
            );
        }
        g.push(k);
    }
    for s in &a.sessions {
        let x0 = l.axis.x(s.start_ms);
        let x1 = l.axis.x(s.end_ms.min(end)).max(x0 + 2);
        let y = session_y(s.client);
        let who = t.client_name(s.client);
        let closed = s.end != SessionEnd::Open && s.end_ms <= end;
        let why = format!(
            "{who}'s session, backend pid {}, from {} to {} ms: {}",
            s.pid,
            s.start_ms,
            s.end_ms,
            s.end.text()
        );
        let class = format!("fp-session {}", colour_class(s.client));
        let mut session = titled(class, "pg-session".into(), why).child(line(x0, x1, y, y));
        if closed {
            session.push(line(x1, x1, y - 3, y + 3).a("class", "end"));
        }
        g.push(session);
    }
    for w in &a.waits {
        let x0 = l.axis.x(w.start_ms);
        let x1 = l.axis.x(w.end_ms.min(end)).max(x0 + 2);
        let y = session_y(w.client) - 2;
        let who = t.client_name(w.client);
        let why = format!(
            "{who}'s lock call waits behind the holder from {} to {} ms, {}",
            w.start_ms,
            w.end_ms,
            wait_words(w.end)
        );
        let class = format!("fp-pg-wait {}", colour_class(w.client));
        g.push(titled(class, "pg-wait".into(), why).child(line(x0, x1, y, y)));
    }
    Some(g)
}
