//! The etcd cluster's lane: who leads when (and the stretches with no leader), each lock key's
//! holding as a bar labelled with its holder and create revision, with a tick at every
//! keepalive that pushed its lease out, each lock call that waited as a dashed bar in its
//! client's colour, and the cluster's revision at every write that raised it.

use super::node::El;
use super::text;
use crate::sim::trace::{RevisionCause, WaitAnswer};
use crate::sim::words::span_end_words;
use crate::sim::Trace;
use crate::ui::lanes::geometry::{colour_class, text_width_px, LaneKind, Layout};

fn cause_word(c: RevisionCause) -> &'static str {
    match c {
        RevisionCause::Put => "key put",
        RevisionCause::Unlock => "unlock",
        RevisionCause::Revoke => "lease revoked",
        RevisionCause::Txn => "guarded debit",
    }
}

fn answer_word(a: WaitAnswer) -> &'static str {
    match a {
        WaitAnswer::Granted => "then locked",
        WaitAnswer::GrantedExpired => "then told it holds an expired lock (3.4)",
        WaitAnswer::SessionExpired => "then told its session expired",
        WaitAnswer::Abandoned => "until it crashed",
        WaitAnswer::Open => "still waiting at the end",
    }
}

fn titled(g: El, title: String) -> El {
    g.child(El::new("title").text(title))
}

fn bar(x0: i32, y: i32, w: i32, h: i32) -> El {
    El::new("rect")
        .a("x", x0)
        .a("y", y)
        .a("width", w)
        .a("height", h)
}

fn line(x1: i32, x2: i32, y1: i32, y2: i32) -> El {
    El::new("line")
        .a("x1", x1)
        .a("x2", x2)
        .a("y1", y1)
        .a("y2", y2)
}

pub(super) fn etcd_lane(l: &Layout, t: &Trace) -> Option<El> {
    let (lane, e) = (l.lane(LaneKind::Lock)?, t.etcd.as_ref()?);
    let top = lane.top_px;
    let member = |m: usize| e.members.get(m).map_or("?", String::as_str);
    // The stretches without a leader, between leader spans and after the last one.
    let end = l.axis.end_ms;
    let mut gaps = Vec::new();
    let mut from = 0;
    for s in &e.leaders {
        if s.start_ms > from {
            gaps.push((from, s.start_ms));
        }
        from = s.end_ms;
    }
    if from < end {
        gaps.push((from, end));
    }
    let key_y = top + 14;
    let mut g = El::g()
        .a("class", "fp-lane fp-lock-lane fp-etcd-lane")
        .a("data-testid", "lane-etcd")
        .child(text(
            "lane-name",
            10,
            top + 28,
            format!("etcd {}", e.version),
        ))
        .child(text(
            "muted small",
            10,
            top + 44,
            format!("{} members", e.members.len()),
        ));
    for s in &e.leaders {
        let x0 = l.axis.x(s.start_ms);
        let x1 = l.axis.x(s.end_ms.min(end)).max(x0 + 2);
        let label = format!("leader {}", member(s.member));
        let mut leader = El::g()
            .a("class", "fp-leader")
            .a("data-testid", "etcd-leader")
            .child(bar(x0, top + 2, x1 - x0, 3));
        if text_width_px(&label) + 4 < x1 - x0 {
            leader.push(text("muted small", x0 + 2, top + 12, label));
        }
        g.push(leader);
    }
    for &(a, b) in &gaps {
        let x0 = l.axis.x(a);
        let x1 = l.axis.x(b).max(x0 + 2);
        let why = format!("no leader from {a} to {b} ms: no request is answered, no lease expires");
        let mut gap = titled(
            El::g()
                .a("class", "fp-no-leader")
                .a("data-testid", "etcd-no-leader"),
            why,
        )
        .child(bar(x0, top + 2, x1 - x0, 3));
        if text_width_px("no leader") + 4 < x1 - x0 {
            gap.push(text("small", x0 + 2, top + 12, "no leader"));
        }
        g.push(gap);
    }
    for (i, lease) in t.leases.iter().enumerate() {
        let x0 = l.axis.x(lease.start_ms);
        let x1 = l.axis.x(lease.end_ms).max(x0 + 2);
        let who = t.client_name(lease.holder);
        let mut label = match lease.fence {
            Some(r) => format!("{who} · rev {r}"),
            None => format!("{who} · rev {} (no fence)", lease.generation),
        };
        if text_width_px(&label) + 10 > x1 - x0 {
            label = who.to_string();
        }
        let why = format!(
            "{who} holds the key with create revision {}; {} at {} ms",
            lease.generation,
            span_end_words(&lease.end),
            lease.end_ms
        );
        let mut k = titled(
            El::g()
                .a("class", format!("fp-lease {}", colour_class(lease.holder)))
                .a("data-testid", format!("lease-{i}")),
            why,
        )
        .child(bar(x0, key_y, x1 - x0, 20).a("rx", 4))
        .child(
            El::new("text")
                .a("x", x0 + 6)
                .a("y", key_y + 14)
                .text(label),
        );
        for &r in &lease.renewals_ms {
            let x = l.axis.x(r);
            // Above and below the bar, never through its label.
            k.push(line(x, x, key_y - 4, key_y + 2).a("class", "renewal"));
            k.push(line(x, x, key_y + 18, key_y + 24).a("class", "renewal"));
        }
        g.push(k);
    }
    for w in &e.waits {
        let x0 = l.axis.x(w.start_ms);
        let x1 = l.axis.x(w.end_ms).max(x0 + 2);
        let y = top + 38 + 4 * (w.client as i32 % 3);
        let who = t.client_name(w.client);
        let why = format!(
            "{who} waits with revision {} from {} to {} ms, {}",
            w.revision,
            w.start_ms,
            w.end_ms,
            answer_word(w.answer)
        );
        g.push(
            titled(
                El::g()
                    .a("class", format!("fp-wait {}", colour_class(w.client)))
                    .a("data-testid", "etcd-wait"),
                why,
            )
            .child(line(x0, x1, y, y)),
        );
    }
    // Where the last revision number was written, so the next one is written only with room.
    let mut last_label_x: Option<i32> = None;
    for r in e.revisions.iter().filter(|r| r.at_ms <= end) {
        let x = l.axis.x(r.at_ms);
        let label = r.revision.to_string();
        let room = last_label_x.is_none_or(|p| x.saturating_sub(p) > text_width_px(&label) + 4);
        if room {
            last_label_x = Some(x);
        }
        let why = format!(
            "revision {} at {} ms: {} by {}",
            r.revision,
            r.at_ms,
            cause_word(r.cause),
            t.client_name(r.client)
        );
        let mut rev = titled(
            El::g()
                .a("class", "fp-revision")
                .a("data-testid", "etcd-revision"),
            why,
        )
        .child(line(x, x, top + 52, top + 55));
        if room {
            rev.push(text("muted small", x, top + 63, label).a("text-anchor", "middle"));
        }
        g.push(rev);
    }
    Some(g)
}
