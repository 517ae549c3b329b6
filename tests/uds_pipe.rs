#![cfg(feature = "full")]
//! Unix pipes and FIFOs (`net::unix::pipe`): FIFO open semantics (`ENXIO`
//! for a sender with no reader, read-write mode), a checksummed round trip,
//! end-of-file when the sender goes, the `try_*` API and its `WouldBlock`,
//! the refusal of files that are not pipes, and the descriptor
//! conversions.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::ffi::CString;
use std::fs::File;
use std::io::{ErrorKind, IoSlice, IoSliceMut, Read, Write};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use support::fs::TempDir;
use support::net::{is_os_error, pattern, Checksum};
use tokiwa::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokiwa::net::unix::pipe;

/// A FIFO in a fresh temporary directory (removed with it).
fn fifo(dir: &TempDir) -> PathBuf {
    let path = dir.join("fifo");
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    path
}

fn is_nonblocking(fd: &impl AsFd) -> bool {
    // SAFETY: `fcntl(F_GETFL)` on a descriptor the borrow keeps open.
    let flags = unsafe { libc::fcntl(fd.as_fd().as_raw_fd(), libc::F_GETFL) };
    assert!(flags >= 0);
    flags & libc::O_NONBLOCK != 0
}

/// An anonymous pipe in blocking mode, as `pipe(2)` makes it.
fn blocking_pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` is writable memory for the two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: `pipe` succeeded: both descriptors are open and ours.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

fn open_std(path: &Path, read: bool, write: bool) -> File {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(read)
        .write(write)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .unwrap()
}

rt_test! {
    fn fifo_sender_without_reader_is_enxio() {
        rt().block_on(async {
            let dir = TempDir::new("pipe-enxio");
            let path = fifo(&dir);
            let err = pipe::OpenOptions::new().open_sender(&path).unwrap_err();
            assert!(is_os_error(&err, libc::ENXIO), "{err:?}");

            // Once a receiver holds the FIFO open, the sender opens.
            let mut rx = pipe::OpenOptions::new().open_receiver(&path).unwrap();
            let mut tx = pipe::OpenOptions::new().open_sender(&path).unwrap();
            tx.write_all(b"fifo").await.unwrap();
            let mut buf = [0u8; 4];
            rx.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"fifo");
        });
    }

    fn fifo_read_write_mode() {
        rt().block_on(async {
            let dir = TempDir::new("pipe-rdwr");
            let path = fifo(&dir);
            // A read-write sender needs no reader.
            let mut tx = pipe::OpenOptions::new()
                .read_write(true)
                .open_sender(&path)
                .unwrap();
            tx.write_all(b"early").await.unwrap();
            // A read-write receiver never sees EOF when a writer leaves.
            let mut rx = pipe::OpenOptions::new()
                .read_write(true)
                .open_receiver(&path)
                .unwrap();
            let mut buf = [0u8; 5];
            rx.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"early");
            drop(tx);
            let mut one = [0u8; 1];
            let err = rx.try_read(&mut one).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            let read = tokiwa::time::timeout(
                std::time::Duration::from_millis(50),
                rx.read(&mut one),
            )
            .await;
            assert!(read.is_err(), "no EOF while the receiver is a writer itself");
        });
    }

    fn anon_round_trip_checksum_then_eof() {
        rt().block_on(async {
            const LEN: usize = 1 << 20;
            let (mut tx, mut rx) = pipe::pipe().unwrap();
            let data = pattern(LEN, 7);
            let mut sent = Checksum::new();
            sent.update(&data);
            let writer = tokiwa::spawn(async move {
                // Odd-sized writes, so reads and writes interleave.
                for chunk in data.chunks(7919) {
                    tx.write_all(chunk).await.unwrap();
                }
                // Dropping `tx` closes the only writer.
            });
            let mut received = Checksum::new();
            let mut buf = vec![0u8; 4096];
            loop {
                let n = rx.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                received.update(&buf[..n]);
            }
            writer.await.unwrap();
            assert_eq!(received, sent);
            assert_eq!(received.len(), LEN as u64);
            // EOF stays EOF.
            assert_eq!(rx.read(&mut buf).await.unwrap(), 0);
        });
    }

    fn fifo_eof_when_sender_dropped() {
        rt().block_on(async {
            let dir = TempDir::new("pipe-eof");
            let path = fifo(&dir);
            let mut rx = pipe::OpenOptions::new().open_receiver(&path).unwrap();
            let tx = pipe::OpenOptions::new().open_sender(&path).unwrap();
            let reader = tokiwa::spawn(async move {
                let mut out = Vec::new();
                rx.read_to_end(&mut out).await.unwrap();
                out
            });
            tx.writable().await.unwrap();
            assert_eq!(tx.try_write(b"bye").unwrap(), 3);
            drop(tx);
            assert_eq!(reader.await.unwrap(), b"bye");
        });
    }

    fn try_read_and_write_would_block() {
        rt().block_on(async {
            let (tx, rx) = pipe::pipe().unwrap();
            let mut buf = [0u8; 64];
            let err = rx.try_read(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);

            // Fill the pipe until a write would block.
            let chunk = [0xa5u8; 4096];
            let mut written = 0usize;
            loop {
                match tx.try_write(&chunk) {
                    Ok(n) => written += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("{e:?}"),
                }
            }
            assert!(written >= 4096);
            let err = tx
                .try_write_vectored(&[IoSlice::new(&chunk)])
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);

            // Drain it with vectored reads.
            let mut read = 0usize;
            while read < written {
                rx.readable().await.unwrap();
                let (a, b) = buf.split_at_mut(16);
                match rx.try_read_vectored(&mut [IoSliceMut::new(a), IoSliceMut::new(b)]) {
                    Ok(n) => {
                        assert!(buf[..n].iter().all(|&b| b == 0xa5));
                        read += n;
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => panic!("{e:?}"),
                }
            }
            assert_eq!(read, written);
            let err = rx.try_read(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);

            // Room again: the sender becomes writable.
            let ready = tx.ready(Interest::WRITABLE).await.unwrap();
            assert!(ready.is_writable());
            assert_eq!(tx.try_write(b"x").unwrap(), 1);
            rx.readable().await.unwrap();
            assert_eq!(rx.try_read(&mut buf).unwrap(), 1);
        });
    }

    fn regular_file_refused_unless_unchecked() {
        rt().block_on(async {
            let dir = TempDir::new("pipe-regular");
            let path = dir.join("file");
            std::fs::write(&path, b"not a pipe").unwrap();

            for read_write in [false, true] {
                let mut options = pipe::OpenOptions::new();
                options.read_write(read_write);
                let err = options.open_sender(&path).unwrap_err();
                assert_eq!(err.kind(), ErrorKind::InvalidInput);
                let err = options.open_receiver(&path).unwrap_err();
                assert_eq!(err.kind(), ErrorKind::InvalidInput);
            }
            let err = pipe::Sender::from_file(File::create(dir.join("w")).unwrap()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            let err = pipe::Receiver::from_file(File::open(&path).unwrap()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);

            // Unchecked, the file gets as far as registration, which both
            // drivers refuse for a descriptor a poll cannot wait on.
            let err = pipe::OpenOptions::new()
                .unchecked(true)
                .open_receiver(&path)
                .unwrap_err();
            assert!(is_os_error(&err, libc::EPERM), "{err:?}");
        });
    }

    fn from_file_checks_access_mode_and_sets_nonblocking() {
        rt().block_on(async {
            let dir = TempDir::new("pipe-access");
            let path = fifo(&dir);
            let _reader = pipe::OpenOptions::new().open_receiver(&path).unwrap();

            let write_only = open_std(&path, false, true);
            let err = pipe::Receiver::from_file(write_only).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            let read_only = open_std(&path, true, false);
            let err = pipe::Sender::from_file(read_only).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);

            // A blocking anonymous pipe becomes non-blocking.
            let (r, w) = blocking_pipe();
            assert!(!is_nonblocking(&r) && !is_nonblocking(&w));
            let mut rx = pipe::Receiver::from_owned_fd(r).unwrap();
            let mut tx = pipe::Sender::from_owned_fd(w).unwrap();
            assert!(is_nonblocking(&rx) && is_nonblocking(&tx));
            assert_eq!(rx.as_raw_fd(), rx.as_fd().as_raw_fd());
            tx.write_all(b"owned").await.unwrap();
            let mut buf = [0u8; 5];
            rx.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"owned");
        });
    }

    fn into_blocking_and_nonblocking_fd() {
        rt().block_on(async {
            let (tx, rx) = pipe::pipe().unwrap();
            let tx = tx.into_nonblocking_fd().unwrap();
            assert!(is_nonblocking(&tx));
            let rx = rx.into_blocking_fd().unwrap();
            assert!(!is_nonblocking(&rx));
            // The descriptors still work, outside the runtime.
            File::from(tx).write_all(b"std").unwrap();
            let mut buf = [0u8; 3];
            File::from(rx).read_exact(&mut buf).unwrap();
            assert_eq!(&buf, b"std");
        });
    }

    fn try_io_follows_readiness() {
        rt().block_on(async {
            let (mut tx, rx) = pipe::pipe().unwrap();
            // A fresh pipe is writable at once, and not readable.
            assert!(tx.try_io(|| Ok(())).is_ok());
            let err = rx.try_io(|| Ok(())).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            // (That a `WouldBlock` from the closure clears the readiness is
            // not asserted here: the registration's own first edge may
            // still arrive and set it again, on either driver. `AsyncFd`'s
            // tests cover the clearing on sockets.)
            tx.write_all(&[1]).await.unwrap();
            rx.readable().await.unwrap();
            let mut one = [0u8; 1];
            let n = rx
                .try_io(|| (&File::from(rx.as_fd().try_clone_to_owned()?)).read(&mut one))
                .unwrap();
            assert_eq!((n, one[0]), (1, 1));
        });
    }
}
