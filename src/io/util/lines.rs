//! [`Lines`]: the lines of an [`AsyncBufRead`], as `String`s without their
//! line ending (`\n` or `\r\n`).
//!
//! The line being assembled lives in `Lines` itself, so
//! [`Lines::next_line`] is cancellation safe: a dropped call loses nothing,
//! and the next one continues the same line.
use std::future::poll_fn;
use std::io;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::read_until::poll_read_until;
use crate::io::AsyncBufRead;

pin_project! {
    /// The lines of a reader; created by
    /// [`AsyncBufReadExt::lines`](super::AsyncBufReadExt::lines).
    ///
    /// Wrap it in `tokio_stream::wrappers::LinesStream` to use it as a
    /// `Stream`.
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Lines<R> {
        #[pin]
        reader: R,
        // The line read so far.
        buf: Vec<u8>,
        read: usize,
    }
}

pub(super) fn lines<R: AsyncBufRead>(reader: R) -> Lines<R> {
    Lines {
        reader,
        buf: Vec::new(),
        read: 0,
    }
}

impl<R> Lines<R>
where
    R: AsyncBufRead + Unpin,
{
    /// Returns the next line, without its `\n` or `\r\n`, or `None` at end
    /// of file. A last line without a line ending is returned as is.
    ///
    /// A line that is not valid UTF-8 gives an `InvalidData` error (and is
    /// skipped).
    ///
    /// # Cancel safety
    ///
    /// This method is cancellation safe: if it is dropped before it
    /// completes, no data is lost, and the next call continues the line.
    pub async fn next_line(&mut self) -> io::Result<Option<String>> {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_line(cx)).await
    }

    /// The underlying reader, mutably. Reading from it directly may lose
    /// the line being assembled, or leave it half read.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The underlying reader.
    pub fn get_ref(&mut self) -> &R {
        &self.reader
    }

    /// Unwraps the reader. A partly read line is lost.
    pub fn into_inner(self) -> R {
        self.reader
    }
}

impl<R> Lines<R>
where
    R: AsyncBufRead,
{
    /// Polls for the next line, as [`next_line`](Self::next_line).
    ///
    /// Returns `Poll::Pending` if no whole line is available yet, after
    /// arranging for the current task to be woken. Only the waker of the
    /// latest call is woken.
    pub fn poll_next_line(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<String>>> {
        let me = self.project();
        let n = ready!(poll_read_until(me.reader, cx, b'\n', me.buf, me.read))?;
        if n == 0 && me.buf.is_empty() {
            return Poll::Ready(Ok(None));
        }
        let mut line = mem::take(me.buf);
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        match String::from_utf8(line) {
            Ok(line) => Poll::Ready(Ok(Some(line))),
            Err(e) => Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, e))),
        }
    }
}
