//! Test doubles for the io-util types: a reader that follows a script of
//! chunks and `Pending`s, and a writer that records every call.
use crate::io::{AsyncRead, AsyncWrite, ReadBuf};

use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// A context whose waker does nothing.
pub(crate) fn noop_cx() -> Context<'static> {
    Context::from_waker(futures::task::noop_waker_ref())
}

struct CountWakes(AtomicUsize);

impl futures::task::ArcWake for CountWakes {
    fn wake_by_ref(this: &Arc<Self>) {
        this.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A waker that counts how often it was woken.
pub(crate) struct WakeCounter {
    count: Arc<CountWakes>,
    waker: Waker,
}

impl WakeCounter {
    pub(crate) fn new() -> WakeCounter {
        let count = Arc::new(CountWakes(AtomicUsize::new(0)));
        let waker = futures::task::waker(count.clone());
        WakeCounter { count, waker }
    }

    pub(crate) fn cx(&self) -> Context<'_> {
        Context::from_waker(&self.waker)
    }

    pub(crate) fn wakes(&self) -> usize {
        self.count.0.load(Ordering::SeqCst)
    }
}

/// One step of a [`ScriptedReader`] or [`ScriptedWriter`].
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Hand out (reader) or accept up to (writer) this many bytes.
    Ready(Vec<u8>),
    /// Answer `Pending` once, waking the task at once.
    Pending,
    /// Fail with this kind of error.
    Fail(io::ErrorKind),
}

/// A reader that plays back its steps, then reports end of file.
#[derive(Debug, Default)]
pub(crate) struct ScriptedReader {
    steps: VecDeque<Step>,
    /// `poll_read` calls so far.
    pub(crate) polls: usize,
}

impl ScriptedReader {
    pub(crate) fn new(steps: impl IntoIterator<Item = Step>) -> ScriptedReader {
        ScriptedReader {
            steps: steps.into_iter().collect(),
            polls: 0,
        }
    }
}

impl AsyncRead for ScriptedReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.polls += 1;
        match self.steps.pop_front() {
            None => Poll::Ready(Ok(())),
            Some(Step::Pending) => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Some(Step::Fail(kind)) => Poll::Ready(Err(kind.into())),
            Some(Step::Ready(mut data)) => {
                let n = data.len().min(buf.remaining());
                buf.put_slice(&data[..n]);
                if n < data.len() {
                    self.steps.push_front(Step::Ready(data.split_off(n)));
                }
                Poll::Ready(Ok(()))
            }
        }
    }
}

/// A writer that records what reaches it. Each step of its script decides
/// one `poll_write`: `Ready(v)` accepts at most `v.len()` bytes; when the
/// script is empty it accepts everything.
#[derive(Debug, Default)]
pub(crate) struct ScriptedWriter {
    steps: VecDeque<Step>,
    /// Every byte accepted, in order.
    pub(crate) data: Vec<u8>,
    /// The length of each accepted write, in order.
    pub(crate) writes: Vec<usize>,
    /// Completed `poll_flush` calls.
    pub(crate) flushes: usize,
    /// Whether `poll_shutdown` completed.
    pub(crate) shut_down: bool,
    /// Whether `is_write_vectored` answers true.
    pub(crate) vectored: bool,
}

impl ScriptedWriter {
    pub(crate) fn new(steps: impl IntoIterator<Item = Step>) -> ScriptedWriter {
        ScriptedWriter {
            steps: steps.into_iter().collect(),
            ..ScriptedWriter::default()
        }
    }

    /// Replaces what is left of the script.
    pub(crate) fn set_script(&mut self, steps: impl IntoIterator<Item = Step>) {
        self.steps = steps.into_iter().collect();
    }
}

impl AsyncWrite for ScriptedWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let limit = match self.steps.pop_front() {
            None => buf.len(),
            Some(Step::Pending) => {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Some(Step::Fail(kind)) => return Poll::Ready(Err(kind.into())),
            Some(Step::Ready(v)) => v.len(),
        };
        let n = limit.min(buf.len());
        self.data.extend_from_slice(&buf[..n]);
        self.writes.push(n);
        Poll::Ready(Ok(n))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if !self.vectored {
            let first = bufs
                .iter()
                .find(|b| !b.is_empty())
                .map_or(&[][..], |b| &**b);
            return self.poll_write(cx, first);
        }
        let all: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
        self.as_mut().poll_write(cx, &all)
    }

    fn is_write_vectored(&self) -> bool {
        self.vectored
    }

    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.flushes += 1;
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.shut_down = true;
        Poll::Ready(Ok(()))
    }
}

/// Runs `work` as a task on a current-thread runtime, with a neighbour
/// task spawned right after it that only raises the flag `work` is given.
/// `work` reports whether it saw the flag raised before it ran out of
/// work: it did only if it yielded to the scheduler on the way.
#[cfg(feature = "rt")]
pub(crate) fn yields_to_a_neighbour<F, Fut>(work: F) -> bool
where
    F: FnOnce(Arc<std::sync::atomic::AtomicBool>) -> Fut,
    Fut: std::future::Future<Output = bool> + Send + 'static,
{
    use std::sync::atomic::AtomicBool;
    let rt = crate::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let flag = Arc::new(AtomicBool::new(false));
        let worker = crate::spawn(work(flag.clone()));
        crate::spawn(async move { flag.store(true, Ordering::SeqCst) });
        worker.await.unwrap()
    })
}
