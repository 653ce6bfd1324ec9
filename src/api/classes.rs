//! The seeds' two objects for JavaScript: `LeaseLock`, a lease map with an injected clock, and
//! `FencedAccount`, an account that can refuse stale fences. They wrap the core's `lease` and
//! `account` modules and check every argument before it reaches them.

use super::args::*;
use crate::sim::{self, lease, Account, DebitVerdict, FenceRule};
use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;

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

    /// The injected clock. A `now()` that throws becomes an Error of ours that keeps the
    /// original as its `cause`, so the caller sees both where it failed and why.
    fn now_ms(&self) -> Result<i64, JsValue> {
        let v = self.now.call0(&JsValue::NULL).map_err(|thrown| {
            let e = js_sys::Error::new("LeaseLock: now() threw; the original error is its cause");
            set(&e, "cause", thrown);
            JsValue::from(e)
        })?;
        match v.as_f64() {
            Some(n) if n.is_finite() && n.abs() <= MAX_SAFE => Ok(n.floor() as i64),
            _ => Err(error("LeaseLock: now() must return a finite number of ms").into()),
        }
    }

    /// `SET key owner NX PX ttl`: `{ ok: true, fence }` or `{ ok: false, error: "lock_held", holder }`.
    #[wasm_bindgen(unchecked_return_type = "AcquireResult")]
    pub fn acquire(&mut self, key: JsValue, owner: JsValue) -> Result<JsValue, JsValue> {
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
    pub fn is_held(&self, key: JsValue, owner: JsValue) -> Result<bool, JsValue> {
        let key = text_arg(&key, "isHeld: key")?;
        let owner = text_arg(&owner, "isHeld: owner")?;
        Ok(self.table.is_held(&key, &owner, self.now_ms()?))
    }

    /// Extends the owner's live lease; `{ ok: true }` or `{ ok: false, error: "not_owner" }`.
    pub fn renew(&mut self, key: JsValue, owner: JsValue) -> Result<JsValue, JsValue> {
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
    ) -> Result<JsValue, JsValue> {
        let key = text_arg(&key, "release: key")?;
        let owner = text_arg(&owner, "release: owner")?;
        let mode = if options.is_object() {
            match get(&options, "mode").as_string().as_deref() {
                None | Some("token_checked") => lease::ReleaseMode::TokenChecked,
                Some("bare_del") => lease::ReleaseMode::BareDel,
                Some(other) => {
                    return Err(error(format!(
                        "release: options.mode: expected \"token_checked\" or \"bare_del\", got {other:?}"
                    ))
                    .into())
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
