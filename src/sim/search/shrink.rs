//! Shrinking, as proptest and Hypothesis do it: a failing schedule is made smaller one step at
//! a time, and a step is kept only when the smaller schedule still fails (every kept step is a
//! run that failed). The steps, tried in this order until none applies: drop a fault, drop one
//! of the scenario's own events, weaken a fault (shorter pause, delay, outage or partition;
//! smaller jump; keys kept; one client cut off instead of all), move a fault to a round time.
//! Each kept step makes (faults, own events, total size, roughness of times) smaller in that
//! order, so shrinking ends; it is also bounded by a number of runs.

use super::fault::{bounds_of, scenario_of, Fault, Own, Schedule};
use super::probe::fails;
use super::spec::SearchSpec;
use crate::sim::scenario::Scenario;
use serde::Serialize;

/// One kept step: what changed, and how many faults and own events remain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShrinkStep {
    pub text: String,
    pub faults: usize,
    pub own_events: usize,
}

pub struct Shrunk {
    pub schedule: Schedule,
    pub steps: Vec<ShrinkStep>,
    /// Runs spent, kept or not.
    pub runs: u64,
    /// True when the run bound stopped shrinking before no step applied.
    pub cut_short: bool,
}

/// How far a time is from round: 0 on a multiple of 10, 1 on a multiple of 5, else 2.
fn roughness(t: u64) -> u8 {
    if t % 10 == 0 {
        0
    } else if t % 5 == 0 {
        1
    } else {
        2
    }
}

fn own_events(base: &Scenario, dropped: &[Own]) -> Vec<Own> {
    let clients = base.clients.iter().enumerate().flat_map(|(c, cl)| {
        (0..cl.events.len()).map(move |e| Own::Client {
            client: c,
            event: e,
        })
    });
    let instances = base
        .lock
        .redlock()
        .into_iter()
        .flat_map(|r| r.instances.iter().enumerate())
        .flat_map(|(i, inst)| {
            (0..inst.events.len()).map(move |e| Own::Instance {
                instance: i,
                event: e,
            })
        });
    clients
        .chain(instances)
        .filter(|o| !dropped.contains(o))
        .collect()
}

fn own_text(base: &Scenario, o: &Own) -> String {
    match *o {
        Own::Client { client, event } => {
            let c = &base.clients[client];
            let e = &c.events[event];
            format!("{}'s {} at {} ms", c.name, e.kind(), e.at_ms())
        }
        Own::Instance { instance, event } => {
            let Some(inst) = base.lock.redlock().and_then(|r| r.instances.get(instance)) else {
                return "an instance event".to_string();
            };
            let at = inst.events.get(event).map_or(0, |e| e.at_ms());
            format!("{}'s event at {at} ms", inst.name)
        }
    }
}

/// Weaker versions of a fault, weakest first.
fn weaker(f: &Fault, spec: &SearchSpec, clients: usize) -> Vec<Fault> {
    let mut out = Vec::new();
    if let Some(v) = f.size() {
        let r = bounds_of(f, spec);
        let sign = v.signum();
        // The smallest size of the same sign the bounds allow.
        let lo = if sign >= 0 {
            r.min.max(1)
        } else {
            r.max.min(-1)
        };
        let mut sizes = vec![lo, v - (v - lo) / 2, v - sign];
        sizes.dedup();
        for s in sizes {
            if s.abs() < v.abs() && s.signum() == sign && (r.min..=r.max).contains(&s) {
                out.push(f.with_size(s));
            }
        }
    }
    match f {
        Fault::InstanceCrash {
            persistent: false, ..
        } => {
            let mut g = f.clone();
            if let Fault::InstanceCrash { persistent, .. } = &mut g {
                *persistent = true;
            }
            out.push(g);
        }
        Fault::Partition { client: None, .. } => {
            for c in 0..clients {
                let mut g = f.clone();
                if let Fault::Partition { client, .. } = &mut g {
                    *client = Some(c);
                }
                out.push(g);
            }
        }
        _ => {}
    }
    out
}

/// The same fault at rounder times: the nearest multiples of 10, then of 5.
fn rounder(f: &Fault) -> Vec<Fault> {
    let Some(t) = f.at_ms() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for step in [10, 5] {
        for u in [t - t % step, t - t % step + step] {
            if roughness(u) < roughness(t) && !out.contains(&f.with_at_ms(u)) {
                out.push(f.with_at_ms(u));
            }
        }
    }
    out
}

/// Every single step from `cur`, in the order they are tried, with its words.
fn candidates(base: &Scenario, spec: &SearchSpec, cur: &Schedule) -> Vec<(Schedule, String)> {
    let mut out = Vec::new();
    for (i, f) in cur.faults.iter().enumerate() {
        let mut s = cur.clone();
        s.faults.remove(i);
        out.push((s, format!("dropped a fault: {}", f.text(base))));
    }
    for o in own_events(base, &cur.dropped) {
        let mut s = cur.clone();
        s.dropped.push(o);
        s.dropped.sort();
        out.push((s, format!("left out {}", own_text(base, &o))));
    }
    for (i, f) in cur.faults.iter().enumerate() {
        for g in weaker(f, spec, base.clients.len()) {
            let mut s = cur.clone();
            let text = format!("weaker: {}", g.text(base));
            s.faults[i] = g;
            out.push((s, text));
        }
    }
    for (i, f) in cur.faults.iter().enumerate() {
        for g in rounder(f) {
            let mut s = cur.clone();
            let text = format!("rounder: {}", g.text(base));
            s.faults[i] = g;
            out.push((s, text));
        }
    }
    out
}

/// A shrink taken a slice at a time, so the main thread can run it between frames:
/// `advance(runs)` spends at most that many runs and says whether shrinking is over, `finish`
/// gives the result. Any split of the runs gives what one `advance(u64::MAX)` gives, because
/// the state between slices is exactly the loop's: the schedule so far and the position in its
/// list of candidates.
pub struct Shrinker {
    cur: Schedule,
    steps: Vec<ShrinkStep>,
    runs: u64,
    max_runs: u64,
    /// The current schedule's candidates, the next one to try at `next`.
    candidates: Vec<(Schedule, String)>,
    next: usize,
    done: bool,
    cut_short: bool,
}

impl Shrinker {
    pub fn new(base: &Scenario, spec: &SearchSpec, start: Schedule, max_runs: u64) -> Shrinker {
        let candidates = candidates(base, spec, &start);
        Shrinker {
            cur: start,
            steps: Vec::new(),
            runs: 0,
            max_runs,
            candidates,
            next: 0,
            done: false,
            cut_short: false,
        }
    }

    /// Runs at most `budget` candidates; true once shrinking is over (no step applies, or the
    /// run bound is spent). `base` and `spec` must be the ones given to `new`.
    pub fn advance(&mut self, base: &Scenario, spec: &SearchSpec, budget: u64) -> bool {
        let failure = spec.failure.as_ref();
        self.advance_by(base, spec, budget, |s| fails(s, failure))
    }

    /// `advance` with another meaning of "still fails": `still_fails` judges each candidate
    /// scenario (the lab uses it with "real servers disagree with the model").
    pub fn advance_by(
        &mut self,
        base: &Scenario,
        spec: &SearchSpec,
        budget: u64,
        mut still_fails: impl FnMut(&Scenario) -> bool,
    ) -> bool {
        let mut spent = 0;
        while !self.done && spent < budget {
            let Some((cand, _)) = self.candidates.get(self.next) else {
                self.done = true;
                break;
            };
            if self.runs >= self.max_runs {
                self.done = true;
                self.cut_short = true;
                break;
            }
            self.runs += 1;
            spent += 1;
            if still_fails(&scenario_of(base, cand)) {
                let (cand, text) = self.candidates.swap_remove(self.next);
                self.steps.push(ShrinkStep {
                    text,
                    faults: cand.faults.len(),
                    own_events: own_events(base, &cand.dropped).len(),
                });
                self.candidates = candidates(base, spec, &cand);
                self.next = 0;
                self.cur = cand;
            } else {
                self.next += 1;
            }
        }
        self.done
    }

    /// Runs spent so far.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// The result: the smallest schedule reached and the steps kept.
    pub fn finish(self) -> Shrunk {
        Shrunk {
            schedule: self.cur,
            steps: self.steps,
            runs: self.runs,
            cut_short: self.cut_short,
        }
    }
}

/// Shrinks a failing schedule in one call; `max_runs` bounds the work.
pub fn shrink(base: &Scenario, spec: &SearchSpec, start: Schedule, max_runs: u64) -> Shrunk {
    let mut s = Shrinker::new(base, spec, start, max_runs);
    s.advance(base, spec, u64::MAX);
    s.finish()
}

/// Shrinks a schedule that `still_fails` in one call, by the same steps in the same order;
/// `max_runs` bounds the calls to `still_fails`.
pub fn shrink_by(
    base: &Scenario,
    spec: &SearchSpec,
    start: Schedule,
    max_runs: u64,
    still_fails: impl FnMut(&Scenario) -> bool,
) -> Shrunk {
    let mut s = Shrinker::new(base, spec, start, max_runs);
    s.advance_by(base, spec, u64::MAX, still_fails);
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::breaks::without_faults;
    use crate::sim::presets::presets;
    use crate::sim::search::spec::{FaultKind, Strategy};
    use crate::sim::search::Plan;
    use crate::sim::trace::ViolationKind;

    /// The shrinker as it was written before it could be taken in slices: one loop, one call.
    /// The resumable one must give exactly this.
    fn one_shot(base: &Scenario, spec: &SearchSpec, start: Schedule, max_runs: u64) -> Shrunk {
        let failure = spec.failure.as_ref();
        let mut cur = start;
        let mut steps = Vec::new();
        let mut runs = 0;
        'outer: loop {
            for (cand, text) in candidates(base, spec, &cur) {
                if runs >= max_runs {
                    return Shrunk {
                        schedule: cur,
                        steps,
                        runs,
                        cut_short: true,
                    };
                }
                runs += 1;
                if fails(&scenario_of(base, &cand), failure) {
                    steps.push(ShrinkStep {
                        text,
                        faults: cand.faults.len(),
                        own_events: own_events(base, &cand.dropped).len(),
                    });
                    cur = cand;
                    continue 'outer;
                }
            }
            return Shrunk {
                schedule: cur,
                steps,
                runs,
                cut_short: false,
            };
        }
    }

    /// Failing schedules to shrink: from every preset, with the faults of a few kinds taken
    /// out, the first failing schedules of random searches of up to three faults (and the
    /// empty schedule of a preset that fails as is).
    fn cases() -> Vec<(Scenario, SearchSpec, Schedule)> {
        use FaultKind::*;
        let kinds: [&[FaultKind]; 3] = [
            &[Pause, Delay, ClientCrash],
            &[Pause, ClientClockJump, LockClockJump],
            &[InstanceCrash, Partition, Pause],
        ];
        let mut out = Vec::new();
        for p in presets() {
            for (n, kinds) in kinds.iter().enumerate() {
                let mut base = p.scenario.clone();
                without_faults(&mut base, kinds);
                let spec = SearchSpec {
                    faults: kinds.to_vec(),
                    max_faults: 3,
                    strategy: Strategy::Swarm,
                    seed: n as u64 + 7,
                    budget: 400,
                    failure: (n == 1).then_some(ViolationKind::StaleWriteAccepted),
                    ..SearchSpec::default()
                };
                let plan = Plan::new(&base, &spec);
                let faults = if plan.fails_as_is() {
                    Some(Vec::new())
                } else {
                    plan.scan(0, plan.total()).map(|i| plan.faults_of(i))
                };
                if let Some(faults) = faults {
                    let start = Schedule {
                        faults,
                        dropped: Vec::new(),
                    };
                    out.push((base, spec, start));
                }
            }
        }
        out
    }

    fn same(a: &Shrunk, b: &Shrunk) -> bool {
        a.schedule == b.schedule
            && a.steps == b.steps
            && a.runs == b.runs
            && a.cut_short == b.cut_short
    }

    #[test]
    fn in_slices_it_shrinks_exactly_as_in_one_call() {
        let cases = cases();
        assert!(cases.len() >= 20, "only {} cases", cases.len());
        let mut kept = 0;
        let mut cut = 0;
        for (base, spec, start) in &cases {
            for max_runs in [super::super::SHRINK_RUNS, 9] {
                let want = one_shot(base, spec, start.clone(), max_runs);
                kept += want.steps.len();
                cut += usize::from(want.cut_short);
                assert!(same(&shrink(base, spec, start.clone(), max_runs), &want));
                for budget in [1, 2, 3, 7] {
                    let mut s = Shrinker::new(base, spec, start.clone(), max_runs);
                    let mut slices = 0;
                    while !s.advance(base, spec, budget) {
                        slices += 1;
                        assert!(s.runs() <= slices * budget, "a slice ran over its budget");
                    }
                    let got = s.finish();
                    assert!(
                        same(&got, &want),
                        "{}: in slices of {budget} runs: {:?} / {:?}, one call: {:?} / {:?}",
                        base.name,
                        got.schedule,
                        got.steps,
                        want.schedule,
                        want.steps
                    );
                }
            }
        }
        // The cases exercise kept steps and the run bound, not only schedules that cannot shrink.
        assert!(kept >= 40, "only {kept} kept steps");
        assert!(cut >= 5, "only {cut} shrinks cut short");
    }

    #[test]
    fn another_judge_of_failure_shrinks_by_the_same_steps() {
        let cases = cases();
        for (base, spec, start) in cases.iter().take(12) {
            let failure = spec.failure.as_ref();
            let mut calls = 0;
            let got = shrink_by(base, spec, start.clone(), 30, |s| {
                calls += 1;
                fails(s, failure)
            });
            assert!(
                same(&got, &shrink(base, spec, start.clone(), 30)),
                "{}",
                base.name
            );
            assert_eq!(calls, got.runs, "{}: one judgement per run", base.name);
        }
        // A judge that never agrees keeps nothing: the schedule comes back as it went in.
        let (base, spec, start) = cases
            .iter()
            .find(|c| !c.2.faults.is_empty())
            .expect("faults");
        let got = shrink_by(base, spec, start.clone(), 30, |_| false);
        assert_eq!((&got.schedule, got.steps.len()), (start, 0));
    }

    #[test]
    fn a_slice_of_zero_runs_runs_nothing() {
        let Some((base, spec, start)) = cases().into_iter().find(|c| !c.2.faults.is_empty()) else {
            panic!("no case with faults");
        };
        let mut s = Shrinker::new(&base, &spec, start, 100);
        assert!(!s.advance(&base, &spec, 0));
        assert_eq!(s.runs(), 0);
    }
}
