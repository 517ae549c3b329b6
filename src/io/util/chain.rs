//! [`Chain`]: one reader after another.
use std::fmt;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use crate::io::{AsyncBufRead, AsyncRead, ReadBuf};

pin_project! {
    /// Reads the first reader to end of file, then the second; created by
    /// [`AsyncReadExt::chain`](super::AsyncReadExt::chain).
    #[must_use = "streams do nothing unless polled"]
    pub struct Chain<T, U> {
        #[pin]
        first: T,
        #[pin]
        second: U,
        // The first reader has reported end of file.
        first_done: bool,
    }
}

pub(super) fn chain<T: AsyncRead, U: AsyncRead>(first: T, second: U) -> Chain<T, U> {
    Chain {
        first,
        second,
        first_done: false,
    }
}

impl<T: AsyncRead, U: AsyncRead> Chain<T, U> {
    /// The two readers.
    pub fn get_ref(&self) -> (&T, &U) {
        (&self.first, &self.second)
    }

    /// The two readers, mutably. Reading from them directly may confuse
    /// the chain.
    pub fn get_mut(&mut self) -> (&mut T, &mut U) {
        (&mut self.first, &mut self.second)
    }

    /// The two readers, pinned. Reading from them directly may confuse the
    /// chain.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> (Pin<&mut T>, Pin<&mut U>) {
        let me = self.project();
        (me.first, me.second)
    }

    /// Unwraps the two readers.
    pub fn into_inner(self) -> (T, U) {
        (self.first, self.second)
    }
}

impl<T: fmt::Debug, U: fmt::Debug> fmt::Debug for Chain<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chain")
            .field("t", &self.first)
            .field("u", &self.second)
            .finish()
    }
}

impl<T: AsyncRead, U: AsyncRead> AsyncRead for Chain<T, U> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.project();
        if !*me.first_done {
            let before = buf.remaining();
            ready!(me.first.poll_read(cx, buf))?;
            // Nothing filled means end of file only if there was room.
            if buf.remaining() != before || before == 0 {
                return Poll::Ready(Ok(()));
            }
            *me.first_done = true;
        }
        me.second.poll_read(cx, buf)
    }
}

impl<T: AsyncBufRead, U: AsyncBufRead> AsyncBufRead for Chain<T, U> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if !*me.first_done {
            let available = ready!(me.first.poll_fill_buf(cx))?;
            if !available.is_empty() {
                return Poll::Ready(Ok(available));
            }
            *me.first_done = true;
        }
        me.second.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        if *me.first_done {
            me.second.consume(amt);
        } else {
            me.first.consume(amt);
        }
    }
}
