//! Unix pipes and FIFOs: [`Sender`], [`Receiver`], [`OpenOptions`] and
//! [`pipe()`].
//!
//! Each end is a `File` in non-blocking mode inside a `PollEvented`,
//! registered for the one direction it serves (writable for a sender,
//! readable for a receiver), so both drivers serve it as they serve a
//! socket: the epoll driver through its epoll set, the io_uring driver
//! through a poll on the descriptor.
//!
//! What is checked, as in tokio: the `from_*` constructors and
//! [`OpenOptions`] refuse a descriptor that is not a pipe or FIFO
//! (`fstat`'s `S_IFIFO`) with `InvalidInput`, and the `from_*`
//! constructors refuse one whose access mode cannot serve the end
//! (`fcntl(F_GETFL)`); the `*_unchecked` constructors and
//! [`OpenOptions::unchecked`] skip both, leaving a descriptor the reactor
//! cannot poll (a regular file) to fail registration with `EPERM`.
//!
//! FIFO open semantics are the kernel's (fifo(7)): a non-blocking open for
//! writing fails with `ENXIO` while no reader has the FIFO open, and a
//! Linux-only read-write open (`O_RDWR`, [`OpenOptions::read_write`])
//! always succeeds and keeps the FIFO open across writers coming and going.
//!
//! `try_read_buf` (a `bytes::BufMut` read) is not provided: tokiwa has no
//! `bytes` dependency yet, as for the sockets' `try_read_buf`.
use crate::io::poll_evented::PollEvented;
use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};
use std::fs::File;
use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Creates an anonymous pipe, returning its writing and reading ends.
///
/// Both ends are close-on-exec and non-blocking, and registered with the
/// current runtime's I/O driver.
///
/// # Errors
///
/// When `pipe2(2)` fails (out of descriptors) or registration fails.
///
/// # Panics
///
/// Outside a runtime, or on one built without `enable_io`.
#[track_caller]
pub fn pipe() -> io::Result<(Sender, Receiver)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` is writable memory for the two descriptors `pipe2`
    // stores.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `pipe2` succeeded, so both descriptors are open and owned by
    // nobody else.
    let (rx, tx) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let sender = Sender::from_owned_fd_unchecked(tx)?;
    // A fresh pipe is empty: writable without waiting for the reactor to
    // say so.
    sender.io.registration().assume_ready(Ready::WRITABLE);
    let receiver = Receiver::from_owned_fd_unchecked(rx)?;
    Ok((sender, receiver))
}

/// Options and flags to open a FIFO file as either end of a pipe.
///
/// By default a FIFO opens in the access mode of the end it becomes (read
/// only for a [`Receiver`], write only for a [`Sender`]) and a file that is
/// not a FIFO is refused.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    read_write: bool,
    unchecked: bool,
}

impl OpenOptions {
    /// Creates the default options.
    pub fn new() -> OpenOptions {
        OpenOptions {
            read_write: false,
            unchecked: false,
        }
    }

    /// Opens the FIFO for both reading and writing (`O_RDWR`, Linux
    /// only).
    ///
    /// A sender opened this way does not fail with `ENXIO` when no reader
    /// exists, and a receiver opened this way never sees end-of-file when
    /// the last writer closes, since it is a writer itself.
    pub fn read_write(&mut self, value: bool) -> &mut Self {
        self.read_write = value;
        self
    }

    /// Skips the check that the opened file is a FIFO.
    ///
    /// A file the I/O driver cannot poll (a regular file) then fails
    /// registration instead.
    pub fn unchecked(&mut self, value: bool) -> &mut Self {
        self.unchecked = value;
        self
    }

    /// Opens the FIFO at `path` as a [`Receiver`].
    ///
    /// # Errors
    ///
    /// When the open fails, or the file is not a FIFO (`InvalidInput`,
    /// unless [`unchecked`](OpenOptions::unchecked)).
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    #[track_caller]
    pub fn open_receiver<P: AsRef<Path>>(&self, path: P) -> io::Result<Receiver> {
        let file = self.open(path.as_ref(), End::Receiver)?;
        Receiver::from_file_unchecked(file)
    }

    /// Opens the FIFO at `path` as a [`Sender`].
    ///
    /// # Errors
    ///
    /// When the open fails (`ENXIO` while no reader has the FIFO open,
    /// unless [`read_write`](OpenOptions::read_write)), or the file is not
    /// a FIFO (`InvalidInput`, unless
    /// [`unchecked`](OpenOptions::unchecked)).
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    #[track_caller]
    pub fn open_sender<P: AsRef<Path>>(&self, path: P) -> io::Result<Sender> {
        let file = self.open(path.as_ref(), End::Sender)?;
        Sender::from_file_unchecked(file)
    }

    fn open(&self, path: &Path, end: End) -> io::Result<File> {
        let mut options = std::fs::OpenOptions::new();
        options
            .read(end == End::Receiver || self.read_write)
            .write(end == End::Sender || self.read_write)
            .custom_flags(libc::O_NONBLOCK);
        let file = options.open(path)?;
        if !self.unchecked && !is_pipe(file.as_fd())? {
            return Err(not_a_pipe());
        }
        Ok(file)
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Sender,
    Receiver,
}

/// The writing end of a Unix pipe: from [`pipe()`],
/// [`OpenOptions::open_sender`] or a descriptor.
///
/// Writes never buffer: [`AsyncWrite::poll_flush`] and `poll_shutdown` do
/// nothing, and the pipe end closes when this is dropped.
#[derive(Debug)]
pub struct Sender {
    io: PollEvented<File>,
}

impl Sender {
    /// Creates a sender from the writing end of a pipe, opened as a
    /// `File`. See [`Sender::from_owned_fd`].
    ///
    /// # Errors
    ///
    /// As [`Sender::from_owned_fd`].
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    #[track_caller]
    pub fn from_file(file: File) -> io::Result<Sender> {
        Sender::from_owned_fd(file.into())
    }

    /// Creates a sender from the writing end of a pipe, switching it to
    /// non-blocking mode.
    ///
    /// # Errors
    ///
    /// `InvalidInput` when the descriptor is not a pipe or FIFO, or not
    /// open for writing (`O_WRONLY` or `O_RDWR`); registration errors.
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    #[track_caller]
    pub fn from_owned_fd(owned_fd: OwnedFd) -> io::Result<Sender> {
        let flags = checked_flags(owned_fd.as_fd())?;
        if !has_access(flags, libc::O_WRONLY) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not in O_WRONLY or O_RDWR access mode",
            ));
        }
        set_nonblocking(owned_fd.as_fd(), flags)?;
        Sender::from_owned_fd_unchecked(owned_fd)
    }

    /// Creates a sender from a `File` without checking it; see
    /// [`Sender::from_owned_fd_unchecked`].
    ///
    /// # Errors
    ///
    /// When registration fails.
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    #[track_caller]
    pub fn from_file_unchecked(file: File) -> io::Result<Sender> {
        Sender::from_owned_fd_unchecked(file.into())
    }

    /// Creates a sender from a descriptor without checking that it is a
    /// pipe open for writing, and without changing its mode: the caller
    /// makes sure it is non-blocking.
    ///
    /// # Errors
    ///
    /// When registration fails (`EPERM` for a regular file).
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    #[track_caller]
    pub fn from_owned_fd_unchecked(owned_fd: OwnedFd) -> io::Result<Sender> {
        let io = PollEvented::new_for_any_fd(File::from(owned_fd), Interest::WRITABLE)?;
        Ok(Sender { io })
    }

    /// Waits for any of the requested readiness and returns it.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.io.ready(interest).await
    }

    /// Waits for the pipe to become writable: equivalent to
    /// `ready(Interest::WRITABLE)`, usually paired with
    /// [`try_write`](Sender::try_write).
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn writable(&self) -> io::Result<()> {
        self.ready(Interest::WRITABLE).await?;
        Ok(())
    }

    /// Polls for write readiness; when not ready, stores the waker of `cx`
    /// (only the last task's waker is kept).
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_write_ready(cx)
    }

    /// Writes some of `buf` if the pipe is writable now; `WouldBlock`
    /// otherwise.
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_write(buf)
    }

    /// Writes from several buffers, in order, if the pipe is writable now;
    /// `WouldBlock` otherwise.
    pub fn try_write_vectored(&self, buf: &[IoSlice<'_>]) -> io::Result<usize> {
        self.io.try_write_vectored(buf)
    }

    /// Runs the write operation `f` if the pipe is writable now;
    /// `WouldBlock` otherwise. A `WouldBlock` from `f` clears the
    /// readiness, so `f` should return it only when its own syscall on this
    /// pipe did.
    pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        self.io.try_io(Interest::WRITABLE, f)
    }

    /// Deregisters the pipe end and returns its descriptor in blocking
    /// mode.
    ///
    /// # Errors
    ///
    /// When deregistration or `fcntl` fails.
    pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
        let fd = self.into_nonblocking_fd()?;
        set_blocking(fd.as_fd())?;
        Ok(fd)
    }

    /// Deregisters the pipe end and returns its descriptor, still
    /// non-blocking.
    ///
    /// # Errors
    ///
    /// When deregistration fails.
    pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
        Ok(self.io.into_inner()?.into())
    }
}

impl AsyncWrite for Sender {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    /// As in tokio, this does not close the pipe; dropping the sender does.
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The reading end of a Unix pipe: from [`pipe()`],
/// [`OpenOptions::open_receiver`] or a descriptor.
///
/// A read returns end-of-file (0 bytes) once every writer has closed the
/// pipe; a FIFO that no writer has opened yet reads as end-of-file too.
#[derive(Debug)]
pub struct Receiver {
    io: PollEvented<File>,
}

impl Receiver {
    /// Creates a receiver from the reading end of a pipe, opened as a
    /// `File`. See [`Receiver::from_owned_fd`].
    ///
    /// # Errors
    ///
    /// As [`Receiver::from_owned_fd`].
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    #[track_caller]
    pub fn from_file(file: File) -> io::Result<Receiver> {
        Receiver::from_owned_fd(file.into())
    }

    /// Creates a receiver from the reading end of a pipe, switching it to
    /// non-blocking mode.
    ///
    /// # Errors
    ///
    /// `InvalidInput` when the descriptor is not a pipe or FIFO, or not
    /// open for reading (`O_RDONLY` or `O_RDWR`); registration errors.
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    #[track_caller]
    pub fn from_owned_fd(owned_fd: OwnedFd) -> io::Result<Receiver> {
        let flags = checked_flags(owned_fd.as_fd())?;
        if !has_access(flags, libc::O_RDONLY) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not in O_RDONLY or O_RDWR access mode",
            ));
        }
        set_nonblocking(owned_fd.as_fd(), flags)?;
        Receiver::from_owned_fd_unchecked(owned_fd)
    }

    /// Creates a receiver from a `File` without checking it; see
    /// [`Receiver::from_owned_fd_unchecked`].
    ///
    /// # Errors
    ///
    /// When registration fails.
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    #[track_caller]
    pub fn from_file_unchecked(file: File) -> io::Result<Receiver> {
        Receiver::from_owned_fd_unchecked(file.into())
    }

    /// Creates a receiver from a descriptor without checking that it is a
    /// pipe open for reading, and without changing its mode: the caller
    /// makes sure it is non-blocking.
    ///
    /// # Errors
    ///
    /// When registration fails (`EPERM` for a regular file).
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`.
    #[track_caller]
    pub fn from_owned_fd_unchecked(owned_fd: OwnedFd) -> io::Result<Receiver> {
        let io = PollEvented::new_for_any_fd(File::from(owned_fd), Interest::READABLE)?;
        Ok(Receiver { io })
    }

    /// Waits for any of the requested readiness and returns it.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.io.ready(interest).await
    }

    /// Waits for the pipe to become readable: equivalent to
    /// `ready(Interest::READABLE)`, usually paired with
    /// [`try_read`](Receiver::try_read).
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe.
    pub async fn readable(&self) -> io::Result<()> {
        self.ready(Interest::READABLE).await?;
        Ok(())
    }

    /// Polls for read readiness; when not ready, stores the waker of `cx`
    /// (only the last task's waker is kept).
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.io.poll_read_ready(cx)
    }

    /// Reads into `buf` if the pipe is readable now; `WouldBlock`
    /// otherwise. `Ok(0)` means end-of-file (or an empty `buf`).
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_read(buf)
    }

    /// Reads into several buffers, in order, if the pipe is readable now;
    /// `WouldBlock` otherwise.
    pub fn try_read_vectored(&self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        self.io.try_read_vectored(bufs)
    }

    /// Tries to read data from the pipe into the spare capacity of `buf`
    /// (a `bytes::BufMut`, such as `Vec<u8>` or `BytesMut`), advancing its
    /// write position by the number of bytes read, which is returned.
    ///
    /// The spare capacity may be uninitialised: only the kernel writes
    /// into it. A buffer with no spare capacity is grown by
    /// `BufMut::chunk_mut` first (`Vec` and `BytesMut` do so).
    ///
    /// `Ok(0)` means the pipe reached end-of-file. If it is not ready
    /// to read, `Err(io::ErrorKind::WouldBlock)` is returned, exactly as
    /// from [`try_read()`]; it is usually paired with `readable()`.
    ///
    /// [`try_read()`]: Receiver::try_read()
    #[cfg(feature = "io-util")]
    pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.io.try_read_buf(buf)
    }

    /// Runs the read operation `f` if the pipe is readable now;
    /// `WouldBlock` otherwise. A `WouldBlock` from `f` clears the
    /// readiness, so `f` should return it only when its own syscall on this
    /// pipe did.
    pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        self.io.try_io(Interest::READABLE, f)
    }

    /// Deregisters the pipe end and returns its descriptor in blocking
    /// mode.
    ///
    /// # Errors
    ///
    /// When deregistration or `fcntl` fails.
    pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
        let fd = self.into_nonblocking_fd()?;
        set_blocking(fd.as_fd())?;
        Ok(fd)
    }

    /// Deregisters the pipe end and returns its descriptor, still
    /// non-blocking.
    ///
    /// # Errors
    ///
    /// When deregistration fails.
    pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
        Ok(self.io.into_inner()?.into())
    }
}

impl AsyncRead for Receiver {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.io.poll_read(cx, buf)
    }
}

macro_rules! fd_traits {
    ($type:ident) => {
        impl AsRawFd for $type {
            fn as_raw_fd(&self) -> RawFd {
                self.io.as_raw_fd()
            }
        }

        impl AsFd for $type {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.io.get_ref().as_fd()
            }
        }
    };
}

fd_traits!(Sender);
fd_traits!(Receiver);

fn not_a_pipe() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a pipe")
}

fn is_pipe(fd: BorrowedFd<'_>) -> io::Result<bool> {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `stat` is writable memory of the right size; `fd` is open for
    // the borrow's lifetime.
    if unsafe { libc::fstat(fd.as_raw_fd(), stat.as_mut_ptr()) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fstat` succeeded, so it initialised `stat`.
    let mode = unsafe { stat.assume_init() }.st_mode & libc::S_IFMT;
    Ok(mode == libc::S_IFIFO)
}

/// The file status flags of `fd`, after checking that it is a pipe.
fn checked_flags(fd: BorrowedFd<'_>) -> io::Result<libc::c_int> {
    if !is_pipe(fd)? {
        return Err(not_a_pipe());
    }
    get_flags(fd)
}

/// Whether access mode `flags` allows what `O_RDONLY` or `O_WRONLY`
/// (`wanted`) allows; `O_RDWR` allows both.
fn has_access(flags: libc::c_int, wanted: libc::c_int) -> bool {
    let mode = flags & libc::O_ACCMODE;
    mode == wanted || mode == libc::O_RDWR
}

fn get_flags(fd: BorrowedFd<'_>) -> io::Result<libc::c_int> {
    // SAFETY: `fcntl(F_GETFL)` on a descriptor open for the borrow's
    // lifetime; no pointers.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(flags)
}

fn set_flags(fd: BorrowedFd<'_>, old: libc::c_int, new: libc::c_int) -> io::Result<()> {
    if new != old {
        // SAFETY: `fcntl(F_SETFL)` on a descriptor open for the borrow's
        // lifetime, with an integer argument.
        if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, new) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

fn set_nonblocking(fd: BorrowedFd<'_>, flags: libc::c_int) -> io::Result<()> {
    set_flags(fd, flags, flags | libc::O_NONBLOCK)
}

fn set_blocking(fd: BorrowedFd<'_>) -> io::Result<()> {
    let flags = get_flags(fd)?;
    set_flags(fd, flags, flags & !libc::O_NONBLOCK)
}
