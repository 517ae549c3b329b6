//! Utilities for tracking time (tokio's `time` module).
pub(crate) mod driver;
// The driver switches to it in the next commit.
#[allow(dead_code)]
mod wheel;
