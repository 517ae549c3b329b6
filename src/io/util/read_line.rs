//! The future of [`AsyncBufReadExt::read_line`](super::AsyncBufReadExt::read_line):
//! `read_until(b'\n')` into a `String`'s bytes, then a UTF-8 check.
//!
//! The String stays valid UTF-8 throughout (see [`TakenString`]). On
//! success it gains the line, newline included. On invalid UTF-8 it keeps
//! only its original content and the error is `InvalidData`. After an I/O
//! error it keeps what was read before the error if that is valid UTF-8, as
//! tokio's does. If the future is dropped before it completes, the String
//! gets its original content back (tokio leaves it empty; its docs promise
//! nothing either way), and the bytes read so far are lost: `read_line` is
//! not cancellation safe.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::read_until::poll_read_until;
use super::taken_string::TakenString;
use crate::io::AsyncBufRead;

pin_project! {
    /// Future for the [`read_line`](super::AsyncBufReadExt::read_line) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct ReadLine<'a, R: ?Sized> {
        reader: &'a mut R,
        output: TakenString<'a>,
        read: usize,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn read_line<'a, R>(reader: &'a mut R, output: &'a mut String) -> ReadLine<'a, R>
where
    R: AsyncBufRead + Unpin + ?Sized,
{
    ReadLine {
        reader,
        output: TakenString::new(output),
        read: 0,
        _pin: PhantomPinned,
    }
}

impl<R> Future for ReadLine<'_, R>
where
    R: AsyncBufRead + Unpin + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        let reader = Pin::new(&mut **me.reader);
        let result = ready!(poll_read_until(
            reader,
            cx,
            b'\n',
            me.output.bytes().vec_mut(),
            me.read
        ));
        Poll::Ready(me.output.finish(result, true))
    }
}
