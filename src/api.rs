//! The JavaScript surface. Plain objects cross the boundary as JSON text, which keeps the wasm
//! small and lets the core name the exact field at fault. Every argument a caller controls is
//! checked here and reported as a JS `Error`; nothing on this side may panic.

use crate::sim::{self, lease, Account, DebitVerdict, FenceRule, Scenario};
use js_sys::{Function, Object, Reflect, JSON};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** A scenario in the documented JSON format (see docs/scenario-format.md). */
export interface Scenario { version: number; clients: { name: string; events?: object[] }[]; [field: string]: unknown }
/** The trace of a run: steps, lease and belief spans, ledger, balance, verdict, narration. */
export interface Trace { clients: string[]; instances: string[]; majority: number; endMs: number; steps: object[]; writes: WriteRecord[]; acquisitions: Acquisition[]; majorities: HoldSpan[]; verdict: Verdict; narration: string[]; finalBalance: number; lastFence: number | null; [field: string]: unknown }
/** The storage's verdict on one debit. Every key in a trace is camelCase. */
export type DebitVerdict = { status: "accepted" | "duplicate"; balance: number } | { status: "rejected"; reason: "stale_fence" | "missing_token" | "stale_value"; lastFence: number | null; token: number | null };
export interface WriteRecord { client: number; event: number | null; sentMs: number; arrivedMs: number; amount: number; token: number | null; idempotencyKey: string | null; generation: number | null; believedHeld: boolean; verdict: DebitVerdict | null }
/** One Redlock attempt; `reason` is set exactly when `ok` is false. */
export interface Acquisition { client: number; event: number | null; purpose: "acquire" | "extend"; attempt: number; startMs: number; endMs: number; votes: number; needed: number; elapsedMs: number; driftMs: number; validityMs: number; ok: boolean; fence: number | null; reason: "no_majority" | "too_slow" | "no_validity_left" | null }
/** A stretch in which `client` held live keys on a majority of the instances. */
export interface HoldSpan { client: number; startMs: number; endMs: number }
export interface Verdict { safe: boolean; violations: { kind: string; atMs: number; clients: number[]; text: string }[]; notes: string[] }
export type AcquireResult = { ok: true; fence: number | null } | { ok: false; error: "lock_held"; holder: string };
export type DebitResult = { ok: true; balance: number; duplicate?: true } | { ok: false; error: "stale_fence" | "missing_token"; lastFence: number; token: number | null };
export interface MountOptions { preset?: string; scenario?: Scenario | string; readonly?: boolean; compact?: boolean; share?: boolean; autosave?: boolean; theme?: "light" | "dark" | "auto" }
"#;

fn error(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

/// JSON text of a JS value; strings are taken as JSON text already.
fn json_text(value: &JsValue, what: &str) -> Result<String, JsError> {
    if let Some(text) = value.as_string() {
        return Ok(text);
    }
    if value.is_undefined() || value.is_null() {
        return Err(error(format!("{what}: expected an object, got nothing")));
    }
    JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| error(format!("{what}: could not be turned into JSON")))
}

fn from_json_text(text: &str) -> Result<JsValue, JsError> {
    JSON::parse(text).map_err(|_| error("internal: produced JSON the browser could not read"))
}

fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsError> {
    let text = serde_json::to_string(value).map_err(|e| error(format!("internal: {e}")))?;
    from_json_text(&text)
}

fn scenario_arg(value: &JsValue) -> Result<Scenario, JsError> {
    let text = json_text(value, "scenario")?;
    Scenario::from_json(&text).map_err(|e| error(format!("scenario: {e}")))
}

/// Runs a scenario and returns its trace (verdict and narration included).
#[wasm_bindgen(unchecked_return_type = "Trace")]
pub fn simulate(
    #[wasm_bindgen(unchecked_param_type = "Scenario | string")] scenario: JsValue,
) -> Result<JsValue, JsError> {
    to_js(&sim::run(&scenario_arg(&scenario)?))
}

/// Every preset: `{ id, scenario }`, the default first.
#[wasm_bindgen(unchecked_return_type = "{ id: string; scenario: Scenario }[]")]
pub fn presets() -> Result<JsValue, JsError> {
    to_js(&sim::presets::presets())
}

/// `{ ok: true }` or `{ ok: false, path, message, error }` without throwing.
#[wasm_bindgen(
    unchecked_return_type = "{ ok: true } | { ok: false; path: string; message: string; error: string }"
)]
pub fn validate(scenario: JsValue) -> JsValue {
    let result = json_text(&scenario, "scenario")
        .map_err(|_| sim::ScenarioError::new("", "expected a scenario object or JSON text"))
        .and_then(|text| Scenario::from_json(&text));
    let out = Object::new();
    match result {
        Ok(_) => set(&out, "ok", true.into()),
        Err(e) => {
            set(&out, "ok", false.into());
            set(&out, "path", e.path.as_str().into());
            set(&out, "message", e.message.as_str().into());
            set(&out, "error", e.to_string().into());
        }
    }
    out.into()
}

/// The URL hash (without `#`) that restores `scenario` exactly: `s=1.<base64url JSON>`.
#[wasm_bindgen(js_name = encodeLink)]
pub fn encode_link(
    #[wasm_bindgen(unchecked_param_type = "Scenario | string")] scenario: JsValue,
) -> Result<String, JsError> {
    Ok(crate::link::encode(&scenario_arg(&scenario)?))
}

/// The scenario inside a share link's hash; an Error names what is wrong with a bad link.
#[wasm_bindgen(js_name = decodeLink, unchecked_return_type = "Scenario")]
pub fn decode_link(hash: JsValue) -> Result<JsValue, JsError> {
    let hash = text_arg(&hash, "decodeLink: hash")?;
    let scenario = crate::link::decode(&hash).map_err(error)?;
    to_js(&scenario)
}

/// A mounted playground, as `mount` returns it.
#[wasm_bindgen]
pub struct Playground {
    app: Option<crate::ui::Mounted>,
}

#[wasm_bindgen]
impl Playground {
    /// Unmounts the playground and empties its element; calling it again does nothing.
    pub fn destroy(&mut self) {
        if let Some(app) = self.app.take() {
            app.destroy();
        }
    }
}

/// Mounts one playground into `element`. Nothing is mounted when the module loads.
#[wasm_bindgen]
pub fn mount(
    element: JsValue,
    #[wasm_bindgen(unchecked_param_type = "MountOptions | undefined")] options: JsValue,
) -> Result<Playground, JsError> {
    let element: web_sys::Element = element
        .dyn_into()
        .map_err(|_| error("mount: element: expected a DOM element"))?;
    let opts = mount_options(&options)?;
    let app = crate::ui::mount(element, opts).map_err(|e| error(format!("mount: {e}")))?;
    Ok(Playground { app: Some(app) })
}

fn mount_options(options: &JsValue) -> Result<crate::ui::MountOptions, JsError> {
    let mut out = crate::ui::MountOptions::default();
    if options.is_undefined() || options.is_null() {
        return Ok(out);
    }
    if !options.is_object() {
        return Err(error("mount: options: expected an object"));
    }
    let preset = get(options, "preset");
    if !preset.is_undefined() {
        out.preset = Some(
            preset
                .as_string()
                .ok_or_else(|| error("mount: options.preset: expected text"))?,
        );
    }
    let scenario = get(options, "scenario");
    if !scenario.is_undefined() && !scenario.is_null() {
        out.scenario =
            Some(scenario_arg(&scenario).map_err(|e| error(format!("mount: options.{}", msg(e))))?);
    }
    out.readonly = flag(options, "readonly")?;
    out.compact = flag(options, "compact")?;
    out.share = flag(options, "share")?;
    out.autosave = flag(options, "autosave")?;
    let theme = get(options, "theme");
    if !theme.is_undefined() && !theme.is_null() {
        match theme.as_string().as_deref() {
            Some(t @ ("light" | "dark" | "auto")) => out.theme = Some(t.to_string()),
            _ => {
                return Err(error(
                    "mount: options.theme: expected \"light\", \"dark\" or \"auto\"",
                ))
            }
        }
    }
    Ok(out)
}

fn msg(e: JsError) -> String {
    JsValue::from(e)
        .dyn_into::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_default()
}

fn get(target: &JsValue, field: &str) -> JsValue {
    Reflect::get(target, &field.into()).unwrap_or(JsValue::UNDEFINED)
}

fn set(target: &Object, field: &str, value: JsValue) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(target, &field.into(), &value);
}

fn flag(options: &JsValue, field: &str) -> Result<bool, JsError> {
    let v = get(options, field);
    if v.is_undefined() || v.is_null() {
        return Ok(false);
    }
    v.as_bool()
        .ok_or_else(|| error(format!("mount: options.{field}: expected true or false")))
}

/// A whole number from JS, in `0..=max`, or an error naming the argument.
fn whole(v: &JsValue, what: &str, max: f64) -> Result<u64, JsError> {
    match v.as_f64() {
        Some(n) if n.fract() == 0.0 && (0.0..=max).contains(&n) => Ok(n as u64),
        // JavaScript spells the number: Rust's float formatting would add kilobytes to the wasm.
        Some(_) => Err(error(format!(
            "{what}: expected a whole number from 0 to {}, got {}",
            max as u64,
            String::from(
                js_sys::Number::from(v.clone())
                    .to_string_with_radix(10)
                    .unwrap_or_default()
            )
        ))),
        None => Err(error(format!("{what}: expected a number"))),
    }
}

fn text_arg(v: &JsValue, what: &str) -> Result<String, JsError> {
    v.as_string()
        .ok_or_else(|| error(format!("{what}: expected text")))
}

const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// The seeds' lease map, with the clock injected: `new LeaseLock({ now: () => t, ttlMs })`.
#[wasm_bindgen]
pub struct LeaseLock {
    now: Function,
    table: lease::LeaseTable,
}

#[wasm_bindgen]
impl LeaseLock {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(
            unchecked_param_type = "{ now: () => number; ttlMs?: number; firstFence?: number; fencing?: boolean }"
        )]
        options: JsValue,
    ) -> Result<LeaseLock, JsError> {
        if !options.is_object() {
            return Err(error(
                "LeaseLock: options: expected { now, ttlMs, firstFence }",
            ));
        }
        let now: Function = get(&options, "now").dyn_into().map_err(|_| {
            error("LeaseLock: options.now: expected a function returning the time in ms")
        })?;
        let ttl = get(&options, "ttlMs");
        let ttl_ms = if ttl.is_undefined() {
            30
        } else {
            whole(
                &ttl,
                "LeaseLock: options.ttlMs",
                sim::scenario::MAX_TIME_MS as f64,
            )?
        };
        if ttl_ms == 0 {
            return Err(error("LeaseLock: options.ttlMs: expected at least 1"));
        }
        let first = get(&options, "firstFence");
        let first_fence = if first.is_undefined() {
            33
        } else {
            whole(
                &first,
                "LeaseLock: options.firstFence",
                sim::scenario::MAX_FENCE as f64,
            )?
        };
        // A lock service mints fences unless told it is plain Redis (`fencing: false`).
        let fencing = match get(&options, "fencing") {
            v if v.is_undefined() => true,
            v => v
                .as_bool()
                .ok_or_else(|| error("LeaseLock: options.fencing: expected true or false"))?,
        };
        Ok(LeaseLock {
            now,
            table: lease::LeaseTable::new(ttl_ms, first_fence, fencing),
        })
    }

    fn now_ms(&self) -> Result<i64, JsError> {
        let v = self
            .now
            .call0(&JsValue::NULL)
            .map_err(|_| error("LeaseLock: now() threw"))?;
        match v.as_f64() {
            Some(n) if n.is_finite() && n.abs() <= MAX_SAFE => Ok(n.floor() as i64),
            _ => Err(error("LeaseLock: now() must return a finite number of ms")),
        }
    }

    /// `SET key owner NX PX ttl`: `{ ok: true, fence }` or `{ ok: false, error: "lock_held", holder }`.
    #[wasm_bindgen(unchecked_return_type = "AcquireResult")]
    pub fn acquire(&mut self, key: JsValue, owner: JsValue) -> Result<JsValue, JsError> {
        let key = text_arg(&key, "acquire: key")?;
        let owner = text_arg(&owner, "acquire: owner")?;
        let now = self.now_ms()?;
        let out = Object::new();
        match self.table.acquire(&key, &owner, now) {
            Ok(l) => {
                set(&out, "ok", true.into());
                set(
                    &out,
                    "fence",
                    l.fence.map_or(JsValue::NULL, |f| (f as f64).into()),
                );
            }
            Err(lease::LockError::Held { holder })
            | Err(lease::LockError::NotOwner {
                holder: Some(holder),
            }) => {
                set(&out, "ok", false.into());
                set(&out, "error", "lock_held".into());
                set(&out, "holder", holder.into());
            }
            Err(lease::LockError::NotOwner { holder: None }) => {
                set(&out, "ok", false.into());
                set(&out, "error", "lock_held".into());
            }
        }
        Ok(out.into())
    }

    #[wasm_bindgen(js_name = isHeld)]
    pub fn is_held(&self, key: JsValue, owner: JsValue) -> Result<bool, JsError> {
        let key = text_arg(&key, "isHeld: key")?;
        let owner = text_arg(&owner, "isHeld: owner")?;
        Ok(self.table.is_held(&key, &owner, self.now_ms()?))
    }

    /// Extends the owner's live lease; `{ ok: true }` or `{ ok: false, error: "not_owner" }`.
    pub fn renew(&mut self, key: JsValue, owner: JsValue) -> Result<JsValue, JsError> {
        let key = text_arg(&key, "renew: key")?;
        let owner = text_arg(&owner, "renew: owner")?;
        let now = self.now_ms()?;
        let out = Object::new();
        let ok = self.table.renew(&key, &owner, now).is_ok();
        set(&out, "ok", ok.into());
        if !ok {
            set(&out, "error", "not_owner".into());
        }
        Ok(out.into())
    }

    /// Token-checked release by default; `{ mode: "bare_del" }` deletes whoever holds the key.
    /// Returns `{ deleted: "own" | "other" | "nothing" }`.
    pub fn release(
        &mut self,
        key: JsValue,
        owner: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsError> {
        let key = text_arg(&key, "release: key")?;
        let owner = text_arg(&owner, "release: owner")?;
        let mode = if options.is_object() {
            match get(&options, "mode").as_string().as_deref() {
                None | Some("token_checked") => lease::ReleaseMode::TokenChecked,
                Some("bare_del") => lease::ReleaseMode::BareDel,
                Some(other) => {
                    return Err(error(format!(
                        "release: options.mode: expected \"token_checked\" or \"bare_del\", got {other:?}"
                    )))
                }
            }
        } else {
            lease::ReleaseMode::TokenChecked
        };
        let now = self.now_ms()?;
        let out = Object::new();
        let deleted = match self.table.release(&key, &owner, mode, now) {
            lease::Released::Own => "own",
            lease::Released::Other { .. } => "other",
            lease::Released::Nothing => "nothing",
        };
        set(&out, "deleted", deleted.into());
        Ok(out.into())
    }
}

/// The seeds' account: `new FencedAccount({ fence: true, balance: 100 })`.
#[wasm_bindgen]
pub struct FencedAccount {
    account: Account,
}

#[wasm_bindgen]
impl FencedAccount {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(
            unchecked_param_type = "{ fence?: boolean; balance?: number; rule?: \"strict\" | \"non_decreasing\" | \"off\" } | undefined"
        )]
        options: JsValue,
    ) -> Result<FencedAccount, JsError> {
        let mut rule = FenceRule::Strict;
        let mut balance = 100i64;
        if options.is_object() {
            let fence = get(&options, "fence");
            if !fence.is_undefined() {
                let on = fence
                    .as_bool()
                    .ok_or_else(|| error("FencedAccount: options.fence: expected true or false"))?;
                rule = if on {
                    FenceRule::Strict
                } else {
                    FenceRule::Off
                };
            }
            let r = get(&options, "rule");
            if !r.is_undefined() {
                rule = match r.as_string().as_deref() {
                    Some("strict") => FenceRule::Strict,
                    Some("non_decreasing") => FenceRule::NonDecreasing,
                    Some("off") => FenceRule::Off,
                    _ => {
                        return Err(error(
                            "FencedAccount: options.rule: expected \"strict\", \"non_decreasing\" or \"off\"",
                        ))
                    }
                };
            }
            let b = get(&options, "balance");
            if !b.is_undefined() {
                balance = match b.as_f64() {
                    Some(n) if n.fract() == 0.0 && n.abs() <= sim::scenario::MAX_BALANCE as f64 => {
                        n as i64
                    }
                    _ => {
                        return Err(error(
                            "FencedAccount: options.balance: expected a whole number",
                        ))
                    }
                };
            }
        } else if !options.is_undefined() && !options.is_null() {
            return Err(error("FencedAccount: options: expected an object"));
        }
        Ok(FencedAccount {
            account: Account::new(balance, rule, true),
        })
    }

    /// `{ ok: true, balance }` or `{ ok: false, error: "stale_fence", lastFence, token }`.
    #[wasm_bindgen(unchecked_return_type = "DebitResult")]
    pub fn debit(
        &mut self,
        amount: JsValue,
        token: JsValue,
        idempotency_key: JsValue,
    ) -> Result<JsValue, JsError> {
        let amount = whole(&amount, "debit: amount", sim::scenario::MAX_AMOUNT as f64)? as i64;
        let token = if token.is_undefined() || token.is_null() {
            None
        } else {
            Some(whole(&token, "debit: token", MAX_SAFE)?)
        };
        let key = if idempotency_key.is_undefined() || idempotency_key.is_null() {
            None
        } else {
            Some(text_arg(&idempotency_key, "debit: idempotencyKey")?)
        };
        let out = Object::new();
        match self.account.debit(amount, token, key.as_deref()) {
            DebitVerdict::Accepted { balance } => {
                set(&out, "ok", true.into());
                set(&out, "balance", (balance as f64).into());
            }
            DebitVerdict::Duplicate { balance } => {
                set(&out, "ok", true.into());
                set(&out, "duplicate", true.into());
                set(&out, "balance", (balance as f64).into());
            }
            DebitVerdict::Rejected {
                reason,
                last_fence,
                token,
            } => {
                set(&out, "ok", false.into());
                set(&out, "error", reason.code().into());
                set(&out, "lastFence", (last_fence.unwrap_or(0) as f64).into());
                set(
                    &out,
                    "token",
                    token.map_or(JsValue::NULL, |t| (t as f64).into()),
                );
            }
        }
        Ok(out.into())
    }

    #[wasm_bindgen(js_name = getBalance)]
    pub fn get_balance(&self) -> f64 {
        self.account.balance() as f64
    }

    /// The highest accepted fence, 0 before the first fenced write (as in the seeds).
    #[wasm_bindgen(js_name = getLastFence)]
    pub fn get_last_fence(&self) -> f64 {
        self.account.last_fence().unwrap_or(0) as f64
    }

    /// The accepted writes: `[{ amount, token, balance }]`.
    #[wasm_bindgen(
        unchecked_return_type = "{ amount: number; token: number | null; balance: number }[]"
    )]
    pub fn writes(&self) -> js_sys::Array {
        self.account
            .ledger()
            .iter()
            .filter_map(|w| match w.verdict {
                DebitVerdict::Accepted { balance } => {
                    let o = Object::new();
                    set(&o, "amount", (w.amount as f64).into());
                    set(
                        &o,
                        "token",
                        w.token.map_or(JsValue::NULL, |t| (t as f64).into()),
                    );
                    set(&o, "balance", (balance as f64).into());
                    Some(JsValue::from(o))
                }
                _ => None,
            })
            .collect()
    }
}
