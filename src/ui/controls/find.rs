//! "Find a failure": the panel that asks the search whether the scenario on screen can go
//! wrong. The reader picks the fault kinds, what counts as a failure, the most faults per
//! schedule (k), the budget and the seed (with random schedules), presses Search and sees the
//! progress live; Cancel stops it. The search runs in workers (`ui::finder`), which read the
//! spec the form makes (a bad number comes back as the spec's own error, naming the field);
//! the report is read by `model::found`, and a counterexample loads as a new scenario (one
//! undo step) whose faults the timeline marks "found by search". A preset that is safe as
//! written also offers its "what would break this?" searches (`sim::breaks`). Every word of an
//! answer is the core's report; the panel only lays it out. The form is read from the page when
//! Search is pressed and one listener serves every button: the panel costs the page's wasm
//! little.

use crate::sim::breaks::{breakers_for, no_breaker};
use crate::sim::search::grid::service_faults;
use crate::sim::search::spec::MAX_BUDGET;
use crate::sim::search::{FaultKind, SearchSpec};
use crate::sim::Scenario;
use crate::ui::finder::{Event as Found, Finder, Progress, Running};
use crate::ui::model::found::{read_report, Answer};
use crate::ui::model::state::Action;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FindProps {
    pub scenario: Rc<Scenario>,
    /// The preset on screen, unedited, if any: its "what would break this?" entries show.
    pub preset_id: Option<AttrValue>,
    pub finder: Finder,
    /// The summary of the counterexample on screen, when the scenario on screen is one.
    pub found_summary: Option<AttrValue>,
    pub on_action: Callback<Action>,
}

/// What may count as a failure: the spec's names, in words.
const FAILURES: [(&str, &str); 6] = [
    ("any", "any violation"),
    ("stale_write_accepted", "a stale write accepted"),
    ("two_holders", "two holders"),
    ("overlapping_writers", "overlapping writers"),
    (
        "lease_deleted_by_non_owner",
        "a lease deleted by a non-owner",
    ),
    ("balance_mismatch", "a balance mismatch"),
];

/// The fault kinds ticked at first (the spec's default).
const FIRST_KINDS: [FaultKind; 3] = [FaultKind::Pause, FaultKind::Delay, FaultKind::ClientCrash];

#[derive(Clone, Debug, PartialEq)]
enum Status {
    Idle,
    Running(Progress),
    Answered {
        answer: Box<Answer>,
        first_ms: Option<f64>,
        progress: Progress,
        /// The scenarios the answer is about: the one on screen when the search was asked for,
        /// and the counterexample it opened. On any other scenario it is not shown.
        about: Vec<Rc<Scenario>>,
    },
    Cancelled(Progress),
    Failed(String),
}

/// Sets `property` of the element `selector` finds under `root`.
fn set(root: &web_sys::Element, selector: &str, property: &str, value: JsValue) {
    if let Ok(Some(e)) = root.query_selector(selector) {
        let _ = js_sys::Reflect::set(&e, &property.into(), &value);
    }
}

/// The spec's defaults (100 000 schedules, seed 0) and its first fault kinds.
fn first_values(root: &web_sys::Element) {
    let d = SearchSpec::default();
    set(
        root,
        "input[name=budget]",
        "value",
        d.budget.to_string().into(),
    );
    set(root, "input[name=seed]", "value", d.seed.to_string().into());
    for k in FIRST_KINDS {
        let selector = format!("input[data-kind={}]", k.name());
        set(root, &selector, "checked", true.into());
    }
}

fn value_of(root: &web_sys::Element, selector: &str) -> String {
    root.query_selector(selector)
        .ok()
        .flatten()
        .and_then(|e| js_sys::Reflect::get(&e, &"value".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// The spec the form says, as JSON for the workers, which read it as they read any spec: a
/// number out of range is their error, naming the field. Text that is not a number goes as 0.
fn form_spec(root: &web_sys::Element) -> String {
    let mut kinds = Vec::new();
    if let Ok(list) = root.query_selector_all("input[data-kind]:checked") {
        for i in 0..list.length() {
            if let Some(name) = list
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                .and_then(|e| e.get_attribute("data-kind"))
            {
                kinds.push(format!("\"{name}\""));
            }
        }
    }
    let number = |sel: &str| value_of(root, sel).trim().parse::<u64>().unwrap_or(0);
    let swarm = root
        .query_selector("input[name=swarm]:checked")
        .ok()
        .flatten()
        .is_some();
    let failure = value_of(root, "select[name=failure]");
    let failure = FAILURES
        .iter()
        .find(|(n, _)| *n == failure)
        .map_or("any", |(n, _)| n);
    format!(
        "{{\"faults\":[{}],\"maxFaults\":{},\"failure\":\"{failure}\",\"budget\":{},\"seed\":{},\"strategy\":\"{}\"}}",
        kinds.join(","),
        number("select[name=k]"),
        number("input[name=budget]"),
        number("input[name=seed]"),
        // Unchecked: the default, exhaustive while the grid fits the budget, then sampled.
        if swarm { "swarm" } else { "auto" }
    )
}

/// A whole, non-negative number of `x` (no float formatting: it costs the page's wasm
/// kilobytes).
fn whole_of(x: f64) -> u64 {
    if x.is_finite() && x > 0.0 {
        x.round() as u64
    } else {
        0
    }
}

/// Tenths: "0.4".
fn tenths(x: f64) -> String {
    let t = whole_of(x * 10.0);
    format!("{}.{}", t / 10, t % 10)
}

/// "12 345".
fn grouped(n: f64) -> String {
    let digits = whole_of(n).to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// "Tried 1 200 of 16 290 schedules · 95 000 per second · 0.1 s · 2 workers".
fn progress_text(p: &Progress) -> String {
    let secs = p.elapsed_ms / 1000.0;
    let rate = if secs > 0.0 { p.done / secs } else { 0.0 };
    let mode = match p.mode.as_str() {
        "workers" if p.workers == 1.0 => " · 1 worker".to_string(),
        "workers" => format!(" · {} workers", whole_of(p.workers)),
        "" => String::new(),
        m => format!(" · {m}"),
    };
    format!(
        "Tried {} of {} schedules · {} per second · {} s{mode}",
        grouped(p.done),
        grouped(p.total),
        grouped(rate),
        tenths(secs)
    )
}

fn best_text(p: &Progress) -> String {
    match p.best {
        Some(b) => format!(
            "Best so far: schedule #{} fails; checking the ones before it.",
            grouped(b)
        ),
        None => "Best so far: no failing schedule yet.".to_string(),
    }
}

#[component]
pub fn FindPanel(props: &FindProps) -> Html {
    let status = use_state(|| Status::Idle);
    // What a "what would break this?" search ran on, in words (none for the scenario on screen).
    let searched = use_state(|| None::<String>);
    let running = use_mut_ref(|| None::<Running>);
    // The scenario on screen when the running search was asked for.
    let asked_on = use_mut_ref(|| None::<Rc<Scenario>>);
    let body = use_node_ref();
    // The form's first values, set once: a value or a check in the markup would be put back
    // on every render, over what the reader typed.
    {
        let body = body.clone();
        use_effect_with((), move |_| {
            if let Some(root) = body.cast::<web_sys::Element>() {
                first_values(&root);
            }
        });
    }
    // A search still running when the panel goes away is cancelled.
    {
        let running = running.clone();
        use_effect_with((), move |_| {
            move || {
                if let Some(r) = running.borrow_mut().take() {
                    r.cancel();
                }
            }
        });
    }
    let on_event = {
        let (status, on_action) = (status.setter(), props.on_action.clone());
        let asked_on = asked_on.clone();
        Callback::from(move |e: Found| match e {
            Found::Progress(p) => status.set(Status::Running(p)),
            Found::Cancelled => status.set(Status::Cancelled(Progress::default())),
            Found::Error(m) => status.set(Status::Failed(m)),
            Found::Done {
                report,
                first_ms,
                progress,
            } => match read_report(&report) {
                Ok(answer) => {
                    let mut about: Vec<Rc<Scenario>> = asked_on.borrow().iter().cloned().collect();
                    if let Answer::Found(f) = &answer {
                        about.push(Rc::new(f.scenario.clone()));
                        on_action.emit(Action::LoadFound(f.clone()));
                    }
                    status.set(Status::Answered {
                        answer: Box::new(answer),
                        first_ms,
                        progress,
                        about,
                    });
                }
                Err(m) => status.set(Status::Failed(m)),
            },
        })
    };
    let breakers = props
        .preset_id
        .as_deref()
        .map(breakers_for)
        .unwrap_or_default();
    // One listener for every button of the panel, told apart by their data-act.
    let onclick = {
        let (finder, running, status, searched) = (
            props.finder.clone(),
            running.clone(),
            status.clone(),
            searched.clone(),
        );
        let (scenario, body, breakers) = (props.scenario.clone(), body.clone(), breakers.clone());
        let (scenario_on_screen, asked_on) = (props.scenario.clone(), asked_on.clone());
        Callback::from(move |e: MouseEvent| {
            let act = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|t| t.closest("[data-act]").ok().flatten())
                .and_then(|t| t.get_attribute("data-act"))
                .unwrap_or_default();
            let (scenario, spec, words) = match act.as_str() {
                "open" => return finder.prepare(),
                "cancel" => {
                    if let Some(r) = running.borrow().as_ref() {
                        r.cancel();
                    }
                    return;
                }
                "search" => match body.cast::<web_sys::Element>() {
                    Some(root) => ((*scenario).clone(), form_spec(&root), None),
                    None => return,
                },
                other => {
                    let b = other
                        .strip_prefix('b')
                        .and_then(|i| i.parse::<usize>().ok());
                    match b
                        .and_then(|i| breakers.get(i))
                        .and_then(|b| Some((b.scenario()?, b)))
                    {
                        Some((s, b)) => (s, b.spec.to_json(), Some(b.searched())),
                        None => return,
                    }
                }
            };
            if let Some(r) = running.borrow_mut().take() {
                r.cancel();
            }
            searched.set(words);
            *asked_on.borrow_mut() = Some(scenario_on_screen.clone());
            match finder.search(&scenario.to_json(), &spec, on_event.clone()) {
                Ok(r) => {
                    *running.borrow_mut() = Some(r);
                    status.set(Status::Running(Progress::default()));
                }
                Err(m) => status.set(Status::Failed(m)),
            }
        })
    };
    // A safe preset without an entry says why, rather than showing nothing.
    let no_entry = props.preset_id.as_deref().and_then(no_breaker);
    let busy = matches!(*status, Status::Running(_));
    // An answer about another scenario (a preset picked since, an edit) is not shown: it
    // would speak of a scenario no longer on screen.
    let stale = match &*status {
        Status::Answered { about, .. } => !about.iter().any(|a| **a == *props.scenario),
        _ => false,
    };
    let shown = if stale { &Status::Idle } else { &*status };
    let takes = service_faults(&props.scenario);
    // Only the kinds that apply to this lock service: instance faults for Redlock, a failover
    // for PostgreSQL's advisory lock (which keeps no time, so its clock never jumps), a
    // client cut off from the ensemble for ZooKeeper (whose servers count ticks).
    let kinds = FaultKind::ALL
        .into_iter()
        .filter(|k| match k {
            FaultKind::InstanceCrash => takes.instances,
            FaultKind::Partition => takes.instances || takes.ensemble_partition,
            FaultKind::Failover => takes.failover,
            FaultKind::LockClockJump => takes.lock_clock,
            _ => true,
        })
        .map(|k| html! {
            <label key={k.name()}><input type="checkbox" data-kind={k.name()} />{ k.label() }</label>
        });
    let (line, detail, times) = match shown {
        Status::Idle => (String::new(), String::new(), None),
        Status::Running(p) => (progress_text(p), best_text(p), None),
        Status::Cancelled(_) => ("Cancelled.".to_string(), String::new(), None),
        Status::Failed(m) => (format!("The search failed: {m}"), String::new(), None),
        Status::Answered {
            answer,
            first_ms,
            progress,
            ..
        } => (
            answer.statement().to_string(),
            // Nothing was scanned when the scenario fails as is.
            if matches!(**answer, Answer::FailsAsIs { .. }) {
                String::new()
            } else {
                progress_text(progress)
            },
            Some((
                first_ms.map(tenths),
                tenths(progress.elapsed_ms),
                // How long the search held its runner at most: on the main thread, the
                // longest task (the e2e tests read it).
                tenths(progress.slowest_task_ms.unwrap_or(progress.slowest_ms)),
            )),
        ),
    };
    let state = match shown {
        Status::Idle => "idle",
        Status::Running(_) => "running",
        Status::Answered { answer, .. } => match **answer {
            Answer::Found(_) => "found",
            Answer::FailsAsIs { .. } => "fails-as-is",
            Answer::NoneFound { .. } => "none-found",
        },
        Status::Cancelled(_) => "cancelled",
        Status::Failed(_) => "failed",
    };
    let (first_ms, done_ms, slowest_ms) = match times {
        Some((f, d, s)) => (f, Some(d), Some(s)),
        None => (None, None, None),
    };
    // What the search did on the main thread (the e2e tests read it): where it runs, why it is
    // there, its tasks and the most units one was given; while it runs as well as after.
    let shown_progress = match shown {
        Status::Running(p) | Status::Answered { progress: p, .. } => Some(p),
        _ => None,
    };
    let mode = shown_progress
        .map(|p| p.mode.clone())
        .filter(|m| !m.is_empty());
    let fallback = shown_progress.and_then(|p| p.fallback.clone());
    let work = |f: fn(&Progress) -> f64| shown_progress.map(|p| whole_of(f(p)).to_string());
    html! {
        <details class="fp-find" data-testid="find" {onclick}>
            <summary data-act="open">{ "Find a failure" }</summary>
            <div class="fp-find-body" ref={body}>
                <p class="fp-find-intro">{ "Search the schedules of faults that could hit this scenario for one that breaks safety; the first one found is shrunk and opens as a new scenario (undo goes back)." }</p>
                <fieldset class="fp-find-kinds">
                    <legend>{ "Fault kinds" }</legend>
                    { for kinds }
                </fieldset>
                <div class="fp-row">
                    <label>{ "Failure" }
                        <select name="failure" data-testid="find-failure">
                            { for FAILURES.iter().map(|(n, label)| html! { <option value={*n} selected={*n == "any"}>{ *label }</option> }) }
                        </select>
                    </label>
                    <label>{ "Faults per schedule (k)" }
                        <select name="k" data-testid="find-k">
                            <option selected=true>{ "1" }</option><option>{ "2" }</option><option>{ "3" }</option><option>{ "4" }</option>
                        </select>
                    </label>
                    <label>{ "Budget (schedules)" }
                        <input type="number" name="budget" min="1" max={MAX_BUDGET.to_string()} data-testid="find-budget" />
                    </label>
                    <label><input type="checkbox" name="swarm" data-testid="find-swarm" />{ "random schedules (swarm)" }</label>
                    <label>{ "Seed" }<input type="number" name="seed" min="0" data-testid="find-seed" /></label>
                </div>
                <div class="fp-row">
                    <button type="button" class="fp-find-go" disabled={busy} data-act="search" data-testid="find-search">{ "Search" }</button>
                    <button type="button" disabled={!busy} data-act="cancel" data-testid="find-cancel">{ "Cancel" }</button>
                </div>
                if !breakers.is_empty() {
                    <div class="fp-row" role="group" aria-label="What would break this?">
                        <span class="fp-group-name">{ "What would break this?" }</span>
                        { for breakers.iter().enumerate().map(|(i, b)| html! {
                            <button type="button" disabled={busy} data-act={format!("b{i}")} data-testid="find-breaker">{ b.question }</button>
                        }) }
                    </div>
                }
                if let Some(why) = no_entry {
                    <p class="fp-find-detail" data-testid="find-no-breaker"><span class="fp-group-name">{ "What would break this? " }</span>{ why }</p>
                }
                <div class="fp-find-status" role="status" aria-live="polite" data-testid="find-status"
                    data-state={state} data-first-ms={first_ms} data-done-ms={done_ms} data-mode={mode}
                    data-slowest-ms={slowest_ms} data-fallback={fallback}
                    data-tasks={work(|p| p.tasks)}
                    data-max-plan-steps={work(|p| p.max_units.plan_steps)}
                    data-max-scan-schedules={work(|p| p.max_units.scan_schedules)}
                    data-max-shrink-runs={work(|p| p.max_units.shrink_runs)}>
                    <p data-testid="find-line">{ line }</p>
                    if !detail.is_empty() { <p class="fp-find-detail">{ detail }</p> }
                    if let Some(s) = (*searched).clone().filter(|_| !stale) { <p class="fp-find-detail" data-testid="find-searched">{ s }</p> }
                </div>
                if let Some(s) = props.found_summary.clone() {
                    <p class="fp-find-found" data-testid="find-summary"><b>{ "Found by search: " }</b>{ s }</p>
                }
            </div>
        </details>
    }
}
