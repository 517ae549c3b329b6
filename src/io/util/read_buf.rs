//! The future of [`AsyncReadExt::read_buf`](super::AsyncReadExt::read_buf):
//! one read into a `bytes::BufMut`, straight into its spare memory.
//!
//! The reader is lent the buffer's next chunk as an uninitialised
//! [`ReadBuf`](crate::io::ReadBuf), so nothing is zeroed first; only the
//! bytes the reader reports filled (checked by
//! [`poll_read_into`](super::lent_buf::poll_read_into)) are declared
//! written to the `BufMut`.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::BufMut;
use pin_project_lite::pin_project;

use super::lent_buf::poll_read_into;
use crate::io::AsyncRead;

pin_project! {
    /// Future for the [`read_buf`](super::AsyncReadExt::read_buf) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct ReadBuf<'a, R: ?Sized, B: ?Sized> {
        reader: &'a mut R,
        buf: &'a mut B,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn read_buf<'a, R, B>(reader: &'a mut R, buf: &'a mut B) -> ReadBuf<'a, R, B>
where
    R: AsyncRead + Unpin + ?Sized,
    B: BufMut + ?Sized,
{
    ReadBuf {
        reader,
        buf,
        _pin: PhantomPinned,
    }
}

impl<R, B> Future for ReadBuf<'_, R, B>
where
    R: AsyncRead + Unpin + ?Sized,
    B: BufMut + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        if !me.buf.has_remaining_mut() {
            return Poll::Ready(Ok(0));
        }
        let chunk = me.buf.chunk_mut();
        // SAFETY: the slice is lent as a `ReadBuf`, whose safe methods only
        // write initialised bytes and whose unsafe ones forbid
        // de-initialising; nothing else writes through it.
        let chunk = unsafe { chunk.as_uninit_slice_mut() };
        let mut lent = crate::io::ReadBuf::uninit(chunk);
        let n = ready!(poll_read_into(Pin::new(&mut **me.reader), cx, &mut lent))?;
        // SAFETY: `poll_read_into` checked that `lent` is still the buffer
        // over `chunk`, so its first `n` bytes, the start of the `BufMut`'s
        // spare memory, were written.
        unsafe { me.buf.advance_mut(n) };
        Poll::Ready(Ok(n))
    }
}
