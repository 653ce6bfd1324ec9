//! A house rule on functions, over every Rust file of the repository (`src/`, `lab/`, `tests/`,
//! `examples/`): no function is longer than `MAX_FN_LINES` lines, from its `fn` line to its
//! closing brace (a function nested in another counts in both). The functions already past it
//! are listed in `TO_SPLIT` with the length they had when the rule came: each may shrink or go
//! (splitting them by meaning is open work), none may grow, and a function not listed may not
//! pass the limit. Data tables may be listed in `DATA`, each with its reason.
//!
//! Native only: it reads files from disk.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

const MAX_FN_LINES: usize = 100;

/// Functions that are data (a table written as code), allowed past the limit, with the reason.
const DATA: &[(&str, &str, &str)] = &[
    (
        "src/sim/breaks.rs",
        "breakers",
        "data: one \"what would break this?\" entry per safe preset",
    ),
    (
        "src/sim/presets.rs",
        "redlock_presets",
        "data: the Redlock presets, each a scenario literal with its caption",
    ),
    (
        "src/sim/presets.rs",
        "stories",
        "data: the single-Redis story presets, each a scenario literal with its caption",
    ),
    (
        "src/sim/presets.rs",
        "preset_hint",
        "data: one \"Try it\" line per preset, a match of literals",
    ),
];

/// Functions past the limit when the rule came, with their length then: `(file, name, lines)`
/// (the lengths after the database lease and the per-service controls, written beside the rule
/// and merged with it). Open work: split each by meaning. None may grow.
const TO_SPLIT: &[(&str, &str, usize)] = &[
    ("lab/src/check.rs", "zk_tie", 318),
    ("lab/src/check.rs", "etcd_tie", 131),
    ("lab/src/etcd_history.rs", "judge", 104),
    ("lab/src/etcd_run.rs", "lessor_clash", 117),
    ("lab/src/etcd_run.rs", "replay", 138),
    ("lab/src/main.rs", "client_main", 152),
    ("lab/src/pg_history.rs", "judge", 101),
    ("lab/src/redlock_history.rs", "compare", 114),
    ("lab/src/redlock_run.rs", "replay", 133),
    ("lab/src/report.rs", "markdown", 166),
    ("lab/src/zk_facts.rs", "zxids", 101),
    ("lab/src/zk_history.rs", "judge", 146),
    ("lab/src/zk_run.rs", "replay", 135),
    ("src/sim/commands/advisory.rs", "plan", 115),
    ("src/sim/commands/etcd.rs", "plan", 175),
    ("src/sim/commands/steps.rs", "step", 130),
    ("src/sim/compare.rs", "counterfactual", 107),
    ("src/sim/engine/mod.rs", "act", 172),
    ("src/sim/engine/redlock.rs", "judge", 102),
    ("src/sim/narrate.rs", "narrate", 346),
    ("src/sim/scenario/validate.rs", "validate", 110),
    ("src/sim/search/fault.rs", "inject", 130),
    ("src/sim/words.rs", "describe", 106),
    ("src/ui/app.rs", "App", 350),
    ("src/ui/controls/find.rs", "FindPanel", 257),
    ("src/ui/controls/toolbar.rs", "Toolbar", 157),
    ("src/ui/inspect/commands.rs", "Commands", 151),
    ("src/ui/lanes/render/advisory.rs", "advisory_lane", 120),
    ("src/ui/lanes/render/client.rs", "event", 119),
    (
        "src/ui/lanes/render/diff.rs",
        "a_list_that_grows_gets_only_its_new_child_and_text_and_attributes_follow",
        104,
    ),
    ("src/ui/lanes/render/etcd.rs", "etcd_lane", 152),
    ("src/ui/lanes/render/zk.rs", "zk_lane", 213),
    ("src/ui/lanes/timeline.rs", "Timeline", 331),
    ("src/ui/model/apply.rs", "apply", 191),
    ("src/ui/model/service.rs", "apply_service", 128),
    (
        "tests/limits.rs",
        "the_format_document_states_the_table",
        106,
    ),
];

fn root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .expect("cargo test sets CARGO_MANIFEST_DIR")
}

fn rust_files(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if p.is_dir() {
            // Build output, dependencies and fixtures are not the project's code.
            if name != "target"
                && name != "node_modules"
                && !name.to_string_lossy().starts_with('.')
            {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(root()).unwrap_or(&p);
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The source with every comment, string and character literal blanked out (newlines kept),
/// so that braces are only the code's own.
fn code_only(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in out.iter_mut().take(to).skip(from) {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if (rest.starts_with(b"r#") || rest.starts_with(b"r\""))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                i += 1;
                continue;
            }
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let start = i + 2 + hashes;
            let end = b[start..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |n| start + n + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\u{7b}') and not a lifetime ('a).
            let len = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&c| c == b'\'').map(|n| n + 3)
            } else {
                let ch = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + ch) == Some(&b'\'')).then_some(ch + 2)
            };
            match len {
                Some(n) => {
                    blank(&mut out, i, i + n);
                    i += n;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Every function with a body: `(name, first line, lines)`.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let code = code_only(text);
    let line_of = |pos: usize| code[..pos].iter().filter(|&&c| c == b'\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(n) = code[i..].windows(3).position(|w| w == b"fn ") {
        let at = i + n;
        i = at + 3;
        if at > 0 && (code[at - 1].is_ascii_alphanumeric() || code[at - 1] == b'_') {
            continue;
        }
        let name: String = code[at + 3..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .map(|&c| c as char)
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body opens at the first `{` outside parentheses and angle-free brackets; a `;`
        // first means a declaration without a body (a trait's method).
        let mut depth = 0i32;
        let mut open = None;
        for (k, &c) in code.iter().enumerate().skip(at + 3) {
            match c {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break,
                b'{' if depth == 0 => {
                    open = Some(k);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut braces = 0i32;
        let mut close = None;
        for (k, &c) in code.iter().enumerate().skip(open) {
            if c == b'{' {
                braces += 1;
            } else if c == b'}' {
                braces -= 1;
                if braces == 0 {
                    close = Some(k);
                    break;
                }
            }
        }
        let Some(close) = close else { continue };
        let first = line_of(at);
        out.push((name, first, line_of(close) - first + 1));
    }
    out
}

fn long_functions() -> Vec<(String, String, usize)> {
    let mut files = Vec::new();
    for dir in ["src", "lab", "tests", "examples"] {
        rust_files(&root().join(dir), &mut files);
    }
    files.sort();
    let mut long = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(root().join(&f))
            .unwrap_or_else(|e| panic!("cannot read {f}: {e}"));
        for (name, _, lines) in functions(&text) {
            if lines > MAX_FN_LINES {
                long.push((f.clone(), name, lines));
            }
        }
    }
    long
}

#[test]
fn no_function_is_longer_than_the_limit_but_those_named() {
    let mut problems = Vec::new();
    for (file, name, lines) in long_functions() {
        if DATA.iter().any(|(f, n, _)| *f == file && *n == name) {
            continue;
        }
        match TO_SPLIT.iter().find(|(f, n, _)| *f == file && *n == name) {
            Some((_, _, was)) if lines <= *was => {}
            Some((_, _, was)) => problems.push(format!(
                "{file}: fn {name} grew from {was} to {lines} lines (it is to be split, not grown)"
            )),
            None => problems.push(format!(
                "{file}: fn {name} is {lines} lines, past the limit of {MAX_FN_LINES}"
            )),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_named_long_function_exists_and_is_still_long() {
    let long = long_functions();
    let named = TO_SPLIT
        .iter()
        .map(|(f, n, _)| (*f, *n))
        .chain(DATA.iter().map(|(f, n, _)| (*f, *n)));
    for (file, name) in named {
        assert!(
            long.iter().any(|(f, n, _)| f == file && n == name),
            "{file}: fn {name} is no longer past the limit (or gone): take it off the list"
        );
    }
}

#[test]
fn the_function_reader_sees_bodies_and_only_code() {
    let text = "fn a() {\n    let s = \"}{\";\n    let c = '}';\n    // }\n    /* { */\n}\n\
                trait T { fn decl(&self); }\n\
                pub(crate) fn b<'x>(v: &'x [u8]) -> Vec<u8> where u8: Copy {\n    let r = r#\"{\"#;\n    v.to_vec()\n}\n";
    let got = functions(text);
    assert_eq!(
        got,
        vec![("a".to_string(), 1, 6), ("b".to_string(), 8, 4)],
        "{got:?}"
    );
}
