//! The unbounded channel: sending never waits.
use super::chan::{Chan, TryRecvError as ChanTryRecvError};
use super::error::{SendError, TryRecvError};
use crate::loom::sync::Arc;
use crate::sync::blocking::block_on;
use std::fmt;
use std::future::poll_fn;
use std::task::{Context, Poll};

/// Sends values to the [`UnboundedReceiver`]; clone it for more producers.
/// Made by [`unbounded_channel`].
pub struct UnboundedSender<T> {
    chan: Arc<Chan<T>>,
}

/// An unbounded sender that does not keep the channel open;
/// [`upgrade`](WeakUnboundedSender::upgrade) it to send.
pub struct WeakUnboundedSender<T> {
    chan: Arc<Chan<T>>,
}

/// Receives the values of an unbounded channel. Made by
/// [`unbounded_channel`].
pub struct UnboundedReceiver<T> {
    chan: Arc<Chan<T>>,
}

/// Creates a channel with no limit on buffered values.
///
/// Sending never waits, so nothing slows a producer that outpaces the
/// receiver: memory is the only bound. Values arrive in the order they
/// were sent.
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let chan = Chan::new(None);
    let rx = UnboundedReceiver { chan: chan.clone() };
    (UnboundedSender { chan }, rx)
}

impl<T> UnboundedReceiver<T> {
    /// Receives the next value, waiting for one if the channel is empty;
    /// `None` once every sender is gone (or the channel was closed) and
    /// every buffered value has been received.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a dropped future has taken nothing from the channel.
    pub async fn recv(&mut self) -> Option<T> {
        poll_fn(|cx| self.chan.poll_recv(cx)).await
    }

    /// Receives up to `limit` values at once into `buffer` and returns how
    /// many; 0 at once if `limit` is 0, and 0 once closed and drained.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe, as `recv`.
    pub async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        poll_fn(|cx| self.chan.poll_recv_many(cx, buffer, limit)).await
    }

    /// Receives the next value if one is buffered, without waiting.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.chan.try_recv().map_err(|e| match e {
            ChanTryRecvError::Empty => TryRecvError::Empty,
            ChanTryRecvError::Disconnected => TryRecvError::Disconnected,
        })
    }

    /// Receives the next value from synchronous code, sleeping the thread
    /// until one arrives.
    ///
    /// # Panics
    ///
    /// If called on a thread that drives an asynchronous runtime.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Option<T> {
        block_on(self.recv())
    }

    /// Receives up to `limit` values from synchronous code.
    ///
    /// # Panics
    ///
    /// If called on a thread that drives an asynchronous runtime.
    #[track_caller]
    pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        block_on(self.recv_many(buffer, limit))
    }

    /// Closes the channel without dropping the receiver: sending fails
    /// from now on, buffered values can still be received.
    pub fn close(&mut self) {
        self.chan.close_rx();
    }

    /// Whether the channel is closed: [`close`](UnboundedReceiver::close)
    /// was called or every sender has been dropped.
    pub fn is_closed(&self) -> bool {
        self.chan.is_closed_for_rx()
    }

    /// Whether no value is buffered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of buffered values.
    pub fn len(&self) -> usize {
        self.chan.len()
    }

    /// Polls for the next value; `Pending` registers the waker of `cx`.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        self.chan.poll_recv(cx)
    }

    /// Polls for up to `limit` values into `buffer`.
    pub fn poll_recv_many(
        &mut self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        self.chan.poll_recv_many(cx, buffer, limit)
    }

    /// The number of [`UnboundedSender`] handles.
    pub fn sender_strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakUnboundedSender`] handles.
    pub fn sender_weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Drop for UnboundedReceiver<T> {
    fn drop(&mut self) {
        self.chan.drop_rx();
    }
}

impl<T> fmt::Debug for UnboundedReceiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedReceiver")
            .field("chan", &self.chan)
            .finish()
    }
}

impl<T> UnboundedSender<T> {
    /// Sends a value without waiting; fails, giving it back, once the
    /// receiver has closed the channel or been dropped.
    pub fn send(&self, message: T) -> Result<(), SendError<T>> {
        self.chan.send_unbounded(message).map_err(SendError)
    }

    /// Completes when the receiver has closed the channel or been dropped.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn closed(&self) {
        self.chan.rx_closed().await;
    }

    /// Whether the receiver has closed the channel or been dropped.
    pub fn is_closed(&self) -> bool {
        self.chan.is_rx_closed()
    }

    /// Whether both senders send into the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan)
    }

    /// A [`WeakUnboundedSender`] for this channel, which does not keep it
    /// open.
    #[must_use = "Downgrade creates a WeakSender without destroying the original non-weak sender."]
    pub fn downgrade(&self) -> WeakUnboundedSender<T> {
        self.chan.add_weak();
        WeakUnboundedSender {
            chan: self.chan.clone(),
        }
    }

    /// The number of [`UnboundedSender`] handles.
    pub fn strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakUnboundedSender`] handles.
    pub fn weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> UnboundedSender<T> {
        self.chan.add_sender();
        UnboundedSender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Drop for UnboundedSender<T> {
    fn drop(&mut self) {
        self.chan.drop_sender();
    }
}

impl<T> fmt::Debug for UnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedSender")
            .field("chan", &self.chan)
            .finish()
    }
}

impl<T> WeakUnboundedSender<T> {
    /// An [`UnboundedSender`] for the channel, or `None` if every sender is
    /// already gone.
    pub fn upgrade(&self) -> Option<UnboundedSender<T>> {
        self.chan.try_add_sender().then(|| UnboundedSender {
            chan: self.chan.clone(),
        })
    }

    /// The number of [`UnboundedSender`] handles.
    pub fn strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakUnboundedSender`] handles.
    pub fn weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Clone for WeakUnboundedSender<T> {
    fn clone(&self) -> WeakUnboundedSender<T> {
        self.chan.add_weak();
        WeakUnboundedSender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Drop for WeakUnboundedSender<T> {
    fn drop(&mut self) {
        self.chan.drop_weak();
    }
}

impl<T> fmt::Debug for WeakUnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakUnboundedSender").finish()
    }
}
