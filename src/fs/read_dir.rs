//! `read_dir`: a directory's entries, a batch per blocking hop.
//!
//! Each trip to the blocking pool reads up to `BATCH` entries (32, as
//! tokio) and, for each, the file type the kernel's `getdents64` already
//! returned (`d_type`), so `DirEntry::file_type` usually needs no further
//! system call. A batch stops early at an error, which is handed out in
//! order; the stream then goes on with the next batch.
use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::{FileType, Metadata};
use std::future::{poll_fn, Future};
use std::io;
use std::os::unix::fs::DirEntryExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use super::asyncify;
use crate::runtime::scheduler;
use crate::task::JoinHandle;

/// Entries per blocking hop.
const BATCH: usize = 32;

/// Opens the directory `path` and reads its first batch of entries.
pub async fn read_dir(path: impl AsRef<Path>) -> io::Result<ReadDir> {
    let path = path.as_ref().to_owned();
    asyncify(move || {
        let mut batch = Batch {
            entries: VecDeque::with_capacity(BATCH),
            std: std::fs::read_dir(path)?,
            more: true,
        };
        batch.fill();
        Ok(ReadDir(State::Idle(Some(batch))))
    })
    .await
}

/// The entries of a directory, from [`read_dir`]. Not a `Stream`: use
/// [`next_entry`](ReadDir::next_entry), or `tokio_stream::wrappers::ReadDirStream`.
#[derive(Debug)]
#[must_use = "streams do nothing unless polled"]
pub struct ReadDir(State);

#[derive(Debug)]
enum State {
    /// `None` only while a method moves the batch to the pool.
    Idle(Option<Batch>),
    Pending(JoinHandle<Batch>),
    /// The blocking task that held the iterator failed.
    Ended,
}

/// Read entries and the std iterator they came from.
#[derive(Debug)]
struct Batch {
    entries: VecDeque<io::Result<DirEntry>>,
    std: std::fs::ReadDir,
    /// False once the iterator has ended.
    more: bool,
}

impl Batch {
    /// Reads up to `BATCH` entries (blocking).
    fn fill(&mut self) {
        for _ in 0..BATCH {
            let Some(next) = self.std.next() else {
                self.more = false;
                return;
            };
            let failed = next.is_err();
            self.entries.push_back(next.map(|std| DirEntry {
                file_type: std.file_type().ok(),
                std: Arc::new(std),
            }));
            if failed {
                return;
            }
        }
    }
}

impl ReadDir {
    /// The next entry, or `None` at the end. Cancel safe: an entry is only
    /// taken when this returns it.
    pub async fn next_entry(&mut self) -> io::Result<Option<DirEntry>> {
        poll_fn(|cx| self.poll_next_entry(cx)).await
    }

    /// Polls for the next entry: `Ready(Ok(None))` at the end. When it
    /// returns `Pending`, `cx`'s waker is woken once the next batch is in.
    pub fn poll_next_entry(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<DirEntry>>> {
        loop {
            match &mut self.0 {
                State::Idle(slot) => {
                    let batch = slot.as_mut().expect("a ReadDir's batch is always returned");
                    if let Some(entry) = batch.entries.pop_front() {
                        return Poll::Ready(entry.map(Some));
                    }
                    if !batch.more {
                        return Poll::Ready(Ok(None));
                    }
                    let mut batch = slot.take().expect("checked above");
                    self.0 =
                        State::Pending(scheduler::Handle::current().spawn_blocking(move || {
                            batch.fill();
                            batch
                        }));
                }
                State::Pending(handle) => {
                    let batch = ready!(Pin::new(handle).poll(cx));
                    match batch {
                        Ok(batch) => self.0 = State::Idle(Some(batch)),
                        Err(e) => {
                            // The iterator went with the task: the stream
                            // ends after this error.
                            self.0 = State::Ended;
                            return Poll::Ready(Err(e.into()));
                        }
                    }
                }
                State::Ended => return Poll::Ready(Ok(None)),
            }
        }
    }
}

/// An entry of a directory, from [`ReadDir`].
#[derive(Debug)]
pub struct DirEntry {
    /// The type read with the entry, when the file system reported it.
    file_type: Option<FileType>,
    std: Arc<std::fs::DirEntry>,
}

impl DirEntry {
    /// The directory's path joined with the entry's name.
    pub fn path(&self) -> PathBuf {
        self.std.path()
    }

    /// The entry's name (no leading path).
    pub fn file_name(&self) -> OsString {
        self.std.file_name()
    }

    /// The entry's inode number (`d_ino`).
    pub fn ino(&self) -> u64 {
        self.std.ino()
    }

    /// The entry's metadata, not following a symbolic link.
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let std = self.std.clone();
        asyncify(move || std.metadata()).await
    }

    /// The entry's type, not following a symbolic link: usually known
    /// already; otherwise an `lstat(2)` on the blocking pool.
    pub async fn file_type(&self) -> io::Result<FileType> {
        if let Some(file_type) = self.file_type {
            return Ok(file_type);
        }
        let std = self.std.clone();
        asyncify(move || std.file_type()).await
    }
}
