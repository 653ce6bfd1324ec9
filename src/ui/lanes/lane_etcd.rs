//! The etcd cluster's lane: who leads when (and the stretches with no leader), each lock key's
//! holding as a bar labelled with its holder and create revision, with a tick at every
//! keepalive that pushed its lease out, each lock call that waited as a dashed bar in its
//! client's colour, and the cluster's revision at every write that raised it.

use super::geometry::{colour_class, text_width_px, LaneKind, Layout};
use crate::sim::trace::{RevisionCause, WaitAnswer};
use crate::sim::words::span_end_words;
use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct EtcdLaneProps {
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
}

impl PartialEq for EtcdLaneProps {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout
            && super::same_part(&self.trace, &other.trace, |t| {
                (&t.leases, &t.clients, &t.etcd)
            })
    }
}

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

#[component]
pub fn EtcdLane(props: &EtcdLaneProps) -> Html {
    let l = &props.layout;
    let (Some(lane), Some(e)) = (l.lane(LaneKind::Lock), props.trace.etcd.as_ref()) else {
        return html! {};
    };
    let t = &props.trace;
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
    // Where the last revision number was written, so the next one is written only with room.
    let mut last_label_x: Option<i32> = None;
    html! {
        <g class="fp-lane fp-lock-lane fp-etcd-lane" data-testid="lane-etcd">
            <text class="lane-name" x="10" y={(top + 28).to_string()}>{ format!("etcd {}", e.version) }</text>
            <text class="muted small" x="10" y={(top + 44).to_string()}>{ format!("{} members", e.members.len()) }</text>
            { for e.leaders.iter().map(|s| {
                let x0 = l.axis.x(s.start_ms);
                let x1 = l.axis.x(s.end_ms.min(end)).max(x0 + 2);
                let label = format!("leader {}", member(s.member));
                html! {
                    <g class="fp-leader" data-testid="etcd-leader">
                        <rect x={x0.to_string()} y={(top + 2).to_string()} width={(x1 - x0).to_string()} height="3" />
                        if text_width_px(&label) + 4 < x1 - x0 {
                            <text class="muted small" x={(x0 + 2).to_string()} y={(top + 12).to_string()}>{ label }</text>
                        }
                    </g>
                }
            }) }
            { for gaps.iter().map(|&(a, b)| {
                let x0 = l.axis.x(a);
                let x1 = l.axis.x(b).max(x0 + 2);
                html! {
                    <g class="fp-no-leader" data-testid="etcd-no-leader">
                        <title>{ format!("no leader from {a} to {b} ms: no request is answered, no lease expires") }</title>
                        <rect x={x0.to_string()} y={(top + 2).to_string()} width={(x1 - x0).to_string()} height="3" />
                        if text_width_px("no leader") + 4 < x1 - x0 {
                            <text class="small" x={(x0 + 2).to_string()} y={(top + 12).to_string()}>{ "no leader" }</text>
                        }
                    </g>
                }
            }) }
            { for t.leases.iter().enumerate().map(|(i, lease)| {
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
                html! {
                    <g class={classes!("fp-lease", colour_class(lease.holder))} data-testid={format!("lease-{i}")}>
                        <title>{ format!("{who} holds the key with create revision {}; {} at {} ms", lease.generation, span_end_words(&lease.end), lease.end_ms) }</title>
                        <rect x={x0.to_string()} y={key_y.to_string()} width={(x1 - x0).to_string()} height="20" rx="4" />
                        <text x={(x0 + 6).to_string()} y={(key_y + 14).to_string()}>{ label }</text>
                        { for lease.renewals_ms.iter().map(|&r| {
                            let x = l.axis.x(r).to_string();
                            // Above and below the bar, never through its label.
                            html! { <>
                                <line class="renewal" x1={x.clone()} x2={x.clone()} y1={(key_y - 4).to_string()} y2={(key_y + 2).to_string()} />
                                <line class="renewal" x1={x.clone()} x2={x} y1={(key_y + 18).to_string()} y2={(key_y + 24).to_string()} />
                            </> }
                        }) }
                    </g>
                }
            }) }
            { for e.waits.iter().map(|w| {
                let x0 = l.axis.x(w.start_ms);
                let x1 = l.axis.x(w.end_ms).max(x0 + 2);
                let y = top + 38 + 4 * (w.client as i32 % 3);
                let who = t.client_name(w.client);
                html! {
                    <g class={classes!("fp-wait", colour_class(w.client))} data-testid="etcd-wait">
                        <title>{ format!("{who} waits with revision {} from {} to {} ms, {}", w.revision, w.start_ms, w.end_ms, answer_word(w.answer)) }</title>
                        <line x1={x0.to_string()} x2={x1.to_string()} y1={y.to_string()} y2={y.to_string()} />
                    </g>
                }
            }) }
            { for e.revisions.iter().filter(|r| r.at_ms <= end).map(|r| {
                let x = l.axis.x(r.at_ms);
                let label = r.revision.to_string();
                let room = last_label_x.is_none_or(|p| x.saturating_sub(p) > text_width_px(&label) + 4);
                if room {
                    last_label_x = Some(x);
                }
                html! {
                    <g class="fp-revision" data-testid="etcd-revision">
                        <title>{ format!("revision {} at {} ms: {} by {}", r.revision, r.at_ms, cause_word(r.cause), t.client_name(r.client)) }</title>
                        <line x1={x.to_string()} x2={x.to_string()} y1={(top + 52).to_string()} y2={(top + 55).to_string()} />
                        if room {
                            <text class="muted small" x={x.to_string()} y={(top + 63).to_string()} text-anchor="middle">{ label }</text>
                        }
                    </g>
                }
            }) }
        </g>
    }
}
