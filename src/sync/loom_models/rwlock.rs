//! `RwLock`: writers excluding each other, `downgrade` letting a waiting
//! reader in and a waiting writer in after the reader, and a writer
//! cancelled while it holds part of its permits (tokio's
//! `loom_rwlock.rs`, and the cancellation issue 24 asks for).
use super::{block_on, model, poll_once, thread};
use crate::sync::RwLock;
use std::sync::Arc;

/// Two writers (a borrowed and an owned guard) on two threads: neither
/// update is lost.
#[test]
fn loom_rwlock_concurrent_writers_exclude_each_other() {
    model(|| {
        let lock = Arc::new(RwLock::new(0u32));
        let first = {
            let lock = lock.clone();
            thread::spawn(move || *block_on(lock.write()) += 5)
        };
        let second = {
            let lock = lock.clone();
            thread::spawn(move || *block_on(lock.write_owned()) += 5)
        };
        let seen = *block_on(lock.read());
        assert!(seen == 0 || seen == 5 || seen == 10, "saw {seen}");
        first.join().unwrap();
        second.join().unwrap();
        assert_eq!(*block_on(lock.read()), 10);
    });
}

/// A reader waits while the lock is written; `downgrade` must let it in
/// at once (the main thread keeps its read guard until the reader is
/// done, so a reader still waiting for the writer's permits deadlocks).
#[test]
fn loom_rwlock_downgrade_admits_a_waiting_reader() {
    model(|| {
        let lock = Arc::new(RwLock::new(0u32));
        let mut writer = block_on(lock.write());
        let reader = {
            let lock = lock.clone();
            thread::spawn(move || *block_on(lock.read()))
        };
        *writer = 1;
        let read = writer.downgrade();
        assert_eq!(reader.join().unwrap(), 1);
        assert_eq!(*read, 1);
    });
}

/// tokio's `downgrade`: a writer waits while the lock is written; after
/// `downgrade` it still waits for the read guard, then gets in.
#[test]
fn loom_rwlock_downgrade_then_a_waiting_writer() {
    model(|| {
        let lock = Arc::new(RwLock::new(1u32));
        let writer = block_on(lock.write());
        let other = {
            let lock = lock.clone();
            thread::spawn(move || *block_on(lock.write()) = 2)
        };
        let read = writer.downgrade();
        assert_eq!(*read, 1, "no writer may get in while the read guard lives");
        drop(read);
        other.join().unwrap();
        assert_eq!(*block_on(lock.read()), 2);
    });
}

/// A writer that took the one free permit of two and waits for the other
/// (a reader holds it) is cancelled, racing that reader's release and a
/// second reader queued behind the writer: the second reader gets in (the
/// cancelled writer's permit is handed on, not lost), and at the end every
/// permit is back.
#[test]
fn loom_rwlock_cancelled_writer_holding_part_of_its_permits() {
    model(|| {
        let lock = Arc::new(RwLock::with_max_readers(0u32, 2));
        let read = lock.try_read().unwrap();
        let writer = {
            let lock = lock.clone();
            thread::spawn(move || {
                let mut write = Box::pin(lock.write());
                // Pending (holds one permit, queued for the other) unless
                // the read guard was already dropped.
                let _ = poll_once(write.as_mut());
            })
        };
        let reader = {
            let lock = lock.clone();
            thread::spawn(move || *block_on(lock.read()))
        };
        drop(read);
        writer.join().unwrap();
        assert_eq!(reader.join().unwrap(), 0);
        assert!(lock.try_write().is_ok(), "a permit was lost");
    });
}
