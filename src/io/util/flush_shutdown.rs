//! The futures of [`AsyncWriteExt::flush`](super::AsyncWriteExt::flush) and
//! [`AsyncWriteExt::shutdown`](super::AsyncWriteExt::shutdown): each polls
//! one `AsyncWrite` method to completion.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use crate::io::AsyncWrite;

pin_project! {
    /// Future for the [`flush`](super::AsyncWriteExt::flush) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Flush<'a, A: ?Sized> {
        a: &'a mut A,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn flush<A: AsyncWrite + Unpin + ?Sized>(a: &mut A) -> Flush<'_, A> {
    Flush {
        a,
        _pin: PhantomPinned,
    }
}

impl<A: AsyncWrite + Unpin + ?Sized> Future for Flush<'_, A> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut **self.project().a).poll_flush(cx)
    }
}

pin_project! {
    /// Future for the [`shutdown`](super::AsyncWriteExt::shutdown) method.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Shutdown<'a, A: ?Sized> {
        a: &'a mut A,
        #[pin]
        _pin: PhantomPinned,
    }
}

pub(super) fn shutdown<A: AsyncWrite + Unpin + ?Sized>(a: &mut A) -> Shutdown<'_, A> {
    Shutdown {
        a,
        _pin: PhantomPinned,
    }
}

impl<A: AsyncWrite + Unpin + ?Sized> Future for Shutdown<'_, A> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut **self.project().a).poll_shutdown(cx)
    }
}
