//! Input that cannot be understood, as a value: the path of the field at fault and what was
//! expected. Reading, migrating and validating all build it through `ScenarioError::new`, so
//! every message has the same shape wherever it comes from.

use std::fmt;

/// Input that cannot be understood: the field at fault and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// A path like `clients[0].events[2].durationMs`; empty for the whole document.
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

impl ScenarioError {
    /// The one way to build an error: the path of the field at fault (empty for the whole
    /// document) and what was expected.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}
