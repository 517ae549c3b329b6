//! `AsyncRead`, `AsyncWrite` and `AsyncSeek` for `File`: the transitions of
//! the state machine described in `inner.rs`.
//!
//! * read: hand out buffered data if there is any; otherwise start a read of
//!   at most `min(dst.remaining(), max_buf_size)` bytes and wait for it.
//! * write: wait for the in-flight operation (reporting a failed write),
//!   copy up to `max_buf_size` bytes into the buffer, start writing it
//!   (after a seek back over unread read-ahead) and report the bytes as
//!   written. `flush` waits for the write.
//! * seek: `start_seek` fails while an operation is in flight (tokio's
//!   contract: call `poll_complete` first); it folds unread read-ahead into
//!   a relative seek. `poll_complete` returns the new position.
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::inner::State;
use super::op::{InFlight, Operation};
use super::File;
use crate::io::blocking::Buf;
use crate::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

impl AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        dst: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let inner = me.inner.get_mut();
        loop {
            if let State::Idle(_) = inner.state {
                let mut buf = inner.take_buf();
                if !buf.is_empty() || dst.remaining() == 0 {
                    buf.copy_to(dst);
                    inner.state = State::Idle(Some(buf));
                    return Poll::Ready(Ok(()));
                }
                let max = dst.remaining().min(me.max_buf_size);
                inner.state = State::Busy(InFlight::read(me.std.clone(), buf, max));
            }
            match ready!(inner.poll_inflight(cx))? {
                Some(Operation::Read(Ok(_))) => {
                    let State::Idle(Some(buf)) = &mut inner.state else {
                        unreachable!("poll_inflight returns the buffer")
                    };
                    buf.copy_to(dst);
                    return Poll::Ready(Ok(()));
                }
                Some(Operation::Read(Err(e))) => return Poll::Ready(Err(e)),
                Some(Operation::Write(Err(e))) => {
                    // Reported by the next write or flush.
                    inner.last_write_err = Some(e.kind());
                }
                Some(Operation::Seek(Ok(pos))) => inner.pos = pos,
                Some(Operation::Write(Ok(())) | Operation::Seek(Err(_))) | None => {}
            }
        }
    }
}

impl AsyncSeek for File {
    fn start_seek(self: Pin<&mut Self>, mut pos: SeekFrom) -> io::Result<()> {
        let me = self.get_mut();
        let inner = me.inner.get_mut();
        if let State::Busy(_) = inner.state {
            return Err(io::Error::other(
                "other file operation is pending, call poll_complete before start_seek",
            ));
        }
        let mut buf = inner.take_buf();
        // The descriptor is ahead of the reader by the unread read-ahead:
        // fold that into a relative seek, or seek back over it first if the
        // sum overflows.
        let mut pre_seek = None;
        if !buf.is_empty() {
            let back = buf.discard_read();
            if let SeekFrom::Current(offset) = &mut pos {
                match offset.checked_add(back) {
                    Some(sum) => *offset = sum,
                    None => pre_seek = Some(SeekFrom::Current(back)),
                }
            }
        }
        inner.state = State::Busy(InFlight::seek(me.std.clone(), buf, pre_seek, pos));
        Ok(())
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let inner = self.get_mut().inner.get_mut();
        loop {
            match ready!(inner.poll_inflight(cx))? {
                None => return Poll::Ready(Ok(inner.pos)),
                Some(Operation::Seek(res)) => {
                    if let Ok(pos) = res {
                        inner.pos = pos;
                    }
                    return Poll::Ready(res);
                }
                Some(Operation::Write(Err(e))) => inner.last_write_err = Some(e.kind()),
                Some(Operation::Write(Ok(())) | Operation::Read(_)) => {}
            }
        }
    }
}

impl File {
    /// The write transition shared by `poll_write` and
    /// `poll_write_vectored`: `fill` copies the caller's bytes into the
    /// (empty) buffer and returns how many it took.
    fn poll_write_with(
        &mut self,
        cx: &mut Context<'_>,
        fill: impl FnOnce(&mut Buf, usize) -> usize,
    ) -> Poll<io::Result<usize>> {
        let inner = self.inner.get_mut();
        if let Some(kind) = inner.last_write_err.take() {
            return Poll::Ready(Err(kind.into()));
        }
        loop {
            match ready!(inner.poll_inflight(cx))? {
                Some(Operation::Write(res)) => res?,
                Some(Operation::Seek(Ok(pos))) => inner.pos = pos,
                Some(Operation::Read(_) | Operation::Seek(Err(_))) => {}
                None => break,
            }
        }
        let mut buf = inner.take_buf();
        let pre_seek = if buf.is_empty() {
            None
        } else {
            Some(SeekFrom::Current(buf.discard_read()))
        };
        let n = fill(&mut buf, self.max_buf_size);
        match InFlight::write(self.std.clone(), buf, pre_seek, cx) {
            Some(op) => {
                inner.state = State::Busy(op);
                Poll::Ready(Ok(n))
            }
            None => {
                inner.state = State::Idle(Some(Buf::with_capacity(0)));
                Poll::Ready(Err(io::Error::other("background task failed")))
            }
        }
    }
}

impl AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_write_with(cx, |buf, max| buf.copy_from(src, max))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_write_with(cx, |buf, max| buf.copy_from_bufs(bufs, max))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().inner.get_mut().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}
