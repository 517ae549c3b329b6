//! The future of [`AsyncReadExt::read_exact`](super::AsyncReadExt::read_exact):
//! reads until a slice is full, failing with `UnexpectedEof` if the source
//! ends first.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use super::lent_buf::poll_read_into;
use crate::io::{AsyncRead, ReadBuf};

pin_project! {
    /// Future for the [`read_exact`](super::AsyncReadExt::read_exact) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct ReadExact<'a, A: ?Sized> {
        reader: &'a mut A,
        buf: &'a mut [u8],
        // How much of `buf` is filled. Kept here rather than in a stored
        // `ReadBuf`: each poll lends a fresh one over the rest.
        filled: usize,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn read_exact<'a, A>(reader: &'a mut A, buf: &'a mut [u8]) -> ReadExact<'a, A>
where
    A: AsyncRead + Unpin + ?Sized,
{
    ReadExact {
        reader,
        buf,
        filled: 0,
        _pin: PhantomPinned,
    }
}

/// The error of a source that ended before the requested bytes were read.
pub(super) fn early_eof() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "early eof")
}

impl<A> Future for ReadExact<'_, A>
where
    A: AsyncRead + Unpin + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        while *me.filled < me.buf.len() {
            let mut rest = ReadBuf::new(&mut me.buf[*me.filled..]);
            match poll_read_into(Pin::new(&mut **me.reader), cx, &mut rest) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(early_eof())),
                Poll::Ready(Ok(n)) => *me.filled += n,
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(me.buf.len()))
    }
}
