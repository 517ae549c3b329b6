//! An ordered list of waiters with stable keys, for the primitives' wait
//! queues (the semaphore core, `Notify`, and, through
//! `mpsc::waiters`, the channels).
//!
//! tokio threads its waiters through an intrusive linked list of nodes
//! pinned inside the waiting futures. Here each waiter is an entry that
//! the waiting future names by its key, and the order is a doubly linked
//! list of keys through those entries. That needs no `unsafe` and no
//! pinning, and still gives O(1) push, pop and removal from the middle (a
//! cancelled waiter).
//!
//! The entries live in fixed pages (`pages.rs`): no allocation per wait
//! while a page has room, and the memory of a burst of waiters is given
//! back as they leave (a slab kept its peak for good: 100k cancelled
//! semaphore waiters held 10 MiB).
//!
//! An entry can be *unlinked* (taken out of the order: it was granted what
//! it waited for, or the primitive closed) while staying stored, so that
//! its future can read the outcome under the same lock and then
//! [`remove`](WaitList::remove) it. A key stays valid, and names the same
//! waiter, until `remove`: only the future that owns the key calls it.
//!
//! The list is plain data; its owner keeps it behind a lock.
mod pages;

use pages::Pages;

#[derive(Debug)]
struct Entry<T> {
    value: T,
    prev: Option<usize>,
    next: Option<usize>,
    linked: bool,
}

/// Waiters in order, each with a value of type `T`.
#[derive(Debug)]
pub(crate) struct WaitList<T> {
    entries: Pages<Entry<T>>,
    head: Option<usize>,
    tail: Option<usize>,
}

impl<T> WaitList<T> {
    pub(crate) const fn new() -> WaitList<T> {
        WaitList {
            entries: Pages::new(),
            head: None,
            tail: None,
        }
    }

    /// Whether no waiter is linked.
    pub(crate) fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// Links a new waiter at the back; returns its key.
    pub(crate) fn push_back(&mut self, value: T) -> usize {
        let key = self.entries.insert(Entry {
            value,
            prev: self.tail,
            next: None,
            linked: true,
        });
        match self.tail {
            Some(tail) => self.entries.get_mut(tail).next = Some(key),
            None => self.head = Some(key),
        }
        self.tail = Some(key);
        key
    }

    /// The key of the first linked waiter.
    pub(crate) fn front(&self) -> Option<usize> {
        self.head
    }

    /// The key of the last linked waiter.
    pub(crate) fn back(&self) -> Option<usize> {
        self.tail
    }

    /// Whether `key` is still in the order.
    pub(crate) fn is_linked(&self, key: usize) -> bool {
        self.entries.get(key).linked
    }

    /// Takes `key` out of the order (if it is in it); the entry stays.
    pub(crate) fn unlink(&mut self, key: usize) {
        let entry = self.entries.get_mut(key);
        if !entry.linked {
            return;
        }
        entry.linked = false;
        let (prev, next) = (entry.prev.take(), entry.next.take());
        match prev {
            Some(prev) => self.entries.get_mut(prev).next = next,
            None => self.head = next,
        }
        match next {
            Some(next) => self.entries.get_mut(next).prev = prev,
            None => self.tail = prev,
        }
    }

    /// Unlinks (if needed) and frees `key`, returning its value.
    pub(crate) fn remove(&mut self, key: usize) -> T {
        self.unlink(key);
        self.entries.remove(key).value
    }

    pub(crate) fn get(&self, key: usize) -> &T {
        &self.entries.get(key).value
    }

    pub(crate) fn get_mut(&mut self, key: usize) -> &mut T {
        &mut self.entries.get_mut(key).value
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod burst_memory_tests;

#[cfg(all(test, not(tokiwa_loom)))]
mod tests {
    use super::WaitList;

    fn order(list: &WaitList<u32>) -> Vec<u32> {
        let mut out = Vec::new();
        let mut cur = list.front();
        while let Some(key) = cur {
            out.push(*list.get(key));
            cur = list.entries.get(key).next;
        }
        out
    }

    #[test]
    fn keeps_order_through_removals_from_anywhere() {
        let mut list = WaitList::new();
        let keys: Vec<usize> = (0..5).map(|i| list.push_back(i)).collect();
        list.unlink(keys[2]);
        assert_eq!(order(&list), [0, 1, 3, 4]);
        assert!(!list.is_linked(keys[2]));
        assert_eq!(list.remove(keys[0]), 0);
        assert_eq!(list.remove(keys[4]), 4);
        assert_eq!(order(&list), [1, 3]);
        assert_eq!(*list.get(list.back().unwrap()), 3);
        assert_eq!(list.remove(keys[2]), 2);
        list.remove(keys[1]);
        list.remove(keys[3]);
        assert!(list.is_empty());
        assert_eq!(list.back(), None);
    }
}
