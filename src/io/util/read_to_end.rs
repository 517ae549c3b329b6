//! The future of [`AsyncReadExt::read_to_end`](super::AsyncReadExt::read_to_end):
//! appends everything the reader gives, until end of file, to a `Vec<u8>`.
//!
//! The reading loop is [`VecFill::poll_read_to_end`]: the reader reads
//! straight into the vector's spare capacity (nothing is zeroed) and the
//! length grows by exactly what it confirms was written. Bytes are appended
//! as they arrive, so a future dropped half-way leaves what it read in the
//! vector.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use super::vec_fill::VecFill;
use crate::io::AsyncRead;

pin_project! {
    /// Future for the [`read_to_end`](super::AsyncReadExt::read_to_end) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct ReadToEnd<'a, R: ?Sized> {
        reader: &'a mut R,
        buf: VecFill<&'a mut Vec<u8>>,
        // Bytes appended so far by this future.
        read: usize,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn read_to_end<'a, R>(reader: &'a mut R, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    ReadToEnd {
        reader,
        buf: VecFill::new(buf),
        read: 0,
        _pin: PhantomPinned,
    }
}

impl<R> Future for ReadToEnd<'_, R>
where
    R: AsyncRead + Unpin + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        me.buf
            .poll_read_to_end(Pin::new(&mut **me.reader), cx, me.read)
    }
}
