//! [`repeat()`]: a reader that never ends.
use super::poll_proceed_and_make_progress as poll_spend_budget;
use crate::io::{AsyncRead, ReadBuf};

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// A reader that fills every buffer with the same byte, forever.
///
/// Each read spends one unit of the task's cooperative budget, so a task
/// that copies from it in a loop still lets others run.
///
/// Created by [`repeat()`]; the asynchronous counterpart of
/// [`std::io::Repeat`].
#[derive(Debug)]
pub struct Repeat {
    byte: u8,
}

/// Creates a [`Repeat`] reader: every read fills the whole buffer with
/// `byte`.
///
/// The asynchronous counterpart of [`std::io::repeat`].
///
/// # Examples
///
/// ```
/// use tokio::io::{self, AsyncReadExt};
///
/// # async fn dox() {
/// let mut buf = [0u8; 4];
/// io::repeat(b'z').read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"zzzz");
/// # }
/// ```
pub fn repeat(byte: u8) -> Repeat {
    Repeat { byte }
}

impl AsyncRead for Repeat {
    #[inline]
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(poll_spend_budget(cx));
        let n = buf.remaining();
        buf.initialize_unfilled().fill(self.byte);
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::util::test_io::noop_cx;

    #[test]
    fn fills_the_whole_buffer() {
        let mut cx = noop_cx();
        let mut r = repeat(0xAB);
        let mut storage = [0u8; 5];
        let mut buf = ReadBuf::new(&mut storage);
        buf.put_slice(&[1]);
        assert!(matches!(
            Pin::new(&mut r).poll_read(&mut cx, &mut buf),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(buf.filled(), &[1, 0xAB, 0xAB, 0xAB, 0xAB]);
    }
}
