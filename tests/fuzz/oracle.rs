//! What every input must satisfy, and how a failing one is made small before it is saved.
//! A valid scenario's run must keep `sim::invariants` (checked here explicitly, not only by
//! the engine's debug assertion, so a build without debug assertions checks them too) and its
//! lean run must agree with it on the verdict and on everything else it reports.

use fencing_playground::link;
use fencing_playground::sim::engine::run_lean;
use fencing_playground::sim::scenario::work;
use fencing_playground::sim::{invariants, run, Scenario, Trace};
use serde_json::Value;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// The bounds for one run natively: time and the size of its trace.
const SLOW_MS: u128 = 250;
const MAX_TRACE_BYTES: usize = 10_000_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    Panic(String),
    Nondeterministic,
    JsonRoundTrip,
    LinkRoundTrip,
    Underestimated {
        work: u64,
    },
    Slow {
        ms: u128,
    },
    BigTrace {
        bytes: usize,
    },
    BadMessage(String),
    /// The full run's trace broke one of `sim::invariants` (the first, in words).
    Invariant(String),
    /// The lean run's trace differs from the full run's, words aside, at this key.
    LeanDisagrees(String),
}

impl Failure {
    pub fn kind(&self) -> &'static str {
        match self {
            Failure::Panic(_) => "panic",
            Failure::Nondeterministic => "nondeterminism",
            Failure::JsonRoundTrip => "json-round-trip",
            Failure::LinkRoundTrip => "link-round-trip",
            Failure::Underestimated { .. } => "work-underestimated",
            Failure::Slow { .. } => "slow",
            Failure::BigTrace { .. } => "big-trace",
            Failure::BadMessage(_) => "bad-message",
            Failure::Invariant(_) => "invariant",
            Failure::LeanDisagrees(_) => "lean-disagrees",
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Panic(m) => write!(f, "panicked: {m}"),
            Failure::Nondeterministic => write!(f, "two runs gave different traces"),
            Failure::JsonRoundTrip => write!(f, "the scenario did not survive its own JSON"),
            Failure::LinkRoundTrip => write!(f, "the scenario did not survive its link"),
            Failure::Underestimated { work } => {
                write!(
                    f,
                    "the run hit a step limit of {work}, the work validate counted"
                )
            }
            Failure::Slow { ms } => write!(f, "the run took {ms} ms (at most {SLOW_MS})"),
            Failure::BigTrace { bytes } => write!(f, "the trace is {bytes} bytes"),
            Failure::BadMessage(m) => write!(f, "unhelpful message: {m}"),
            Failure::Invariant(m) => write!(f, "broken invariant: {m}"),
            Failure::LeanDisagrees(k) => {
                write!(f, "the lean run disagrees with the full run on `{k}`")
            }
        }
    }
}

thread_local! {
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Panics inside `guarded` are findings and are not printed; any other panic is the harness's
/// own and is printed as usual.
pub fn quiet_panics_in_guarded() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !GUARDED.with(|g| g.get()) {
            default(info);
        }
    }));
}

fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, Failure> {
    GUARDED.with(|g| g.set(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(false));
    result.map_err(|p| {
        let m = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Failure::Panic(m)
    })
}

fn check_error(e: &fencing_playground::sim::ScenarioError) -> Result<(), Failure> {
    let m = e.to_string();
    if e.message.is_empty() || m.contains("internal") {
        return Err(Failure::BadMessage(m));
    }
    Ok(())
}

/// Whether runs are timed: only while fuzzing in an optimised build. Replaying the corpus never
/// times anything, so the test command holds no timed test; slow inputs are kept apart.
static TIMED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// How many valid scenarios were run and checked, for the fuzzer's report.
pub static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub fn time_runs(on: bool) {
    TIMED.store(
        on && !cfg!(debug_assertions),
        std::sync::atomic::Ordering::Relaxed,
    );
}

/// Reads a scenario text; a valid one is run and checked.
pub fn check_scenario(text: &str) -> Result<(), Failure> {
    match guarded(|| Scenario::from_json(text))? {
        Ok(s) => check_valid(&s),
        Err(e) => check_error(&e),
    }
}

/// Decodes a link; a valid one is run and checked.
pub fn check_link(text: &str) -> Result<(), Failure> {
    match guarded(|| link::decode(text))? {
        Ok(s) => check_valid(&s),
        Err(e) => check_error(&e),
    }
}

fn check_valid(s: &Scenario) -> Result<(), Failure> {
    if guarded(|| Scenario::from_json(&s.to_json()))?.as_ref() != Ok(s) {
        return Err(Failure::JsonRoundTrip);
    }
    // A link over the decoder's length limit is refused (the scenario travels as a file).
    let hash = link::encode(s);
    let fits = hash.len() <= link::MAX_LINK_CHARS;
    if fits && guarded(|| link::decode(&hash))?.as_ref() != Ok(s) {
        return Err(Failure::LinkRoundTrip);
    }
    let start = Instant::now();
    let first = guarded(|| run(s))?;
    let mut ms = start.elapsed().as_millis();
    // A busy machine can stall any one run: only the best of three counts as slow.
    if TIMED.load(std::sync::atomic::Ordering::Relaxed) && ms > SLOW_MS {
        for _ in 0..2 {
            let start = Instant::now();
            let _ = guarded(|| run(s))?;
            ms = ms.min(start.elapsed().as_millis());
        }
    }
    let text = serde_json::to_string(&first).unwrap_or_default();
    let again = guarded(|| run(s))?;
    if serde_json::to_string(&again).unwrap_or_default() != text {
        return Err(Failure::Nondeterministic);
    }
    let lean = guarded(|| run_lean(s))?;
    RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    check_runs(s, &first, &lean)?;
    let w = work(s).total();
    if first.step_limit_hit && u64::from(s.step_limit) >= w {
        return Err(Failure::Underestimated { work: w });
    }
    if text.len() > MAX_TRACE_BYTES {
        return Err(Failure::BigTrace { bytes: text.len() });
    }
    if TIMED.load(std::sync::atomic::Ordering::Relaxed) && ms > SLOW_MS {
        return Err(Failure::Slow { ms });
    }
    Ok(())
}

/// The full run `full` of `s` against the invariants, and the lean run `lean` against the full
/// run: the same verdict and, words aside, the same trace.
pub fn check_runs(s: &Scenario, full: &Trace, lean: &Trace) -> Result<(), Failure> {
    if let Some(broken) = invariants::check(s, full).into_iter().next() {
        return Err(Failure::Invariant(broken));
    }
    if lean.verdict != full.verdict {
        return Err(Failure::LeanDisagrees("verdict".into()));
    }
    let json = |t: &Trace| serde_json::to_value(without_words(t)).unwrap_or_default();
    let (full, lean) = (json(full), json(lean));
    if full == lean {
        return Ok(());
    }
    let key = match (&full, &lean) {
        (Value::Object(f), Value::Object(l)) => f
            .iter()
            .find(|(k, v)| l.get(k.as_str()) != Some(*v))
            .map(|(k, _)| k.clone()),
        _ => None,
    };
    Err(Failure::LeanDisagrees(
        key.unwrap_or_else(|| "the trace".into()),
    ))
}

/// A trace with every word a lean run leaves out taken out (as `tests/lean.rs` does).
fn without_words(t: &Trace) -> Trace {
    let mut t = t.clone();
    for s in &mut t.steps {
        s.text.clear();
    }
    for m in &mut t.messages {
        m.label.clear();
    }
    t.narration.clear();
    t
}

/// The same failure as `f` (same kind), for shrinking.
fn same(target: &str, text: &str, f: &Failure) -> bool {
    let got = if target == "link" {
        check_link(text)
    } else {
        check_scenario(text)
    };
    got.err().is_some_and(|g| g.kind() == f.kind())
}

/// Removes list items and object fields one at a time while the failure persists, so that a
/// reproducer is as small as the failure allows. Links and texts that are not JSON are kept.
pub fn shrink(target: &str, text: &str, f: &Failure) -> String {
    let Ok(mut v) = serde_json::from_str::<Value>(text) else {
        return text.to_string();
    };
    let compact = v.to_string();
    if target != "scenario" || compact != text && !same(target, &compact, f) {
        return text.to_string();
    }
    let mut tries = if matches!(f, Failure::Slow { .. }) {
        40
    } else {
        2_000
    };
    let mut progress = true;
    while progress && tries > 0 {
        progress = false;
        let mut paths = Vec::new();
        leaves(&v, &mut Vec::new(), &mut paths);
        // Longest lists first: halving them shrinks fastest.
        for path in paths.into_iter().rev() {
            if tries == 0 {
                break;
            }
            tries -= 1;
            let mut smaller = v.clone();
            if remove(&mut smaller, &path) && same(target, &smaller.to_string(), f) {
                v = smaller;
                progress = true;
                break;
            }
        }
    }
    v.to_string()
}

/// Every removable part: array items (whole halves of long arrays first) and object fields.
fn leaves(v: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(Value::from(k.as_str()));
                out.push(path.clone());
                leaves(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(Value::from(i));
                out.push(path.clone());
                leaves(x, path, out);
                path.pop();
            }
            if a.len() > 8 {
                path.push(Value::from("half"));
                out.push(path.clone());
                path.pop();
            }
        }
        _ => {}
    }
}

fn remove(v: &mut Value, path: &[Value]) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return false;
    };
    let mut at = v;
    for k in parents {
        at = match (k, at) {
            (Value::String(k), Value::Object(m)) => match m.get_mut(k) {
                Some(x) => x,
                None => return false,
            },
            (Value::Number(i), Value::Array(a)) => {
                match a.get_mut(i.as_u64().unwrap_or(0) as usize) {
                    Some(x) => x,
                    None => return false,
                }
            }
            _ => return false,
        };
    }
    match (last, at) {
        (Value::String(k), Value::Array(a)) if k == "half" => {
            a.truncate(a.len() / 2);
            true
        }
        (Value::String(k), Value::Object(m)) => m.remove(k).is_some(),
        (Value::Number(i), Value::Array(a)) => {
            let i = i.as_u64().unwrap_or(0) as usize;
            i < a.len() && {
                a.remove(i);
                true
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencing_playground::sim::presets::preset;
    use fencing_playground::sim::trace::BalancePoint;

    #[test]
    fn the_oracle_refuses_a_broken_invariant_and_a_lean_run_that_disagrees() {
        let s = preset("gc-pause-fenced").expect("the preset");
        let (full, lean) = (run(&s), run_lean(&s));
        assert_eq!(check_runs(&s, &full, &lean), Ok(()));
        let mut broken = full.clone();
        broken.balance.push(BalancePoint {
            at_ms: 1,
            balance: 7,
        });
        assert!(matches!(
            check_runs(&s, &broken, &lean),
            Err(Failure::Invariant(_))
        ));
        let mut other = lean.clone();
        other.verdict.safe = !other.verdict.safe;
        assert_eq!(
            check_runs(&s, &full, &other),
            Err(Failure::LeanDisagrees("verdict".into()))
        );
        let mut other = lean.clone();
        other.final_balance += 1;
        assert_eq!(
            check_runs(&s, &full, &other),
            Err(Failure::LeanDisagrees("finalBalance".into()))
        );
        // Words are what a lean run leaves out.
        let mut other = lean;
        other.steps[0].text = "a word".into();
        assert_eq!(check_runs(&s, &full, &other), Ok(()));
    }
}
