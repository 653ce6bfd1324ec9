//! What the page says in words: the verdict banner, the hint or the refusal of the last edit,
//! the inspectors of the selected event, the playhead's reading, the narration and the commands behind it.

pub(super) mod banner;
pub(super) mod client_inspector;
pub(super) mod commands;
pub(super) mod hint;
pub(super) mod instance_inspector;
pub(super) mod narration;
pub(super) mod readout;

use super::model::same::same_part;
