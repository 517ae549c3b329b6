//! The future of [`AsyncBufReadExt::read_until`](super::AsyncBufReadExt::read_until),
//! and the loop that `read_line`, `lines` and `split` share: copy from the
//! reader's buffer until a delimiter (included) or end of file.
//!
//! Each chunk is appended and consumed from the reader in one step, so no
//! byte is ever both in the caller's vector and still in the reader's
//! buffer: dropping the future loses nothing (it is cancellation safe, as
//! tokio's is) and calling again continues where it left off.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use crate::io::AsyncBufRead;

pin_project! {
    /// Future for the [`read_until`](super::AsyncBufReadExt::read_until) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct ReadUntil<'a, R: ?Sized> {
        reader: &'a mut R,
        delimiter: u8,
        buf: &'a mut Vec<u8>,
        // Bytes appended so far by this operation.
        read: usize,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn read_until<'a, R>(
    reader: &'a mut R,
    delimiter: u8,
    buf: &'a mut Vec<u8>,
) -> ReadUntil<'a, R>
where
    R: AsyncBufRead + Unpin + ?Sized,
{
    ReadUntil {
        reader,
        delimiter,
        buf,
        read: 0,
        _pin: PhantomPinned,
    }
}

/// Appends to `buf` up to and including `delimiter`, or to end of file,
/// counting in `read`.
///
/// Returns (and resets) the count once the delimiter or end of file is
/// reached. On an error the count stays, and the bytes already appended
/// stay in `buf`. `Interrupted` errors are retried.
pub(super) fn poll_read_until<R: AsyncBufRead + ?Sized>(
    mut reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    delimiter: u8,
    buf: &mut Vec<u8>,
    read: &mut usize,
) -> Poll<io::Result<usize>> {
    loop {
        let available = match ready!(reader.as_mut().poll_fill_buf(cx)) {
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Poll::Ready(Err(e)),
        };
        let (used, found) = match available.iter().position(|&b| b == delimiter) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        buf.extend_from_slice(&available[..used]);
        reader.as_mut().consume(used);
        *read += used;
        if found || used == 0 {
            return Poll::Ready(Ok(mem::take(read)));
        }
    }
}

impl<R> Future for ReadUntil<'_, R>
where
    R: AsyncBufRead + Unpin + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        poll_read_until(
            Pin::new(&mut **me.reader),
            cx,
            *me.delimiter,
            me.buf,
            me.read,
        )
    }
}
