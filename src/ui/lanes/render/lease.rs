//! The database lane of a lease row: each version of the row as a bar labelled with its holder
//! and generation (the fence), a tick where its `expires_at` falls by the database's clock when
//! the database judges expiry, each waiter's watch of the row (a dashed line in its colour,
//! from its read to the instant its own clock called the TTL over), and every failover as a
//! mark across the lane.

use super::node::El;
use super::text;
use crate::sim::trace::{LeaseRow, RowChange, WatchEnd};
use crate::sim::Trace;
use crate::ui::lanes::geometry::{colour_class, text_width_px, LaneKind, Layout};

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

fn change_words(why: RowChange) -> &'static str {
    match why {
        RowChange::Inserted => "inserted",
        RowChange::TakenOver => "taken over",
        RowChange::Renewed => "renewed",
        RowChange::Released => "released",
        RowChange::FailedOver => "as the standby had it",
    }
}

fn watch_words(e: WatchEnd) -> &'static str {
    match e {
        WatchEnd::TookOver => "then took the row over",
        WatchEnd::Changed => "then found it changed and read it again",
        WatchEnd::Abandoned => "until it crashed",
        WatchEnd::Open => "still watching at the end",
    }
}

/// The true instant the row's `expires_at` falls, while the row lasts (the database's clock is
/// the one the run's lease spans end by).
fn expiry_ms(t: &Trace, r: &LeaseRow) -> Option<u64> {
    t.leases
        .iter()
        .filter(|s| Some(s.holder) == r.holder && s.fence == Some(r.generation))
        .map(|s| s.end_ms)
        .find(|&e| r.start_ms < e && e < r.end_ms)
}

pub(super) fn lease_lane(l: &Layout, t: &Trace) -> Option<El> {
    let (lane, x) = (l.lane(LaneKind::Lock)?, t.lease.as_ref()?);
    let top = lane.top_px;
    let end = l.axis.end_ms;
    let waiter = x.expiry == "waiter";
    let bar_y = top + 6;
    let bar_h = 20;
    let mut g = El::g()
        .a("class", "fp-lane fp-lock-lane fp-lease-lane")
        .a("data-testid", "lane-lease")
        .child(text("lane-name", 10, top + 28, "database"))
        .child(text(
            "muted small",
            10,
            top + 44,
            if waiter {
                "expiry: the waiter's clock"
            } else {
                "expiry: the database's now()"
            },
        ));
    for &at in x.failovers_ms.iter().filter(|&&at| at <= end) {
        let fx = l.axis.x(at);
        let why = format!(
            "failover at {at} ms: an asynchronous standby is promoted without the row's last takeover"
        );
        g.push(
            titled("fp-failover".into(), "lease-failover".into(), why)
                .child(line(fx, fx, top + 2, top + lane.height_px - 2))
                .child(text(
                    "bad small",
                    fx + 3,
                    top + lane.height_px - 4,
                    "failover",
                )),
        );
    }
    for (i, r) in x.rows.iter().enumerate().filter(|(_, r)| r.start_ms <= end) {
        let x0 = l.axis.x(r.start_ms);
        let x1 = l.axis.x(r.end_ms.min(end)).max(x0 + 2);
        let who = r.holder.map_or("nobody", |h| t.client_name(h));
        let mut label = format!("{who} · gen {}", r.generation);
        if text_width_px(&label) + 10 > x1 - x0 {
            label = format!("{}", r.generation);
        }
        let class = format!(
            "fp-lease fp-lease-row {}",
            r.holder.map_or("free", colour_class)
        );
        let why = format!(
            "the row from {} to {} ms ({}): holder {who}, generation {}, expires_at {} ms by the database's clock",
            r.start_ms,
            r.end_ms,
            change_words(r.why),
            r.generation,
            r.expires_at
        );
        let mut k = titled(class, format!("lease-row-{i}"), why)
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
        if let Some(e) = expiry_ms(t, r).filter(|&e| !waiter && e <= end) {
            let ex = l.axis.x(e);
            k.push(line(ex, ex, bar_y - 2, bar_y + bar_h + 2).a("class", "fp-lease-expiry"));
        }
        g.push(k);
    }
    let clients = t.clients.len().max(1) as i32;
    let row_gap = (30 / clients).clamp(3, 8);
    for w in &x.watches {
        let x0 = l.axis.x(w.start_ms);
        let x1 = l.axis.x(w.end_ms.min(end)).max(x0 + 2);
        let y = top + 34 + row_gap * w.client as i32;
        let who = t.client_name(w.client);
        let why = format!(
            "{who} watches the row at generation {} from {} to {} ms by its own clock, {}",
            w.generation,
            w.start_ms,
            w.end_ms,
            watch_words(w.end)
        );
        let class = format!("fp-lease-watch {}", colour_class(w.client));
        g.push(titled(class, "lease-watch".into(), why).child(line(x0, x1, y, y)));
    }
    Some(g)
}
