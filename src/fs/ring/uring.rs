//! The ring way of the operations of `mod.rs`: each runs on the calling
//! worker's ring (io_uring mode).
//!
//! Each function runs one operation as an [`Op`] (see
//! `runtime/driver/uring/op.rs`: the operation owns its buffer, path and
//! file until the kernel completes it, also when its future is dropped)
//! and returns `Err` with its inputs when no ring can run it here: the
//! runtime runs in legacy mode, or the caller is not a worker (a thread
//! inside `block_on` of a multi-thread runtime, a blocking-pool thread).
//! The caller then does the same work on the blocking pool.
//!
//! Reads and writes go at the file's current position (offset `-1`,
//! `IORING_FEAT_RW_CUR_POS`), so they mix with `seek` and with std's
//! calls on the same descriptor exactly as `read(2)` and `write(2)` do.
use crate::io::blocking::Buf;
use crate::runtime::driver::uring::op::{Op, OpData, Unrun};
use crate::runtime::scheduler;
use io_uring::{opcode, squeue, types};
use std::ffi::CString;
use std::fs::File as StdFile;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

/// `offset` of a read or write at the file's current position.
const CURRENT_POSITION: u64 = u64::MAX;

/// See the contract in `mod.rs`.
pub(crate) fn available() -> bool {
    crate::runtime::driver::uring::op::current_worker().is_some()
}

fn result(res: i32) -> io::Result<u32> {
    if res < 0 {
        Err(io::Error::from_raw_os_error(-res))
    } else {
        Ok(res as u32)
    }
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "file name contained an unexpected NUL byte",
        )
    })
}

/// The most one read or write asks for (the kernel caps a transfer at
/// `MAX_RW_COUNT`, just under 2 GiB, anyway).
const MAX_TRANSFER: usize = 1 << 30;

/// A buffer a ring read fills or a ring write empties: a `Vec<u8>` (read
/// into its spare capacity, for whole-file reads) or a `File`'s `Buf`.
///
/// # Safety
///
/// The pointers handed out point into a heap block owned by `self` that
/// does not move when `self` moves and is not touched by `self`'s other
/// methods until `filled` is called.
pub(crate) unsafe trait RingBuf: Send + Unpin + 'static {
    /// Where a read of at most `len` bytes lands, and how many it may take.
    fn read_target(&mut self, len: usize) -> (*mut u8, u32);
    /// The read put `n` bytes at the target.
    ///
    /// # Safety
    ///
    /// `n` bytes at the last `read_target` were initialised by the kernel.
    unsafe fn filled(&mut self, n: usize);
    /// The bytes a write writes.
    fn data(&self) -> &[u8];
    /// A buffer to give back in place of one the kernel may still write
    /// (its operation was orphaned, see `Unrun::Orphaned`).
    fn empty() -> Self
    where
        Self: Sized;
}

// SAFETY: the target is the vector's spare capacity, reserved first; the
// heap block moves only when the vector grows, which nothing does while the
// operation owns it.
unsafe impl RingBuf for Vec<u8> {
    fn read_target(&mut self, len: usize) -> (*mut u8, u32) {
        self.reserve(len);
        let spare = self.spare_capacity_mut();
        let len = spare.len().min(len).min(MAX_TRANSFER);
        (spare.as_mut_ptr().cast(), len as u32)
    }

    unsafe fn filled(&mut self, n: usize) {
        // SAFETY: the caller's contract: `n` bytes of the spare capacity
        // are initialised.
        unsafe { self.set_len(self.len() + n) };
    }

    fn data(&self) -> &[u8] {
        self
    }

    fn empty() -> Self {
        Vec::new()
    }
}

// SAFETY: `Buf`'s storage is a `Vec` that only grows in `read_space`,
// called here before the pointer is taken.
unsafe impl RingBuf for Buf {
    fn read_target(&mut self, len: usize) -> (*mut u8, u32) {
        let space = self.read_space(len.min(MAX_TRANSFER));
        (space.as_mut_ptr(), space.len() as u32)
    }

    unsafe fn filled(&mut self, n: usize) {
        self.set_filled(n);
    }

    fn data(&self) -> &[u8] {
        Buf::data(self)
    }

    fn empty() -> Self {
        Buf::with_capacity(0)
    }
}

struct Read<B> {
    file: Arc<StdFile>,
    buf: B,
    len: usize,
}

// SAFETY: the entry points at `buf`'s read target (see `RingBuf`) and names
// `file`'s descriptor, kept open by the `Arc`.
unsafe impl<B: RingBuf> OpData for Read<B> {
    fn entry(&mut self) -> squeue::Entry {
        let (ptr, len) = self.buf.read_target(self.len);
        opcode::Read::new(types::Fd(self.file.as_raw_fd()), ptr, len)
            .offset(CURRENT_POSITION)
            .build()
    }

    fn orphan(self) -> Box<dyn Send> {
        Box::new(self.buf)
    }
}

/// What a ring operation returns once its runtime shut down under it.
fn orphaned() -> io::Error {
    crate::runtime::shutdown_error()
}

/// Reads up to `len` bytes at the file's position into `buf` (appended to
/// a `Vec`; at the start of an empty `Buf`). Returns how many were read,
/// and the buffer; retries `EINTR`.
pub(crate) async fn read<B: RingBuf>(
    file: Arc<StdFile>,
    buf: B,
    len: usize,
) -> Result<(io::Result<usize>, B), (Arc<StdFile>, B)> {
    let mut op = Read { file, buf, len };
    loop {
        match Op::new(op).await {
            Ok((res, back)) => {
                op = back;
                match result(res) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Ok((Err(e), op.buf)),
                    Ok(n) => {
                        // SAFETY: the kernel initialised `n` bytes at the
                        // read target.
                        unsafe { op.buf.filled(n as usize) };
                        return Ok((Ok(n as usize), op.buf));
                    }
                }
            }
            Err(Unrun::NoRing(op)) => return Err((op.file, op.buf)),
            Err(Unrun::Orphaned) => return Ok((Err(orphaned()), B::empty())),
        }
    }
}

struct Write<B> {
    file: Arc<StdFile>,
    buf: B,
    /// Bytes of `buf` already written.
    done: usize,
    /// The runtime the write was started on, whose blocking pool finishes
    /// an abandoned write (see `complete_abandoned`).
    runtime: Option<scheduler::Handle>,
}

// SAFETY: the entry points into `buf`'s data (see `RingBuf`: a heap block
// that does not move while `self` lives) and names `file`'s descriptor,
// kept open by the `Arc`.
unsafe impl<B: RingBuf> OpData for Write<B> {
    fn entry(&mut self) -> squeue::Entry {
        let rest = &self.buf.data()[self.done..];
        let len = rest.len().min(MAX_TRANSFER) as u32;
        opcode::Write::new(types::Fd(self.file.as_raw_fd()), rest.as_ptr(), len)
            .offset(CURRENT_POSITION)
            .build()
    }

    /// A write whose future was dropped (its `File` dropped without a
    /// flush, or a runtime shutting down) is still finished: the caller
    /// was told its bytes were written, as tokio's `File` finishes a write
    /// in the background. If the kernel wrote only part of it, or never
    /// ran it (cancelled when its ring was let go), the rest goes to the
    /// blocking pool as a job that runs even during shutdown. This runs
    /// inside a worker's reap, so it must never block: a write to a pipe
    /// nobody reads would hold the worker forever. Only when the pool is
    /// already shut down (the runtime's last worker settling its ring) is
    /// the rest written here, as tokio's shutdown waits for such a write.
    fn complete_abandoned(mut self, res: i32) {
        if res > 0 {
            self.done += res as usize;
        }
        let unfinished =
            res > 0 || res == -libc::ECANCELED || res == -libc::EINTR || res == -libc::EAGAIN;
        if !unfinished || self.done >= self.buf.data().len() {
            // Done, or failed with an error nobody is left to report (as a
            // failed background write of tokio's dropped `File`).
            return;
        }
        let Some(runtime) = self.runtime.take() else {
            return self.finish_blocking();
        };
        // Shared with the job, so that a job the pool refuses (it is shut
        // down, and drops the job unrun) gives the write back.
        let rest = Arc::new(std::sync::Mutex::new(Some(self)));
        let job = rest.clone();
        let spawned = runtime.spawn_mandatory_blocking(move || {
            if let Some(write) = job.lock().unwrap().take() {
                write.finish_blocking();
            }
        });
        if spawned.is_none() {
            if let Some(write) = rest.lock().unwrap().take() {
                write.finish_blocking();
            }
        }
    }

    /// The buffer, which the kernel may still read; the file and the
    /// runtime handle are let go.
    fn orphan(self) -> Box<dyn Send> {
        Box::new(self.buf)
    }
}

impl<B: RingBuf> Write<B> {
    /// Writes the rest with `write(2)`, on a thread that may block.
    fn finish_blocking(self) {
        use std::io::Write as _;
        let _ = (&*self.file).write_all(&self.buf.data()[self.done..]);
    }
}

/// Writes all of `buf` at the file's position; returns the outcome and the
/// buffer. `Err` when no ring runs it here, with how many bytes were
/// written before that.
///
/// Once its first poll has submitted it, a write is finished even if this
/// future is dropped (see `Write::complete_abandoned`).
pub(crate) async fn write_all<B: RingBuf>(
    file: Arc<StdFile>,
    buf: B,
) -> Result<(io::Result<()>, B), (Arc<StdFile>, B, usize)> {
    let runtime = crate::runtime::context::with_current(scheduler::Handle::clone).ok();
    let mut op = Write {
        file,
        buf,
        done: 0,
        runtime,
    };
    while op.done < op.buf.data().len() {
        match Op::new(op).await {
            Ok((res, back)) => {
                op = back;
                match result(res) {
                    Ok(0) => return Ok((Err(io::ErrorKind::WriteZero.into()), op.buf)),
                    Ok(n) => op.done += n as usize,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Ok((Err(e), op.buf)),
                }
            }
            Err(Unrun::NoRing(op)) => return Err((op.file, op.buf, op.done)),
            Err(Unrun::Orphaned) => return Ok((Err(orphaned()), B::empty())),
        }
    }
    Ok((Ok(()), op.buf))
}

struct Open {
    path: CString,
    flags: i32,
    mode: u32,
}

// SAFETY: the entry points at `path`'s heap bytes, which live as long as
// `self`; the directory is `AT_FDCWD`, no descriptor.
unsafe impl OpData for Open {
    fn entry(&mut self) -> squeue::Entry {
        opcode::OpenAt::new(types::Fd(libc::AT_FDCWD), self.path.as_ptr())
            .flags(self.flags | libc::O_CLOEXEC)
            .mode(self.mode)
            .build()
    }

    /// An open whose future was dropped after the kernel opened the file:
    /// the descriptor belongs to nobody, so it is closed here.
    fn complete_abandoned(self, res: i32) {
        if res >= 0 {
            // SAFETY: the kernel just created descriptor `res` for this
            // operation and nobody else has seen it.
            drop(unsafe { OwnedFd::from_raw_fd(res) });
        }
    }

    /// The path (the kernel copies it at submission, but nothing says it
    /// must). A descriptor the kernel may still open is never known.
    fn orphan(self) -> Box<dyn Send> {
        Box::new(self.path)
    }
}

/// Opens `path` with `open(2)` flags and mode. `Err(())`: no ring here.
pub(crate) async fn open(path: &Path, flags: i32, mode: u32) -> Result<io::Result<StdFile>, ()> {
    let path = match c_path(path) {
        Ok(path) => path,
        Err(e) => return Ok(Err(e)),
    };
    match Op::new(Open { path, flags, mode }).await {
        // SAFETY: a successful open returns a new descriptor that this
        // call owns.
        Ok((res, _)) => Ok(result(res).map(|fd| unsafe { StdFile::from_raw_fd(fd as RawFd) })),
        Err(Unrun::NoRing(_)) => Err(()),
        Err(Unrun::Orphaned) => Ok(Err(orphaned())),
    }
}

struct Statx {
    path: CString,
    flags: i32,
    out: Box<MaybeUninit<libc::statx>>,
}

// SAFETY: the entry points at `path`'s heap bytes and at the boxed `out`,
// both living as long as `self`; the directory is `AT_FDCWD`.
unsafe impl OpData for Statx {
    fn entry(&mut self) -> squeue::Entry {
        opcode::Statx::new(
            types::Fd(libc::AT_FDCWD),
            self.path.as_ptr(),
            self.out.as_mut_ptr().cast(),
        )
        .flags(self.flags)
        .mask(libc::STATX_TYPE | libc::STATX_SIZE)
        .build()
    }

    fn orphan(self) -> Box<dyn Send> {
        Box::new((self.path, self.out))
    }
}

/// `statx(2)` of `path` (following symlinks when `follow`): its type and
/// size. `Err(())`: no ring here.
pub(crate) async fn statx(path: &Path, follow: bool) -> Result<io::Result<libc::statx>, ()> {
    let path = match c_path(path) {
        Ok(path) => path,
        Err(e) => return Ok(Err(e)),
    };
    let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    let op = Statx {
        path,
        flags,
        out: Box::new(MaybeUninit::uninit()),
    };
    match Op::new(op).await {
        Ok((res, op)) => Ok(result(res).map(|_| {
            // SAFETY: a successful statx filled the buffer.
            unsafe { op.out.assume_init_read() }
        })),
        Err(Unrun::NoRing(_)) => Err(()),
        Err(Unrun::Orphaned) => Ok(Err(orphaned())),
    }
}

struct Fsync {
    file: Arc<StdFile>,
    datasync: bool,
}

// SAFETY: no memory; the descriptor is kept open by the `Arc`.
unsafe impl OpData for Fsync {
    fn entry(&mut self) -> squeue::Entry {
        let flags = if self.datasync {
            types::FsyncFlags::DATASYNC
        } else {
            types::FsyncFlags::empty()
        };
        opcode::Fsync::new(types::Fd(self.file.as_raw_fd()))
            .flags(flags)
            .build()
    }

    /// No memory: the file is closed (the kernel holds its own reference).
    fn orphan(self) -> Box<dyn Send> {
        Box::new(())
    }
}

/// `fsync(2)` (`fdatasync` when `datasync`). `Err`: no ring here.
pub(crate) async fn fsync(
    file: Arc<StdFile>,
    datasync: bool,
) -> Result<io::Result<()>, Arc<StdFile>> {
    match Op::new(Fsync { file, datasync }).await {
        Ok((res, _)) => Ok(result(res).map(|_| ())),
        Err(Unrun::NoRing(op)) => Err(op.file),
        Err(Unrun::Orphaned) => Ok(Err(orphaned())),
    }
}

struct Close {
    fd: RawFd,
}

// SAFETY: no memory; the descriptor is owned by this operation (taken out
// of its `OwnedFd`), closed by the kernel or by `complete_abandoned`.
unsafe impl OpData for Close {
    fn entry(&mut self) -> squeue::Entry {
        opcode::Close::new(types::Fd(self.fd)).build()
    }

    fn complete_abandoned(self, res: i32) {
        if res == -libc::ECANCELED {
            // The kernel never ran it (its ring was let go first).
            // SAFETY: the descriptor is still this operation's.
            drop(unsafe { OwnedFd::from_raw_fd(self.fd) });
        }
    }

    /// The descriptor is left alone: the kernel may still close it (a
    /// close it handed to a worker thread), and closing a number twice
    /// could close someone else's. If the ring's teardown cancels the close
    /// instead, the descriptor is leaked.
    fn orphan(self) -> Box<dyn Send> {
        Box::new(())
    }
}

/// Closes `fd` through the calling worker's ring without waiting for it;
/// `Err(fd)` when no ring runs it here.
pub(crate) fn close(fd: OwnedFd) -> Result<(), OwnedFd> {
    use std::future::Future;
    use std::task::{Context, Poll, Waker};
    let mut op = std::pin::pin!(Op::new(Close {
        fd: fd.into_raw_fd()
    }));
    // One poll submits it (and, for a close, usually completes it);
    // dropping the future then abandons it to the table, which releases
    // the descriptor if the kernel never ran the close.
    match op.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(Err(Unrun::NoRing(close))) => {
            // SAFETY: not submitted: the descriptor is still ours.
            Err(unsafe { OwnedFd::from_raw_fd(close.fd) })
        }
        // Submitted (an orphaned close left the descriptor to the kernel).
        _ => Ok(()),
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests {
    use super::*;
    use crate::runtime::{Builder, Driver, Runtime};
    use std::io::{Read as _, Write as _};

    /// A current-thread io_uring runtime, or `None` where the kernel
    /// refuses io_uring: `test` then says so on stderr and is skipped (or
    /// fails, under `TOKIWA_REQUIRE_URING=1`).
    fn uring_runtime(test: &str) -> Option<Runtime> {
        match Builder::new_current_thread().driver(Driver::Uring).build() {
            Ok(rt) => Some(rt),
            Err(e) => {
                crate::runtime::driver::uring::unavailable(test, &e);
                None
            }
        }
    }

    fn temp_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("tokiwa-ring-{}-{name}", std::process::id()))
    }

    /// A FIFO opened read-write: a read on it waits until someone writes,
    /// so it stays in flight as long as the test wants.
    fn fifo(name: &str) -> (std::path::PathBuf, Arc<StdFile>) {
        let path = temp_path(name);
        let _ = std::fs::remove_file(&path);
        let c = c_path(&path).unwrap();
        // SAFETY: a plain syscall on a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        (path, Arc::new(file))
    }

    #[test]
    fn open_write_read_statx_fsync_close_on_the_ring() {
        let Some(rt) = uring_runtime("open_write_read_statx_fsync_close_on_the_ring") else {
            return;
        };
        let path = temp_path("roundtrip");
        rt.block_on(async {
            let flags = libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC;
            let file = Arc::new(open(&path, flags, 0o644).await.unwrap().unwrap());
            let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
            let (res, _) = write_all(file.clone(), data.clone()).await.unwrap();
            res.unwrap();
            fsync(file.clone(), false).await.unwrap().unwrap();
            let stx = statx(&path, true).await.unwrap().unwrap();
            assert_eq!(stx.stx_size, data.len() as u64);
            assert_eq!(u32::from(stx.stx_mode) & libc::S_IFMT, libc::S_IFREG);
            // Back to the start, then read it all through the ring.
            std::io::Seek::seek(&mut &*file, std::io::SeekFrom::Start(0)).unwrap();
            let mut back = Vec::new();
            loop {
                let (n, buf) = read(file.clone(), back, 4096).await.unwrap();
                back = buf;
                if n.unwrap() == 0 {
                    break;
                }
            }
            assert_eq!(back, data);
            let missing = statx(&temp_path("missing"), true).await.unwrap();
            assert_eq!(missing.unwrap_err().kind(), io::ErrorKind::NotFound);
            let missing = open(&temp_path("missing"), libc::O_RDONLY, 0)
                .await
                .unwrap();
            assert_eq!(missing.unwrap_err().kind(), io::ErrorKind::NotFound);
            let file = Arc::try_unwrap(file).unwrap();
            assert!(close(OwnedFd::from(file)).is_ok());
        });
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_dropped_read_keeps_its_buffer_until_the_ring_is_let_go() {
        let Some(rt) = uring_runtime("a_dropped_read_keeps_its_buffer_until_the_ring_is_let_go")
        else {
            return;
        };
        let (path, file) = fifo("dropped");
        let worker = rt.handle().inner.driver().ring(0).unwrap().clone();
        rt.block_on(async {
            let mut fut = std::pin::pin!(read(file.clone(), Vec::new(), 64));
            // Submitted and waiting on the empty FIFO.
            assert!(futures_poll_once(fut.as_mut()).is_pending());
            assert_eq!(worker.ops().in_flight(), 1);
        });
        // The future was dropped inside `block_on`; the end of `block_on`
        // cancelled the read and waited for its completion, which freed
        // the abandoned buffer.
        assert_eq!(worker.ops().in_flight(), 0);
        (&*file).write_all(b"x").unwrap();
        let mut one = [0u8; 1];
        (&*file).read_exact(&mut one).unwrap();
        assert_eq!(&one, b"x", "the cancelled read consumed nothing");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_read_in_flight_when_block_on_ends_restarts_on_the_next_thread() {
        let test = "a_read_in_flight_when_block_on_ends_restarts_on_the_next_thread";
        let Some(rt) = uring_runtime(test) else {
            return;
        };
        let (path, file) = fifo("restart");
        let reader = rt.spawn(read(file.clone(), Vec::new(), 64));
        // Runs the task once: its read is submitted, then `block_on`
        // returns and lets go of the ring (cancelling the read).
        rt.block_on(crate::task::yield_now());
        (&*file).write_all(b"hello").unwrap();
        // Another thread drives the runtime now: the task's read starts
        // again on that thread's fresh ring and finds the data.
        let rt = Arc::new(rt);
        let rt2 = rt.clone();
        let (n, buf) = std::thread::spawn(move || rt2.block_on(reader).unwrap().unwrap())
            .join()
            .unwrap();
        assert_eq!(n.unwrap(), 5);
        assert_eq!(buf, b"hello");
        std::fs::remove_file(&path).unwrap();
    }

    /// A read buffer that records whether it was freed.
    struct TracedBuf {
        bytes: Vec<u8>,
        freed: Arc<std::sync::atomic::AtomicBool>,
    }

    // SAFETY: delegates to the `Vec`'s implementation.
    unsafe impl RingBuf for TracedBuf {
        fn read_target(&mut self, len: usize) -> (*mut u8, u32) {
            self.bytes.read_target(len)
        }

        unsafe fn filled(&mut self, n: usize) {
            // SAFETY: the caller's contract, passed on.
            unsafe { self.bytes.filled(n) }
        }

        fn data(&self) -> &[u8] {
            &self.bytes
        }

        fn empty() -> Self {
            TracedBuf {
                bytes: Vec::new(),
                freed: Arc::default(),
            }
        }
    }

    impl Drop for TracedBuf {
        fn drop(&mut self) {
            self.freed.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// A one-worker io_uring runtime, or `None` (the skip made visible, or
    /// a failure under `TOKIWA_REQUIRE_URING=1`) where the kernel refuses
    /// io_uring.
    fn one_worker_on_the_ring(test: &str) -> Option<crate::runtime::Runtime> {
        match Builder::new_multi_thread()
            .worker_threads(1)
            .driver(Driver::Uring)
            .build()
        {
            Ok(rt) => Some(rt),
            Err(e) => {
                crate::runtime::driver::uring::unavailable(test, &e);
                None
            }
        }
    }

    /// `shutdown_background` lets go of a ring while its worker still runs
    /// a task, with a read in flight on it: the read's buffer is leaked,
    /// never freed, since the kernel may still write into it.
    #[test]
    fn a_ring_let_go_with_a_read_in_flight_never_frees_its_buffer() {
        use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
        let test = "a_ring_let_go_with_a_read_in_flight_never_frees_its_buffer";
        let Some(rt) = one_worker_on_the_ring(test) else {
            return;
        };
        let (path, file) = fifo("orphaned");
        let worker = rt.handle().inner.driver().ring(0).unwrap().clone();
        let freed = Arc::new(AtomicBool::new(false));
        let buf = TracedBuf {
            bytes: Vec::new(),
            freed: freed.clone(),
        };
        let reader = file.clone();
        drop(rt.spawn(async move {
            let _ = read(reader, buf, 64).await;
            unreachable!("nobody writes to the FIFO");
        }));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while worker.ops().in_flight() != 1 {
            assert!(
                std::time::Instant::now() < deadline,
                "the read never started"
            );
            std::thread::yield_now();
        }
        // The only worker is busy in a task when shutdown lets go of the
        // ring, so it cannot settle the read first.
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        drop(rt.spawn(async move {
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
        }));
        started_rx.recv().unwrap();
        let worker = {
            let weak = Arc::downgrade(&worker);
            drop(worker);
            weak
        };
        rt.shutdown_background();
        release_tx.send(()).unwrap();
        // The worker drops the reading task, then everything is let go.
        while worker.strong_count() != 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the worker never went away"
            );
            std::thread::yield_now();
        }
        assert!(
            !freed.load(SeqCst),
            "a buffer the kernel may write into was freed"
        );
        // The kernel's read completes into the leaked buffer.
        (&*file).write_all(b"x").unwrap();
        std::fs::remove_file(&path).unwrap();
    }

    /// A read in flight when `shutdown_background` lets go of its ring
    /// (its worker busy in the very task that reads), polled again after:
    /// it fails with the runtime's shutdown error instead of waiting for
    /// a completion nobody will ever reap.
    #[test]
    fn a_read_polled_after_its_ring_was_let_go_fails_instead_of_waiting_forever() {
        let test = "a_read_polled_after_its_ring_was_let_go_fails_instead_of_waiting_forever";
        let Some(rt) = one_worker_on_the_ring(test) else {
            return;
        };
        let (path, file) = fifo("polled-after");
        let (in_flight_tx, in_flight) = std::sync::mpsc::channel();
        let (release_tx, release) = std::sync::mpsc::channel::<()>();
        let (outcome_tx, outcome) = std::sync::mpsc::channel();
        let reader = file.clone();
        drop(rt.spawn(async move {
            let mut fut = std::pin::pin!(read(reader, Vec::new(), 64));
            assert!(futures_poll_once(fut.as_mut()).is_pending());
            in_flight_tx.send(()).unwrap();
            // Busy in this task while the runtime shuts down.
            let _ = release.recv();
            let again = match futures_poll_once(fut.as_mut()) {
                std::task::Poll::Pending => None,
                std::task::Poll::Ready(Ok((res, _))) => Some(res.map(|_| ())),
                std::task::Poll::Ready(Err(_)) => panic!("no ring: it was in flight"),
            };
            outcome_tx.send(again).unwrap();
        }));
        in_flight
            .recv_timeout(std::time::Duration::from_secs(10))
            .unwrap();
        rt.shutdown_background();
        release_tx.send(()).unwrap();
        let again = outcome
            .recv_timeout(std::time::Duration::from_secs(10))
            .unwrap()
            .expect("still pending: it would wait forever");
        let err = again.unwrap_err();
        assert!(crate::runtime::is_rt_shutdown_err(&err), "{err}");
        std::fs::remove_file(&path).unwrap();
    }

    fn futures_poll_once<F: std::future::Future>(
        fut: std::pin::Pin<&mut F>,
    ) -> std::task::Poll<F::Output> {
        fut.poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    }
}
