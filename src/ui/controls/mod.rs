//! The controls around the timeline: the palettes that add events, the preset picker, the
//! lock, storage and service settings, the toolbar, and "Find a failure".

pub(super) mod advisory_options;
pub(super) mod find;
pub(super) mod lease_options;
pub(super) mod palette;
pub(super) mod palette_instance;
pub(super) mod preset_picker;
pub(super) mod redlock_options;
pub(super) mod settings;
pub(super) mod settings_service;
pub(super) mod toolbar;
pub(super) mod zk_options;
