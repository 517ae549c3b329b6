//! The bounded channel: senders wait for capacity (back-pressure).
use super::chan::{Chan, TryAcquireError, TryRecvError as ChanTryRecvError, MAX_PERMITS};
use super::error::{SendError, TryRecvError, TrySendError};
use crate::loom::sync::Arc;
use crate::sync::blocking::block_on;
use std::fmt;
use std::future::poll_fn;
use std::task::{Context, Poll};

#[cfg(feature = "time")]
use super::error::SendTimeoutError;
#[cfg(feature = "time")]
use crate::time::Duration;

/// Sends values to the [`Receiver`] of a bounded channel; clone it for more
/// producers. Made by [`channel`].
///
/// The channel closes for the receiver when every `Sender` (and every
/// [`OwnedPermit`], which holds one) has been dropped.
pub struct Sender<T> {
    chan: Arc<Chan<T>>,
}

/// A sender that does not keep the channel open; [`upgrade`] it to send.
///
/// Once every [`Sender`] is gone, upgrading fails for good.
///
/// [`upgrade`]: WeakSender::upgrade
pub struct WeakSender<T> {
    chan: Arc<Chan<T>>,
}

/// Capacity for one value, reserved by [`Sender::reserve`] or
/// [`Sender::try_reserve`]. Sending through it cannot fail or wait;
/// dropping it unused gives the capacity back.
pub struct Permit<'a, T> {
    chan: &'a Chan<T>,
}

/// Capacity for several values, reserved by [`Sender::reserve_many`] or
/// [`Sender::try_reserve_many`]: yields one [`Permit`] per reserved slot.
/// Dropping it gives back the slots not yet taken.
pub struct PermitIterator<'a, T> {
    chan: &'a Chan<T>,
    n: usize,
}

/// Capacity for one value that owns its [`Sender`], so it can be moved
/// into a task ([`Sender::reserve_owned`]). Sending or releasing gives the
/// sender back.
pub struct OwnedPermit<T> {
    sender: Option<Sender<T>>,
}

/// Receives the values of a bounded channel. Made by [`channel`].
pub struct Receiver<T> {
    chan: Arc<Chan<T>>,
}

/// Creates a bounded channel for values of type `T` that holds at most
/// `buffer` values not yet received.
///
/// When the buffer is full, [`Sender::send`] waits until the receiver
/// takes a value, which gives the channel back-pressure. Values arrive in
/// the order they were sent.
///
/// # Panics
///
/// If `buffer` is 0, or more than `usize::MAX >> 3` (tokio's
/// `Semaphore::MAX_PERMITS`).
#[track_caller]
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    assert!(buffer > 0, "mpsc bounded channel requires buffer > 0");
    assert!(
        buffer <= MAX_PERMITS,
        "a semaphore may not have more than MAX_PERMITS permits ({MAX_PERMITS})"
    );
    let chan = Chan::new(Some(buffer));
    let rx = Receiver { chan: chan.clone() };
    (Sender { chan }, rx)
}

fn bound<T>(chan: &Chan<T>) -> usize {
    chan.bound().expect("a bounded channel has a bound")
}

impl<T> Receiver<T> {
    /// Receives the next value, waiting for one if the channel is empty.
    ///
    /// Returns `None` once the channel is closed (every sender dropped, or
    /// [`close`](Receiver::close) called and every outstanding permit used
    /// or dropped) and every buffered value has been received.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if the future is dropped before it completes, no value
    /// has been taken from the channel.
    pub async fn recv(&mut self) -> Option<T> {
        poll_fn(|cx| self.chan.poll_recv(cx)).await
    }

    /// Receives up to `limit` values at once, appending them to `buffer`,
    /// and returns how many were received; waits while the channel is
    /// empty.
    ///
    /// Returns 0 at once if `limit` is 0, and 0 once the channel is closed
    /// and drained (as [`recv`](Receiver::recv) returns `None`).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe, as `recv`.
    pub async fn recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        poll_fn(|cx| self.chan.poll_recv_many(cx, buffer, limit)).await
    }

    /// Receives the next value if one is buffered, without waiting.
    ///
    /// Fails with [`TryRecvError::Empty`] while senders or permits remain,
    /// and with [`TryRecvError::Disconnected`] once the channel is closed
    /// and drained.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.chan.try_recv().map_err(|e| match e {
            ChanTryRecvError::Empty => TryRecvError::Empty,
            ChanTryRecvError::Disconnected => TryRecvError::Disconnected,
        })
    }

    /// Receives the next value from synchronous code, sleeping the thread
    /// until one arrives; `None` at the end, as [`recv`](Receiver::recv).
    ///
    /// # Panics
    ///
    /// If called on a thread that drives an asynchronous runtime.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Option<T> {
        block_on(self.recv())
    }

    /// Receives up to `limit` values from synchronous code, as
    /// [`recv_many`](Receiver::recv_many).
    ///
    /// # Panics
    ///
    /// If called on a thread that drives an asynchronous runtime.
    #[track_caller]
    pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
        block_on(self.recv_many(buffer, limit))
    }

    /// Closes the channel without dropping the receiver: no new value may
    /// be sent, waiting senders fail, but buffered values (and values sent
    /// through permits reserved before the close) can still be received.
    pub fn close(&mut self) {
        self.chan.close_rx();
    }

    /// Whether the channel is closed: [`close`](Receiver::close) was
    /// called, or every sender has been dropped. Buffered values may still
    /// be received.
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

    /// The capacity free right now: the buffer size minus buffered values
    /// and reserved permits.
    pub fn capacity(&self) -> usize {
        self.chan.available_permits()
    }

    /// The buffer size the channel was created with.
    pub fn max_capacity(&self) -> usize {
        bound(&self.chan)
    }

    /// Polls for the next value: the building block of
    /// [`recv`](Receiver::recv) for hand-written futures and streams.
    ///
    /// `Poll::Pending` registers the waker of `cx` (only the one of the
    /// latest call is woken); `Ready(None)` means the channel is closed and
    /// drained.
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        self.chan.poll_recv(cx)
    }

    /// Polls for up to `limit` values, as
    /// [`recv_many`](Receiver::recv_many); `Ready(0)` means closed and
    /// drained (or `limit` is 0).
    pub fn poll_recv_many(
        &mut self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        self.chan.poll_recv_many(cx, buffer, limit)
    }

    /// The number of [`Sender`] handles.
    pub fn sender_strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakSender`] handles.
    pub fn sender_weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.chan.drop_rx();
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("chan", &self.chan)
            .finish()
    }
}

impl<T> Sender<T> {
    /// Sends a value, waiting for capacity if the buffer is full.
    ///
    /// Fails, giving the value back, if the receiver has closed the
    /// channel or been dropped. Senders waiting for capacity are served in
    /// the order they started waiting.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future before it completes loses the value and the
    /// sender's place in the queue; use [`reserve`](Sender::reserve) to
    /// wait for capacity without giving up the value.
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        match self.reserve().await {
            Ok(permit) => {
                permit.send(value);
                Ok(())
            }
            Err(SendError(())) => Err(SendError(value)),
        }
    }

    /// Completes when the receiver has closed the channel or been dropped.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn closed(&self) {
        self.chan.rx_closed().await;
    }

    /// Sends a value if the buffer has room right now.
    ///
    /// Fails with [`TrySendError::Closed`] if the receiver has closed the
    /// channel (that takes precedence), or [`TrySendError::Full`] if there
    /// is no free capacity; the value comes back in the error.
    pub fn try_send(&self, message: T) -> Result<(), TrySendError<T>> {
        self.chan
            .try_send_bounded(message)
            .map_err(|(e, message)| match e {
                TryAcquireError::Closed => TrySendError::Closed(message),
                TryAcquireError::NoPermits => TrySendError::Full(message),
            })
    }

    /// Sends a value, waiting at most `timeout` for capacity.
    ///
    /// Fails with [`SendTimeoutError::Timeout`] if no capacity was found
    /// in time, or [`SendTimeoutError::Closed`] if the receiver closed the
    /// channel; the value comes back in the error.
    ///
    /// # Panics
    ///
    /// Outside a runtime with timers enabled.
    #[cfg(feature = "time")]
    pub async fn send_timeout(
        &self,
        value: T,
        timeout: Duration,
    ) -> Result<(), SendTimeoutError<T>> {
        match crate::time::timeout(timeout, self.reserve()).await {
            Ok(Ok(permit)) => {
                permit.send(value);
                Ok(())
            }
            Ok(Err(SendError(()))) => Err(SendTimeoutError::Closed(value)),
            Err(_elapsed) => Err(SendTimeoutError::Timeout(value)),
        }
    }

    /// Sends a value from synchronous code, sleeping the thread until there
    /// is capacity.
    ///
    /// # Panics
    ///
    /// If called on a thread that drives an asynchronous runtime.
    #[track_caller]
    pub fn blocking_send(&self, value: T) -> Result<(), SendError<T>> {
        block_on(self.send(value))
    }

    /// Whether the receiver has closed the channel or been dropped.
    pub fn is_closed(&self) -> bool {
        self.chan.is_rx_closed()
    }

    /// Waits for capacity for one value and reserves it.
    ///
    /// Fails if the receiver has closed the channel.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future loses the sender's place in the queue, but
    /// never capacity.
    pub async fn reserve(&self) -> Result<Permit<'_, T>, SendError<()>> {
        self.reserve_inner(1).await?;
        Ok(Permit { chan: &self.chan })
    }

    /// Waits for capacity for `n` values and reserves all of it at once.
    ///
    /// Fails if the receiver has closed the channel, or if `n` is more
    /// than the channel's [`max_capacity`](Sender::max_capacity).
    ///
    /// # Cancel safety
    ///
    /// As [`reserve`](Sender::reserve): capacity assigned to a cancelled
    /// request goes back to the channel.
    pub async fn reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, SendError<()>> {
        self.reserve_inner(n).await?;
        Ok(PermitIterator {
            chan: &self.chan,
            n,
        })
    }

    /// As [`reserve`](Sender::reserve), but the permit owns this sender,
    /// so it can outlive the borrow (be moved into a task).
    pub async fn reserve_owned(self) -> Result<OwnedPermit<T>, SendError<()>> {
        self.reserve_inner(1).await?;
        Ok(OwnedPermit { sender: Some(self) })
    }

    async fn reserve_inner(&self, n: usize) -> Result<(), SendError<()>> {
        if n > bound(&self.chan) {
            return Err(SendError(()));
        }
        self.chan.acquire(n).await.map_err(|_closed| SendError(()))
    }

    /// Reserves capacity for one value if it is free right now.
    ///
    /// Fails with [`TrySendError::Closed`] if the receiver has closed the
    /// channel, or [`TrySendError::Full`] if there is no free capacity.
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        self.try_reserve_inner(1)?;
        Ok(Permit { chan: &self.chan })
    }

    /// Reserves capacity for `n` values if all of it is free right now.
    ///
    /// Fails as [`try_reserve`](Sender::try_reserve), and with
    /// [`TrySendError::Full`] if `n` is more than the channel's
    /// [`max_capacity`](Sender::max_capacity).
    pub fn try_reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, TrySendError<()>> {
        if n > bound(&self.chan) {
            return Err(TrySendError::Full(()));
        }
        self.try_reserve_inner(n)?;
        Ok(PermitIterator {
            chan: &self.chan,
            n,
        })
    }

    /// As [`try_reserve`](Sender::try_reserve), but the permit owns this
    /// sender; on failure the sender comes back in the error.
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Self>> {
        match self.chan.try_acquire(1) {
            Ok(()) => Ok(OwnedPermit { sender: Some(self) }),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(self)),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(self)),
        }
    }

    fn try_reserve_inner(&self, n: usize) -> Result<(), TrySendError<()>> {
        self.chan.try_acquire(n).map_err(|e| match e {
            TryAcquireError::Closed => TrySendError::Closed(()),
            TryAcquireError::NoPermits => TrySendError::Full(()),
        })
    }

    /// Whether both senders send into the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan)
    }

    /// The capacity free right now: the buffer size minus buffered values
    /// and reserved permits.
    pub fn capacity(&self) -> usize {
        self.chan.available_permits()
    }

    /// A [`WeakSender`] for this channel, which does not keep it open.
    #[must_use = "Downgrade creates a WeakSender without destroying the original non-weak sender."]
    pub fn downgrade(&self) -> WeakSender<T> {
        self.chan.add_weak();
        WeakSender {
            chan: self.chan.clone(),
        }
    }

    /// The buffer size the channel was created with.
    pub fn max_capacity(&self) -> usize {
        bound(&self.chan)
    }

    /// The number of [`Sender`] handles.
    pub fn strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakSender`] handles.
    pub fn weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        self.chan.add_sender();
        Sender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.chan.drop_sender();
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").field("chan", &self.chan).finish()
    }
}

impl<T> WeakSender<T> {
    /// A [`Sender`] for the channel, or `None` if every sender is already
    /// gone (the channel is then closed for good).
    pub fn upgrade(&self) -> Option<Sender<T>> {
        self.chan.try_add_sender().then(|| Sender {
            chan: self.chan.clone(),
        })
    }

    /// The number of [`Sender`] handles.
    pub fn strong_count(&self) -> usize {
        self.chan.strong_count()
    }

    /// The number of [`WeakSender`] handles.
    pub fn weak_count(&self) -> usize {
        self.chan.weak_count()
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> WeakSender<T> {
        self.chan.add_weak();
        WeakSender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Drop for WeakSender<T> {
    fn drop(&mut self) {
        self.chan.drop_weak();
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeakSender").finish()
    }
}

impl<T> Permit<'_, T> {
    /// Sends `value` into the reserved slot; this cannot fail or wait.
    /// (If the receiver has been dropped meanwhile, the value is dropped.)
    pub fn send(self, value: T) {
        let chan = self.chan;
        // The slot now belongs to the value, even if waking the receiver
        // panics below: the permit must not give it back as it unwinds.
        std::mem::forget(self);
        chan.send_with_permit(value);
    }
}

impl<T> Drop for Permit<'_, T> {
    fn drop(&mut self) {
        self.chan.release(1);
    }
}

impl<T> fmt::Debug for Permit<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit").field("chan", &self.chan).finish()
    }
}

impl<'a, T> Iterator for PermitIterator<'a, T> {
    type Item = Permit<'a, T>;

    fn next(&mut self) -> Option<Permit<'a, T>> {
        if self.n == 0 {
            return None;
        }
        self.n -= 1;
        Some(Permit { chan: self.chan })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.n, Some(self.n))
    }
}

impl<T> ExactSizeIterator for PermitIterator<'_, T> {}
impl<T> std::iter::FusedIterator for PermitIterator<'_, T> {}

impl<T> Drop for PermitIterator<'_, T> {
    fn drop(&mut self) {
        self.chan.release(self.n);
    }
}

impl<T> fmt::Debug for PermitIterator<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PermitIterator")
            .field("chan", &self.chan)
            .field("capacity", &self.n)
            .finish()
    }
}

impl<T> OwnedPermit<T> {
    /// Sends `value` into the reserved slot and gives the sender back.
    /// This cannot fail or wait.
    pub fn send(mut self, value: T) -> Sender<T> {
        let sender = self
            .sender
            .take()
            .expect("an unused permit holds its sender");
        sender.chan.send_with_permit(value);
        sender
    }

    /// Gives the reserved slot back unused, and the sender with it.
    pub fn release(mut self) -> Sender<T> {
        let sender = self
            .sender
            .take()
            .expect("an unused permit holds its sender");
        sender.chan.release(1);
        sender
    }

    /// Whether both permits send into the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        match (&self.sender, &other.sender) {
            (Some(a), Some(b)) => a.same_channel(b),
            _ => false,
        }
    }

    /// Whether this permit sends into the channel of `sender`.
    pub fn same_channel_as_sender(&self, sender: &Sender<T>) -> bool {
        self.sender.as_ref().is_some_and(|s| s.same_channel(sender))
    }
}

impl<T> Drop for OwnedPermit<T> {
    fn drop(&mut self) {
        if let Some(sender) = self.sender.take() {
            sender.chan.release(1);
        }
    }
}

impl<T> fmt::Debug for OwnedPermit<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedPermit")
            .field("chan", &self.sender.as_ref().map(|s| &s.chan))
            .finish()
    }
}
