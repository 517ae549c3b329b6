//! A FIFO of parked tasks, kept inside a channel's locked state.
//!
//! tokio links its waiters intrusively through the futures themselves (raw
//! pointers, pinned nodes). tokiwa's channels keep their state under one
//! mutex, so the waiters can live in a [`Slab`] owned by that state and be
//! linked by index instead: no `unsafe`, one allocation amortised over the
//! channel's life, and O(1) push, pop and removal from the middle (a
//! cancelled future).
//!
//! # Ownership of an entry
//!
//! The future that waits *owns* its entry: it creates it
//! ([`WaitList::push_back`]), and it alone removes it
//! ([`WaitList::remove`]), when it completes or is dropped. Whoever wakes
//! it only *dequeues* it ([`WaitList::dequeue`]): the entry leaves the FIFO
//! and gives up its waker but stays in the slab, so its key stays valid and
//! cannot be reused by another waiter while its owner still holds it. The
//! owner tells "woken" from "still waiting" with [`WaitList::is_queued`].
//!
//! Every method must be called with the channel's lock held (the list is a
//! field of the locked state, so the borrow checker enforces it).
use slab::Slab;
use std::fmt;
use std::task::Waker;

/// One waiting future: its waker, its place in the FIFO and what it waits
/// for (`D`, e.g. the number of permits a sender asked for).
struct Entry<D> {
    waker: Option<Waker>,
    queued: bool,
    prev: Option<usize>,
    next: Option<usize>,
    data: D,
}

/// A FIFO of waiting futures, addressed by the keys their owners hold.
pub(crate) struct WaitList<D> {
    entries: Slab<Entry<D>>,
    head: Option<usize>,
    tail: Option<usize>,
}

impl<D> WaitList<D> {
    pub(crate) const fn new() -> WaitList<D> {
        WaitList {
            entries: Slab::new(),
            head: None,
            tail: None,
        }
    }

    /// Adds a waiter at the back of the FIFO and returns its key.
    pub(crate) fn push_back(&mut self, data: D, waker: &Waker) -> usize {
        let key = self.entries.insert(Entry {
            waker: Some(waker.clone()),
            queued: true,
            prev: self.tail,
            next: None,
            data,
        });
        match self.tail {
            Some(tail) => self.entries[tail].next = Some(key),
            None => self.head = Some(key),
        }
        self.tail = Some(key);
        key
    }

    /// The first queued waiter, if any.
    pub(crate) fn front(&self) -> Option<usize> {
        self.head
    }

    /// Whether no waiter is queued.
    pub(crate) fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// Whether the waiter is still in the FIFO (not yet woken).
    pub(crate) fn is_queued(&self, key: usize) -> bool {
        self.entries[key].queued
    }

    /// What the waiter waits for.
    pub(crate) fn data_mut(&mut self, key: usize) -> &mut D {
        &mut self.entries[key].data
    }

    /// Replaces the stored waker unless it would wake the same task; returns
    /// the old one, to be dropped after the lock is released.
    pub(crate) fn set_waker(&mut self, key: usize, waker: &Waker) -> Option<Waker> {
        let slot = &mut self.entries[key].waker;
        match slot {
            Some(old) if old.will_wake(waker) => None,
            _ => slot.replace(waker.clone()),
        }
    }

    /// Takes the waiter out of the FIFO and returns its waker (to be woken
    /// after the lock is released). The entry stays until its owner removes
    /// it.
    pub(crate) fn dequeue(&mut self, key: usize) -> Option<Waker> {
        self.unlink(key);
        self.entries[key].waker.take()
    }

    /// Dequeues every waiter, collecting their wakers.
    pub(crate) fn dequeue_all(&mut self, wakers: &mut Vec<Waker>) {
        while let Some(key) = self.head {
            wakers.extend(self.dequeue(key));
        }
    }

    /// The owner's removal of its entry (queued or not); returns its data
    /// and its waker if it still had one, to be dropped after the lock is
    /// released (a waker may own anything, a permit of this very channel
    /// among them, whose drop takes the lock).
    #[must_use = "drop the waker after releasing the lock"]
    pub(crate) fn remove(&mut self, key: usize) -> (D, Option<Waker>) {
        self.unlink(key);
        let entry = self.entries.remove(key);
        (entry.data, entry.waker)
    }

    fn unlink(&mut self, key: usize) {
        let entry = &mut self.entries[key];
        if !entry.queued {
            return;
        }
        entry.queued = false;
        let (prev, next) = (entry.prev.take(), entry.next.take());
        match prev {
            Some(prev) => self.entries[prev].next = next,
            None => self.head = next,
        }
        match next {
            Some(next) => self.entries[next].prev = prev,
            None => self.tail = prev,
        }
    }
}

impl<D> fmt::Debug for WaitList<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaitList")
            .field("entries", &self.entries.len())
            .finish()
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests {
    use super::WaitList;
    use std::task::Waker;

    fn order(list: &WaitList<u32>) -> Vec<usize> {
        let mut keys = Vec::new();
        let mut at = list.front();
        while let Some(key) = at {
            keys.push(key);
            at = list.entries[key].next;
        }
        keys
    }

    #[test]
    fn fifo_order_survives_removal_from_the_middle() {
        let mut list = WaitList::new();
        let waker = Waker::noop();
        let a = list.push_back(1, waker);
        let b = list.push_back(2, waker);
        let c = list.push_back(3, waker);
        assert_eq!(order(&list), vec![a, b, c]);
        assert_eq!(list.remove(b).0, 2);
        assert_eq!(order(&list), vec![a, c]);
        assert!(list.dequeue(a).is_some());
        assert!(!list.is_queued(a));
        assert_eq!(order(&list), vec![c]);
        // A dequeued entry keeps its key until its owner removes it.
        let d = list.push_back(4, waker);
        assert_ne!(d, a);
        assert_eq!(list.remove(a).0, 1);
        assert_eq!(order(&list), vec![c, d]);
        let mut wakers = Vec::new();
        list.dequeue_all(&mut wakers);
        assert_eq!(wakers.len(), 2);
        assert!(list.is_empty());
    }
}
