//! The state a `File` keeps between operations.
//!
//! ```text
//!            start read / write / seek / set_len
//!   Idle(buf) ──────────────────────────────────▶ Busy(InFlight)
//!       ▲                                              │
//!       └──────────── completion: (Operation, buf) ◀───┘
//! ```
//!
//! * `Idle(Some(buf))`: nothing in flight. `buf` may hold read-ahead data
//!   that the reader has not taken yet; the descriptor's offset is then
//!   ahead of the reader by `buf.len()` bytes, which every write, seek and
//!   `set_len` first undoes (`Buf::discard_read`).
//! * `Idle(None)` exists only for the instant a method takes the buffer out.
//! * `Busy(op)`: one operation owns the buffer. A write is started and
//!   reported done in the same call; its outcome is collected by the next
//!   operation. A failed write's error is kept in `last_write_err` and
//!   reported by the next write, flush or seek-completion that can report
//!   it, as in tokio.
//!
//! If the in-flight operation itself fails (its blocking task was cancelled
//! because the runtime shut down, or panicked), the buffer is lost: the
//! state becomes `Idle` with a fresh empty buffer and the error is
//! returned, so the `File` stays usable (tokio `fs_file_join_error.rs`).
use std::future::{poll_fn, Future};
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::op::{InFlight, Operation};
use crate::io::blocking::Buf;

#[derive(Debug)]
pub(super) struct Inner {
    pub(super) state: State,
    /// The kind of the error of a write that completed in the background
    /// and has not been reported yet.
    pub(super) last_write_err: Option<io::ErrorKind>,
    /// The position the last completed seek reported.
    pub(super) pos: u64,
}

#[derive(Debug)]
pub(super) enum State {
    Idle(Option<Buf>),
    Busy(InFlight),
}

impl Inner {
    pub(super) fn new() -> Inner {
        Inner {
            state: State::Idle(Some(Buf::with_capacity(0))),
            last_write_err: None,
            pos: 0,
        }
    }

    /// Takes the idle buffer. Panics if an operation is in flight (callers
    /// complete it first).
    pub(super) fn take_buf(&mut self) -> Buf {
        match &mut self.state {
            State::Idle(cell) => cell.take().expect("a File's buffer is always returned"),
            State::Busy(_) => unreachable!("take_buf with an operation in flight"),
        }
    }

    /// Polls the in-flight operation, if any, to completion and puts its
    /// buffer back. `Ready(None)` when nothing was in flight.
    pub(super) fn poll_inflight(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<Operation>>> {
        let State::Busy(op) = &mut self.state else {
            return Poll::Ready(Ok(None));
        };
        match ready!(Pin::new(op).poll(cx)) {
            Ok((op, buf)) => {
                self.state = State::Idle(Some(buf));
                Poll::Ready(Ok(Some(op)))
            }
            Err(e) => {
                self.state = State::Idle(Some(Buf::with_capacity(0)));
                Poll::Ready(Err(e))
            }
        }
    }

    /// Waits for the in-flight operation; reports a pending write error
    /// (an earlier one first).
    pub(super) fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(kind) = self.last_write_err.take() {
            return Poll::Ready(Err(kind.into()));
        }
        match ready!(self.poll_inflight(cx))? {
            Some(Operation::Write(res)) => Poll::Ready(res),
            Some(Operation::Seek(Ok(pos))) => {
                self.pos = pos;
                Poll::Ready(Ok(()))
            }
            Some(Operation::Read(_) | Operation::Seek(Err(_))) | None => Poll::Ready(Ok(())),
        }
    }

    /// Waits for the in-flight operation before a method that needs the
    /// descriptor quiet; a write error found on the way is kept for the
    /// next write or flush rather than reported here.
    pub(super) async fn complete_inflight(&mut self) {
        poll_fn(|cx| match ready!(self.poll_flush(cx)) {
            Ok(()) => Poll::Ready(()),
            Err(e) => {
                self.last_write_err = Some(e.kind());
                Poll::Ready(())
            }
        })
        .await
    }
}
