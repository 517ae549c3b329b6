//! `File`: placeholder until the state machine lands.
use std::sync::Arc;

/// A reference to an open file on the filesystem.
#[derive(Debug)]
pub struct File {
    #[allow(dead_code)]
    std: Arc<std::fs::File>,
}

impl File {
    /// Wraps a `std::fs::File`.
    pub fn from_std(std: std::fs::File) -> File {
        File { std: Arc::new(std) }
    }
}
