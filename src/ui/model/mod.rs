//! The editing model: what a person can change and how. Everything here is plain Rust with no
//! Yew types, so every edit (drag, nudge, add, delete, undo, a typed field, a link) is tested
//! natively. Client events and Redlock instance events are edited by one model: `item` is the
//! trait both implement, `selection` addresses either and says what is selected, and `drag`,
//! `keys` and `apply` are written once for both. Imports run one way: `fields` → `item` →
//! `selection` → `found` → `state` (with `tools`) → `history` → `drag`, `keys`, `service` → `apply` →
//! `persist` (with `mount`: the options a mount asks for and its first state). `same` stands
//! apart: the props' comparison of two runs. `heading` reads only the scenario and the presets; `apply` asks it which preset the
//! picker shows.

pub mod apply;
pub mod client_event;
pub mod drag;
pub mod fields;
pub mod found;
pub mod heading;
pub mod history;
pub mod instance_event;
pub mod item;
pub mod keys;
pub mod mount;
pub mod persist;
pub mod same;
pub mod selection;
pub mod service;
pub mod state;
pub mod tools;
