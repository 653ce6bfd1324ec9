//! The timeline and its lanes: the lock service (Redlock's per instance too), one lane per
//! client, the storage, the message arrows, the attempts and the playhead. Every lane and the
//! attempts are drawn by the one lane renderer (`render`), which the components mount and the
//! live drag path patches. `geometry` (time ↔ pixels, lane layout), `hits` (where each
//! draggable part is grabbed), `describe` (words and playhead readings taken from the trace),
//! `redlock_view` and `render` are pure and tested natively; the components exist only on
//! wasm32.

pub mod describe;
pub mod geometry;
pub mod hits;
pub mod redlock_view;
pub mod render;

#[cfg(target_arch = "wasm32")]
pub(super) mod dom;
#[cfg(target_arch = "wasm32")]
mod found;
#[cfg(target_arch = "wasm32")]
mod frames;
#[cfg(target_arch = "wasm32")]
mod ground_view;
#[cfg(target_arch = "wasm32")]
pub(super) mod lanes_view;
#[cfg(target_arch = "wasm32")]
mod messages;
#[cfg(target_arch = "wasm32")]
pub mod patch;
#[cfg(target_arch = "wasm32")]
mod playhead;
#[cfg(target_arch = "wasm32")]
pub(super) mod timeline;

#[cfg(target_arch = "wasm32")]
use super::model::same::same_part;
