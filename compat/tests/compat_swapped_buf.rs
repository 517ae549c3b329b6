//! A tokio `AsyncRead` written in safe code can break its contract by
//! putting a `ReadBuf` over memory of its own in place of the one it was
//! lent (`*buf = ReadBuf::new(leaked)`), and filling that. An adapter that
//! then reports `buf.filled().len()` as read into the memory it lent would
//! count bytes nobody wrote there: through `TokiwaIo`, hyper would take
//! them as initialised (its buffers are uninitialised spare capacity), and
//! through `Compat` a futures reader would return a count the caller's
//! slice never received, possibly longer than the slice.
//!
//! Both adapters must refuse such a reader with a panic that says what
//! happened (tokio-util's `poll_read_buf` does the same), before the
//! caller's buffer is touched. The reads are polled by hand: no runtime is
//! involved.

use std::io;
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use tokiwa::io::{AsyncRead, ReadBuf};
use tokiwa_compat::hyper::TokiwaIo;
use tokiwa_compat::TokioAsyncReadCompatExt as _;

/// What the caller's memory holds before the read; the swapper writes
/// `THEIRS` into its own.
const UNTOUCHED: u8 = 0x11;
const THEIRS: u8 = 0xAB;
/// How much the swapper claims to have read.
const CLAIMED: usize = 16;

/// How [`Swapper`] fills the buffer it puts in place of the caller's.
#[derive(Clone, Copy, Debug)]
enum Fill {
    /// `ReadBuf::new` over initialised memory, then `advance`.
    Advance,
    /// `ReadBuf::uninit`, then `put_slice`.
    PutSlice,
}

/// Replaces the `ReadBuf` it is given with one over leaked memory of its
/// own and fills [`CLAIMED`] bytes of that, all in safe code.
struct Swapper(Fill);

impl AsyncRead for Swapper {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.0 {
            Fill::Advance => {
                let theirs: &'static mut [u8] = Box::leak(Box::new([THEIRS; 64]));
                *buf = ReadBuf::new(theirs);
                buf.advance(CLAIMED);
            }
            Fill::PutSlice => {
                let theirs: &'static mut [MaybeUninit<u8>] =
                    Box::leak(Box::new([MaybeUninit::uninit(); 64]));
                *buf = ReadBuf::uninit(theirs);
                buf.put_slice(&[THEIRS; CLAIMED]);
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// The panic message of `payload` (`panic!` with or without arguments).
fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[track_caller]
fn assert_refused(outcome: std::thread::Result<String>, adapter: &str) {
    match outcome {
        Ok(accepted) => panic!("{adapter} accepted a swapped buffer: {accepted}"),
        Err(payload) => {
            let msg = message(&*payload);
            assert!(
                msg.contains("swapped"),
                "{adapter}: unexpected panic: {msg:?}"
            );
        }
    }
}

#[test]
fn tokiwa_io_refuses_a_reader_that_swaps_the_buffer() {
    for fill in [Fill::Advance, Fill::PutSlice] {
        // What hyper lends: memory it does not count as initialised. (It
        // is initialised here, so that the test can look at it without
        // itself reading uninitialised memory when the adapter is wrong.)
        let mut storage = [MaybeUninit::new(UNTOUCHED); 64];
        let mut hbuf = hyper::rt::ReadBuf::uninit(&mut storage);
        let mut io = TokiwaIo::new(Swapper(fill));
        let mut cx = Context::from_waker(Waker::noop());
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let poll = hyper::rt::Read::poll_read(Pin::new(&mut io), &mut cx, hbuf.unfilled());
            format!(
                "{poll:?}; hyper now counts {} bytes as read and initialised: {:x?} ({fill:?})",
                hbuf.filled().len(),
                hbuf.filled()
            )
        }));
        assert_refused(outcome, "TokiwaIo (hyper::rt::Read)");
        assert!(hbuf.filled().is_empty(), "{fill:?}");
    }
}

#[test]
fn compat_refuses_a_reader_that_swaps_the_buffer() {
    for fill in [Fill::Advance, Fill::PutSlice] {
        // Shorter than what the swapper claims: a count past the end of
        // the caller's slice breaks futures-io's contract as well.
        let mut slice = [UNTOUCHED; CLAIMED / 2];
        let mut reader = Swapper(fill).compat();
        let mut cx = Context::from_waker(Waker::noop());
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let poll =
                futures::io::AsyncRead::poll_read(Pin::new(&mut reader), &mut cx, &mut slice);
            format!(
                "{poll:?} into a slice of {} holding {slice:x?} ({fill:?})",
                CLAIMED / 2
            )
        }));
        assert_refused(outcome, "Compat (futures_io::AsyncRead)");
        assert_eq!(slice, [UNTOUCHED; CLAIMED / 2], "{fill:?}");
    }
}

/// Moves the `ReadBuf` it is given out and back before filling it: the
/// memory is the caller's, so both adapters accept the read.
struct MovesOutAndBack;

impl AsyncRead for MovesOutAndBack {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let original = std::mem::replace(buf, ReadBuf::new(&mut []));
        *buf = original;
        buf.put_slice(b"ours");
        Poll::Ready(Ok(()))
    }
}

#[test]
fn a_reader_that_fills_the_buffer_it_was_given_is_accepted() {
    let mut cx = Context::from_waker(Waker::noop());

    let mut storage = [MaybeUninit::uninit(); 64];
    let mut hbuf = hyper::rt::ReadBuf::uninit(&mut storage);
    let mut io = TokiwaIo::new(MovesOutAndBack);
    let poll = hyper::rt::Read::poll_read(Pin::new(&mut io), &mut cx, hbuf.unfilled());
    assert!(matches!(poll, Poll::Ready(Ok(()))), "{poll:?}");
    assert_eq!(hbuf.filled(), b"ours");

    let mut slice = [0u8; 8];
    let mut reader = MovesOutAndBack.compat();
    let poll = futures::io::AsyncRead::poll_read(Pin::new(&mut reader), &mut cx, &mut slice);
    assert!(matches!(poll, Poll::Ready(Ok(4))), "{poll:?}");
    assert_eq!(&slice[..4], b"ours");
}
