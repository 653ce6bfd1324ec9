//! The first stage of the page: what a first visit can use before the full playground has
//! arrived. It shows the default scenario's verdict and timeline and lets the reader drag its
//! events; every verdict comes from the same core as the full page, and the timeline uses the
//! same layout, hit areas, shapes and words (`ui::lanes`). It has no controls, no inspector and
//! no narration: those come with the full page, which takes over (with the reader's edit, read
//! from the link it leaves in the hash) as soon as it is loaded.
//!
//! A link or a saved scenario is drawn by it too, when it can be: a single Redis (it has no
//! Redlock or etcd lanes) whose runs fit in one render (`First::open`); any other goes straight to
//! the full page, which reads it and says what is wrong with it, if anything.
//!
//! It is built as a wasm of its own (feature `first-stage`) without Yew: markup is written as
//! text (`draw`), and `js` hands it to the page. This module and `draw` are plain Rust, tested
//! natively.

pub mod draw;
mod frame_cost;
#[cfg(all(target_arch = "wasm32", feature = "first-stage"))]
mod js;

use crate::sim::compare::{counterfactual, Contrast};
use crate::sim::engine::{Progress, Run, Words};
use crate::sim::scenario::{LockService, SYNC_STEPS};
use crate::sim::{Scenario, Trace};
use crate::ui::lanes::geometry::{axis_end_ms, Layout};
use crate::ui::lanes::hits::client_hits;
use crate::ui::model::heading::{heading, Heading};
use crate::ui::model::item::{LaneItem, Part};
use crate::ui::model::selection::{get, set_edge, EventRef};

/// The run of a scenario and the comparison the core chooses for it, as the full page has them.
pub struct Runs {
    pub trace: Trace,
    pub ghost: Trace,
    pub contrast: Contrast,
}

impl Runs {
    pub fn of(s: &Scenario) -> Runs {
        let trace = Run::with_words(s, Words::Steps).finish();
        let other = counterfactual(s);
        let ghost = match &other.scenario {
            Some(o) => Run::with_words(o, Words::None).finish(),
            None => trace.clone(),
        };
        Runs {
            trace,
            ghost,
            contrast: other.contrast,
        }
    }

    /// The runs of `s` if each takes at most `steps` actions, as the full page computes them
    /// within one render; `None` for a run it would compute in slices.
    pub fn within(s: &Scenario, steps: u32) -> Option<Runs> {
        let at_once = |s: &Scenario, words: Words| {
            let mut run = Run::with_words(s, words);
            (run.advance(steps) == Progress::Done).then(|| run.finish())
        };
        let trace = at_once(s, Words::Steps)?;
        let other = counterfactual(s);
        let ghost = match &other.scenario {
            Some(o) => at_once(o, Words::None)?,
            None => trace.clone(),
        };
        Some(Runs {
            trace,
            ghost,
            contrast: other.contrast,
        })
    }
}

/// A part of an event held by the pointer, and how far from its edge it was grabbed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Grab {
    event: EventRef,
    part: Part,
    offset_ms: i64,
}

/// The first stage's whole state: the scenario, its runs, the layout and the drag.
pub struct First {
    pub scenario: Scenario,
    pub runs: Runs,
    pub layout: Layout,
    /// What the head of the page says: the preset's title and caption until the reader's
    /// first drop, then that it is edited (the story may no longer hold).
    pub heading: Heading,
    start: Scenario,
    width_px: u32,
    grab: Option<Grab>,
}

impl First {
    pub fn new(scenario: Scenario, width_px: u32) -> First {
        let runs = Runs::of(&scenario);
        First::with_runs(scenario, runs, width_px)
    }

    /// The first stage for a scenario from a link or a save, if it can draw it: a single Redis
    /// (it has no Redlock or etcd lanes) whose runs fit in one render (`SYNC_STEPS` actions
    /// each, the full page's limit before it computes in slices), so the page never freezes
    /// here where the full page would have stayed responsive.
    pub fn open(scenario: Scenario, width_px: u32) -> Option<First> {
        match scenario.lock.service {
            // The first stage's reader refuses an advisory lock, ZooKeeper and a lease row
            // before this.
            LockService::Redis
            | LockService::Advisory(_)
            | LockService::Zookeeper(_)
            | LockService::Lease(_) => {}
            LockService::Redlock(_) | LockService::Etcd(_) => return None,
        }
        let runs = Runs::within(&scenario, SYNC_STEPS)?;
        Some(First::with_runs(scenario, runs, width_px))
    }

    /// `open` for a share link (the page's hash, with or without `#`); `None` for a link that
    /// cannot be read, which the full page then reports in words.
    pub fn from_link(hash: &str, width_px: u32) -> Option<First> {
        First::open(crate::link::decode(hash).ok()?, width_px)
    }

    /// `open` for an autosaved scenario (its JSON); `None` for one that cannot be read.
    pub fn from_saved(json: &str, width_px: u32) -> Option<First> {
        First::open(Scenario::from_json(json).ok()?, width_px)
    }

    fn with_runs(scenario: Scenario, runs: Runs, width_px: u32) -> First {
        let layout = layout_for(&scenario, &runs.trace, width_px);
        First {
            // As the full page derives it: a preset as shipped tells its story, an edited one
            // (from a link too) says it is edited, a scenario of the reader's own its own words.
            heading: heading(&scenario),
            start: scenario.clone(),
            scenario,
            runs,
            layout,
            width_px,
            grab: None,
        }
    }

    /// The box got a new width; true if the drawing changes.
    pub fn resize(&mut self, width_px: u32) -> bool {
        self.width_px = width_px;
        let next = layout_for(&self.scenario, &self.runs.trace, width_px);
        let changed = next != self.layout;
        self.layout = next;
        changed
    }

    /// The pointer went down at `(x, y)` in the timeline's coordinates: true if it took hold of
    /// an event's part (a pause's edge or body, a marker, a debit's arrival).
    pub fn grab(&mut self, x: i32, y: i32) -> bool {
        self.grab = None;
        let Some(client) = self.layout.client_at(y) else {
            return false;
        };
        let (Some(lane), Some(c)) = (
            self.layout
                .lane(crate::ui::lanes::geometry::LaneKind::Client(client)),
            self.scenario.clients.get(client),
        ) else {
            return false;
        };
        let hits = client_hits(&self.layout, lane.top_px, &c.events, true);
        let inside = |r: &crate::ui::lanes::hits::Rect| {
            x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h
        };
        let Some(hit) = hits.iter().find(|h| h.rects.iter().any(inside)) else {
            return false;
        };
        let event = EventRef {
            client,
            event: hit.event,
        };
        let Some(edge) = get(&self.scenario, event)
            .filter(|e| e.has_part(hit.part))
            .map(|e| e.edge_ms(hit.part))
        else {
            return false;
        };
        self.grab = Some(Grab {
            event,
            part: hit.part,
            offset_ms: self.layout.axis.time_at(x) as i64 - edge as i64,
        });
        true
    }

    /// The pointer moved to `x` while holding a part: the part follows it (within its lane) and
    /// the scenario runs again. True if anything moved.
    pub fn follow(&mut self, x: i32) -> bool {
        let Some(g) = self.grab else {
            return false;
        };
        let to_ms = self.layout.axis.time_at(x) as i64 - g.offset_ms;
        let mut next = self.scenario.clone();
        if !set_edge(&mut next, g.event, g.part, to_ms) || next == self.scenario {
            return false;
        }
        if next.validate().is_err() {
            return false;
        }
        self.scenario = next;
        self.runs = Runs::of(&self.scenario);
        // The axis keeps its length while a part is held, as on the full page, so the part
        // stays under the pointer; it is fitted again on release.
        true
    }

    /// The pointer let go; true if the axis changed length to fit the run.
    pub fn release(&mut self) -> bool {
        self.grab = None;
        self.heading = heading(&self.scenario);
        self.resize(self.width_px)
    }

    pub fn dragging(&self) -> bool {
        self.grab.is_some()
    }

    /// The link that restores the scenario on screen, once the reader has changed it.
    pub fn link(&self) -> Option<String> {
        (self.scenario != self.start).then(|| crate::link::encode(&self.scenario))
    }
}

/// The timeline's layout for `s` and its run at `width_px`, as the full page lays it out with
/// a single lock service and the comparison lane.
fn layout_for(s: &Scenario, trace: &Trace, width_px: u32) -> Layout {
    Layout::new(
        width_px,
        s.clients.len(),
        true,
        axis_end_ms(trace.end_ms, s.horizon_ms()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::presets::default_scenario;

    /// Where the middle of a part of A's event is grabbed, from the shared hit areas.
    fn grip(f: &First, event: usize, part: Part) -> (i32, i32) {
        let top = f
            .layout
            .lane(crate::ui::lanes::geometry::LaneKind::Client(0))
            .map(|l| l.top_px)
            .unwrap_or_default();
        let hits = client_hits(&f.layout, top, &f.scenario.clients[0].events, true);
        let r = hits
            .iter()
            .find(|h| h.event == event && h.part == part)
            .map(|h| h.rects[0])
            .expect("the part has a hit area");
        (r.x + r.w / 2, r.y + r.h / 2)
    }

    #[test]
    fn dragging_the_end_of_a_pause_reruns_the_scenario() {
        let mut f = First::new(default_scenario(), 800);
        assert!(!f.runs.trace.verdict.safe, "the default page starts unsafe");
        let pause = f.scenario.clients[0]
            .events
            .iter()
            .position(|e| matches!(e, crate::sim::Event::Pause { .. }))
            .expect("A pauses");
        let (x, y) = grip(&f, pause, Part::End);
        assert!(f.grab(x, y));
        // Back to 20 ms: A wakes while its lease still runs.
        let to = f.layout.axis.x(20);
        assert!(f.follow(to));
        assert_eq!(f.scenario.clients[0].events[pause].end_ms(), 20);
        assert!(f.runs.trace.verdict.safe, "{:?}", f.runs.trace.verdict);
        assert_eq!(f.runs.trace.verdict, crate::sim::run(&f.scenario).verdict);
        assert!(
            matches!(f.heading, Heading::AsWritten { .. }),
            "the heading changes on the drop"
        );
        f.release();
        assert!(!f.dragging());
        assert!(matches!(f.heading, Heading::Edited { .. }));
        let link = f.link().expect("an edited scenario has a link");
        assert_eq!(crate::link::decode(&link).as_ref(), Ok(&f.scenario));
    }

    #[test]
    fn a_press_on_nothing_holds_nothing_and_an_unedited_page_has_no_link() {
        let mut f = First::new(default_scenario(), 800);
        assert!(!f.grab(2, 2));
        assert!(!f.follow(400));
        assert_eq!(f.link(), None);
        assert!(!f.grab(f.layout.width_px - 2, f.layout.height_px - 2));
    }

    /// A scenario of one client whose watchdog renews a 2 ms lease every millisecond for
    /// `ms`: about `ms` actions, the heaviest kind of run a short link can ask for.
    fn renewing_for(ms: u64) -> Scenario {
        let json = format!(
            r#"{{"version":1,"name":"Renewals","endMs":{ms},"lock":{{"ttlMs":2,"watchdog":true}},
            "clients":[{{"name":"A","events":[{{"kind":"acquire","atMs":0}},{{"kind":"debit","atMs":{},"amount":10}}]}}]}}"#,
            ms / 2
        );
        Scenario::from_json(&json).expect("a valid scenario")
    }

    #[test]
    fn a_link_or_a_save_it_can_draw_opens_with_the_heading_the_full_page_gives_it() {
        // A link to a preset as shipped tells its story; nothing changed, so no new link.
        let shipped = crate::sim::presets::preset("watchdog-saves").expect("a preset");
        let f = First::from_link(&crate::link::encode(&shipped), 700).expect("drawn");
        assert_eq!(f.heading, heading(&shipped));
        assert!(matches!(f.heading, Heading::AsWritten { .. }));
        assert_eq!(f.link(), None);
        assert_eq!(f.runs.trace.verdict, crate::sim::run(&shipped).verdict);
        // A link to an edited preset says it is edited, as the full page does.
        let mut edited = default_scenario();
        edited.lock.ttl_ms += 5;
        let f =
            First::from_link(&format!("#{}", crate::link::encode(&edited)), 700).expect("drawn");
        assert!(
            matches!(f.heading, Heading::Edited { .. }),
            "{:?}",
            f.heading
        );
        assert_eq!(f.heading, heading(&edited));
        // A saved scenario is read as the full page reads it.
        let f = First::from_saved(&shipped.to_json(), 700).expect("drawn");
        assert_eq!(f.scenario, shipped);
        // Every preset of a single lock service comes through a link to the first stage.
        for p in crate::sim::presets::presets() {
            let link = crate::link::encode(&p.scenario);
            let opened = First::from_link(&link, 700).map(|f| f.scenario);
            if p.scenario.lock.redlock().is_none() && p.scenario.lock.etcd().is_none() {
                assert_eq!(opened.as_ref(), Some(&p.scenario), "{}", p.id);
            } else {
                assert_eq!(opened, None, "{}", p.id);
            }
        }
    }

    #[test]
    fn what_it_cannot_draw_goes_to_the_full_page() {
        let redlock = crate::sim::presets::preset("redlock-happy").expect("a preset");
        assert!(First::from_link(&crate::link::encode(&redlock), 700).is_none());
        assert!(First::from_saved(&redlock.to_json(), 700).is_none());
        // Damaged or foreign input: the full page says what is wrong with it.
        assert!(First::from_link("#s=1.%%%", 700).is_none());
        assert!(First::from_link("#somewhere", 700).is_none());
        assert!(First::from_saved("{\"version\": 1, \"lock\": 3}", 700).is_none());
        // A run the full page computes in slices is not computed here in one go.
        let light = renewing_for(200);
        assert!(First::open(light.clone(), 700).is_some());
        let heavy = renewing_for(10_000);
        assert!(First::open(heavy.clone(), 700).is_none());
        let mut run = Run::with_words(&heavy, Words::Steps);
        assert_ne!(
            run.advance(SYNC_STEPS),
            Progress::Done,
            "the heavy run is over the limit"
        );
    }

    #[test]
    fn the_runs_are_the_full_pages_runs() {
        for p in crate::sim::presets::presets() {
            let r = Runs::of(&p.scenario);
            let full = crate::sim::run(&p.scenario);
            assert_eq!(r.trace.verdict, full.verdict, "{}", p.id);
            assert_eq!(r.trace.steps, full.steps, "{}", p.id);
            let cf = counterfactual(&p.scenario);
            assert_eq!(r.contrast, cf.contrast, "{}", p.id);
            if let Some(o) = cf.scenario {
                assert_eq!(r.ghost.verdict, crate::sim::run(&o).verdict, "{}", p.id);
            }
        }
    }
}
