//! `OpenOptions`: how a file is opened.
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::{asyncify, File};

/// Options for opening a file: the async form of `std::fs::OpenOptions`,
/// which it wraps (`open` runs `open(2)` on the blocking pool). The Unix
/// extensions `mode` and `custom_flags` are inherent methods, as in tokio.
#[derive(Clone, Debug)]
pub struct OpenOptions(std::fs::OpenOptions);

impl OpenOptions {
    /// Options with everything off (opening with them fails: choose at
    /// least `read`, `write` or `append`).
    pub fn new() -> OpenOptions {
        OpenOptions(std::fs::OpenOptions::new())
    }

    /// Open for reading.
    pub fn read(&mut self, read: bool) -> &mut OpenOptions {
        self.0.read(read);
        self
    }

    /// Open for writing.
    pub fn write(&mut self, write: bool) -> &mut OpenOptions {
        self.0.write(write);
        self
    }

    /// Open for appending (`O_APPEND`): every write goes to the end.
    pub fn append(&mut self, append: bool) -> &mut OpenOptions {
        self.0.append(append);
        self
    }

    /// Truncate an existing file to 0 bytes (needs `write`).
    pub fn truncate(&mut self, truncate: bool) -> &mut OpenOptions {
        self.0.truncate(truncate);
        self
    }

    /// Create the file if it does not exist (needs `write` or `append`).
    pub fn create(&mut self, create: bool) -> &mut OpenOptions {
        self.0.create(create);
        self
    }

    /// Create the file, failing with `AlreadyExists` if it exists
    /// (`O_CREAT | O_EXCL`); `create` and `truncate` are then ignored.
    pub fn create_new(&mut self, create_new: bool) -> &mut OpenOptions {
        self.0.create_new(create_new);
        self
    }

    /// The permission bits of a file this creates (default 0o666; the
    /// umask applies).
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        self.0.mode(mode);
        self
    }

    /// Extra `open(2)` flags, or-ed in (the access mode bits are ignored).
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        self.0.custom_flags(flags);
        self
    }

    /// Opens `path` with these options.
    ///
    /// # Errors
    ///
    /// Those of `open(2)`: `NotFound`, `PermissionDenied`, `AlreadyExists`,
    /// `IsADirectory` for a directory opened for writing, `InvalidInput`
    /// for an invalid combination of options, ...
    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let path = path.as_ref().to_owned();
        let options = self.0.clone();
        let std = asyncify(move || options.open(path)).await?;
        Ok(File::from_std(std))
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}

impl From<std::fs::OpenOptions> for OpenOptions {
    fn from(options: std::fs::OpenOptions) -> OpenOptions {
        OpenOptions(options)
    }
}
