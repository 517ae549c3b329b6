//! `File`: an open file whose reads, writes and seeks run off the worker.
//!
//! A `File` is a `std::fs::File` (shared through an `Arc` with the
//! operation in flight) plus the state machine of `file/inner.rs`. Its
//! semantics are tokio's, which programs rely on:
//!
//! * a write is reported done once copied into the file's buffer; `flush`
//!   (or the next operation) waits for it and reports its error, so a
//!   `File` dropped without `flush` may lose the last write's error (not
//!   its data: the write still runs);
//! * reads fill an internal buffer of up to `max_buf_size` bytes (2 MiB by
//!   default) and serve the caller from it; a seek or write first moves
//!   the descriptor back over unread buffered data;
//! * one operation at a time: `&self` methods (`sync_all`, `set_len`, ...)
//!   take an async mutex and wait for the operation in flight.
//!
//! Files:
//! * `op.rs`: the in-flight operation (`InFlight`) and how it is run: the
//!   seam where the io_uring path plugs in;
//! * `blocking_ops.rs`: the bodies of read, write, seek and `set_len` on the
//!   blocking pool;
//! * `inner.rs`: the state and its transitions' shared steps;
//! * `async_io.rs`: the `AsyncRead`/`AsyncWrite`/`AsyncSeek` transitions.
mod async_io;
mod blocking_ops;
mod exclusive;
mod inner;
mod op;

use std::fmt;
use std::fs::{File as StdFile, Metadata, Permissions};
use std::io::{self, SeekFrom};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

#[cfg(tokiwa_own_vocabulary)]
use crate::sync::Mutex;
#[cfg(not(tokiwa_own_vocabulary))]
use tokio::sync::Mutex;

use self::inner::{Inner, State};
use self::op::{InFlight, Operation};
use super::{asyncify, FileTimes, OpenOptions};
use crate::io::blocking::DEFAULT_MAX_BUF_SIZE;

/// A reference to an open file on the filesystem.
///
/// Created by [`File::open`], [`File::create`], [`OpenOptions::open`] or
/// from a `std::fs::File`. Reads, writes and seeks go through the
/// [`AsyncRead`](crate::io::AsyncRead), [`AsyncWrite`](crate::io::AsyncWrite)
/// and [`AsyncSeek`](crate::io::AsyncSeek) traits.
///
/// A write completes when its data is copied into the file's buffer: call
/// [`flush`](crate::io::AsyncWriteExt::flush) (or `sync_all`) to wait for
/// the data to reach the file and to see a write's error.
pub struct File {
    std: Arc<StdFile>,
    inner: Mutex<Inner>,
    max_buf_size: usize,
}

impl File {
    /// Opens a file in read-only mode.
    ///
    /// # Errors
    ///
    /// Those of [`OpenOptions::open`], e.g. `NotFound` when `path` does not
    /// exist.
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        File::options().read(true).open(path).await
    }

    /// Opens a file in write-only mode, creating it or truncating it.
    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        File::options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .await
    }

    /// Creates a new file in read-write mode; fails with `AlreadyExists` if
    /// `path` exists.
    pub async fn create_new<P: AsRef<Path>>(path: P) -> io::Result<File> {
        File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .await
    }

    /// A new [`OpenOptions`] with every option off.
    #[must_use]
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// Wraps a `std::fs::File` (its cursor is used as is).
    pub fn from_std(std: StdFile) -> File {
        File {
            std: Arc::new(std),
            inner: Mutex::new(Inner::new()),
            max_buf_size: DEFAULT_MAX_BUF_SIZE,
        }
    }

    /// Waits for the operation in flight, then `fsync(2)`s data and
    /// metadata.
    pub async fn sync_all(&self) -> io::Result<()> {
        self.inner.lock().await.complete_inflight().await;
        let std = self.std.clone();
        let std = match super::ring::fsync(std, false).await {
            Ok(res) => return res,
            Err(std) => std,
        };
        asyncify(move || std.sync_all()).await
    }

    /// Waits for the operation in flight, then `fdatasync(2)`s.
    pub async fn sync_data(&self) -> io::Result<()> {
        self.inner.lock().await.complete_inflight().await;
        let std = self.std.clone();
        let std = match super::ring::fsync(std, true).await {
            Ok(res) => return res,
            Err(std) => std,
        };
        asyncify(move || std.sync_data()).await
    }

    /// Truncates or extends the file to `size` bytes; the cursor does not
    /// move (unread buffered data is given back first).
    pub async fn set_len(&self, size: u64) -> io::Result<()> {
        let mut inner = self.inner.lock().await;
        inner.complete_inflight().await;
        let mut buf = inner.take_buf();
        let pre_seek = if buf.is_empty() {
            None
        } else {
            Some(SeekFrom::Current(buf.discard_read()))
        };
        inner.state = State::Busy(InFlight::set_len(self.std.clone(), buf, pre_seek, size));
        let inner = &mut *inner;
        match std::future::poll_fn(|cx| inner.poll_inflight(cx)).await? {
            Some(Operation::Seek(res)) => res.map(|pos| inner.pos = pos),
            _ => unreachable!("set_len completes as a seek"),
        }
    }

    /// Metadata of the file (`fstat(2)`).
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let std = self.std.clone();
        asyncify(move || std.metadata()).await
    }

    /// A new `File` on a duplicate of the descriptor (shared cursor), after
    /// the operation in flight completes.
    pub async fn try_clone(&self) -> io::Result<File> {
        self.inner.lock().await.complete_inflight().await;
        let std = self.std.clone();
        let clone = asyncify(move || std.try_clone()).await?;
        let mut file = File::from_std(clone);
        file.set_max_buf_size(self.max_buf_size);
        Ok(file)
    }

    /// Waits for the operation in flight and returns the `std::fs::File`.
    /// Unread buffered data is lost (the cursor is past it).
    pub async fn into_std(mut self) -> StdFile {
        self.inner.get_mut().complete_inflight().await;
        Arc::try_unwrap(self.std).expect("Arc::try_unwrap failed")
    }

    /// The `std::fs::File` if no operation holds it; `self` otherwise.
    #[allow(clippy::result_large_err)]
    pub fn try_into_std(mut self) -> Result<StdFile, File> {
        match Arc::try_unwrap(self.std) {
            Ok(std) => Ok(std),
            Err(std) => {
                self.std = std;
                Err(self)
            }
        }
    }

    /// Changes the file's permissions (`fchmod(2)`).
    pub async fn set_permissions(&self, perm: Permissions) -> io::Result<()> {
        let std = self.std.clone();
        asyncify(move || std.set_permissions(perm)).await
    }

    /// Changes the file's access and modification times, after the
    /// operation in flight completes.
    pub async fn set_times(&self, times: FileTimes) -> io::Result<()> {
        self.inner.lock().await.complete_inflight().await;
        let std = self.std.clone();
        let times = times.into_std();
        asyncify(move || std.set_times(times)).await
    }

    /// Changes the file's modification time.
    pub async fn set_modified(&self, time: SystemTime) -> io::Result<()> {
        self.set_times(FileTimes::new().set_modified(time)).await
    }

    /// Sets the largest read or write one operation performs (2 MiB by
    /// default).
    ///
    /// # Panics
    ///
    /// Panics if `max_buf_size` is 0.
    #[track_caller]
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
        self.max_buf_size = max_buf_size;
    }

    /// The largest read or write one operation performs.
    pub fn max_buf_size(&self) -> usize {
        self.max_buf_size
    }
}

impl From<StdFile> for File {
    fn from(std: StdFile) -> File {
        File::from_std(std)
    }
}

impl From<OwnedFd> for File {
    fn from(fd: OwnedFd) -> File {
        File::from_std(StdFile::from(fd))
    }
}

impl fmt::Debug for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("tokio::fs::File")
            .field("std", &self.std)
            .finish()
    }
}

impl AsRawFd for File {
    fn as_raw_fd(&self) -> RawFd {
        self.std.as_raw_fd()
    }
}

impl AsFd for File {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.std.as_fd()
    }
}

impl FromRawFd for File {
    /// # Safety
    ///
    /// `fd` must be an open descriptor that the caller owns (see
    /// `std::fs::File::from_raw_fd`).
    unsafe fn from_raw_fd(fd: RawFd) -> File {
        // SAFETY: the caller's contract is exactly std's: `fd` is open and
        // owned, and ownership moves into the `File`.
        File::from_std(unsafe { StdFile::from_raw_fd(fd) })
    }
}
