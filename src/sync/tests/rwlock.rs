use super::{boxed, Poller};
use crate::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::sync::Arc;
use std::task::Poll;

#[test]
fn a_waiting_writer_keeps_later_readers_out() {
    let p = Poller::new();
    let lock = RwLock::new(0);
    let reader = lock.try_read().unwrap();
    let mut writer = boxed(lock.write());
    assert!(p.poll(&mut writer).is_pending());
    // Write preference: a reader arriving after the writer waits.
    assert!(lock.try_read().is_err());
    let mut late_reader = boxed(lock.read());
    assert!(p.poll(&mut late_reader).is_pending());
    drop(reader);
    assert_eq!(p.wakes(), 1);
    let Poll::Ready(mut w) = p.poll(&mut writer) else {
        panic!("writer not served")
    };
    assert!(p.poll(&mut late_reader).is_pending());
    *w = 7;
    drop(w);
    let Poll::Ready(r) = p.poll(&mut late_reader) else {
        panic!("reader not served")
    };
    assert_eq!(*r, 7);
}

#[test]
fn max_readers_bounds_concurrent_reads() {
    let lock = RwLock::with_max_readers(1, 2);
    let a = lock.try_read().unwrap();
    let b = lock.try_read().unwrap();
    assert!(lock.try_read().is_err());
    assert!(lock.try_write().is_err());
    drop(a);
    assert!(lock.try_write().is_err());
    drop(b);
    assert!(lock.try_write().is_ok());
}

#[test]
#[should_panic(expected = "a RwLock may not be created with 0 readers")]
fn zero_max_readers_panics() {
    let _ = RwLock::with_max_readers((), 0);
}

#[test]
#[should_panic(expected = "a RwLock may not be created with more than 536870911 readers")]
fn too_many_max_readers_panics() {
    let _ = RwLock::with_max_readers((), u32::MAX);
}

#[test]
fn downgrade_lets_waiting_readers_in_and_keeps_writers_out() {
    let p = Poller::new();
    let lock = RwLock::new(String::from("a"));
    let mut w = lock.try_write().unwrap();
    w.push('b');
    let mut reader = boxed(lock.read());
    assert!(p.poll(&mut reader).is_pending());
    let r = w.downgrade();
    assert_eq!(p.wakes(), 1);
    assert!(matches!(p.poll(&mut reader), Poll::Ready(ref g) if **g == "ab"));
    assert!(lock.try_write().is_err());
    drop(r);
    drop(reader);
    assert!(lock.try_write().is_ok());
}

#[test]
fn mapped_and_owned_guards() {
    let lock = Arc::new(RwLock::new((1, 2)));
    let w = lock.try_write().unwrap();
    let mut m = RwLockWriteGuard::map(w, |v| &mut v.0);
    *m = 10;
    drop(m);
    let w = lock.try_write().unwrap();
    let w = match RwLockWriteGuard::try_map(w, |_| None::<&mut u8>) {
        Err(w) => w,
        Ok(_) => panic!("declined"),
    };
    let r = RwLockWriteGuard::downgrade_map(w, |v| &v.1);
    assert_eq!(*r, 2);
    assert!(lock.try_read().is_ok());
    let r = RwLockReadGuard::map(r, |v| v);
    assert_eq!(format!("{r:?}"), "2");
    drop(r);

    let ow = lock.clone().try_write_owned().unwrap();
    let om = crate::sync::OwnedRwLockWriteGuard::into_mapped(ow);
    assert_eq!(*om, (10, 2));
    drop(om);
    let or = futures::executor::block_on(lock.clone().read_owned());
    let or = crate::sync::OwnedRwLockReadGuard::map(or, |v| &v.0);
    assert_eq!(*or, 10);
    assert!(Arc::ptr_eq(
        crate::sync::OwnedRwLockReadGuard::rwlock(&or),
        &lock
    ));
    assert_eq!(format!("{lock:?}"), "RwLock { data: (10, 2) }");
    drop(or);
    let ow = futures::executor::block_on(lock.clone().write_owned());
    assert_eq!(format!("{lock:?}"), "RwLock { data: <locked> }");
    let or = ow.downgrade();
    assert!(lock.try_read().is_ok());
    drop(or);
    let lock = Arc::try_unwrap(lock).unwrap();
    assert_eq!(lock.into_inner(), (10, 2));
}

#[test]
fn const_new_and_blocking_outside_a_runtime() {
    static LOCK: RwLock<u8> = RwLock::const_new(3);
    static FEW: RwLock<u8> = RwLock::const_with_max_readers(3, 1);
    *LOCK.blocking_write() += 1;
    assert_eq!(*LOCK.blocking_read(), 4);
    let _r = FEW.try_read().unwrap();
    assert!(FEW.try_read().is_err());
}

#[test]
fn api_has_tokios_auto_traits() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<RwLock<u32>>();
    send_sync::<RwLockReadGuard<'_, u32>>();
    send_sync::<RwLockWriteGuard<'_, u32>>();
    send_sync::<crate::sync::OwnedRwLockWriteGuard<u32>>();
    send_sync::<crate::sync::OwnedRwLockReadGuard<u32>>();
}
