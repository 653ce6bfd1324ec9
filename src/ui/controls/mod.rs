//! The controls around the timeline: the palettes that add events, the preset picker, the
//! lock, storage and service settings, and the toolbar.

pub(super) mod palette;
pub(super) mod palette_instance;
pub(super) mod preset_picker;
pub(super) mod redlock_options;
pub(super) mod settings;
pub(super) mod settings_service;
pub(super) mod toolbar;
