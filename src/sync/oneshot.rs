//! A one-shot channel: a single value from one sender to one receiver.
//!
//! # Design
//!
//! Both halves share one `Arc` of a lock around the channel's whole state:
//! the value slot, whether the sender finished (sent or dropped), whether
//! the receiver closed (or dropped), and one waker for each side. Every
//! transition takes the lock, and wakers run after it is released. A
//! oneshot carries one message, so a lock per operation costs a few
//! uncontended atomic operations, and the protocol is obviously free of
//! lost wakeups: a side checks the other's flag and stores its waker in
//! the same critical section in which the other side sets that flag and
//! takes the waker.
//!
//! No waker code runs under the lock: a side's waker is cloned with the
//! lock released and a replaced one is dropped after it is released (the
//! last clone of a waker may own the other half of this channel, whose drop
//! takes the lock: tokio #5429); wakers are woken after it too.
//!
//! Receiving (`poll`) and [`Sender::poll_closed`] spend a unit of the
//! task's cooperative budget, as tokio's do.
use super::blocking;
use crate::loom::sync::{Arc, Mutex, MutexGuard};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Sends a value to the associated [`Receiver`].
#[derive(Debug)]
pub struct Sender<T> {
    inner: Option<Arc<Inner<T>>>,
    /// tokio-console's resource, shared with the receiver (`trace` below).
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    resource_span: tracing::Span,
}

/// Receives a value from the associated [`Sender`]: `.await` it (or use
/// [`try_recv`](Receiver::try_recv) / [`blocking_recv`](Receiver::blocking_recv)).
#[derive(Debug)]
pub struct Receiver<T> {
    inner: Option<Arc<Inner<T>>>,
    /// tokio-console's resource and the receive as its async op (`trace`
    /// below); in tokio's drop order.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    resource_span: tracing::Span,
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    async_op_span: tracing::Span,
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    async_op_poll_span: tracing::Span,
}

pub mod error {
    //! `Oneshot` error types.
    use std::fmt;

    /// Error returned by awaiting a [`Receiver`](super::Receiver): the
    /// sender was dropped without sending.
    #[derive(Debug, Eq, PartialEq, Clone)]
    pub struct RecvError(pub(crate) ());

    /// Error returned by [`Receiver::try_recv`](super::Receiver::try_recv).
    #[derive(Debug, Eq, PartialEq, Clone)]
    pub enum TryRecvError {
        /// No value has been sent yet.
        Empty,
        /// The sender was dropped without sending, or the value was
        /// already received.
        Closed,
    }

    impl fmt::Display for RecvError {
        fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
            fmt.write_str("channel closed")
        }
    }

    impl std::error::Error for RecvError {}

    impl fmt::Display for TryRecvError {
        fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
            fmt.write_str(match self {
                TryRecvError::Empty => "channel empty",
                TryRecvError::Closed => "channel closed",
            })
        }
    }

    impl std::error::Error for TryRecvError {}
}

use error::{RecvError, TryRecvError};

struct Inner<T> {
    state: Mutex<State<T>>,
}

struct State<T> {
    value: Option<T>,
    /// The sender sent or was dropped: no value will come after this.
    tx_done: bool,
    /// The receiver closed the channel or was dropped.
    rx_closed: bool,
    /// The receiving task.
    rx_waker: Option<Waker>,
    /// A task in `Sender::closed`.
    tx_waker: Option<Waker>,
}

impl<T> Inner<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // No user code runs under the lock (values are moved in and out,
        // never dropped there, and wakers are cloned and dropped outside
        // it), so a poisoned lock is consistent.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<T> fmt::Debug for Inner<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("Inner")
            .field("value_sent", &state.value.is_some())
            .field("tx_done", &state.tx_done)
            .field("rx_closed", &state.rx_closed)
            .finish()
    }
}

/// Creates a new one-shot channel.
#[cfg_attr(all(tokio_unstable, feature = "tracing"), track_caller)]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    let (resource_span, async_op_span, async_op_poll_span) = trace::spans();
    let inner = Arc::new(Inner {
        state: Mutex::new(State {
            value: None,
            tx_done: false,
            rx_closed: false,
            rx_waker: None,
            tx_waker: None,
        }),
    });
    (
        Sender {
            inner: Some(inner.clone()),
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span: resource_span.clone(),
        },
        Receiver {
            inner: Some(inner),
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            resource_span,
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            async_op_span,
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            async_op_poll_span,
        },
    )
}

/// A change of the channel's state, as tokio-console reads it: the event
/// `$field = $value`, `$field.op = "override"` in the resource's span.
macro_rules! trace_state {
    ($span:expr, $field:ident = $value:expr) => {
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        $span.in_scope(|| {
            tracing::trace!(
                target: "runtime::resource::state_update",
                $field = $value,
                $field.op = "override",
            )
        });
    };
}

/// tokio-console's view of a channel: a `Sender|Receiver` resource whose
/// state is four flags, and the receive as its async op (`util/trace.rs`).
#[cfg(all(tokio_unstable, feature = "tracing"))]
mod trace {
    #[track_caller]
    pub(super) fn spans() -> (tracing::Span, tracing::Span, tracing::Span) {
        let loc = std::panic::Location::caller();
        let resource_span = tracing::trace_span!(
            target: "tokio::sync::oneshot",
            parent: None,
            "runtime.resource",
            concrete_type = "Sender|Receiver",
            kind = "Sync",
            loc.file = loc.file(),
            loc.line = loc.line(),
            loc.col = loc.column(),
        );
        trace_state!(resource_span, tx_dropped = false);
        trace_state!(resource_span, rx_dropped = false);
        trace_state!(resource_span, value_sent = false);
        trace_state!(resource_span, value_received = false);
        let async_op_span = resource_span.in_scope(|| {
            tracing::trace_span!(
                target: "tokio::sync::oneshot",
                "runtime.resource.async_op",
                source = "Receiver::await",
            )
        });
        let async_op_poll_span = async_op_span.in_scope(|| {
            tracing::trace_span!(
                target: "tokio::sync::oneshot",
                "runtime.resource.async_op.poll",
            )
        });
        (resource_span, async_op_span, async_op_poll_span)
    }
}

fn wake(waker: Option<Waker>) {
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// What [`register`] found.
enum Registered<R> {
    /// `check` returned this: no waker was stored.
    Ready(R),
    /// `cx`'s waker is in the slot.
    Pending,
}

/// Stores `cx`'s waker in the slot `slot` picks out of the state, unless
/// `check` (run under the lock first) says the wait is over. The waker is
/// cloned with the lock released, and the one it replaces is dropped after
/// the lock is released (see the module docs); if it is the same task's
/// (`will_wake`), nothing is cloned.
fn register<T, R>(
    inner: &Inner<T>,
    cx: &Context<'_>,
    mut check: impl FnMut(&mut State<T>) -> Option<R>,
    slot: impl Fn(&mut State<T>) -> &mut Option<Waker>,
) -> Registered<R> {
    // A waker cloned on an earlier turn of the loop.
    let mut new_waker: Option<Waker> = None;
    loop {
        let mut state = inner.lock();
        if let Some(result) = check(&mut state) {
            drop(state);
            drop(new_waker);
            return Registered::Ready(result);
        }
        let stored = slot(&mut state);
        if stored.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            return Registered::Pending;
        }
        match new_waker.take() {
            Some(waker) => {
                let old = stored.replace(waker);
                drop(state);
                drop(old);
                return Registered::Pending;
            }
            None => {
                // Clone with the lock released, then check again: the
                // other side may have finished meanwhile.
                drop(state);
                new_waker = Some(cx.waker().clone());
            }
        }
    }
}

impl<T> Sender<T> {
    /// Sends `t`; returns it back if the receiver was dropped or closed.
    /// Consumes the sender: a oneshot carries one value.
    pub fn send(mut self, t: T) -> Result<(), T> {
        let inner = self
            .inner
            .take()
            .expect("a Sender has its channel until it sends");
        let mut state = inner.lock();
        if state.rx_closed {
            // The receiver is gone: the value goes back to the caller, and
            // the sender counts as done (the `Drop` below is a no-op).
            state.tx_done = true;
            return Err(t);
        }
        state.value = Some(t);
        state.tx_done = true;
        let waker = state.rx_waker.take();
        drop(state);
        wake(waker);
        trace_state!(self.resource_span, value_sent = true);
        Ok(())
    }

    /// Waits until the receiver is dropped or closed: a way to stop
    /// computing a value nobody will receive.
    pub async fn closed(&mut self) {
        std::future::poll_fn(|cx| self.poll_closed(cx)).await
    }

    /// Whether the receiver was dropped or closed.
    pub fn is_closed(&self) -> bool {
        match &self.inner {
            Some(inner) => inner.lock().rx_closed,
            None => true,
        }
    }

    /// Polls for the receiver being dropped or closed; the waker of the
    /// latest call is the one woken.
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        #[cfg(feature = "rt")]
        let coop = std::task::ready!(crate::task::coop::poll_proceed(cx));
        let Some(inner) = &self.inner else {
            return Poll::Ready(());
        };
        let closed = |state: &mut State<T>| state.rx_closed.then_some(());
        match register(inner, cx, closed, |state| &mut state.tx_waker) {
            Registered::Ready(()) => {
                #[cfg(feature = "rt")]
                coop.made_progress();
                Poll::Ready(())
            }
            Registered::Pending => Poll::Pending,
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else {
            return;
        };
        let mut state = inner.lock();
        state.tx_done = true;
        let waker = state.rx_waker.take();
        drop(state);
        wake(waker);
        trace_state!(self.resource_span, tx_dropped = true);
    }
}

impl<T> Receiver<T> {
    /// Closes the channel without dropping the receiver: a later `send`
    /// fails, and a value sent before still arrives through
    /// [`try_recv`](Receiver::try_recv) or `.await`.
    pub fn close(&mut self) {
        let Some(inner) = &self.inner else { return };
        let mut state = inner.lock();
        state.rx_closed = true;
        let waker = state.tx_waker.take();
        drop(state);
        wake(waker);
        trace_state!(self.resource_span, rx_dropped = true);
    }

    /// Whether the receiver has yielded its value or error: polling it
    /// again would panic.
    pub fn is_terminated(&self) -> bool {
        self.inner.is_none()
    }

    /// Whether no value waits to be received.
    pub fn is_empty(&self) -> bool {
        match &self.inner {
            Some(inner) => inner.lock().value.is_none(),
            None => true,
        }
    }

    /// Takes the value if it has been sent; `Empty` if not yet, `Closed`
    /// if it never will be (or was already taken).
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let Some(inner) = &self.inner else {
            return Err(TryRecvError::Closed);
        };
        let mut state = inner.lock();
        let result = match state.value.take() {
            Some(value) => {
                trace_state!(self.resource_span, value_received = true);
                Ok(value)
            }
            None if state.tx_done || state.rx_closed => Err(TryRecvError::Closed),
            None => return Err(TryRecvError::Empty),
        };
        drop(state);
        self.inner = None;
        result
    }

    /// Blocks the thread until the value (or the error) arrives.
    ///
    /// # Panics
    ///
    /// When called from inside an asynchronous execution context.
    #[track_caller]
    pub fn blocking_recv(self) -> Result<T, RecvError> {
        blocking::block_on(self)
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else {
            return;
        };
        let mut state = inner.lock();
        state.rx_closed = true;
        let value = state.value.take();
        let waker = state.tx_waker.take();
        drop(state);
        // The value (if any) is dropped here, outside the lock.
        drop(value);
        wake(waker);
        trace_state!(self.resource_span, rx_dropped = true);
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let (_resource, _async_op, _async_op_poll) = (
            this.resource_span.enter(),
            this.async_op_span.enter(),
            this.async_op_poll_span.enter(),
        );
        let Some(inner) = &this.inner else {
            panic!("called after complete");
        };
        #[cfg(feature = "rt")]
        let coop = match crate::task::coop::poll_proceed(cx) {
            Poll::Ready(coop) => coop,
            Poll::Pending => {
                #[cfg(all(tokio_unstable, feature = "tracing"))]
                let _ = crate::util::trace::poll_op("poll_recv", Poll::<()>::Pending);
                return Poll::Pending;
            }
        };
        let received = |state: &mut State<T>| match state.value.take() {
            Some(value) => Some(Ok(value)),
            None if state.tx_done || state.rx_closed => Some(Err(RecvError(()))),
            None => None,
        };
        let result = match register(inner, cx, received, |state| &mut state.rx_waker) {
            Registered::Ready(result) => result,
            Registered::Pending => {
                #[cfg(all(tokio_unstable, feature = "tracing"))]
                let _ = crate::util::trace::poll_op("poll_recv", Poll::<()>::Pending);
                return Poll::Pending;
            }
        };
        #[cfg(all(tokio_unstable, feature = "tracing"))]
        let _ = crate::util::trace::poll_op("poll_recv", Poll::Ready(()));
        #[cfg(feature = "rt")]
        coop.made_progress();
        this.inner = None;
        Poll::Ready(result)
    }
}
