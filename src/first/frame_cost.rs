//! What a drag frame costs in the core and the renderer, natively, without a browser: the drag
//! benchmark's scenario (`scripts/bench/drag-scenario.mjs`: four clients, ten events each) with
//! A's first pause stretched and shrunk over 400 frames, each frame run (both runs) and its
//! changed lanes, arrows and banner drawn and diffed as the live drag path does. An ignored
//! test, for the benchmark notes, not the test command:
//!
//!   cargo test --release --lib frame_cost -- --ignored --nocapture
//!   valgrind --tool=callgrind <the test binary> frame_cost --ignored   (instructions: exact)
//!
//! Its times are this machine's; the instruction count under callgrind is the same on every run.
#![cfg(test)]

use super::{draw, First, Runs};
use crate::sim::{Event, Scenario};
use crate::ui::lanes::render::{self, diff::diff, lane, same};
use std::time::{Duration, Instant};

/// The drag benchmark's scenario.
fn scenario() -> Result<Scenario, String> {
    let mut clients = Vec::new();
    for (c, name) in ["A", "B", "C", "D"].iter().enumerate() {
        let mut events = Vec::new();
        for k in 0..2 {
            let base = c * 7 + k * 90;
            events.push(format!(r#"{{"kind":"acquire","atMs":{base}}}"#));
            events.push(format!(
                r#"{{"kind":"pause","atMs":{},"durationMs":{},"cause":"gc"}}"#,
                base + 2,
                30 + c * 4
            ));
            events.push(format!(
                r#"{{"kind":"debit","atMs":{},"amount":5}}"#,
                base + 4
            ));
            events.push(format!(r#"{{"kind":"renew","atMs":{}}}"#, base + 20));
            events.push(format!(
                r#"{{"kind":"debit","atMs":{},"amount":3,"delayMs":10}}"#,
                base + 40
            ));
        }
        clients.push(format!(
            r#"{{"name":"{name}","events":[{}]}}"#,
            events.join(",")
        ));
    }
    let json = format!(
        r#"{{"version":1,"name":"Bench: 40 events","endMs":200,"clients":[{}]}}"#,
        clients.join(",")
    );
    Scenario::from_json(&json).map_err(|e| e.to_string())
}

#[test]
#[ignore = "a benchmark: run it by name with --ignored"]
fn frame_cost() {
    let frames: usize = std::env::var("FRAMES")
        .ok()
        .and_then(|x| x.parse().ok())
        .unwrap_or(400);
    let s0 = scenario().unwrap_or_else(|e| panic!("the bench scenario: {e}"));
    let f = First::new(s0.clone(), 1246);
    let l = &f.layout;
    let (mut s_prev, mut r_prev) = (s0.clone(), Runs::of(&s0));
    let mut lanes = render::drawn(&draw::view(l, &s_prev, &r_prev));
    let mut arrows = render::messages::messages(&r_prev.trace, l, "b");
    let mut banner = render::verdict::banner(&r_prev.trace, &r_prev.ghost, &r_prev.contrast);
    let (mut runs_t, mut lanes_t, mut rest_t) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let (mut writes, mut redrawn) = (0usize, 0usize);
    for i in 0..frames {
        // The pause's length sweeps 1..100 ms and back, a new length every frame.
        let f100 = (i % 100) as u64;
        let ms = 1 + if (i / 100) % 2 == 1 { 99 - f100 } else { f100 };
        let t = Instant::now();
        let mut s = s_prev.clone();
        if let Some(Event::Pause { duration_ms, .. }) = s.clients[0].events.get_mut(1) {
            *duration_ms = ms;
        }
        assert!(s.validate().is_ok());
        let r = Runs::of(&s);
        runs_t += t.elapsed();
        let t = Instant::now();
        let (a, b) = (draw::view(l, &s_prev, &r_prev), draw::view(l, &s, &r));
        for (key, was) in lanes.iter_mut() {
            if same(&a, &b, *key) {
                continue;
            }
            let Some(now) = lane(&b, *key) else { continue };
            writes += diff(was, &now).len();
            redrawn += 1;
            *was = now;
        }
        lanes_t += t.elapsed();
        let t = Instant::now();
        let next = render::messages::messages(&r.trace, l, "b");
        writes += diff(&arrows, &next).len();
        arrows = next;
        let next = render::verdict::banner(&r.trace, &r.ghost, &r.contrast);
        writes += diff(&banner, &next).len();
        banner = next;
        rest_t += t.elapsed();
        (s_prev, r_prev) = (s, r);
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / frames as f64;
    println!(
        "{frames} frames: per frame {:.1} µs runs, {:.1} µs lanes ({:.2} redrawn), {:.1} µs arrows and banner; {:.1} writes",
        per(runs_t),
        per(lanes_t),
        redrawn as f64 / frames as f64,
        per(rest_t),
        writes as f64 / frames as f64
    );
    assert!(writes > 0, "the drag changed nothing");
}
