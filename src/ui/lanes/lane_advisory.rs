//! The PostgreSQL lane of an advisory lock: each holding of the lock as a bar labelled with its
//! holder and "no fence" (the server mints none), ended in the words of what ended it (an
//! unlock, a COMMIT, a timeout, a closed socket, a failover); under it every client's session as
//! a thin line with its backend pid, each lock call that waited as a dashed line in its
//! client's colour, and every failover as a mark across the lane.

use super::geometry::{colour_class, text_width_px, LaneKind, Layout};
use crate::sim::trace::{PgWaitEnd, SessionEnd, SpanEnd};
use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct AdvisoryLaneProps {
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
}

impl PartialEq for AdvisoryLaneProps {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout
            && super::same_part(&self.trace, &other.trace, |t| {
                (&t.leases, &t.clients, &t.advisory)
            })
    }
}

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

#[component]
pub fn AdvisoryLane(props: &AdvisoryLaneProps) -> Html {
    let l = &props.layout;
    let (Some(lane), Some(a)) = (l.lane(LaneKind::Lock), props.trace.advisory.as_ref()) else {
        return html! {};
    };
    let t = &props.trace;
    let top = lane.top_px;
    let end = l.axis.end_ms;
    let xact = a.level == "transaction";
    let bar_y = top + 6;
    let bar_h = 20;
    let clients = t.clients.len().max(1) as i32;
    // Session lines share the room under the bar, one row per client.
    let row_gap = (30 / clients).clamp(3, 8);
    let session_y = |c: usize| top + 34 + row_gap * c as i32;
    html! {
        <g class="fp-lane fp-lock-lane fp-advisory-lane" data-testid="lane-advisory">
            <text class="lane-name" x="10" y={(top + 28).to_string()}>{ "PostgreSQL" }</text>
            <text class="muted small" x="10" y={(top + 44).to_string()}>{ format!("lock {} · {}", a.lock_id, a.level) }</text>
            { for a.failovers_ms.iter().filter(|&&at| at <= end).map(|&at| {
                let x = l.axis.x(at);
                html! {
                    <g class="fp-failover" data-testid="pg-failover">
                        <title>{ format!("failover at {at} ms: the standby is promoted with no sessions and no advisory locks") }</title>
                        <line x1={x.to_string()} x2={x.to_string()} y1={(top + 2).to_string()} y2={(top + lane.height_px - 2).to_string()} />
                        <text class="bad small" x={(x + 3).to_string()} y={(top + lane.height_px - 4).to_string()}>{ "failover" }</text>
                    </g>
                }
            }) }
            { for t.leases.iter().enumerate().map(|(i, h)| {
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
                let room = t.leases.get(i + 1).map_or(i32::MAX, |n| l.axis.x(n.start_ms) - x1);
                let show_end = lost && h.end_ms <= end && text_width_px(ended) + 8 < room;
                html! {
                    <g class={classes!("fp-lease", colour_class(h.holder), lost.then_some("lost"))}
                        data-testid={format!("lease-{i}")}>
                        <title>{ format!("{who} holds advisory lock {} from {} to {} ms ({ended}); the server mints no fence", a.lock_id, h.start_ms, h.end_ms) }</title>
                        <rect x={x0.to_string()} y={bar_y.to_string()} width={(x1 - x0).to_string()}
                            height={bar_h.to_string()} rx="4" />
                        <text x={(x0 + 6).to_string()} y={(bar_y + 14).to_string()}>{ label }</text>
                        if show_end {
                            <text class="bad small halo" x={(x1 + 3).to_string()} y={(bar_y + 14).to_string()}
                                data-testid="holding-end">{ ended }</text>
                        }
                    </g>
                }
            }) }
            { for a.sessions.iter().map(|s| {
                let x0 = l.axis.x(s.start_ms);
                let x1 = l.axis.x(s.end_ms.min(end)).max(x0 + 2);
                let y = session_y(s.client);
                let who = t.client_name(s.client);
                let closed = s.end != SessionEnd::Open && s.end_ms <= end;
                html! {
                    <g class={classes!("fp-session", colour_class(s.client))} data-testid="pg-session">
                        <title>{ format!("{who}'s session, backend pid {}, from {} to {} ms: {}", s.pid, s.start_ms, s.end_ms, s.end.text()) }</title>
                        <line x1={x0.to_string()} x2={x1.to_string()} y1={y.to_string()} y2={y.to_string()} />
                        if closed {
                            <line class="end" x1={x1.to_string()} x2={x1.to_string()} y1={(y - 3).to_string()} y2={(y + 3).to_string()} />
                        }
                    </g>
                }
            }) }
            { for a.waits.iter().map(|w| {
                let x0 = l.axis.x(w.start_ms);
                let x1 = l.axis.x(w.end_ms.min(end)).max(x0 + 2);
                let y = session_y(w.client) - 2;
                let who = t.client_name(w.client);
                html! {
                    <g class={classes!("fp-pg-wait", colour_class(w.client))} data-testid="pg-wait">
                        <title>{ format!("{who}'s lock call waits behind the holder from {} to {} ms, {}", w.start_ms, w.end_ms, wait_words(w.end)) }</title>
                        <line x1={x0.to_string()} x2={x1.to_string()} y1={y.to_string()} y2={y.to_string()} />
                    </g>
                }
            }) }
        </g>
    }
}
