//! A bounded batch of wakers collected under a lock and woken after it is
//! released, so that no waker (which may run arbitrary code, or take the
//! same lock through a task that polls at once) runs inside a critical
//! section.
use std::task::Waker;

/// How many wakers a batch holds before its owner must release the lock
/// and wake them.
const CAPACITY: usize = 32;

#[derive(Debug)]
pub(crate) struct WakeList {
    wakers: [Option<Waker>; CAPACITY],
    len: usize,
}

impl WakeList {
    pub(crate) fn new() -> WakeList {
        WakeList {
            wakers: [const { None }; CAPACITY],
            len: 0,
        }
    }

    /// Whether another waker fits.
    pub(crate) fn can_push(&self) -> bool {
        self.len < CAPACITY
    }

    /// Adds a waker; the caller checked [`can_push`](Self::can_push).
    pub(crate) fn push(&mut self, waker: Waker) {
        debug_assert!(self.can_push());
        self.wakers[self.len] = Some(waker);
        self.len += 1;
    }

    /// Wakes and forgets every waker collected so far.
    pub(crate) fn wake_all(&mut self) {
        for slot in &mut self.wakers[..self.len] {
            if let Some(waker) = slot.take() {
                waker.wake();
            }
        }
        self.len = 0;
    }
}

impl Drop for WakeList {
    fn drop(&mut self) {
        self.wake_all();
    }
}
