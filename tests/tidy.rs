//! The house rules, checked from the source itself so that they cannot quietly decay:
//!
//! - no file in `src/` is longer than 500 lines before its `#[cfg(test)]` (data files named in
//!   `LONG_FILES` are exempt, each with its reason);
//! - every file in `src/` opens with a `//!` paragraph that says why it exists;
//! - nothing under `src/sim/` uses `yew`, `web_sys`, `wasm_bindgen` or `js_sys`;
//! - no two files of `src/sim/` (or of `src/ui/model/`) import each other, directly or around a
//!   longer cycle, read from their `use crate::…` / `use super::…` lines and inline paths;
//! - no `#[allow(unreachable_patterns)]`: the compiler checks every match;
//! - every `tests/*.rs` is a module of `tests/suite.rs` (with `autotests = false`, a file left
//!   out would never run).
//!
//! Native only: it reads files from disk.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 500;

/// Files allowed past `MAX_LINES`, with the reason.
const LONG_FILES: &[(&str, &str)] = &[(
    "src/sim/presets.rs",
    "data: the scenarios the page offers, each a literal with its caption",
)];

/// Folders whose files must not import each other in a cycle.
const ACYCLIC: &[&str] = &["src/sim", "src/ui/model"];

const BROWSER_CRATES: &[&str] = &["yew", "web_sys", "wasm_bindgen", "js_sys"];

/// The crate's directory, read at run time: cargo sets it for every test binary, while a
/// compile-time `env!` keeps the path of whichever clone built a shared target directory.
fn root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .expect("cargo test sets CARGO_MANIFEST_DIR")
}

/// Every `.rs` file under `dir`, as paths relative to the crate root with `/` separators.
fn rust_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(root()).unwrap_or(&p);
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"))
}

/// The code of a file without its comments (line comments and doc comments), so that words in
/// prose are not read as paths.
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(|l| match l.find("//") {
        Some(i) => &l[..i],
        None => l,
    })
}

/// Lines before the first `#[cfg(test)]`.
fn lines_before_tests(text: &str) -> usize {
    text.lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .count()
}

#[test]
fn no_file_in_src_is_too_long() {
    let mut long = Vec::new();
    for f in rust_files(&root().join("src")) {
        let n = lines_before_tests(&read(&f));
        if n > MAX_LINES && !LONG_FILES.iter().any(|(name, _)| *name == f) {
            long.push(format!(
                "{f}: {n} lines before #[cfg(test)] (at most {MAX_LINES})"
            ));
        }
    }
    assert!(
        long.is_empty(),
        "files too long to read in one sitting:\n{}",
        long.join("\n")
    );
}

#[test]
fn every_exempt_long_file_exists_and_is_long() {
    for (f, reason) in LONG_FILES {
        assert!(!reason.is_empty());
        let n = lines_before_tests(&read(f));
        assert!(
            n > MAX_LINES,
            "{f} is {n} lines now: drop it from LONG_FILES"
        );
    }
}

/// The test command shares one cargo target directory between clones (scripts/cache.sh), and
/// cargo does not rebuild a crate whose only change is the directory it sits in: a path taken
/// from the manifest's directory at compile time would be another clone's. Code and tests read
/// it at run time (`std::env::var_os`, which cargo sets for tests) or find the repository.
#[test]
fn no_path_is_fixed_at_compile_time() {
    let needle = format!("env!(\"{}\")", "CARGO_MANIFEST_DIR");
    let mut found = Vec::new();
    for dir in ["src", "tests", "examples", "lab"] {
        for f in rust_files(&root().join(dir)) {
            if read(&f).contains(&needle) {
                found.push(f);
            }
        }
    }
    assert!(
        found.is_empty(),
        "{needle} fixes a clone's path into the build; read it at run time in:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_file_in_src_says_why_it_exists() {
    let missing: Vec<String> = rust_files(&root().join("src"))
        .into_iter()
        .filter(|f| !read(f).trim_start().starts_with("//!"))
        .collect();
    assert!(
        missing.is_empty(),
        "files without an opening //! paragraph:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_core_never_touches_the_browser() {
    let mut found = Vec::new();
    for f in rust_files(&root().join("src/sim")) {
        let text = read(&f);
        for (i, line) in code_lines(&text).enumerate() {
            for krate in BROWSER_CRATES {
                let used = line.contains(&format!("{krate}::"))
                    || line.trim_start().starts_with(&format!("use {krate}"))
                    || line.contains(&format!("extern crate {krate}"));
                if used {
                    found.push(format!("{f}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "src/sim must not use the browser:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_test_file_is_part_of_the_suite() {
    let suite = read("tests/suite.rs");
    let declared: BTreeSet<String> = code_lines(&suite)
        .filter_map(|l| {
            l.trim()
                .strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect();
    let missing: Vec<String> = rust_files(&root().join("tests"))
        .into_iter()
        .filter_map(|f| {
            let name = f.strip_prefix("tests/")?.strip_suffix(".rs")?.to_string();
            (!name.contains('/') && name != "suite" && !declared.contains(&name)).then_some(f)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "add these to tests/suite.rs as `mod …;`, or they never run:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_match_hides_from_the_compiler() {
    let mut found = Vec::new();
    for dir in ["src", "tests"] {
        for f in rust_files(&root().join(dir)) {
            if f == "tests/tidy.rs" {
                continue;
            }
            for (i, line) in code_lines(&read(&f)).enumerate() {
                if line.contains("unreachable_patterns") {
                    found.push(format!("{f}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "remove these allows and let the compiler check the match:\n{}",
        found.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Import cycles

/// A file's module path, e.g. `src/sim/engine/mod.rs` → `sim::engine`, `src/sim/trace.rs` →
/// `sim::trace`, `src/lib.rs` → `` (the crate root).
fn module_of(file: &str) -> String {
    let rel = file.trim_start_matches("src/").trim_end_matches(".rs");
    let rel = rel.trim_end_matches("/mod");
    if rel == "lib" {
        return String::new();
    }
    rel.replace('/', "::")
}

fn join(base: &str, seg: &str) -> String {
    if base.is_empty() {
        seg.to_string()
    } else {
        format!("{base}::{seg}")
    }
}

fn parent(module: &str) -> String {
    module
        .rsplit_once("::")
        .map_or(String::new(), |(p, _)| p.to_string())
}

/// Expands a `use` tree such as `super::{a::B, c::{d, e as f}}` into whole paths.
fn expand_use(tree: &str) -> Vec<String> {
    fn go(prefix: &str, tree: &str, out: &mut Vec<String>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let head = tree[..open].trim().trim_end_matches("::");
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let prefix = if head.is_empty() {
                prefix.to_string()
            } else {
                join(prefix, head)
            };
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        go(&prefix, &inner[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            go(&prefix, &inner[start..], out);
        } else if !tree.is_empty() {
            let name = tree.split(" as ").next().unwrap_or(tree).trim();
            out.push(join(prefix, name));
        }
    }
    let tree = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    go("", &tree, &mut out);
    out
}

/// The paths a file refers to: every path of its `use` items, and every inline
/// `crate::…` / `super::…` / `self::…` path in its code, before its `#[cfg(test)]` module (where
/// `super` means the file itself).
fn referenced_paths(text: &str) -> Vec<String> {
    let code: String = code_lines(text)
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    // `use` items, possibly spread over several lines.
    let mut rest = code.as_str();
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        let after = &rest[i + 4..];
        rest = after;
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = after.find(';') else { break };
        let tree = &after[..end];
        if tree.contains('\n') && !tree.contains('{') {
            continue; // prose that happened to contain "use "
        }
        out.extend(expand_use(tree));
    }
    // Inline paths.
    let bytes = code.as_bytes();
    for start_word in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(start_word) {
            let at = from + i;
            from = at + start_word.len();
            if at > 0
                && (bytes[at - 1].is_ascii_alphanumeric()
                    || bytes[at - 1] == b'_'
                    || bytes[at - 1] == b':')
            {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| at + e);
            out.push(code[at..end].trim_end_matches(':').to_string());
        }
    }
    out
}

/// Resolves `path` as written in the file of module `here` to the file it lands in, among
/// `modules` (module path → file). `None` for other crates and std.
fn resolve(
    here: &str,
    here_is_dir: bool,
    path: &str,
    modules: &BTreeMap<String, String>,
) -> Option<String> {
    let mut segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base = match segs.first().copied() {
        Some("crate") => {
            segs.remove(0);
            String::new()
        }
        Some("self") => {
            segs.remove(0);
            here.to_string()
        }
        Some("super") => {
            let mut m = here.to_string();
            while segs.first() == Some(&"super") {
                segs.remove(0);
                m = parent(&m);
            }
            m
        }
        // A plain first segment names a child module declared in this file.
        Some(first) if modules.contains_key(&join(here, first)) && here_is_dir => here.to_string(),
        _ => return None,
    };
    let mut file = modules.get(&base).cloned();
    for seg in segs {
        let next = join(&base, seg);
        match modules.get(&next) {
            Some(f) => {
                file = Some(f.clone());
                base = next;
            }
            // A module without a file of its own (`src/sim` with no `mod.rs` in a test), or an
            // item: keep reading, the next segment may still be a module.
            None => base = next,
        }
    }
    file
}

/// Edges between the given files, each from a file to a file it imports.
fn import_graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeMap<String, String> = files
        .iter()
        .map(|(f, _)| (module_of(f), f.clone()))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (f, text) in files {
        let here = module_of(f);
        // `foo.rs` declares children in `foo/`, like `foo/mod.rs`, so both resolve plain names.
        let edges = graph.entry(f.clone()).or_default();
        for p in referenced_paths(text) {
            if let Some(to) = resolve(&here, true, &p, &modules) {
                if &to != f {
                    edges.insert(to);
                }
            }
        }
    }
    graph
}

/// One cycle in the graph, as a list of files, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        marks.insert(n.to_string(), Mark::Open);
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            match marks.get(m).copied().unwrap_or(Mark::New) {
                Mark::Open => {
                    let start = path.iter().position(|p| p == m).unwrap_or(0);
                    let mut cycle = path[start..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                Mark::New if graph.contains_key(m) => {
                    if let Some(c) = visit(m, graph, marks, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        marks.insert(n.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for n in graph.keys() {
        if marks.get(n).copied().unwrap_or(Mark::New) == Mark::New {
            if let Some(c) = visit(n, graph, &mut marks, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_import_cycle_in_the_core_or_the_ui_model() {
    for dir in ACYCLIC {
        let files: Vec<(String, String)> = rust_files(&root().join(dir))
            .into_iter()
            .map(|f| {
                let t = read(&f);
                (f, t)
            })
            .collect();
        if files.is_empty() {
            assert!(*dir != "src/sim", "no files found under {dir}");
            continue;
        }
        let graph = import_graph(&files);
        if let Some(cycle) = find_cycle(&graph) {
            panic!("import cycle under {dir}:\n  {}", cycle.join("\n  → "));
        }
    }
}

#[test]
fn the_cycle_finder_sees_cycles_and_only_cycles() {
    let files = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(f, t)| (f.to_string(), t.to_string()))
            .collect()
    };
    // A child that reaches back into its parent, which uses the child: a cycle.
    let cyclic = files(&[
        (
            "src/sim/engine/mod.rs",
            "//! x\nmod queue;\nuse queue::Item;\n",
        ),
        ("src/sim/engine/queue.rs", "//! x\nuse super::Sim;\n"),
    ]);
    let cycle = find_cycle(&import_graph(&cyclic)).expect("a cycle");
    assert_eq!(cycle.first(), cycle.last());
    // Around three files, through a grouped use and an inline path.
    let around = files(&[
        ("src/sim/a.rs", "//! x\nuse super::{b::B, trace::*};\n"),
        ("src/sim/b.rs", "//! x\nfn f() { super::c::g() }\n"),
        ("src/sim/c.rs", "//! x\nuse crate::sim::a::A;\n"),
        ("src/sim/trace.rs", "//! x\n"),
    ]);
    assert_eq!(find_cycle(&import_graph(&around)).map(|c| c.len()), Some(4));
    // Parent to child only, children to siblings: no cycle; prose and comments are not paths.
    let fine = files(&[
        (
            "src/sim/mod.rs",
            "//! We use super::engine in prose.\npub mod engine;\npub use engine::run;\n",
        ),
        (
            "src/sim/engine/mod.rs",
            "//! x\nmod queue;\nuse queue::Item; // use super::run\nuse super::trace::Trace;\n",
        ),
        (
            "src/sim/engine/queue.rs",
            "//! x\nuse super::super::trace::Step;\n",
        ),
        ("src/sim/trace.rs", "//! x\nuse serde::Serialize;\n"),
    ]);
    assert_eq!(find_cycle(&import_graph(&fine)), None);
}

#[test]
fn use_trees_expand_to_whole_paths() {
    assert_eq!(
        expand_use("super::{a::B, c::{d, e as f}}"),
        ["super::a::B", "super::c::d", "super::c::e"]
    );
    assert_eq!(lines_before_tests("a\nb\n#[cfg(test)]\nc\n"), 2);
    assert_eq!(module_of("src/sim/engine/mod.rs"), "sim::engine");
    assert_eq!(module_of("src/lib.rs"), "");
}

/// The items `src/ui/mod.rs` defines or re-exports at the top of the UI (`mount`, `Mounted`,
/// `MountOptions`…), by name.
fn ui_top_items() -> Vec<String> {
    let text = read("src/ui/mod.rs");
    let mut names = Vec::new();
    for line in code_lines(&text) {
        let t = line.trim_start();
        if line.len() != t.len() {
            continue; // only items at the top level of the file
        }
        let t = t.strip_prefix("pub ").unwrap_or(t);
        for kw in [
            "fn ", "struct ", "enum ", "const ", "static ", "type ", "trait ",
        ] {
            if let Some(rest) = t.strip_prefix(kw) {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                names.push(name);
            }
        }
        if let Some(rest) = t.strip_prefix("use ") {
            // `pub use a::b::{C, d};` and `pub use a::B;`: the names brought to the top.
            let inner = rest.trim_end_matches(';');
            let list = match (inner.find('{'), inner.rfind('}')) {
                (Some(a), Some(b)) => inner[a + 1..b].to_string(),
                _ => inner.rsplit("::").next().unwrap_or("").to_string(),
            };
            names.extend(
                list.split(',')
                    .map(|n| n.trim().to_string())
                    .filter(|n| !n.is_empty() && n != "self"),
            );
        }
    }
    names
}

/// The UI's folders sit below `src/ui/mod.rs`, which mounts them: none reaches back up for an
/// item defined there (`crate::ui::X`, or `super::X` from a folder's top), so the arrows in
/// `src/ui` run one way. (What they share lives in `ui/model`, as `same_part` and
/// `MountOptions` do.)
#[test]
fn nothing_under_the_ui_reaches_back_up_into_its_mod_rs() {
    let items = ui_top_items();
    assert!(items.iter().any(|n| n == "mount"), "{items:?}");
    let mut back_up = Vec::new();
    for file in rust_files(&root().join("src/ui")) {
        if file == "src/ui/mod.rs" {
            continue;
        }
        let depth = file.trim_start_matches("src/ui/").matches('/').count();
        // `super::` from src/ui/x.rs and src/ui/x/mod.rs is `ui`; from src/ui/x/y.rs it is x.
        let top_is_super = depth == 0 || file.ends_with("/mod.rs") && depth == 1;
        for path in referenced_paths(&read(&file)) {
            let mut segs = path.split("::");
            let up = match (segs.next(), segs.next(), segs.next()) {
                (Some("crate"), Some("ui"), Some(item)) => Some(item),
                (Some("super"), Some(item), _) if top_is_super => Some(item),
                _ => None,
            };
            if let Some(item) = up.filter(|i| items.iter().any(|n| n == i)) {
                back_up.push(format!(
                    "{file}: {path} ({item} is defined in src/ui/mod.rs)"
                ));
            }
        }
    }
    assert!(
        back_up.is_empty(),
        "arrows back up into src/ui/mod.rs:\n{}",
        back_up.join("\n")
    );
}
