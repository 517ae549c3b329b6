//! Utilities for tracking time (tokio's `time` module).
pub(crate) mod driver;
