//! [`Split`]: the segments of an [`AsyncBufRead`] between occurrences of a
//! delimiter byte.
//!
//! As with [`Lines`](super::Lines), the segment being assembled lives in
//! `Split`, so [`Split::next_segment`] is cancellation safe.
use std::future::poll_fn;
use std::io;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::read_until::poll_read_until;
use crate::io::AsyncBufRead;

pin_project! {
    /// The segments of a reader split on a byte; created by
    /// [`AsyncBufReadExt::split`](super::AsyncBufReadExt::split).
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Split<R> {
        #[pin]
        reader: R,
        buf: Vec<u8>,
        delim: u8,
        read: usize,
    }
}

pub(super) fn split<R: AsyncBufRead>(reader: R, delim: u8) -> Split<R> {
    Split {
        reader,
        buf: Vec::new(),
        delim,
        read: 0,
    }
}

impl<R> Split<R>
where
    R: AsyncBufRead + Unpin,
{
    /// Returns the next segment, without the delimiter, or `None` at end of
    /// file. A last segment without a delimiter is returned as is.
    ///
    /// # Cancel safety
    ///
    /// This method is cancellation safe: if it is dropped before it
    /// completes, no data is lost, and the next call continues the segment.
    pub async fn next_segment(&mut self) -> io::Result<Option<Vec<u8>>> {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_segment(cx)).await
    }
}

impl<R> Split<R>
where
    R: AsyncBufRead,
{
    /// Polls for the next segment, as [`next_segment`](Self::next_segment).
    ///
    /// Returns `Poll::Pending` if no whole segment is available yet, after
    /// arranging for the current task to be woken. Only the waker of the
    /// latest call is woken.
    pub fn poll_next_segment(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<Vec<u8>>>> {
        let me = self.project();
        let n = ready!(poll_read_until(me.reader, cx, *me.delim, me.buf, me.read))?;
        if n == 0 && me.buf.is_empty() {
            return Poll::Ready(Ok(None));
        }
        if me.buf.last() == Some(me.delim) {
            me.buf.pop();
        }
        Poll::Ready(Ok(Some(mem::take(me.buf))))
    }
}
