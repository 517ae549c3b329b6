//! A FIFO of parked tasks, kept inside a channel's locked state (mpsc's
//! waiting senders and `closed()` futures, broadcast's waiting receivers).
//!
//! It is the primitives' [`WaitList`](crate::sync::wait_list::WaitList)
//! (stable keys, O(1) removal from the middle, memory given back after a
//! burst) with a waker in each entry.
//!
//! # Ownership of an entry
//!
//! The future that waits *owns* its entry: it creates it
//! ([`WaitList::push_back`]), and it alone removes it
//! ([`WaitList::remove`]), when it completes or is dropped. Whoever wakes
//! it only *dequeues* it ([`WaitList::dequeue`]): the entry leaves the FIFO
//! and gives up its waker but stays stored, so its key stays valid and
//! cannot be reused by another waiter while its owner still holds it. The
//! owner tells "woken" from "still waiting" with [`WaitList::is_queued`].
//!
//! # Wakers
//!
//! The list takes wakers by value: the caller clones its waker *before*
//! it takes the channel's lock (a clone may run arbitrary code, which may
//! use the channel or panic; under the lock it would deadlock, or unwind
//! half-way through an update). [`WaitList::will_wake`] tells whether the
//! stored waker must be replaced at all, so a task polled again by the
//! same waker clones nothing. Replaced and removed wakers are handed back
//! to be dropped after the lock is released.
//!
//! Every method must be called with the channel's lock held (the list is a
//! field of the locked state, so the borrow checker enforces it).
use crate::sync::wait_list::WaitList as Order;
use std::fmt;
use std::task::Waker;

/// One waiting future: its waker and what it waits for (`D`, e.g. the
/// number of permits a sender asked for).
struct Entry<D> {
    waker: Option<Waker>,
    data: D,
}

/// A FIFO of waiting futures, addressed by the keys their owners hold.
pub(crate) struct WaitList<D> {
    order: Order<Entry<D>>,
}

impl<D> WaitList<D> {
    pub(crate) const fn new() -> WaitList<D> {
        WaitList {
            order: Order::new(),
        }
    }

    /// Adds a waiter at the back of the FIFO and returns its key.
    pub(crate) fn push_back(&mut self, data: D, waker: Waker) -> usize {
        self.order.push_back(Entry {
            waker: Some(waker),
            data,
        })
    }

    /// The first queued waiter, if any.
    pub(crate) fn front(&self) -> Option<usize> {
        self.order.front()
    }

    /// Whether no waiter is queued.
    pub(crate) fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Whether the waiter is still in the FIFO (not yet woken).
    pub(crate) fn is_queued(&self, key: usize) -> bool {
        self.order.is_linked(key)
    }

    /// What the waiter waits for.
    pub(crate) fn data_mut(&mut self, key: usize) -> &mut D {
        &mut self.order.get_mut(key).data
    }

    /// Whether the stored waker already wakes the task `waker` wakes (then
    /// nothing needs replacing).
    pub(crate) fn will_wake(&self, key: usize, waker: &Waker) -> bool {
        self.order
            .get(key)
            .waker
            .as_ref()
            .is_some_and(|stored| stored.will_wake(waker))
    }

    /// Stores `waker`; returns the old one, to be dropped after the lock
    /// is released.
    #[must_use = "drop the old waker after releasing the lock"]
    pub(crate) fn set_waker(&mut self, key: usize, waker: Waker) -> Option<Waker> {
        self.order.get_mut(key).waker.replace(waker)
    }

    /// Takes the waiter out of the FIFO and returns its waker (to be woken
    /// after the lock is released). The entry stays until its owner removes
    /// it.
    pub(crate) fn dequeue(&mut self, key: usize) -> Option<Waker> {
        self.order.unlink(key);
        self.order.get_mut(key).waker.take()
    }

    /// Dequeues every waiter, collecting their wakers.
    pub(crate) fn dequeue_all(&mut self, wakers: &mut Vec<Waker>) {
        while let Some(key) = self.order.front() {
            wakers.extend(self.dequeue(key));
        }
    }

    /// The owner's removal of its entry (queued or not); returns its data
    /// and its waker if it still had one, to be dropped after the lock is
    /// released (a waker may own anything, a permit of this very channel
    /// among them, whose drop takes the lock).
    #[must_use = "drop the waker after releasing the lock"]
    pub(crate) fn remove(&mut self, key: usize) -> (D, Option<Waker>) {
        let entry = self.order.remove(key);
        (entry.data, entry.waker)
    }
}

impl<D> fmt::Debug for WaitList<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaitList")
            .field("empty", &self.order.is_empty())
            .finish()
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests {
    use super::WaitList;
    use std::sync::Arc;
    use std::task::{Wake, Waker};

    struct Task;
    impl Wake for Task {
        fn wake(self: Arc<Self>) {}
    }

    fn order(list: &mut WaitList<u32>) -> Vec<u32> {
        let mut seen = Vec::new();
        let mut wakers = Vec::new();
        // Dequeue everything, then look at what was queued, in order.
        while let Some(key) = list.front() {
            seen.push(*list.data_mut(key));
            wakers.extend(list.dequeue(key));
        }
        seen
    }

    #[test]
    fn fifo_order_survives_removal_from_the_middle() {
        let mut list = WaitList::new();
        let waker = &Waker::from(Arc::new(Task));
        let a = list.push_back(1, waker.clone());
        let b = list.push_back(2, waker.clone());
        let c = list.push_back(3, waker.clone());
        assert_eq!(list.front(), Some(a));
        assert_eq!(list.remove(b).0, 2);
        assert!(list.dequeue(a).is_some());
        assert!(!list.is_queued(a));
        assert_eq!(list.front(), Some(c));
        // A dequeued entry keeps its key until its owner removes it.
        let d = list.push_back(4, waker.clone());
        assert_ne!(d, a);
        assert!(list.will_wake(d, waker));
        assert!(list.set_waker(d, waker.clone()).is_some());
        assert_eq!(list.remove(a).0, 1);
        assert_eq!(order(&mut list), vec![3, 4]);
        assert!(list.is_empty());
        assert!(!list.will_wake(c, waker), "a dequeued entry has no waker");
        let _ = list.remove(c);
        let _ = list.remove(d);
    }
}
