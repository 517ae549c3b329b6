//! The unit tests in tokio 1.54.1's `src/sync/*.rs` `#[cfg(test)]`
//! blocks that apply to tokiwa's public API: the auto-trait `bounds` of
//! `rwlock.rs`, `semaphore.rs` and `mutex.rs` (code relies on them:
//! guards and futures sent across `spawn`), and `broadcast.rs`'s receiver
//! counts. (tokio's `watch.rs` loom tests are in `loom_models/watch.rs`;
//! its `mpsc/block.rs` and `mpsc/list.rs` tests are of tokio's block list,
//! which tokiwa does not have.)
use crate::sync::broadcast::{self, Sender};
use crate::sync::{
    Mutex, MutexGuard, OwnedMutexGuard, OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard,
    OwnedRwLockWriteGuard, RwLock, RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
    Semaphore, SemaphorePermit,
};
use std::sync::Arc;

fn check_send<T: Send>() {}
fn check_sync<T: Sync>() {}
fn check_unpin<T: Unpin>() {}
fn check_static<T: 'static>() {}
fn check_send_sync<T: Send + Sync>() {}
// These take a value: an async fn's future type is unnameable.
fn check_send_sync_val<T: Send + Sync>(_t: T) {}
fn check_static_val<T: 'static>(_t: T) {}

#[test]
fn rwlock_bounds() {
    check_send::<RwLock<u32>>();
    check_sync::<RwLock<u32>>();
    check_unpin::<RwLock<u32>>();

    check_send::<RwLockReadGuard<'_, u32>>();
    check_sync::<RwLockReadGuard<'_, u32>>();
    check_unpin::<RwLockReadGuard<'_, u32>>();

    check_send::<OwnedRwLockReadGuard<u32, i32>>();
    check_sync::<OwnedRwLockReadGuard<u32, i32>>();
    check_unpin::<OwnedRwLockReadGuard<u32, i32>>();

    check_send::<RwLockWriteGuard<'_, u32>>();
    check_sync::<RwLockWriteGuard<'_, u32>>();
    check_unpin::<RwLockWriteGuard<'_, u32>>();

    check_send::<RwLockMappedWriteGuard<'_, u32>>();
    check_sync::<RwLockMappedWriteGuard<'_, u32>>();
    check_unpin::<RwLockMappedWriteGuard<'_, u32>>();

    check_send::<OwnedRwLockWriteGuard<u32>>();
    check_sync::<OwnedRwLockWriteGuard<u32>>();
    check_unpin::<OwnedRwLockWriteGuard<u32>>();

    check_send::<OwnedRwLockMappedWriteGuard<u32, i32>>();
    check_sync::<OwnedRwLockMappedWriteGuard<u32, i32>>();
    check_unpin::<OwnedRwLockMappedWriteGuard<u32, i32>>();

    let rwlock = Arc::new(RwLock::new(0));
    check_send_sync_val(rwlock.read());
    check_send_sync_val(Arc::clone(&rwlock).read_owned());
    check_send_sync_val(rwlock.write());
    check_send_sync_val(Arc::clone(&rwlock).write_owned());
}

#[test]
fn semaphore_bounds() {
    check_unpin::<Semaphore>();
    check_unpin::<SemaphorePermit<'_>>();
    check_send_sync::<Semaphore>();

    let semaphore = Semaphore::new(0);
    check_send_sync_val(semaphore.acquire());
}

#[test]
fn mutex_bounds() {
    check_send::<MutexGuard<'_, u32>>();
    check_send::<OwnedMutexGuard<u32>>();
    check_unpin::<Mutex<u32>>();
    check_send_sync::<Mutex<u32>>();
    check_static::<OwnedMutexGuard<u32>>();

    let mutex = Mutex::new(1);
    check_send_sync_val(mutex.lock());
    let arc_mutex = Arc::new(Mutex::new(1));
    check_send_sync_val(arc_mutex.clone().lock_owned());
    check_static_val(arc_mutex.lock_owned());
}

#[test]
fn broadcast_receiver_count_on_sender_constructor() {
    let sender = Sender::<i32>::new(16);
    assert_eq!(sender.receiver_count(), 0);

    let rx_1 = sender.subscribe();
    assert_eq!(sender.receiver_count(), 1);

    let rx_2 = rx_1.resubscribe();
    assert_eq!(sender.receiver_count(), 2);

    let rx_3 = sender.subscribe();
    assert_eq!(sender.receiver_count(), 3);

    drop(rx_3);
    drop(rx_1);
    assert_eq!(sender.receiver_count(), 1);

    drop(rx_2);
    assert_eq!(sender.receiver_count(), 0);
}

#[test]
fn broadcast_receiver_count_on_channel_constructor() {
    let (sender, rx) = broadcast::channel::<i32>(16);
    assert_eq!(sender.receiver_count(), 1);

    let _rx_2 = rx.resubscribe();
    assert_eq!(sender.receiver_count(), 2);
}
