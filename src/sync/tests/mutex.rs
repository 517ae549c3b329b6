use super::{boxed, Poller};
use crate::sync::{MappedMutexGuard, Mutex, MutexGuard, OwnedMutexGuard};
use std::sync::Arc;
use std::task::Poll;

#[test]
fn lock_waits_for_the_guard_and_is_fair() {
    let p = Poller::new();
    let mutex = Mutex::new(0);
    let guard = mutex.try_lock().unwrap();
    assert!(mutex.try_lock().is_err());
    assert_eq!(
        mutex.try_lock().unwrap_err().to_string(),
        "operation would block"
    );
    let mut first = boxed(mutex.lock());
    let mut second = boxed(mutex.lock());
    assert!(p.poll(&mut first).is_pending());
    assert!(p.poll(&mut second).is_pending());
    drop(guard);
    assert_eq!(p.wakes(), 1);
    // The lock went to the first waiter: neither `try_lock` nor the second
    // waiter can take it.
    assert!(mutex.try_lock().is_err());
    assert!(p.poll(&mut second).is_pending());
    let Poll::Ready(mut g) = p.poll(&mut first) else {
        panic!("first waiter not served")
    };
    *g += 1;
    drop(g);
    let Poll::Ready(g) = p.poll(&mut second) else {
        panic!("second waiter not served")
    };
    assert_eq!(*g, 1);
}

#[test]
fn guards_map_debug_and_display() {
    let mutex = Mutex::new((1, String::from("x")));
    assert_eq!(format!("{mutex:?}"), "Mutex { data: (1, \"x\") }");
    let guard = mutex.try_lock().unwrap();
    assert_eq!(format!("{mutex:?}"), "Mutex { data: <locked> }");
    assert!(std::ptr::eq(MutexGuard::mutex(&guard), &mutex));
    let guard = match MutexGuard::try_map(guard, |_| None::<&mut u8>) {
        Err(guard) => guard,
        Ok(_) => panic!("try_map declined"),
    };
    let mut mapped: MappedMutexGuard<'_, String> = MutexGuard::map(guard, |v| &mut v.1);
    mapped.push('y');
    assert_eq!(format!("{mapped}"), "xy");
    let len = MappedMutexGuard::map(mapped, |s: &mut String| s);
    assert_eq!(len.len(), 2);
    assert!(mutex.try_lock().is_err());
    drop(len);
    assert_eq!(mutex.into_inner(), (1, String::from("xy")));
}

#[test]
fn owned_guards_keep_the_mutex_and_unlock_on_drop() {
    let mutex = Arc::new(Mutex::new(vec![1, 2]));
    let guard = mutex.clone().try_lock_owned().unwrap();
    assert!(Arc::ptr_eq(OwnedMutexGuard::mutex(&guard), &mutex));
    let mut mapped = OwnedMutexGuard::map(guard, |v| &mut v[1]);
    *mapped = 5;
    assert!(mutex.try_lock().is_err());
    drop(mapped);
    let guard = futures::executor::block_on(mutex.clone().lock_owned());
    assert_eq!(*guard, [1, 5]);
    let mapped = OwnedMutexGuard::try_map(guard, |v| v.get_mut(7));
    assert!(mapped.is_err());
    drop(mapped);
    let mut mutex = Arc::try_unwrap(mutex).unwrap();
    mutex.get_mut().push(3);
    assert_eq!(mutex.into_inner(), [1, 5, 3]);
}

#[test]
fn a_cancelled_lock_does_not_keep_the_lock() {
    let p = Poller::new();
    let mutex = Mutex::new(());
    let guard = mutex.try_lock().unwrap();
    let mut waiting = boxed(mutex.lock());
    assert!(p.poll(&mut waiting).is_pending());
    drop(guard);
    // Granted to `waiting`, which is dropped before it sees it.
    drop(waiting);
    assert!(mutex.try_lock().is_ok());
}

#[test]
fn const_new_and_blocking_lock_outside_a_runtime() {
    static M: Mutex<u32> = Mutex::const_new(1);
    *M.blocking_lock() += 1;
    assert_eq!(*M.try_lock().unwrap(), 2);

    let mutex = Arc::new(Mutex::new(0));
    let guard = mutex.try_lock().unwrap();
    let blocked = {
        let mutex = mutex.clone();
        std::thread::spawn(move || *mutex.blocking_lock_owned() + 1)
    };
    // The other thread can only finish once the guard is gone; the value
    // it reads proves it ran after this write.
    let mut guard = guard;
    *guard = 41;
    drop(guard);
    assert_eq!(blocked.join().unwrap(), 42);
}

#[test]
fn api_has_tokios_auto_traits() {
    fn send<T: Send>() {}
    fn send_sync<T: Send + Sync>() {}
    fn unpin<T: Unpin>() {}
    fn send_sync_val<T: Send + Sync>(_: &T) {}
    send::<MutexGuard<'_, u32>>();
    send::<OwnedMutexGuard<u32>>();
    unpin::<Mutex<u32>>();
    send_sync::<Mutex<u32>>();
    send_sync::<MutexGuard<'_, u32>>();
    let mutex = Arc::new(Mutex::new(1));
    send_sync_val(&mutex.lock());
    send_sync_val(&mutex.clone().lock_owned());
}
