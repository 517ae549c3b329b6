//! The owned-task list: every live task of a scheduler, so shutdown can
//! cancel them all.
//!
//! Tasks are kept in slabs behind a few mutexes (shards chosen by task id),
//! so concurrent spawns and completions on different workers rarely meet on
//! the same lock. The list holds one reference per task (see `state.rs`),
//! and the slot index lives in the task header, so removal is O(1).
//!
//! Closing the list is done shard by shard under each shard's lock: a
//! `bind` after that sees the flag and cancels the new task at once, so no
//! task can slip in behind a shutdown.
use super::raw::{Notified, RawTask, Task};
use super::spawn_meta::SpawnMeta;
use super::{Id, Schedule};
use crate::loom::sync::Mutex;
use crossbeam_utils::CachePadded;
use slab::Slab;
use std::future::Future;

pub(crate) struct OwnedTasks {
    shards: Box<[CachePadded<Mutex<Shard>>]>,
    mask: usize,
}

struct Shard {
    tasks: Slab<RawTask>,
    closed: bool,
}

impl OwnedTasks {
    /// A list with at least `shards` shards (rounded up to a power of two).
    pub(crate) fn new(shards: usize) -> OwnedTasks {
        let n = shards.max(1).next_power_of_two();
        OwnedTasks {
            shards: (0..n)
                .map(|_| {
                    CachePadded::new(Mutex::new(Shard {
                        tasks: Slab::new(),
                        closed: false,
                    }))
                })
                .collect(),
            mask: n - 1,
        }
    }

    fn shard(&self, id: Id) -> &Mutex<Shard> {
        // Ids are sequential, and workers steal in batches, so consecutive
        // ids are often bound and removed on different threads at once: a
        // multiplicative hash spreads them over the shards.
        let hash = id.0.get().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        &self.shards[(hash as usize) & self.mask]
    }

    /// Creates a task owned by this list. Returns its `JoinHandle` reference
    /// and, unless the list is closed (then the task is already cancelled),
    /// the `Notified` to schedule.
    pub(crate) fn bind<T, S>(
        &self,
        future: T,
        scheduler: S,
        meta: &SpawnMeta<'_>,
    ) -> (RawTask, Option<Notified>)
    where
        T: Future + 'static,
        S: Schedule,
    {
        let id = meta.id;
        let raw = RawTask::new(future, scheduler, meta);
        // SAFETY: a new task carries three references: one each for the
        // list, the first notification and the join handle.
        let (task, notified) = unsafe { (Task::from_raw(raw), Notified::from_raw(raw)) };
        let mut shard = self.shard(id).lock().unwrap();
        if shard.closed {
            drop(shard);
            drop(notified);
            // The list's reference cancels the task (it never ran).
            task.shutdown();
            return (raw, None);
        }
        let key = shard.tasks.insert(raw);
        // SAFETY: the key is written under the shard lock, before the task is
        // visible to any other thread, and only read under the same lock.
        raw.header().owner_key.with_mut(|k| unsafe { *k = key });
        drop(shard);
        std::mem::forget(task);
        (raw, Some(notified))
    }

    /// Removes a completed task; returns the list's reference if it still
    /// held one (shutdown may have taken it already).
    pub(crate) fn remove(&self, task: &Task) -> Option<Task> {
        let raw = task.raw();
        let mut shard = self.shard(raw.id()).lock().unwrap();
        // SAFETY: read under the shard lock, which orders it after the write
        // in `bind`.
        let key = raw.header().owner_key.with(|k| unsafe { *k });
        match shard.tasks.get(key) {
            Some(&entry) if entry == raw => {
                shard.tasks.remove(key);
                drop(shard);
                // SAFETY: the list's reference moves to the caller.
                Some(unsafe { Task::from_raw(raw) })
            }
            _ => None,
        }
    }

    /// Closes the list and cancels every task in it, starting at shard
    /// `start` so that workers shutting down together spread over shards.
    pub(crate) fn close_and_shutdown_all(&self, start: usize) {
        for i in 0..self.shards.len() {
            let idx = (start + i) & self.mask;
            let tasks: Vec<RawTask> = {
                let mut shard = self.shards[idx].lock().unwrap();
                shard.closed = true;
                shard.tasks.drain().collect()
            };
            for raw in tasks {
                // SAFETY: draining moved the list's reference to us.
                unsafe { Task::from_raw(raw) }.shutdown();
            }
        }
    }

    /// Marks the list closed without cancelling anything (the workers do
    /// that as they stop).
    pub(crate) fn close(&self) {
        for shard in self.shards.iter() {
            shard.lock().unwrap().closed = true;
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.shards
            .iter()
            .all(|s| s.lock().unwrap().tasks.is_empty())
    }

    /// Live tasks (for metrics: it takes every shard's lock in turn).
    pub(crate) fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap().tasks.len())
            .sum()
    }
}

/// Marks a key of a [`LocalOwnedTasks`] in the task header, so release
/// knows which list to look in.
const LOCAL_KEY: usize = 1 << (usize::BITS - 1);

/// An owned-task list used by one thread only: the current-thread
/// scheduler's core keeps one for the tasks spawned on the thread that
/// drives it (the common case), so those spawns and completions take no
/// lock. Tasks spawned from other threads go to the scheduler's shared
/// [`OwnedTasks`]. The list moves with the core; it is only touched by the
/// thread holding the core, and shutdown drains it.
pub(crate) struct LocalOwnedTasks {
    tasks: Slab<RawTask>,
}

impl LocalOwnedTasks {
    pub(crate) fn new() -> LocalOwnedTasks {
        LocalOwnedTasks { tasks: Slab::new() }
    }

    /// As [`OwnedTasks::bind`], for an open list.
    pub(crate) fn bind<T, S>(
        &mut self,
        future: T,
        scheduler: S,
        meta: &SpawnMeta<'_>,
    ) -> (RawTask, Notified)
    where
        T: Future + 'static,
        S: Schedule,
    {
        let raw = RawTask::new(future, scheduler, meta);
        let key = self.tasks.insert(raw);
        // SAFETY: the task is not shared yet; the key is only read again by
        // `remove`, on the thread that holds this list.
        raw.header()
            .owner_key
            .with_mut(|k| unsafe { *k = key | LOCAL_KEY });
        // SAFETY: a new task carries three references: the list's (kept in
        // the slab), the first notification's and the join handle's.
        (raw, unsafe { Notified::from_raw(raw) })
    }

    /// As [`OwnedTasks::remove`]; `None` for a task of another list.
    pub(crate) fn remove(&mut self, task: &Task) -> Option<Task> {
        let raw = task.raw();
        // SAFETY: only this list's holder writes a local key, and a task of
        // another list had its key written before it was published to us.
        let key = raw.header().owner_key.with(|k| unsafe { *k });
        if key & LOCAL_KEY == 0 {
            return None;
        }
        match self.tasks.get(key & !LOCAL_KEY) {
            Some(&entry) if entry == raw => {
                self.tasks.remove(key & !LOCAL_KEY);
                // SAFETY: the list's reference moves to the caller.
                Some(unsafe { Task::from_raw(raw) })
            }
            _ => None,
        }
    }

    /// Whether `task` was bound by a local list (of any thread).
    pub(crate) fn is_local(task: &Task) -> bool {
        // SAFETY: as in `remove`: the key was written before the task
        // reached the caller.
        task.raw().header().owner_key.with(|k| unsafe { *k }) & LOCAL_KEY != 0
    }

    /// Cancels every task in the list (runtime shutdown).
    pub(crate) fn shutdown_all(&mut self) {
        let tasks: Vec<RawTask> = self.tasks.drain().collect();
        for raw in tasks {
            // SAFETY: draining moved the list's reference to us.
            unsafe { Task::from_raw(raw) }.shutdown();
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.tasks.len()
    }
}
