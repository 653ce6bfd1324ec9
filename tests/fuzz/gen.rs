//! Inputs for the fuzz target, from one seed: scenarios grown from the presets by structural
//! mutations (numbers at and past their limits, values of the wrong type, lists duplicated or
//! emptied, kinds swapped, Redlock added, unknown or invisible field names), then sometimes
//! mutated byte by byte; and share links, valid ones mutated character by character.

use fencing_playground::sim::presets::presets;
use serde_json::{json, Value};

/// SplitMix64, seeded: every input of a run follows from the seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The presets as JSON values, the seeds of every structural mutation.
pub fn seeds() -> Vec<Value> {
    presets()
        .into_iter()
        .filter_map(|p| serde_json::from_str(&p.scenario.to_json()).ok())
        .collect()
}

const NUMBERS: &[i128] = &[
    0,
    1,
    2,
    -1,
    29,
    30,
    31,
    100,
    1_000,
    40_000,
    10_000_000,
    10_000_001,
    -10_000_000,
    -10_000_001,
    1_000_000_000,
    1_000_000_000_001,
    4_294_967_295,
    4_294_967_296,
    8_589_934_592,
    1 << 52,
    (1 << 52) + 1,
    9_007_199_254_740_993,
    i64::MAX as i128,
    i64::MIN as i128,
    u64::MAX as i128,
];

const KEYS: &[&str] = &[
    "atMs",
    "durationMs",
    "amount",
    "delayMs",
    "gapMs",
    "byMs",
    "overMs",
    "ttlMs",
    "firstFence",
    "stepLimit",
    "endMs",
    "seed",
    "retries",
    "retryDelayMs",
    "timeoutMs",
    "latencyMs",
    "downMs",
    "offsetMs",
    "driftPpm",
    "driftFactorPpm",
    "balance",
    "kind",
    "name",
    "mode",
    "cause",
    "client",
    "events",
    "jumps",
    "instances",
    "watchdog",
    "fencing",
    "parallel",
    "fence",
    "monotonic",
    "persistent",
    "idempotencyKey",
    "fenceRule",
    "idempotency",
    "tier",
    "key",
];

const KINDS: &[&str] = &[
    "acquire",
    "debit",
    "pause",
    "check_then_write",
    "renew",
    "watchdog",
    "release",
    "crash",
    "clock_jump",
    "partition",
];

fn number(r: &mut Rng) -> Value {
    match r.below(4) {
        0 => json!(r.next() % 200),
        1 => json!(r.next() % 20_000),
        _ => {
            let n = *r.pick(NUMBERS);
            serde_json::from_str(&n.to_string()).unwrap_or(Value::Null)
        }
    }
}

fn junk(r: &mut Rng) -> Value {
    match r.below(9) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!("soon"),
        3 => json!([]),
        4 => json!({}),
        5 => json!(1.5),
        6 => json!(1e300),
        7 => json!(*r.pick(KINDS)),
        _ => json!("A\u{200b}"),
    }
}

/// Every container in `v`, as paths of keys and indices, so one can be chosen at random.
fn containers(v: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            out.push(path.clone());
            for (k, x) in m {
                path.push(json!(k));
                containers(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            out.push(path.clone());
            for (i, x) in a.iter().enumerate() {
                path.push(json!(i));
                containers(x, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |v, k| match k {
        Value::String(k) => &mut v[k.as_str()],
        _ => &mut v[k.as_u64().unwrap_or(0) as usize],
    })
}

fn redlock(r: &mut Rng) -> Value {
    let n = 1 + r.below(9);
    let instances: Vec<Value> = (0..n)
        .map(|i| {
            let mut inst = json!({"name": format!("R{}", i + 1), "latencyMs": r.below(4)});
            if r.chance(40) {
                let kind = *r.pick(&["crash", "partition", "clock_jump"]);
                let at = r.below(120);
                inst["events"] = json!([match kind {
                    "crash" => json!({"kind": "crash", "atMs": at, "downMs": r.below(80), "persistent": r.chance(50)}),
                    "partition" => json!({"kind": "partition", "atMs": at, "durationMs": r.below(80)}),
                    _ => json!({"kind": "clock_jump", "atMs": at, "byMs": r.below(200) as i64 - 100}),
                }]);
            }
            inst
        })
        .collect();
    json!({"instances": instances, "parallel": r.chance(50), "retries": r.below(4),
           "retryDelayMs": r.below(30), "timeoutMs": 1 + r.below(10), "fence": r.chance(30)})
}

/// One structural mutation of a scenario value.
fn mutate(r: &mut Rng, v: &mut Value, seeds: &[Value]) {
    let mut all = Vec::new();
    containers(v, &mut Vec::new(), &mut all);
    let path = r.pick(&all).clone();
    let target = at(v, &path);
    match (r.below(12), target) {
        (0..=2, Value::Object(m)) if !m.is_empty() => {
            let k = m.keys().nth(r.below(m.len())).cloned().unwrap_or_default();
            m.insert(k, if r.chance(70) { number(r) } else { junk(r) });
        }
        (3, Value::Object(m)) if !m.is_empty() => {
            let k = m.keys().nth(r.below(m.len())).cloned().unwrap_or_default();
            m.remove(&k);
        }
        (4, Value::Object(m)) => {
            let k = if r.chance(50) {
                r.pick(KEYS).to_string()
            } else {
                format!("{}\u{200b}", r.pick(KEYS))
            };
            m.insert(k, number(r));
        }
        (5, Value::Object(m)) if m.contains_key("kind") => {
            m.insert("kind".into(), json!(*r.pick(KINDS)));
        }
        (6..=7, Value::Array(a)) if !a.is_empty() => {
            let x = a[r.below(a.len())].clone();
            let copies = if r.chance(10) {
                1 + r.below(3_000)
            } else {
                1 + r.below(20)
            };
            for i in 0..copies {
                let mut y = x.clone();
                if let Some(t) = y.get_mut("atMs") {
                    *t = json!(t.as_u64().unwrap_or(0) + i as u64 % 97);
                }
                if let Some(n) = y.get_mut("name").filter(|n| n.is_string()) {
                    *n = json!(format!("{}{i}", n.as_str().unwrap_or("")));
                }
                a.push(y);
            }
        }
        (8, Value::Array(a)) if !a.is_empty() => {
            a.remove(r.below(a.len()));
        }
        (9, _) => {
            if !v["lock"].is_object() {
                v["lock"] = json!({});
            }
            v["lock"]["redlock"] = if r.chance(80) {
                redlock(r)
            } else {
                Value::Null
            };
        }
        (10, _) => {
            if !v["lock"].is_object() {
                v["lock"] = json!({});
            }
            v["lock"]["watchdog"] = json!(r.chance(70));
            v["lock"]["ttlMs"] = json!(1 + r.below(60));
        }
        (_, _) => {
            // Splice a client of another preset in.
            let other = r.pick(seeds);
            if let (Some(c), Some(list)) = (
                other["clients"].as_array().and_then(|c| c.first()).cloned(),
                v["clients"].as_array_mut(),
            ) {
                let mut c = c;
                c["name"] = json!(format!("X{}", list.len()));
                list.push(c);
            }
        }
    }
}

/// Byte-level damage to a text: flips, insertions, deletions, a cut, a spliced run.
pub fn damage(r: &mut Rng, text: &str) -> String {
    let mut b = text.as_bytes().to_vec();
    for _ in 0..1 + r.below(4) {
        if b.is_empty() {
            break;
        }
        let i = r.below(b.len());
        match r.below(6) {
            0 => b[i] ^= 1 << r.below(8),
            1 => b.insert(i, *r.pick(b"{}[]\",:0123456789-e.tfn\\ ")),
            2 => {
                b.remove(i);
            }
            3 => b.truncate(i),
            4 => {
                let j = r.below(b.len());
                let run: Vec<u8> = b[j..(j + r.below(40)).min(b.len())].to_vec();
                b.splice(i..i, run);
            }
            _ => b[i] = r.next() as u8,
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// A scenario text: a preset with a few structural mutations, sometimes damaged byte by byte.
pub fn scenario(r: &mut Rng, seeds: &[Value]) -> String {
    let mut v = r.pick(seeds).clone();
    for _ in 0..r.below(6) {
        mutate(r, &mut v, seeds);
    }
    let text = v.to_string();
    if r.chance(25) {
        damage(r, &text)
    } else {
        text
    }
}

/// A link to a scenario, sometimes intact, mostly damaged: cut, a character changed.
pub fn link(r: &mut Rng, encoded: &str) -> String {
    let mut s: Vec<char> = encoded.chars().collect();
    match r.below(5) {
        0 => {}
        1 => s.truncate(r.below(s.len() + 1)),
        2 => {
            let i = r.below(s.len());
            s[i] = *r.pick(&['A', '_', '-', '=', '.', '#', '%', 'é', '0']);
        }
        3 => {
            let i = r.below(s.len());
            s.insert(i, *r.pick(&['A', '=', ' ', '\u{200b}', '1', '.']));
        }
        _ => return damage(r, encoded),
    }
    s.into_iter().collect()
}
