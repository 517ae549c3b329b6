//! Tests of the extension traits on the in-memory readers and writers
//! (`&[u8]`, `Cursor`, `Vec<u8>`) and on [`Trickle`], which moves one byte
//! per poll with a `Pending` between bytes, so every future's resumption
//! path is exercised.
mod buf_read;
mod read;
mod seek;
#[cfg(all(feature = "net", feature = "rt-multi-thread"))]
mod socket;
mod write;

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::io::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};

/// Runs a future to completion on the current thread.
fn run<F: Future>(future: F) -> F::Output {
    futures::executor::block_on(future)
}

/// Polls a future once with a waker that does nothing.
fn poll_once<F: Future + Unpin>(future: &mut F) -> Poll<F::Output> {
    let mut cx = Context::from_waker(futures::task::noop_waker_ref());
    Pin::new(future).poll(&mut cx)
}

/// A reader and writer that moves one byte per ready poll, with a
/// `Pending` (after waking itself) before every byte, and can fail once at
/// a given offset.
#[derive(Debug, Default)]
struct Trickle {
    data: Vec<u8>,
    pos: usize,
    // The next poll returns `Pending`.
    pending_next: bool,
    // Fail once with this kind when `pos` reaches the offset.
    fail_at: Option<(usize, io::ErrorKind)>,
    written: Vec<u8>,
    vectored: bool,
}

impl Trickle {
    fn reader(data: &[u8]) -> Trickle {
        Trickle {
            data: data.to_vec(),
            pending_next: true,
            ..Trickle::default()
        }
    }

    fn writer() -> Trickle {
        Trickle {
            pending_next: true,
            ..Trickle::default()
        }
    }

    fn failing_at(mut self, at: usize, kind: io::ErrorKind) -> Trickle {
        self.fail_at = Some((at, kind));
        self
    }

    /// `Pending` every other call; an injected error when it is due.
    fn step(&mut self, cx: &mut Context<'_>, at: usize) -> Poll<io::Result<()>> {
        if self.pending_next {
            self.pending_next = false;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.pending_next = true;
        if let Some((offset, kind)) = self.fail_at {
            if offset == at {
                self.fail_at = None;
                return Poll::Ready(Err(io::Error::new(kind, "injected")));
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Trickle {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.step(cx, this.pos))?;
        if this.pos < this.data.len() && buf.remaining() > 0 {
            buf.put_slice(&this.data[this.pos..this.pos + 1]);
            this.pos += 1;
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncBufRead for Trickle {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let this = self.get_mut();
        std::task::ready!(this.step(cx, this.pos))?;
        let end = (this.pos + 1).min(this.data.len());
        Poll::Ready(Ok(&this.data[this.pos..end]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let this = self.get_mut();
        assert!(
            this.pos + amt <= this.data.len(),
            "consumed past the buffer"
        );
        this.pos += amt;
    }
}

impl AsyncWrite for Trickle {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        std::task::ready!(this.step(cx, this.written.len()))?;
        let n = buf.len().min(1);
        this.written.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if !this.vectored {
            let first = bufs
                .iter()
                .find(|b| !b.is_empty())
                .map_or(&[][..], |b| &**b);
            return Pin::new(this).poll_write(cx, first);
        }
        std::task::ready!(this.step(cx, this.written.len()))?;
        // Takes up to two bytes across buffers, to show several are used.
        let mut n = 0;
        for b in bufs {
            let take = b.len().min(2 - n);
            this.written.extend_from_slice(&b[..take]);
            n += take;
            if n == 2 {
                break;
            }
        }
        Poll::Ready(Ok(n))
    }

    fn is_write_vectored(&self) -> bool {
        self.vectored
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.step(cx, usize::MAX)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.step(cx, usize::MAX)
    }
}

/// Compiles only if `T` is `Unpin`.
fn assert_unpin<T: Unpin>() {}

/// `<T as AmbiguousIfUnpin<_>>::some_item` compiles only if `T` is *not*
/// `Unpin` (with `Unpin`, both impls apply and the call is ambiguous).
trait AmbiguousIfUnpin<A> {
    fn some_item() {}
}
impl<T: ?Sized> AmbiguousIfUnpin<()> for T {}
impl<T: ?Sized + Unpin> AmbiguousIfUnpin<u8> for T {}

/// Compiles only if every listed type is `!Unpin`.
macro_rules! assert_not_unpin {
    ($($ty:ty),* $(,)?) => {$(
        let _ = <$ty as crate::io::util::tests::AmbiguousIfUnpin<_>>::some_item;
    )*};
}
use assert_not_unpin;

/// Polls `future` at most `polls` times, returning its output if it
/// completed; used to drop a future half-way.
fn poll_n_times<F: Future + Unpin>(future: &mut F, polls: usize) -> Option<F::Output> {
    for _ in 0..polls {
        if let Poll::Ready(out) = poll_once(future) {
            return Some(out);
        }
    }
    None
}
