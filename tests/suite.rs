//! Every integration test of the crate in one test binary: one link instead of eighteen, one
//! headless Chromium session under `wasm-pack test` instead of twelve, and the files' tests
//! run side by side on every core instead of one binary after another. Each file below is a
//! module and keeps its own opening and its own `cfg` (native only, browser only, or both);
//! run one with `cargo test --test suite <module>::` (e.g. `cargo test --test suite snapshots::`).
//! The fuzz target (`tests/fuzz/`) stays a binary of its own: `scripts/fuzz.sh` drives it.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;

mod advisory;
mod banner_words;
mod breaks;
mod checker;
mod contracts;
mod counts;
mod errors;
mod etcd;
mod json_keys;
mod lean;
mod lease;
mod lessons;
mod limits;
mod lock_service;
mod properties;
mod redlock;
mod scenarios;
mod search;
mod snapshots;
mod tidy;
mod tidy_functions;
mod ui_advisory;
mod ui_controls;
mod ui_etcd;
mod ui_inspector;
mod ui_redlock;
mod ui_timeline;
mod ui_zookeeper;
mod worst;
mod zookeeper;
mod zookeeper_hints;
