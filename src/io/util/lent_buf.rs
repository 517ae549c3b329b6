//! Lending a [`ReadBuf`] to a reader and trusting the count it reports.
//!
//! `AsyncRead::poll_read` takes `&mut ReadBuf<'_>`, so a reader can, in
//! safe code, replace the whole `ReadBuf` with one over memory of its own
//! (`*buf = ReadBuf::new(leaked)`) and fill that. Its `filled()` then
//! describes the other memory. A caller that lent uninitialised memory (a
//! `Vec`'s spare capacity, a `BufMut` chunk) and applied that count to it
//! would declare bytes initialised that nobody wrote: undefined behaviour
//! reached from safe code. (The project met this bug in its compat adapters;
//! see `compat/src/read_buf.rs`, and tokio's `Take`, which asserts the same.)
//!
//! [`poll_read_into`] checks, after a successful read, that the `ReadBuf`
//! still covers the memory it was lent: the same start and the same
//! capacity. Safe code cannot build a second `ReadBuf` of the lender's
//! lifetime over that memory (it is reachable only through the original,
//! and `take` borrows it for less), so a buffer that passes is the one lent,
//! possibly moved out and back, and its bookkeeping is its own and sound. An
//! empty buffer may start at the dangling address every empty slice shares;
//! a swap between two of those is harmless, since neither can hold a byte.
//!
//! A reader that swapped the buffer broke `AsyncRead`'s contract and there
//! is no correct count to return, so this panics. Pending and errors pass
//! unchecked: the callers use nothing of the buffer then.
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::{AsyncRead, ReadBuf};

/// `reader.poll_read(cx, buf)` on a `buf` with nothing filled yet, returning
/// how many bytes the reader filled.
///
/// On `Ready(Ok(n))`, the first `n` bytes of the memory `buf` was created
/// over are initialised and hold the data: the caller may rely on it in
/// `unsafe` code (`Vec::set_len`, `BufMut::advance_mut`).
///
/// # Panics
///
/// Panics if the reader replaced `buf` with a `ReadBuf` over other memory.
pub(crate) fn poll_read_into<R: AsyncRead + ?Sized>(
    reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    buf: &mut ReadBuf<'_>,
) -> Poll<io::Result<usize>> {
    debug_assert!(buf.filled().is_empty(), "lent a ReadBuf with data in it");
    let lent = (buf.filled().as_ptr(), buf.capacity());
    ready!(reader.poll_read(cx, buf))?;
    let returned = (buf.filled().as_ptr(), buf.capacity());
    assert!(
        returned == lent,
        "AsyncRead::poll_read replaced the ReadBuf it was given with one over \
         other memory (buf was swapped)"
    );
    Poll::Ready(Ok(buf.filled().len()))
}

#[cfg(test)]
mod tests {
    use super::poll_read_into;
    use crate::io::{AsyncRead, ReadBuf};
    use std::io;
    use std::mem::MaybeUninit;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// Replaces the buffer it is given with one over its own memory, filled.
    struct Swapper;

    impl AsyncRead for Swapper {
        fn poll_read(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let own: &'static mut [u8] = Box::leak(vec![b'x'; 64].into_boxed_slice());
            let mut other = ReadBuf::new(own);
            other.advance(64);
            *buf = other;
            Poll::Ready(Ok(()))
        }
    }

    #[test]
    #[should_panic(expected = "buf was swapped")]
    fn a_swapped_buffer_is_not_trusted() {
        let mut storage = [MaybeUninit::<u8>::uninit(); 16];
        let mut buf = ReadBuf::uninit(&mut storage);
        let mut cx = Context::from_waker(futures::task::noop_waker_ref());
        let _ = poll_read_into(Pin::new(&mut Swapper), &mut cx, &mut buf);
    }

    #[test]
    fn an_honest_reader_is_counted() {
        let mut storage = [MaybeUninit::<u8>::uninit(); 16];
        let mut buf = ReadBuf::uninit(&mut storage);
        let mut cx = Context::from_waker(futures::task::noop_waker_ref());
        let mut src: &[u8] = b"hello";
        let n = poll_read_into(Pin::new(&mut src), &mut cx, &mut buf);
        assert!(matches!(n, Poll::Ready(Ok(5))));
        assert_eq!(buf.filled(), b"hello");
    }
}
