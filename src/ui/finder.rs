//! The bridge to the object that runs "Find a failure" off the main thread: `www/finder.js`,
//! which `www/main.js` passes as `mount(element, { finder })` and loads only when the panel
//! opens. It has `prepare()` (start the workers early) and `search(scenario, spec, onEvent)`,
//! which returns a handle with `cancel()`; the events it sends are read here into `Event`. A
//! missing or throwing method is an error in words, never a panic.

use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::Callback;

/// The finder object, compared by identity.
#[derive(Clone, Debug)]
pub struct Finder(pub JsValue);

impl PartialEq for Finder {
    fn eq(&self, other: &Finder) -> bool {
        js_sys::Object::is(&self.0, &other.0)
    }
}

/// How far a search has gone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    pub done: f64,
    pub total: f64,
    pub elapsed_ms: f64,
    /// The lowest failing schedule number found so far.
    pub best: Option<f64>,
    /// "workers" or "main thread".
    pub mode: String,
    pub workers: f64,
    /// The longest block or step of the search, in its runner.
    pub slowest_ms: f64,
    /// On the main thread, the longest task of the search (the finder's own work included).
    pub slowest_task_ms: Option<f64>,
    /// On the main thread, why the search is not in workers (a worker that could not start).
    pub fallback: Option<String>,
    /// How many main-thread tasks ran search work (0 in workers).
    pub tasks: f64,
    /// The most plan steps, schedules scanned and shrink runs one main-thread task was given.
    pub max_units: Units,
}

/// The most of each unit one main-thread task was given (`maxUnits`; all 0 in workers).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Units {
    pub plan_steps: f64,
    pub scan_schedules: f64,
    pub shrink_runs: f64,
}

/// One event from the finder.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Progress(Progress),
    /// The core's report as JSON text, the time to the first failing schedule (if any) and to
    /// the report, from the call to `search`.
    Done {
        report: String,
        first_ms: Option<f64>,
        progress: Progress,
    },
    Cancelled,
    Error(String),
}

fn number(v: &JsValue, field: &str) -> Option<f64> {
    Reflect::get(v, &field.into()).ok()?.as_f64()
}

fn text(v: &JsValue, field: &str) -> Option<String> {
    Reflect::get(v, &field.into()).ok()?.as_string()
}

fn progress(v: &JsValue) -> Progress {
    Progress {
        done: number(v, "done").unwrap_or(0.0),
        total: number(v, "total").unwrap_or(0.0),
        elapsed_ms: number(v, "elapsedMs").unwrap_or(0.0),
        best: number(v, "best"),
        mode: text(v, "mode").unwrap_or_default(),
        workers: number(v, "workers").unwrap_or(0.0),
        slowest_ms: number(v, "slowestMs").unwrap_or(0.0),
        slowest_task_ms: number(v, "slowestTaskMs"),
        fallback: text(v, "fallback"),
        tasks: number(v, "tasks").unwrap_or(0.0),
        max_units: Reflect::get(v, &"maxUnits".into())
            .map(|u| Units {
                plan_steps: number(&u, "planSteps").unwrap_or(0.0),
                scan_schedules: number(&u, "scanSchedules").unwrap_or(0.0),
                shrink_runs: number(&u, "shrinkRuns").unwrap_or(0.0),
            })
            .unwrap_or_default(),
    }
}

fn read(v: &JsValue) -> Event {
    match text(v, "type").as_deref() {
        Some("progress") => Event::Progress(progress(v)),
        Some("done") => match text(v, "report") {
            Some(report) => Event::Done {
                report,
                first_ms: number(v, "firstMs"),
                progress: progress(v),
            },
            None => Event::Error("the search sent no report".to_string()),
        },
        Some("cancelled") => Event::Cancelled,
        _ => Event::Error(text(v, "message").unwrap_or_else(|| "the search failed".to_string())),
    }
}

fn method(target: &JsValue, name: &str) -> Result<Function, String> {
    Reflect::get(target, &name.into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or_else(|| format!("the finder has no {name}()"))
}

fn thrown(e: JsValue) -> String {
    text(&e, "message")
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the search could not start".to_string())
}

/// A search in progress; dropping it stops listening (cancel it first).
pub struct Running {
    handle: JsValue,
    _listener: Closure<dyn FnMut(JsValue)>,
}

impl Running {
    pub fn cancel(&self) {
        if let Ok(f) = method(&self.handle, "cancel") {
            let _ = f.call0(&self.handle);
        }
    }
}

impl Finder {
    /// Starts loading the search's code and workers, so that Search answers sooner.
    pub fn prepare(&self) {
        if let Ok(f) = method(&self.0, "prepare") {
            let _ = f.call0(&self.0);
        }
    }

    /// Starts a search of `scenario` (JSON) with `spec` (JSON); events go to `on_event`.
    pub fn search(
        &self,
        scenario: &str,
        spec: &str,
        on_event: Callback<Event>,
    ) -> Result<Running, String> {
        let f = method(&self.0, "search")?;
        let listener =
            Closure::<dyn FnMut(JsValue)>::new(move |v: JsValue| on_event.emit(read(&v)));
        let handle = f
            .call3(
                &self.0,
                &scenario.into(),
                &spec.into(),
                listener.as_ref().unchecked_ref(),
            )
            .map_err(thrown)?;
        Ok(Running {
            handle,
            _listener: listener,
        })
    }
}
