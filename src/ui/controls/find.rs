//! "Find a failure": the panel that asks the search whether the scenario on screen can go
//! wrong. The reader picks the fault kinds, the most faults per schedule (k), the budget and
//! the seed (with the random strategy), presses Search and sees the progress live; Cancel
//! stops it. The search runs in workers (`ui::finder`); its report is read by
//! `model::found`, and a counterexample loads as a new scenario (one undo step) whose
//! faults the timeline marks "found by search". A preset that is safe as written also offers
//! its "what would break this?" searches (`sim::breaks`). Every word of an answer is the
//! core's report; the panel only lays it out.

use crate::sim::breaks::{breakers_for, Breaker};
use crate::sim::search::spec::MAX_BUDGET;
use crate::sim::search::{FaultKind, SearchSpec, Strategy};
use crate::sim::{Scenario, ViolationKind};
use crate::ui::finder::{Event as Found, Finder, Progress, Running};
use crate::ui::model::found::{read_report, Answer};
use crate::ui::model::state::Action;
use std::rc::Rc;
use wasm_bindgen::JsCast;
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

#[derive(Clone, Debug, PartialEq)]
struct Form {
    kinds: Vec<FaultKind>,
    k: u32,
    budget: u64,
    seed: u64,
    swarm: bool,
    failure: Option<ViolationKind>,
}

/// What may count as a failure, as the select offers it.
const FAILURES: [(&str, &str, Option<ViolationKind>); 6] = [
    ("any", "any violation", None),
    (
        "stale_write_accepted",
        "a stale write accepted",
        Some(ViolationKind::StaleWriteAccepted),
    ),
    (
        "two_holders",
        "two holders",
        Some(ViolationKind::TwoHolders),
    ),
    (
        "overlapping_writers",
        "overlapping writers",
        Some(ViolationKind::OverlappingWriters),
    ),
    (
        "lease_deleted_by_non_owner",
        "a lease deleted by a non-owner",
        Some(ViolationKind::LeaseDeletedByNonOwner),
    ),
    (
        "balance_mismatch",
        "a balance mismatch",
        Some(ViolationKind::BalanceMismatch),
    ),
];

impl Default for Form {
    fn default() -> Form {
        let d = SearchSpec::default();
        Form {
            kinds: d.faults,
            k: d.max_faults,
            budget: d.budget,
            seed: d.seed,
            swarm: false,
            failure: d.failure,
        }
    }
}

impl Form {
    fn spec(&self) -> SearchSpec {
        SearchSpec {
            faults: self.kinds.clone(),
            max_faults: self.k,
            budget: self.budget,
            seed: self.seed,
            failure: self.failure.clone(),
            strategy: if self.swarm {
                Strategy::Swarm
            } else {
                Strategy::Exhaustive
            },
            ..SearchSpec::default()
        }
    }

    fn of(spec: &SearchSpec) -> Form {
        Form {
            kinds: spec.faults.clone(),
            k: spec.max_faults,
            budget: spec.budget,
            seed: spec.seed,
            swarm: spec.strategy == Strategy::Swarm,
            failure: spec.failure.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Status {
    Idle,
    Running(Progress),
    Answered {
        answer: Box<Answer>,
        first_ms: Option<f64>,
        progress: Progress,
    },
    Cancelled(Progress),
    Failed(String),
}

/// The fault kinds that apply to the scenario's lock service.
fn kinds_for(s: &Scenario) -> Vec<FaultKind> {
    let redlock = s.lock.redlock.is_some();
    FaultKind::ALL
        .into_iter()
        .filter(|k| redlock || !matches!(k, FaultKind::InstanceCrash | FaultKind::Partition))
        .collect()
}

fn input_of(e: &web_sys::Event) -> Option<web_sys::HtmlInputElement> {
    e.target()?.dyn_into().ok()
}

/// A whole number typed into an input, kept within `min..=max`; anything else keeps `old`.
fn whole(e: &web_sys::Event, min: u64, max: u64, old: u64) -> u64 {
    input_of(e)
        .and_then(|i| i.value().trim().parse::<u64>().ok())
        .map_or(old, |n| n.clamp(min, max))
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
    let form = use_state(Form::default);
    let status = use_state(|| Status::Idle);
    let running = use_mut_ref(|| None::<Running>);
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
                    if let Answer::Found(f) = &answer {
                        on_action.emit(Action::LoadFound(f.clone()));
                    }
                    status.set(Status::Answered {
                        answer: Box::new(answer),
                        first_ms,
                        progress,
                    });
                }
                Err(m) => status.set(Status::Failed(m)),
            },
        })
    };
    let start = {
        let (finder, running, status) = (props.finder.clone(), running.clone(), status.clone());
        Rc::new(move |scenario: &Scenario, spec: &SearchSpec| {
            if let Some(r) = running.borrow_mut().take() {
                r.cancel();
            }
            let spec_json = spec.to_value().to_string();
            match finder.search(&scenario.to_json(), &spec_json, on_event.clone()) {
                Ok(r) => {
                    *running.borrow_mut() = Some(r);
                    status.set(Status::Running(Progress::default()));
                }
                Err(m) => status.set(Status::Failed(m)),
            }
        })
    };
    let busy = matches!(*status, Status::Running(_));
    let on_search = {
        let (start, form, scenario) = (start.clone(), form.clone(), props.scenario.clone());
        Callback::from(move |_: MouseEvent| start(&scenario, &form.spec()))
    };
    let on_cancel = {
        let running = running.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(r) = running.borrow().as_ref() {
                r.cancel();
            }
        })
    };
    let on_open = {
        let finder = props.finder.clone();
        Callback::from(move |_: MouseEvent| finder.prepare())
    };
    let kinds = kinds_for(&props.scenario).into_iter().map(|k| {
        let on = form.kinds.contains(&k);
        let form = form.clone();
        let onchange = Callback::from(move |_: web_sys::Event| {
            let mut f = (*form).clone();
            if on {
                f.kinds.retain(|x| *x != k);
            } else {
                f.kinds.push(k);
                f.kinds.sort();
            }
            form.set(f);
        });
        html! {
            <label><input type="checkbox" checked={on} {onchange} data-kind={k.name()} />{ k.label() }</label>
        }
    });
    let set = |edit: fn(&mut Form, &web_sys::Event)| {
        let form = form.clone();
        Callback::from(move |e: web_sys::Event| {
            let mut f = (*form).clone();
            edit(&mut f, &e);
            form.set(f);
        })
    };
    let breakers: Vec<Breaker> = props
        .preset_id
        .as_deref()
        .map(breakers_for)
        .unwrap_or_default();
    let breaker_buttons = breakers.into_iter().map(|b| {
        let (start, form, question) = (start.clone(), form.clone(), b.question);
        let onclick = Callback::from(move |_: MouseEvent| {
            if let Some(s) = b.scenario() {
                form.set(Form::of(&b.spec));
                start(&s, &b.spec);
            }
        });
        html! {
            <button type="button" class="fp-find-breaker" disabled={busy} {onclick} data-testid="find-breaker">
                { question }
            </button>
        }
    }).collect::<Vec<Html>>();
    let (line, detail, times) = match &*status {
        Status::Idle => (String::new(), String::new(), None),
        Status::Running(p) => (progress_text(p), best_text(p), None),
        Status::Cancelled(_) => ("Cancelled.".to_string(), String::new(), None),
        Status::Failed(m) => (format!("The search failed: {m}"), String::new(), None),
        Status::Answered {
            answer,
            first_ms,
            progress,
        } => (
            answer.statement().to_string(),
            progress_text(progress),
            Some((*first_ms, progress.elapsed_ms, progress.mode.clone())),
        ),
    };
    let (first_ms, done_ms, mode) = match &times {
        Some((f, d, m)) => (f.map(tenths), Some(tenths(*d)), Some(m.clone())),
        None => (None, None, None),
    };
    let disabled = busy || form.kinds.is_empty();
    html! {
        <details class="fp-find" data-testid="find">
            <summary onclick={on_open}>{ "Find a failure" }</summary>
            <div class="fp-find-body">
                <p class="fp-find-intro">{ "Search the schedules of faults that could hit this scenario for one that breaks safety; the first one found is shrunk and opens as a new scenario (undo goes back)." }</p>
                <fieldset class="fp-find-kinds">
                    <legend>{ "Fault kinds" }</legend>
                    { for kinds }
                </fieldset>
                <div class="fp-row fp-find-bounds">
                    <label>{ "Faults per schedule (k)" }
                        <select data-testid="find-k" onchange={set(|f, e| {
                            f.k = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                                .and_then(|s| s.value().parse().ok()).unwrap_or(f.k);
                        })}>
                            { for (1..=4u32).map(|k| html! { <option value={k.to_string()} selected={form.k == k}>{ k }</option> }) }
                        </select>
                    </label>
                    <label>{ "Failure" }
                        <select data-testid="find-failure" onchange={set(|f, e| {
                            let v = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|s| s.value());
                            if let Some((_, _, kind)) = FAILURES.iter().find(|(n, _, _)| Some(*n) == v.as_deref()) {
                                f.failure = kind.clone();
                            }
                        })}>
                            { for FAILURES.iter().map(|(n, label, kind)| html! {
                                <option value={*n} selected={form.failure == *kind}>{ *label }</option>
                            }) }
                        </select>
                    </label>
                    <label>{ "Budget (schedules)" }
                        <input type="number" min="1" max={MAX_BUDGET.to_string()} value={form.budget.to_string()}
                            data-testid="find-budget" onchange={set(|f, e| f.budget = whole(e, 1, MAX_BUDGET, f.budget))} />
                    </label>
                    <label>
                        <input type="checkbox" checked={form.swarm} data-testid="find-swarm"
                            onchange={set(|f, e| f.swarm = input_of(e).is_some_and(|i| i.checked()))} />
                        { "random schedules (swarm)" }
                    </label>
                    <label>{ "Seed" }
                        <input type="number" min="0" value={form.seed.to_string()} data-testid="find-seed"
                            onchange={set(|f, e| f.seed = whole(e, 0, (1 << 53) - 1, f.seed))} />
                    </label>
                </div>
                <div class="fp-row">
                    <button type="button" class="fp-find-go" disabled={disabled} onclick={on_search} data-testid="find-search">{ "Search" }</button>
                    <button type="button" disabled={!busy} onclick={on_cancel} data-testid="find-cancel">{ "Cancel" }</button>
                </div>
                if !breaker_buttons.is_empty() {
                    <div class="fp-row fp-find-breakers" role="group" aria-label="What would break this?">
                        <span class="fp-group-name">{ "What would break this?" }</span>
                        { for breaker_buttons }
                    </div>
                }
                <div class="fp-find-status" role="status" aria-live="polite" data-testid="find-status"
                    data-state={match &*status { Status::Idle => "idle", Status::Running(_) => "running", Status::Answered { answer, .. } if matches!(**answer, Answer::Found(_)) => "found",
                        Status::Answered { answer, .. } if matches!(**answer, Answer::FailsAsIs { .. }) => "fails-as-is", Status::Answered { .. } => "none-found",
                        Status::Cancelled(_) => "cancelled", Status::Failed(_) => "failed" }}
                    data-first-ms={first_ms} data-done-ms={done_ms} data-mode={mode}>
                    <p data-testid="find-line">{ line }</p>
                    if !detail.is_empty() { <p class="fp-find-detail">{ detail }</p> }
                </div>
                if let Some(s) = props.found_summary.clone() {
                    <p class="fp-find-found" data-testid="find-summary"><b>{ "Found by search: " }</b>{ s }</p>
                }
            </div>
        </details>
    }
}
