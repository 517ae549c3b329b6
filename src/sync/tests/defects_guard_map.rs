//! A panic in a guard's `map`/`try_map` closure unlocks (issue 24, item
//! 2): the closure runs while the guard still owns the lock, so unwinding
//! drops the guard, as tokio's. Every `map`, `try_map`, `downgrade_map`
//! and `try_downgrade_map` of every guard type is checked.
use crate::sync::{
    MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard,
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock,
    RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

fn panics_mut(_: &mut u32) -> &mut u32 {
    panic!("the map closure panicked")
}

fn panics_mut_opt(_: &mut u32) -> Option<&mut u32> {
    panic!("the map closure panicked")
}

fn panics_ref(_: &u32) -> &u32 {
    panic!("the map closure panicked")
}

fn panics_ref_opt(_: &u32) -> Option<&u32> {
    panic!("the map closure panicked")
}

/// Runs `map` (which must panic) on a fresh lock; returns a failure line if
/// the lock is still held afterwards.
fn check<L>(
    name: &str,
    lock: Arc<L>,
    map: impl FnOnce(Arc<L>),
    is_free: impl Fn(&L) -> bool,
) -> Option<String> {
    let result = catch_unwind(AssertUnwindSafe(|| map(lock.clone())));
    if result.is_ok() {
        return Some(format!("{name}: the closure did not panic"));
    }
    if !is_free(&lock) {
        return Some(format!("{name}: the lock stayed held after the panic"));
    }
    None
}

#[test]
fn a_panic_in_a_mutex_guard_map_closure_unlocks() {
    let mutex = || Arc::new(Mutex::new(0u32));
    let free = |m: &Mutex<u32>| m.try_lock().is_ok();
    let failures: Vec<String> = [
        check(
            "MutexGuard::map",
            mutex(),
            |m| drop(MutexGuard::map(m.try_lock().unwrap(), panics_mut)),
            free,
        ),
        check(
            "MutexGuard::try_map",
            mutex(),
            |m| drop(MutexGuard::try_map(m.try_lock().unwrap(), panics_mut_opt)),
            free,
        ),
        check(
            "OwnedMutexGuard::map",
            mutex(),
            |m| {
                drop(OwnedMutexGuard::map(
                    m.try_lock_owned().unwrap(),
                    panics_mut,
                ))
            },
            free,
        ),
        check(
            "OwnedMutexGuard::try_map",
            mutex(),
            |m| {
                drop(OwnedMutexGuard::try_map(
                    m.try_lock_owned().unwrap(),
                    panics_mut_opt,
                ))
            },
            free,
        ),
        check(
            "MappedMutexGuard::map",
            mutex(),
            |m| {
                let mapped = MutexGuard::map(m.try_lock().unwrap(), |v| v);
                drop(MappedMutexGuard::map(mapped, panics_mut))
            },
            free,
        ),
        check(
            "MappedMutexGuard::try_map",
            mutex(),
            |m| {
                let mapped = MutexGuard::map(m.try_lock().unwrap(), |v| v);
                drop(MappedMutexGuard::try_map(mapped, panics_mut_opt))
            },
            free,
        ),
        check(
            "OwnedMappedMutexGuard::map",
            mutex(),
            |m| {
                let mapped = OwnedMutexGuard::map(m.try_lock_owned().unwrap(), |v| v);
                drop(OwnedMappedMutexGuard::map(mapped, panics_mut))
            },
            free,
        ),
        check(
            "OwnedMappedMutexGuard::try_map",
            mutex(),
            |m| {
                let mapped = OwnedMutexGuard::map(m.try_lock_owned().unwrap(), |v| v);
                drop(OwnedMappedMutexGuard::try_map(mapped, panics_mut_opt))
            },
            free,
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn a_panic_in_an_rwlock_guard_map_closure_unlocks() {
    let lock = || Arc::new(RwLock::with_max_readers(0u32, 4));
    // Free for a writer: every permit came back.
    let free = |l: &RwLock<u32>| l.try_write().is_ok();
    let failures: Vec<String> = [
        check(
            "RwLockReadGuard::map",
            lock(),
            |l| drop(RwLockReadGuard::map(l.try_read().unwrap(), panics_ref)),
            free,
        ),
        check(
            "RwLockReadGuard::try_map",
            lock(),
            |l| {
                drop(RwLockReadGuard::try_map(
                    l.try_read().unwrap(),
                    panics_ref_opt,
                ))
            },
            free,
        ),
        check(
            "OwnedRwLockReadGuard::map",
            lock(),
            |l| {
                drop(OwnedRwLockReadGuard::map(
                    l.try_read_owned().unwrap(),
                    panics_ref,
                ))
            },
            free,
        ),
        check(
            "OwnedRwLockReadGuard::try_map",
            lock(),
            |l| {
                drop(OwnedRwLockReadGuard::try_map(
                    l.try_read_owned().unwrap(),
                    panics_ref_opt,
                ))
            },
            free,
        ),
        check(
            "RwLockWriteGuard::map",
            lock(),
            |l| drop(RwLockWriteGuard::map(l.try_write().unwrap(), panics_mut)),
            free,
        ),
        check(
            "RwLockWriteGuard::try_map",
            lock(),
            |l| {
                drop(RwLockWriteGuard::try_map(
                    l.try_write().unwrap(),
                    panics_mut_opt,
                ))
            },
            free,
        ),
        check(
            "RwLockWriteGuard::downgrade_map",
            lock(),
            |l| {
                drop(RwLockWriteGuard::downgrade_map(
                    l.try_write().unwrap(),
                    panics_ref,
                ))
            },
            free,
        ),
        check(
            "RwLockWriteGuard::try_downgrade_map",
            lock(),
            |l| {
                drop(RwLockWriteGuard::try_downgrade_map(
                    l.try_write().unwrap(),
                    panics_ref_opt,
                ))
            },
            free,
        ),
        check(
            "RwLockMappedWriteGuard::map",
            lock(),
            |l| {
                let mapped = RwLockWriteGuard::map(l.try_write().unwrap(), |v| v);
                drop(RwLockMappedWriteGuard::map(mapped, panics_mut))
            },
            free,
        ),
        check(
            "RwLockMappedWriteGuard::try_map",
            lock(),
            |l| {
                let mapped = RwLockWriteGuard::map(l.try_write().unwrap(), |v| v);
                drop(RwLockMappedWriteGuard::try_map(mapped, panics_mut_opt))
            },
            free,
        ),
        check(
            "OwnedRwLockWriteGuard::map",
            lock(),
            |l| {
                drop(OwnedRwLockWriteGuard::map(
                    l.try_write_owned().unwrap(),
                    panics_mut,
                ))
            },
            free,
        ),
        check(
            "OwnedRwLockWriteGuard::try_map",
            lock(),
            |l| {
                drop(OwnedRwLockWriteGuard::try_map(
                    l.try_write_owned().unwrap(),
                    panics_mut_opt,
                ))
            },
            free,
        ),
        check(
            "OwnedRwLockWriteGuard::downgrade_map",
            lock(),
            |l| {
                drop(OwnedRwLockWriteGuard::downgrade_map(
                    l.try_write_owned().unwrap(),
                    panics_ref,
                ))
            },
            free,
        ),
        check(
            "OwnedRwLockWriteGuard::try_downgrade_map",
            lock(),
            |l| {
                drop(OwnedRwLockWriteGuard::try_downgrade_map(
                    l.try_write_owned().unwrap(),
                    panics_ref_opt,
                ))
            },
            free,
        ),
        check(
            "OwnedRwLockMappedWriteGuard::map",
            lock(),
            |l| {
                let mapped = OwnedRwLockWriteGuard::map(l.try_write_owned().unwrap(), |v| v);
                drop(OwnedRwLockMappedWriteGuard::map(mapped, panics_mut))
            },
            free,
        ),
        check(
            "OwnedRwLockMappedWriteGuard::try_map",
            lock(),
            |l| {
                let mapped = OwnedRwLockWriteGuard::map(l.try_write_owned().unwrap(), |v| v);
                drop(OwnedRwLockMappedWriteGuard::try_map(mapped, panics_mut_opt))
            },
            free,
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}
