//! The buffer that `fs::File` and the standard streams hand to a blocking
//! thread.
//!
//! A blocking read or write cannot borrow the caller's slice: the caller's
//! future may be dropped while the pool thread still runs. So the data is
//! copied into a `Buf` that the in-flight operation owns and hands back
//! when it completes (the same ownership rule the io_uring operations
//! follow). A `Buf` is either being filled by a read (`read_from`) and then
//! drained into the caller's `ReadBuf` (`copy_to`), or filled from the
//! caller's slice (`copy_from`) and then written out whole (`write_to`);
//! `pos` is how much of a read's data the caller has already taken.
//!
//! The design follows tokio's `io::blocking::Buf` (tokio issue 1976 for why
//! a write is acknowledged once copied).
use std::cmp;
use std::io::{self, Read, Write};

use crate::io::ReadBuf;

/// The largest read or write a single blocking operation performs unless a
/// `File` is told otherwise (`File::set_max_buf_size`): 2 MiB, as tokio.
pub(crate) const DEFAULT_MAX_BUF_SIZE: usize = 2 * 1024 * 1024;

/// Owned bytes in transit between a task and a blocking operation.
#[derive(Debug)]
pub(crate) struct Buf {
    buf: Vec<u8>,
    /// Bytes of `buf` already handed to the reader.
    pos: usize,
}

/// Retries `f` while it fails with `Interrupted`.
fn uninterruptibly<T>(mut f: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    loop {
        match f() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            res => return res,
        }
    }
}

impl Buf {
    pub(crate) fn with_capacity(n: usize) -> Buf {
        Buf {
            buf: Vec::with_capacity(n),
            pos: 0,
        }
    }

    /// Nothing left to hand out (or to write).
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn len(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    /// Moves as much buffered read data as fits into `dst`.
    pub(crate) fn copy_to(&mut self, dst: &mut ReadBuf<'_>) -> usize {
        let n = cmp::min(self.len(), dst.remaining());
        dst.put_slice(&self.bytes()[..n]);
        self.pos += n;
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        }
        n
    }

    /// Takes up to `max_buf_size` bytes of `src` for a write; the buffer
    /// must be empty.
    pub(crate) fn copy_from(&mut self, src: &[u8], max_buf_size: usize) -> usize {
        assert!(self.is_empty());
        let n = cmp::min(src.len(), max_buf_size);
        self.buf.extend_from_slice(&src[..n]);
        n
    }

    /// Fills the buffer with one `read` of at most `max_buf_size` bytes (on
    /// the blocking thread); the buffer must be empty. On error it stays
    /// empty.
    pub(crate) fn read_from<T: Read>(
        &mut self,
        rd: &mut T,
        max_buf_size: usize,
    ) -> io::Result<usize> {
        assert!(self.is_empty());
        self.buf.clear();
        self.pos = 0;
        // Zeroed rather than uninitialised: `Read::read` may read the slice
        // it is given, and the cost is one memset per refill, beside a
        // system call.
        self.buf.resize(max_buf_size, 0);
        let res = uninterruptibly(|| rd.read(&mut self.buf));
        match res {
            Ok(n) => self.buf.truncate(n),
            Err(_) => self.buf.clear(),
        }
        res
    }

    /// Writes the whole buffer (on the blocking thread) and empties it,
    /// whatever the outcome.
    pub(crate) fn write_to<T: Write>(&mut self, wr: &mut T) -> io::Result<()> {
        assert_eq!(self.pos, 0);
        let res = wr.write_all(&self.buf);
        self.buf.clear();
        res
    }
}

#[cfg(feature = "fs")]
impl Buf {
    /// Drops the unread part of a read; returns the (non-positive) offset
    /// that moves the file position back to where the reader stands.
    pub(crate) fn discard_read(&mut self) -> i64 {
        let unread = -(self.len() as i64);
        self.buf.clear();
        self.pos = 0;
        unread
    }

    /// `copy_from` for a vectored write: up to `max_buf_size` bytes in all.
    pub(crate) fn copy_from_bufs(
        &mut self,
        bufs: &[io::IoSlice<'_>],
        max_buf_size: usize,
    ) -> usize {
        assert!(self.is_empty());
        let mut left = max_buf_size;
        for buf in bufs {
            if left == 0 {
                break;
            }
            let n = cmp::min(buf.len(), left);
            self.buf.extend_from_slice(&buf[..n]);
            left -= n;
        }
        max_buf_size - left
    }
}
