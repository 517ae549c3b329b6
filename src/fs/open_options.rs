//! `OpenOptions`: how a file is opened.
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::{asyncify, File};

/// Options for opening a file: the async form of `std::fs::OpenOptions`,
/// which it wraps (`open` runs `open(2)` on the blocking pool). The Unix
/// extensions `mode` and `custom_flags` are inherent methods, as in tokio.
#[derive(Clone, Debug)]
pub struct OpenOptions(
    std::fs::OpenOptions,
    /// The same choices as `open(2)` flags, for an `openat` through the
    /// worker's ring (std's options cannot be read back). Kept in every
    /// build: without the `uring` feature no ring takes them, and `open`
    /// goes to the blocking pool (see `fs/ring/mod.rs`).
    OpenFlags,
);

/// What `OpenOptions` was told, as `open(2)` flags.
#[derive(Clone, Copy, Debug)]
struct OpenFlags {
    read: bool,
    write: bool,
    append: bool,
    truncate: bool,
    create: bool,
    create_new: bool,
    mode: u32,
    custom_flags: i32,
    /// Built from a `std::fs::OpenOptions`, whose choices are unknown:
    /// always opened by std.
    opaque: bool,
}

impl OpenFlags {
    const fn new() -> OpenFlags {
        OpenFlags {
            read: false,
            write: false,
            append: false,
            truncate: false,
            create: false,
            create_new: false,
            mode: 0o666,
            custom_flags: 0,
            opaque: false,
        }
    }

    /// The `open(2)` flags, or `None` for a combination std refuses (std
    /// then opens, to return its own error) or unknown choices.
    fn to_open_flags(self) -> Option<i32> {
        if self.opaque {
            return None;
        }
        let access = match (self.read, self.write, self.append) {
            (true, false, false) => libc::O_RDONLY,
            (false, true, false) => libc::O_WRONLY,
            (true, true, false) => libc::O_RDWR,
            (false, _, true) => libc::O_WRONLY | libc::O_APPEND,
            (true, _, true) => libc::O_RDWR | libc::O_APPEND,
            (false, false, false) => return None,
        };
        if !self.write && !self.append && (self.truncate || self.create || self.create_new) {
            return None;
        }
        if self.append && self.truncate && !self.create_new {
            return None;
        }
        let creation = match (self.create, self.truncate, self.create_new) {
            (_, _, true) => libc::O_CREAT | libc::O_EXCL,
            (true, true, false) => libc::O_CREAT | libc::O_TRUNC,
            (true, false, false) => libc::O_CREAT,
            (false, true, false) => libc::O_TRUNC,
            (false, false, false) => 0,
        };
        Some(access | creation | (self.custom_flags & !libc::O_ACCMODE))
    }
}

impl OpenOptions {
    /// Options with everything off (opening with them fails: choose at
    /// least `read`, `write` or `append`).
    pub fn new() -> OpenOptions {
        OpenOptions(std::fs::OpenOptions::new(), OpenFlags::new())
    }

    /// Open for reading.
    pub fn read(&mut self, read: bool) -> &mut OpenOptions {
        self.0.read(read);
        self.1.read = read;
        self
    }

    /// Open for writing.
    pub fn write(&mut self, write: bool) -> &mut OpenOptions {
        self.0.write(write);
        self.1.write = write;
        self
    }

    /// Open for appending (`O_APPEND`): every write goes to the end.
    pub fn append(&mut self, append: bool) -> &mut OpenOptions {
        self.0.append(append);
        self.1.append = append;
        self
    }

    /// Truncate an existing file to 0 bytes (needs `write`).
    pub fn truncate(&mut self, truncate: bool) -> &mut OpenOptions {
        self.0.truncate(truncate);
        self.1.truncate = truncate;
        self
    }

    /// Create the file if it does not exist (needs `write` or `append`).
    pub fn create(&mut self, create: bool) -> &mut OpenOptions {
        self.0.create(create);
        self.1.create = create;
        self
    }

    /// Create the file, failing with `AlreadyExists` if it exists
    /// (`O_CREAT | O_EXCL`); `create` and `truncate` are then ignored.
    pub fn create_new(&mut self, create_new: bool) -> &mut OpenOptions {
        self.0.create_new(create_new);
        self.1.create_new = create_new;
        self
    }

    /// The permission bits of a file this creates (default 0o666; the
    /// umask applies).
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        self.0.mode(mode);
        self.1.mode = mode;
        self
    }

    /// Extra `open(2)` flags, or-ed in (the access mode bits are ignored).
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        self.0.custom_flags(flags);
        self.1.custom_flags = flags;
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
        if let Some(flags) = self.1.to_open_flags() {
            if let Ok(res) = super::ring::open(path.as_ref(), flags, self.1.mode).await {
                return res.map(File::from_std);
            }
        }
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
        OpenOptions(
            options,
            OpenFlags {
                opaque: true,
                ..OpenFlags::new()
            },
        )
    }
}
