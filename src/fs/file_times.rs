//! `FileTimes`: the timestamps `File::set_times` applies.
use std::time::SystemTime;

/// Access and modification times to set on a file; a time left unset is
/// not changed.
#[derive(Clone, Debug, Default)]
#[must_use = "must be applied to a file via `File::set_times` to have any effect"]
pub struct FileTimes {
    accessed: Option<SystemTime>,
    modified: Option<SystemTime>,
}

impl FileTimes {
    /// No time set.
    pub fn new() -> FileTimes {
        FileTimes::default()
    }

    /// Sets the last access time.
    pub fn set_accessed(mut self, t: SystemTime) -> FileTimes {
        self.accessed = Some(t);
        self
    }

    /// Sets the last modification time.
    pub fn set_modified(mut self, t: SystemTime) -> FileTimes {
        self.modified = Some(t);
        self
    }

    pub(crate) fn into_std(self) -> std::fs::FileTimes {
        let mut times = std::fs::FileTimes::new();
        if let Some(t) = self.accessed {
            times = times.set_accessed(t);
        }
        if let Some(t) = self.modified {
            times = times.set_modified(t);
        }
        times
    }
}
