//! The injection side: where tasks from outside a worker, and a worker's
//! overflow, wait to be picked up.
//!
//! One global queue, plus optional shards (following the .NET thread pool's
//! fix for global-queue contention on large machines): above 32 workers,
//! one extra queue per 16 workers, each worker assigned to one. A worker's
//! overflow goes to its own shard; a worker looks in its shard, then the
//! global queue, then the other shards from a random start. Pushes from
//! outside any worker go round-robin over the shards (or to the global queue
//! when there are none). `Builder` can force a shard count so tests exercise
//! sharding on any machine.
//!
//! Closing: after `close`, a push drops its task instead of queueing it. A
//! push in flight while `close` runs is waited for (`pushing`), so
//! `close_and_drain` leaves nothing behind.
use super::deque::{Injector, Steal, Worker};
use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use crate::runtime::task::Notified;

pub(crate) struct Inject {
    global: Injector<Notified>,
    shards: Box<[Injector<Notified>]>,
    /// Round-robin cursor for pushes from outside the workers (`Relaxed`:
    /// any distribution is correct, it only spreads load).
    next_shard: AtomicUsize,
    closed: AtomicBool,
    /// Pushes between their `closed` check and their push.
    pushing: AtomicUsize,
}

/// The shard count used when the builder does not force one.
pub(crate) fn default_shards(workers: usize) -> usize {
    if workers > 32 {
        workers.div_ceil(16)
    } else {
        0
    }
}

impl Inject {
    pub(crate) fn new(shards: usize) -> Inject {
        Inject {
            global: Injector::new(),
            shards: (0..shards).map(|_| Injector::new()).collect(),
            next_shard: AtomicUsize::new(0),
            closed: AtomicBool::new(false),
            pushing: AtomicUsize::new(0),
        }
    }

    /// The shard worker `index` is assigned to.
    pub(crate) fn shard_of(&self, index: usize) -> Option<usize> {
        if self.shards.is_empty() {
            None
        } else {
            Some(index % self.shards.len())
        }
    }

    fn queue(&self, shard: Option<usize>) -> &Injector<Notified> {
        match shard {
            Some(i) => &self.shards[i],
            None => &self.global,
        }
    }

    /// Pushes a task from outside any worker.
    pub(crate) fn push_remote(&self, task: Notified) {
        let shard = if self.shards.is_empty() {
            None
        } else {
            Some(self.next_shard.fetch_add(1, Relaxed) % self.shards.len())
        };
        self.push(task, shard)
    }

    /// Pushes to `shard` (`None`: the global queue). Dropped when closed.
    pub(crate) fn push(&self, task: Notified, shard: Option<usize>) {
        // SeqCst with `close_and_drain`: either this push sees `closed`, or
        // the closer sees `pushing > 0` and waits for it.
        self.pushing.fetch_add(1, SeqCst);
        if self.closed.load(SeqCst) {
            self.pushing.fetch_sub(1, SeqCst);
            drop(task);
            return;
        }
        self.queue(shard).push(task);
        self.pushing.fetch_sub(1, SeqCst);
    }

    /// Pops one task for the worker assigned to `shard`.
    pub(crate) fn pop(&self, shard: Option<usize>, start: usize) -> Option<Notified> {
        self.find(shard, start, |q| retry(|| q.steal()))
    }

    /// Moves a batch into `dest` and pops one, searching in order.
    pub(crate) fn steal_batch_and_pop(
        &self,
        shard: Option<usize>,
        start: usize,
        dest: &Worker<Notified>,
    ) -> Option<Notified> {
        self.find(shard, start, |q| retry(|| q.steal_batch_and_pop(dest)))
    }

    fn find(
        &self,
        shard: Option<usize>,
        start: usize,
        mut take: impl FnMut(&Injector<Notified>) -> Option<Notified>,
    ) -> Option<Notified> {
        if let Some(i) = shard {
            if let Some(t) = take(&self.shards[i]) {
                return Some(t);
            }
        }
        if let Some(t) = take(&self.global) {
            return Some(t);
        }
        let n = self.shards.len();
        for k in 0..n {
            let i = (start + k) % n;
            if Some(i) == shard {
                continue;
            }
            if let Some(t) = take(&self.shards[i]) {
                return Some(t);
            }
        }
        None
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.global.is_empty() && self.shards.iter().all(|q| q.is_empty())
    }

    pub(crate) fn len(&self) -> usize {
        self.global.len() + self.shards.iter().map(|q| q.len()).sum::<usize>()
    }

    pub(crate) fn num_shards(&self) -> usize {
        self.shards.len()
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(SeqCst)
    }

    /// Closes the queues and drops every task still in them.
    pub(crate) fn close_and_drain(&self) {
        self.closed.store(true, SeqCst);
        while self.pushing.load(SeqCst) != 0 {
            crate::loom::spin_loop();
        }
        while self.pop(None, 0).is_some() {}
    }

    /// Closes without draining (the workers drain as they stop).
    pub(crate) fn close(&self) -> bool {
        !self.closed.swap(true, SeqCst)
    }
}

/// Runs a steal until it gives a definite answer (`Retry` means a
/// concurrent operation interfered, not that the queue is empty).
pub(crate) fn retry(mut steal: impl FnMut() -> Steal<Notified>) -> Option<Notified> {
    loop {
        match steal() {
            Steal::Success(t) => return Some(t),
            Steal::Empty => return None,
            Steal::Retry => crate::loom::spin_loop(),
        }
    }
}
