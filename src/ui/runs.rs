//! The runs behind the page: the scenario's run and the comparison the core chooses for it.
//! A run of up to a few thousand actions runs within the render that asked, so a drag stays
//! one simulation per frame; a longer one goes on in slices of at most half a frame, between
//! which the browser handles input.

use crate::sim::compare::{self, Contrast};
use crate::sim::engine::{Progress, Run, Words};
use crate::sim::scenario::SYNC_STEPS;
use crate::sim::{Scenario, Trace};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::Callback;
/// The run, and the comparison the core chooses for it (`sim::compare`): the same schedule
/// with the fence check flipped, or with the fence the lock service lacks, computed once per
/// scenario. With nothing to compare, the ghost is the run itself and `contrast` says why.
/// The run keeps its step texts but not its narration, which the narration tells when it
/// shows (on the drop, mid-drag); the comparison is drawn from its ledger and verdict alone,
/// so it is the lean run, without words (`tests/lean.rs`: the same verdicts).
#[derive(PartialEq)]
pub struct Runs {
    pub trace: Rc<Trace>,
    pub ghost: Rc<Trace>,
    pub contrast: Rc<Contrast>,
}

/// How long the page computes in one slice before the browser gets the main thread back to
/// handle input: half a frame.
const SLICE_MS: f64 = 8.0;
/// Actions taken between two looks at the clock, at most: a chunk doubles while it takes under
/// a millisecond and halves when it takes more, since one action may cost a microsecond or
/// (a reading of a clock under thousands of slews) a millisecond.
const MAX_CHUNK: u32 = 4_096;

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// One of the two runs of a scenario, on its way to a trace.
struct Stage {
    run: Option<Run>,
    trace: Option<Rc<Trace>>,
    chunk: u32,
}

impl Stage {
    fn new(s: &Scenario, words: Words) -> Stage {
        Stage {
            run: Some(Run::with_words(s, words)),
            trace: None,
            chunk: 16,
        }
    }

    /// Takes at most `steps` actions and finishes the run if that was all; true if it was.
    fn at_once(&mut self, steps: u32) -> bool {
        if let Some(run) = self.run.as_mut() {
            if run.advance(steps) == Progress::Done {
                self.trace = self.run.take().map(|r| Rc::new(r.finish()));
            }
        }
        self.trace.is_some()
    }

    /// Works until `deadline` (a `performance.now()` reading); true once the trace is there.
    fn work(&mut self, deadline: f64) -> bool {
        let mut now = now_ms();
        while let Some(run) = self.run.as_mut() {
            if now >= deadline {
                return false;
            }
            if run.advance(self.chunk) == Progress::Done {
                self.trace = self.run.take().map(|r| Rc::new(r.finish()));
            }
            let then = now;
            now = now_ms();
            self.chunk = match now - then {
                d if d < 1.0 => (self.chunk * 2).min(MAX_CHUNK),
                d if d > 2.0 => (self.chunk / 2).max(1),
                _ => self.chunk,
            };
        }
        self.trace.is_some()
    }
}

/// The run and the comparison `sim::compare` chose for it (none: the ghost is the run itself),
/// on their way.
pub(super) struct Slices {
    trace: Stage,
    ghost: Option<Stage>,
    contrast: Rc<Contrast>,
}

impl Slices {
    fn work(&mut self, deadline: f64) -> bool {
        self.trace.work(deadline) && self.ghost.as_mut().is_none_or(|g| g.work(deadline))
    }

    fn runs(&self) -> Option<Rc<Runs>> {
        Some(Rc::new(Runs {
            trace: self.trace.trace.clone()?,
            ghost: match &self.ghost {
                Some(g) => g.trace.clone()?,
                None => self.trace.trace.clone()?,
            },
            contrast: self.contrast.clone(),
        }))
    }
}

/// The runs of one scenario: done within the render that asked (up to `SYNC_STEPS` actions
/// each), or continued in slices of at most `SLICE_MS` with the browser handling input in
/// between.
pub(super) enum Job {
    Ready(Rc<Runs>),
    Pending(Rc<RefCell<Slices>>),
}

pub(super) fn start(s: &Scenario) -> Job {
    let other = compare::counterfactual(s);
    let mut slices = Slices {
        trace: Stage::new(s, Words::Steps),
        ghost: other.scenario.as_ref().map(|o| Stage::new(o, Words::None)),
        contrast: Rc::new(other.contrast),
    };
    let done = slices.trace.at_once(SYNC_STEPS)
        && slices.ghost.as_mut().is_none_or(|g| g.at_once(SYNC_STEPS));
    match done.then(|| slices.runs()).flatten() {
        Some(runs) => Job::Ready(runs),
        None => Job::Pending(Rc::new(RefCell::new(slices))),
    }
}

/// A job compared by identity, for the effect that slices it.
#[derive(Clone)]
pub(super) struct JobRef(pub(super) Rc<Job>);

impl PartialEq for JobRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Schedules the next slice of a pending job after the browser's queued input, unless the
/// job was dropped (its scenario changed) in the meantime.
pub(super) fn slice_later(
    slices: Rc<RefCell<Slices>>,
    dropped: Rc<Cell<bool>>,
    done: Callback<Rc<Runs>>,
) {
    let tick = move || {
        if dropped.get() {
            return;
        }
        let finished = slices.borrow_mut().work(now_ms() + SLICE_MS);
        let runs = finished.then(|| slices.borrow().runs()).flatten();
        match runs {
            Some(runs) => done.emit(runs),
            None => slice_later(slices, dropped, done),
        }
    };
    let callback = Closure::once_into_js(tick);
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), 0);
    }
}

/// The runs of a scenario before anything ran, drawn while its first run is computed.
pub(super) fn not_started(s: &Scenario) -> Rc<Runs> {
    let trace = Rc::new(Run::not_started(s));
    Rc::new(Runs {
        ghost: trace.clone(),
        trace,
        contrast: Rc::new(compare::counterfactual(s).contrast),
    })
}
