//! The future of [`AsyncBufReadExt::fill_buf`](super::AsyncBufReadExt::fill_buf).
//!
//! Its output borrows the reader for the whole `'a` the future held it, and
//! the borrow checker cannot see that a `poll_fill_buf` that returned
//! `Ready` ends our use of the reader (the Pending branch still needs it):
//! one `unsafe` lifetime extension, justified below.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use crate::io::AsyncBufRead;

pin_project! {
    /// Future for the [`fill_buf`](super::AsyncBufReadExt::fill_buf) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct FillBuf<'a, R: ?Sized> {
        // `None` once the future has returned the buffer.
        reader: Option<&'a mut R>,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn fill_buf<R>(reader: &mut R) -> FillBuf<'_, R>
where
    R: AsyncBufRead + Unpin + ?Sized,
{
    FillBuf {
        reader: Some(reader),
        _pin: PhantomPinned,
    }
}

impl<'a, R> Future for FillBuf<'a, R>
where
    R: AsyncBufRead + Unpin + ?Sized,
{
    type Output = io::Result<&'a [u8]>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&'a [u8]>> {
        let me = self.project();
        let reader = me.reader.take().expect("FillBuf polled after completion");
        match Pin::new(&mut *reader).poll_fill_buf(cx) {
            Poll::Ready(Ok(available)) => {
                let available: *const [u8] = available;
                // SAFETY: `available` borrows `*reader`, which is borrowed
                // mutably for `'a`. This future has just given up its only
                // handle on it (`me.reader` is `None` from now on, and a
                // poll after completion panics), so nothing can use
                // `*reader` mutably for the rest of `'a`, and the shared
                // borrow may last that long.
                Poll::Ready(Ok(unsafe { &*available }))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => {
                *me.reader = Some(reader);
                Poll::Pending
            }
        }
    }
}
