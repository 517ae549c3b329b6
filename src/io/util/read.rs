//! The future of [`AsyncReadExt::read`](super::AsyncReadExt::read): one
//! read into a byte slice.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::lent_buf::poll_read_into;
use crate::io::{AsyncRead, ReadBuf};

pin_project! {
    /// Future for the [`read`](super::AsyncReadExt::read) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Read<'a, R: ?Sized> {
        reader: &'a mut R,
        buf: &'a mut [u8],
        // `!Unpin`, as tokio's: code written against tokio may rely on it
        // (async trait methods returning these futures).
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn read<'a, R>(reader: &'a mut R, buf: &'a mut [u8]) -> Read<'a, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    Read {
        reader,
        buf,
        _pin: PhantomPinned,
    }
}

impl<R> Future for Read<'_, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        let mut buf = ReadBuf::new(me.buf);
        let n = ready!(poll_read_into(Pin::new(&mut **me.reader), cx, &mut buf))?;
        Poll::Ready(Ok(n))
    }
}
