//! The controls around the timeline: the head (title, toolbar, preset and service pickers,
//! caption), the panel of palettes and settings, and "Find a failure".

pub(super) mod find;
pub(super) mod head;
pub(super) mod palette;
pub(super) mod palette_instance;
pub(super) mod panel;
pub(super) mod preset_picker;
pub(super) mod redlock_options;
pub(super) mod settings;
pub(super) mod settings_service;
pub(super) mod toolbar;
