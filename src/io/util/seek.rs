//! The future of [`AsyncSeekExt::seek`](super::AsyncSeekExt::seek) (and
//! `rewind`, `stream_position`).
//!
//! A seek already in flight on the object (one whose future was dropped) is
//! completed first; then this seek is started and waited for.
use std::future::Future;
use std::io::{self, SeekFrom};
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use crate::io::AsyncSeek;

pin_project! {
    /// Future for the [`seek`](super::AsyncSeekExt::seek) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Seek<'a, S: ?Sized> {
        seek: &'a mut S,
        // `Some` until the seek is started.
        pos: Option<SeekFrom>,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn seek<S>(seek: &mut S, pos: SeekFrom) -> Seek<'_, S>
where
    S: AsyncSeek + Unpin + ?Sized,
{
    Seek {
        seek,
        pos: Some(pos),
        _pin: PhantomPinned,
    }
}

impl<S> Future for Seek<'_, S>
where
    S: AsyncSeek + Unpin + ?Sized,
{
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let me = self.project();
        let mut target = Pin::new(&mut **me.seek);
        if let Some(pos) = *me.pos {
            // Let an earlier seek finish before starting this one.
            ready!(target.as_mut().poll_complete(cx))?;
            target.as_mut().start_seek(pos)?;
            *me.pos = None;
        }
        target.poll_complete(cx)
    }
}
