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
///
/// `storage` is always fully initialised (it only grows, by zeroing the
/// new part once), so a read can be handed a plain `&mut [u8]` with no
/// unsafe code and no memset per operation; the data is
/// `storage[pos..end]`.
#[derive(Debug)]
pub(crate) struct Buf {
    storage: Vec<u8>,
    /// Bytes before `pos` were already handed to the reader.
    pos: usize,
    /// End of the data.
    end: usize,
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
            storage: vec![0; n],
            pos: 0,
            end: 0,
        }
    }

    /// Nothing left to hand out (or to write).
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn len(&self) -> usize {
        self.end - self.pos
    }

    fn bytes(&self) -> &[u8] {
        &self.storage[self.pos..self.end]
    }

    fn clear(&mut self) {
        self.pos = 0;
        self.end = 0;
    }

    /// The first `n` bytes of storage, grown (zeroed) if needed; the
    /// buffer must be empty.
    fn space(&mut self, n: usize) -> &mut [u8] {
        debug_assert!(self.is_empty());
        self.clear();
        if self.storage.len() < n {
            self.storage.resize(n, 0);
        }
        &mut self.storage[..n]
    }

    /// Moves as much buffered read data as fits into `dst`.
    pub(crate) fn copy_to(&mut self, dst: &mut ReadBuf<'_>) -> usize {
        let n = cmp::min(self.len(), dst.remaining());
        dst.put_slice(&self.bytes()[..n]);
        self.pos += n;
        if self.pos == self.end {
            self.clear();
        }
        n
    }

    /// Takes up to `max_buf_size` bytes of `src` for a write; the buffer
    /// must be empty.
    pub(crate) fn copy_from(&mut self, src: &[u8], max_buf_size: usize) -> usize {
        assert!(self.is_empty());
        let n = cmp::min(src.len(), max_buf_size);
        self.space(n).copy_from_slice(&src[..n]);
        self.end = n;
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
        let space = self.space(max_buf_size);
        let res = uninterruptibly(|| rd.read(space));
        if let Ok(n) = res {
            // A reader claiming more than it was given is a bug in it; do
            // not hand out bytes it never wrote.
            self.end = cmp::min(n, max_buf_size);
        }
        res
    }

    /// Writes the whole buffer (on the blocking thread) and empties it,
    /// whatever the outcome.
    pub(crate) fn write_to<T: Write>(&mut self, wr: &mut T) -> io::Result<()> {
        self.write_tail_to(wr, 0)
    }

    /// As [`Buf::write_to`], for a write whose first `done` bytes were
    /// written already (by the ring, before it had to hand over).
    pub(crate) fn write_tail_to<T: Write>(&mut self, wr: &mut T, done: usize) -> io::Result<()> {
        assert_eq!(self.pos, 0);
        let res = wr.write_all(&self.bytes()[done..]);
        self.clear();
        res
    }
}

/// What a read or write through the worker's ring needs of a `Buf`
/// (`fs/ring/`). `storage` is a heap block that does not move while the
/// `Buf` lives, so the kernel may fill it after the `Buf` moved.
#[cfg(all(feature = "fs", feature = "uring"))]
impl Buf {
    /// The space a read of at most `max` bytes fills; the buffer must be
    /// empty.
    pub(crate) fn read_space(&mut self, max: usize) -> &mut [u8] {
        self.space(max)
    }

    /// A read put `n` bytes at the start of [`Buf::read_space`].
    pub(crate) fn set_filled(&mut self, n: usize) {
        debug_assert!(n <= self.storage.len());
        self.pos = 0;
        self.end = n;
    }

    /// The data a write writes.
    pub(crate) fn data(&self) -> &[u8] {
        self.bytes()
    }
}

#[cfg(feature = "fs")]
impl Buf {
    /// Empties the buffer (a write is done with it).
    pub(crate) fn reset(&mut self) {
        self.clear();
    }

    /// Drops the unread part of a read; returns the (non-positive) offset
    /// that moves the file position back to where the reader stands.
    pub(crate) fn discard_read(&mut self) -> i64 {
        let unread = -(self.len() as i64);
        self.clear();
        unread
    }

    /// `copy_from` for a vectored write: up to `max_buf_size` bytes in all.
    pub(crate) fn copy_from_bufs(
        &mut self,
        bufs: &[io::IoSlice<'_>],
        max_buf_size: usize,
    ) -> usize {
        assert!(self.is_empty());
        let total = bufs
            .iter()
            .fold(0usize, |sum, b| sum.saturating_add(b.len()))
            .min(max_buf_size);
        let space = self.space(total);
        let mut filled = 0;
        for buf in bufs {
            let n = cmp::min(buf.len(), total - filled);
            space[filled..filled + n].copy_from_slice(&buf[..n]);
            filled += n;
            if filled == total {
                break;
            }
        }
        self.end = total;
        total
    }
}
