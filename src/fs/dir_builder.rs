//! `DirBuilder`: directory creation with options.
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

use super::asyncify;

/// Options for creating directories: recursion and mode. The async form of
/// `std::fs::DirBuilder`; the options are kept here and applied to a std
/// builder on the blocking thread.
#[derive(Debug, Default)]
pub struct DirBuilder {
    recursive: bool,
    mode: Option<u32>,
}

impl DirBuilder {
    /// A builder that creates one directory with the default mode (0o777,
    /// less the umask).
    pub fn new() -> DirBuilder {
        DirBuilder::default()
    }

    /// Also create missing parents (and succeed if the directory exists).
    pub fn recursive(&mut self, recursive: bool) -> &mut DirBuilder {
        self.recursive = recursive;
        self
    }

    /// The permission bits of the new directories (the umask applies).
    pub fn mode(&mut self, mode: u32) -> &mut DirBuilder {
        self.mode = Some(mode);
        self
    }

    /// Creates `path` with these options.
    pub async fn create(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref().to_owned();
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(self.recursive);
        if let Some(mode) = self.mode {
            builder.mode(mode);
        }
        asyncify(move || builder.create(path)).await
    }
}
