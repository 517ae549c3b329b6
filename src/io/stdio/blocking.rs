//! `Blocking<T>`: async reads and writes over a blocking `Read`/`Write`, one
//! operation at a time on the blocking pool.
//!
//! The stream itself (`T`) and the buffer travel to the pool thread with
//! the operation and come back with its outcome, so no lock is held across
//! an await and a dropped future leaves nothing dangling.
//!
//! ```text
//! Idle(buf), inner = Some(T) ──start──▶ Busy(handle), inner = None
//!           ▲                                   │
//!           └──── (result, buf, T) ◀────────────┘
//! ```
//!
//! A handle only ever reads (stdin) or only ever writes (stdout,
//! stderr), so the buffer never holds read data and write data at once.
//! A read hands out buffered data first. A write waits for the previous
//! one, copies at most `DEFAULT_MAX_BUF_SIZE` bytes and starts writing them;
//! `flush` waits for it and then runs `T::flush`.
use std::future::Future;
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::blocking::{Buf, DEFAULT_MAX_BUF_SIZE};
use crate::io::{AsyncRead, AsyncWrite, ReadBuf};
use crate::runtime::scheduler;
use crate::task::JoinHandle;

/// What a blocking operation returns: its outcome, the buffer, the stream.
type Done<T> = (io::Result<usize>, Buf, T);

#[derive(Debug)]
pub(super) struct Blocking<T> {
    /// The stream, when no operation holds it.
    inner: Option<T>,
    state: State<T>,
    /// A write completed (or is in flight) since the last `T::flush`.
    need_flush: bool,
    /// Run operations as mandatory blocking tasks (see `mod.rs`).
    mandatory: bool,
}

#[derive(Debug)]
enum State<T> {
    /// `None` after a failed operation lost the buffer and the stream.
    Idle(Option<Buf>),
    Busy(JoinHandle<Done<T>>),
}

/// The error once the stream was lost with an operation the runtime never
/// ran (it was shutting down).
fn gone() -> io::Error {
    io::Error::other("A Tokio 1.x context was found, but it is being shutdown.")
}

impl<T: Send + 'static> Blocking<T> {
    /// Operations run as ordinary blocking tasks.
    pub(super) fn new(inner: T) -> Blocking<T> {
        Blocking {
            inner: Some(inner),
            state: State::Idle(Some(Buf::with_capacity(0))),
            need_flush: false,
            mandatory: false,
        }
    }

    /// Operations run even if the runtime starts shutting down meanwhile.
    pub(super) fn new_mandatory(inner: T) -> Blocking<T> {
        Blocking {
            mandatory: true,
            ..Blocking::new(inner)
        }
    }

    /// Starts `body` on the pool with the stream and the buffer.
    fn start(
        &mut self,
        buf: Buf,
        body: impl FnOnce(&mut Buf, &mut T) -> io::Result<usize> + Send + 'static,
    ) -> io::Result<()> {
        let mut inner = self.inner.take().ok_or_else(gone)?;
        let task = move || {
            let mut buf = buf;
            let res = body(&mut buf, &mut inner);
            (res, buf, inner)
        };
        let handle = scheduler::Handle::current();
        let join = if self.mandatory {
            handle.spawn_mandatory_blocking(task)
        } else {
            Some(handle.spawn_blocking(task))
        };
        match join {
            Some(join) => {
                self.state = State::Busy(join);
                Ok(())
            }
            None => {
                // The pool refused the task and dropped the stream with it.
                self.state = State::Idle(None);
                Err(gone())
            }
        }
    }

    /// Waits for the operation in flight, if any; returns its outcome.
    fn poll_done(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<usize>>> {
        let State::Busy(join) = &mut self.state else {
            return Poll::Ready(Ok(None));
        };
        match ready!(Pin::new(join).poll(cx)) {
            Ok((res, buf, inner)) => {
                self.state = State::Idle(Some(buf));
                self.inner = Some(inner);
                Poll::Ready(res.map(Some))
            }
            Err(e) => {
                self.state = State::Idle(None);
                Poll::Ready(Err(e.into()))
            }
        }
    }

    fn take_buf(&mut self) -> io::Result<Buf> {
        match &mut self.state {
            State::Idle(buf) => buf.take().ok_or_else(gone),
            State::Busy(_) => unreachable!("take_buf with an operation in flight"),
        }
    }
}

impl<T: Read + Unpin + Send + 'static> AsyncRead for Blocking<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        dst: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        loop {
            if let State::Busy(_) = me.state {
                ready!(me.poll_done(cx))?;
                let State::Idle(Some(buf)) = &mut me.state else {
                    unreachable!("poll_done returns the buffer")
                };
                buf.copy_to(dst);
                return Poll::Ready(Ok(()));
            }
            let mut buf = me.take_buf()?;
            if !buf.is_empty() || dst.remaining() == 0 {
                buf.copy_to(dst);
                me.state = State::Idle(Some(buf));
                return Poll::Ready(Ok(()));
            }
            let max = dst.remaining().min(DEFAULT_MAX_BUF_SIZE);
            me.start(buf, move |buf, inner| buf.read_from(inner, max))?;
        }
    }
}

impl<T: Write + Unpin + Send + 'static> AsyncWrite for Blocking<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        ready!(me.poll_done(cx))?;
        let mut buf = me.take_buf()?;
        let n = buf.copy_from(src, DEFAULT_MAX_BUF_SIZE);
        me.start(buf, |buf, inner| {
            let n = buf.len();
            buf.write_to(inner).map(|()| n)
        })?;
        me.need_flush = true;
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        loop {
            ready!(me.poll_done(cx))?;
            if !me.need_flush {
                return Poll::Ready(Ok(()));
            }
            me.need_flush = false;
            let buf = me.take_buf()?;
            me.start(buf, |_, inner| inner.flush().map(|()| 0))?;
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
