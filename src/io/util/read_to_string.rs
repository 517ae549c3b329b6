//! The future of [`AsyncReadExt::read_to_string`](super::AsyncReadExt::read_to_string):
//! `read_to_end` (into the String's bytes), then a UTF-8 check of what was
//! appended.
//!
//! The String stays valid UTF-8 throughout (see [`TakenString`]): on
//! success it holds its original content plus everything read; on an I/O
//! error or invalid UTF-8 it holds only its original content, and invalid
//! UTF-8 is reported as `InvalidData`.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::taken_string::TakenString;
use crate::io::AsyncRead;

pin_project! {
    /// Future for the [`read_to_string`](super::AsyncReadExt::read_to_string) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct ReadToString<'a, R: ?Sized> {
        reader: &'a mut R,
        output: TakenString<'a>,
        read: usize,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn read_to_string<'a, R>(
    reader: &'a mut R,
    output: &'a mut String,
) -> ReadToString<'a, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    ReadToString {
        reader,
        output: TakenString::new(output),
        read: 0,
        _pin: PhantomPinned,
    }
}

impl<R> Future for ReadToString<'_, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        let reader = Pin::new(&mut **me.reader);
        let result = ready!(me.output.bytes().poll_read_to_end(reader, cx, me.read));
        Poll::Ready(me.output.finish(result, false))
    }
}
