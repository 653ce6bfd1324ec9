//! The editing model: what a person can change and how. Everything here is plain Rust with no
//! Yew types, so every edit (drag, nudge, add, delete, undo, a typed field, a link) is tested
//! natively.

pub mod event_edit;
pub mod instance_edit;
pub mod persist;
pub mod state;
