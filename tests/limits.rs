//! One table of limits: every range `docs/scenario.schema.json` and `docs/scenario-format.md`
//! state is checked here against `LIMITS` in `src/sim/scenario/limits.rs`, the table the reader
//! and `validate` quote in their messages. Change a limit in the code and this fails until both
//! documents say the same.

#![cfg(not(target_arch = "wasm32"))]

use fencing_playground::sim::scenario::{self as sc, Limit, Unit, LIMITS};
use serde_json::Value;
use std::collections::BTreeSet;

fn read(rel: &str) -> String {
    let path = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .expect("cargo test sets CARGO_MANIFEST_DIR")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"))
}

fn limit(field: &str) -> Option<&'static Limit> {
    LIMITS.iter().find(|l| l.field == field)
}

/// The limit for `prop` inside the schema definition `def` ("" at the top level): the
/// definition's own entry (`lock.ttlMs`, `pause.durationMs`), else the one for every field of
/// that name (`atMs`).
fn limit_in(def: &str, prop: &str) -> Option<&'static Limit> {
    let def = match def {
        "clientClockJump" | "instanceClockJump" | "clockJump" => "",
        d => d,
    };
    limit(&format!("{def}.{prop}")).or_else(|| limit(prop))
}

/// Every (definition, property, schema node) that states a range.
fn ranged(schema: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    let mut add = |def: &str, props: &Value| {
        for (prop, node) in props.as_object().into_iter().flatten() {
            let keys = [
                "minimum",
                "maximum",
                "minLength",
                "maxLength",
                "minItems",
                "maxItems",
            ];
            if keys.iter().any(|k| node.get(k).is_some()) {
                out.push((def.to_string(), prop.clone(), node.clone()));
            }
        }
    };
    add("", &schema["properties"]);
    for (def, node) in schema["$defs"].as_object().into_iter().flatten() {
        add(def, &node["properties"]);
    }
    out
}

#[test]
fn the_schema_states_the_table() {
    let schema: Value = serde_json::from_str(&read("docs/scenario.schema.json")).expect("JSON");
    let mut used = BTreeSet::new();
    for (def, prop, node) in ranged(&schema) {
        let at = format!("$defs/{def}/properties/{prop}");
        let l = limit_in(&def, &prop).unwrap_or_else(|| panic!("{at}: no limit in LIMITS"));
        used.insert(l.field);
        let get = |k: &str| node.get(k).map(|v| v.to_string());
        let (lo, hi) = match l.unit {
            Unit::Number | Unit::Ms => ("minimum", "maximum"),
            Unit::Chars => ("minLength", "maxLength"),
            Unit::Items(_) => ("minItems", "maxItems"),
        };
        assert_eq!(get(hi), Some(l.max.to_string()), "{at}: {hi}");
        let min =
            (l.min != 0 || matches!(l.unit, Unit::Number | Unit::Ms)).then(|| l.min.to_string());
        assert_eq!(get(lo), min, "{at}: {lo}");
    }
    let description = schema["description"].as_str().unwrap_or_default();
    for (l, words) in [
        (sc::EVENTS, "events in all"),
        (sc::CLOCK_JUMPS, "clock jumps in all"),
        (sc::WORK, "engine steps"),
    ] {
        let said = format!("at most {} {words}", l.max);
        assert!(
            description.contains(&said),
            "the schema's description should say {said:?}"
        );
        used.insert(l.field);
    }
    let unused: Vec<_> = LIMITS
        .iter()
        .filter(|l| !used.contains(l.field))
        .map(|l| l.field)
        .collect();
    assert!(
        unused.is_empty(),
        "limits the schema never states: {unused:?}"
    );
}

/// The numbers a cell of the format document states: `10 000 000`, `±10¹²`, `2⁵²`, `−900 000`.
fn numbers(text: &str) -> Vec<i128> {
    let text = text.replace(['\u{2009}', '\u{a0}'], " ").replace('−', "-");
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let sign = match i.checked_sub(1).map(|j| chars[j]) {
            Some('-') => -1,
            Some('±') => 0,
            _ => 1,
        };
        let mut n: i128 = 0;
        while i < chars.len() {
            let c = chars[i];
            let grouped = c == ' '
                && chars
                    .get(i + 1..i + 4)
                    .is_some_and(|g| g.iter().all(char::is_ascii_digit))
                && chars.get(i + 4).is_none_or(|c| !c.is_ascii_digit());
            if let Some(d) = c.to_digit(10) {
                n = n * 10 + i128::from(d);
            } else if !grouped {
                break;
            }
            i += 1;
        }
        let power: String = chars[i..]
            .iter()
            .take_while(|c| "⁰¹²³⁴⁵⁶⁷⁸⁹".contains(**c))
            .collect();
        if !power.is_empty() {
            let e: u32 = power
                .chars()
                .map(|c| "⁰¹²³⁴⁵⁶⁷⁸⁹".chars().position(|p| p == c).unwrap_or(0) as u32)
                .fold(0, |a, d| a * 10 + d);
            n = n.pow(e);
            i += power.chars().count();
        }
        match sign {
            0 => out.extend([-n, n]),
            s => out.push(s * n),
        }
    }
    out
}

/// The numbers `text` states must be ends of `l`, and its maximum must be among them.
#[track_caller]
fn check_range(at: &str, text: &str, l: &Limit) {
    if text == "time" {
        // "Times are whole milliseconds of true time, from 0 to …", checked below.
        assert!(
            l.min == 0 && l.max == sc::MAX_TIME_MS && l.unit == Unit::Ms,
            "{at}: not a time"
        );
        return;
    }
    let got = numbers(text);
    let ends = [i128::from(l.min), i128::from(l.max)];
    // A maximum of u64::MAX (the seed) is "any whole number ≥ 0".
    let stated = l.max == u64::MAX || got.contains(&ends[1]);
    assert!(
        got.iter().all(|n| ends.contains(n)) && stated,
        "{at}: the document says {text:?}, the table {} to {}",
        l.min,
        l.max
    );
}

#[test]
fn the_format_document_states_the_table() {
    let md = read("docs/scenario-format.md");
    let mut def = "";
    let mut checked = BTreeSet::new();
    for line in md.lines() {
        if let Some(title) = line
            .strip_prefix("## ")
            .or_else(|| line.strip_prefix("### "))
        {
            def = match title {
                "Top level" => "",
                "`lock`" => "lock",
                "`lock.redlock`" => "redlock",
                "`lock.etcd`" => "etcd",
                "`storage`" => "storage",
                "Clocks" => "clock",
                "Clients and their events" => "event",
                _ => "-",
            };
            continue;
        }
        let cells: Vec<&str> = line.split(" | ").map(str::trim).collect();
        if !line.starts_with("| `")
            || line.starts_with("| `version`")
            || cells.len() < 3
            || def == "-"
        {
            continue;
        }
        let field = cells[0].trim_start_matches("| ").trim_matches('`');
        if def == "event" {
            // `| pause | durationMs (required, 1 to 10 000 000), cause (…) | … |`
            for part in cells[1].split("), ") {
                let Some((name, rest)) = part.trim_start_matches('`').split_once("` (") else {
                    continue;
                };
                let kind_def = if field == "pause" { "pause" } else { "" };
                // A lone number in parentheses is the default; a range says "to" or "±".
                let range = rest.contains(" to ") || rest.contains('±');
                if let Some(l) = limit_in(kind_def, name).filter(|_| range) {
                    check_range(&format!("{field}.{name}"), rest, l);
                    checked.insert(l.field);
                }
            }
        } else if cells.len() < 4 {
            // Not a field table (the instance events' kinds): no ranges there.
            continue;
        } else if let Some(l) = limit_in(def, field) {
            check_range(&format!("{def}.{field}"), cells[1], l);
            checked.insert(l.field);
        } else {
            assert!(
                numbers(cells[1]).is_empty(),
                "{def}.{field}: a range with no limit in LIMITS: {}",
                cells[1]
            );
        }
    }
    for l in [
        &sc::END_MS,
        &sc::STEP_LIMIT,
        &sc::TTL_MS,
        &sc::RETRIES,
        &sc::INSTANCES,
        &sc::DRIFT_PPM,
        &sc::CLOCK_JUMPS,
        &sc::AMOUNT,
        &sc::PAUSE_MS,
        &sc::BY_MS,
    ] {
        assert!(
            checked.contains(l.field),
            "the document's tables never state {}",
            l.field
        );
    }
    let spaced = |n: u64| {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(' ');
            }
            out.push(c);
        }
        out
    };
    let prose = md.replace('\n', " ").replace("  ", " ");
    for said in [
        format!(
            "whole milliseconds of true time**, from 0 to {}",
            spaced(sc::MAX_TIME_MS)
        ),
        format!("more than **{} events in all**", spaced(sc::EVENTS.max)),
        format!(
            "more than **{} clock jumps in all**",
            spaced(sc::CLOCK_JUMPS.max)
        ),
        format!("more than **{} engine steps**", spaced(sc::WORK.max)),
    ] {
        assert!(
            prose.contains(&said),
            "docs/scenario-format.md should say {said:?}"
        );
    }
}

#[test]
fn the_number_reader_reads_the_documents_spelling() {
    assert_eq!(numbers("1 to 10 000 000"), [1, 10_000_000]);
    assert_eq!(
        numbers("whole number, ±10¹²"),
        [-1_000_000_000_000, 1_000_000_000_000]
    );
    assert_eq!(numbers("0 to 2⁵²"), [0, 1 << 52]);
    assert_eq!(numbers("−900 000 to 1 000 000"), [-900_000, 1_000_000]);
    assert_eq!(numbers("list of 1 to 12"), [1, 12]);
}
