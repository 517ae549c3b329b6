//! `AsyncSeek`, both directions, and the seek in flight.
//!
//! tokio: `start_seek(pos)` submits, `poll_complete()` waits (and, with no
//! seek submitted, reports the current position). futures-io:
//! `poll_seek(pos)` does both and is polled again, with the same `pos`,
//! after `Pending`.
//!
//! * tokio seeker seen as futures-io: `poll_seek(pos)` starts the seek only
//!   when `pos` is not already in flight (`seek_pos`), after letting any
//!   other seek in flight complete, so a re-poll after `Pending` waits for
//!   the seek it started instead of seeking twice (a relative seek twice
//!   would land elsewhere).
//! * futures-io seeker seen as tokio: `start_seek(pos)` only records `pos`;
//!   `poll_complete` polls `poll_seek(pos)` until ready, then forgets it,
//!   and with nothing recorded asks for `SeekFrom::Current(0)`.
use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::Compat;

impl<T: futures_io::AsyncSeek> tokiwa::io::AsyncSeek for Compat<T> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        *self.project().seek_pos = Some(position);
        Ok(())
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let this = self.project();
        let position = this.seek_pos.unwrap_or(SeekFrom::Current(0));
        let result = ready!(this.inner.poll_seek(cx, position));
        *this.seek_pos = None;
        Poll::Ready(result)
    }
}

impl<T: tokiwa::io::AsyncSeek> futures_io::AsyncSeek for Compat<T> {
    fn poll_seek(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        position: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        let mut this = self.project();
        if *this.seek_pos != Some(position) {
            // Another seek (or none) is in flight: let it land first.
            ready!(this.inner.as_mut().poll_complete(cx))?;
            *this.seek_pos = None;
            this.inner.as_mut().start_seek(position)?;
            *this.seek_pos = Some(position);
        }
        let result = ready!(this.inner.poll_complete(cx));
        *this.seek_pos = None;
        Poll::Ready(result)
    }
}
