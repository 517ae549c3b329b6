use super::{boxed, Poller};
use crate::sync::Notify;
use std::sync::Arc;
use std::task::Poll;

#[test]
fn notify_one_without_a_waiter_stores_one_permit() {
    let p = Poller::new();
    let notify = Notify::new();
    notify.notify_one();
    notify.notify_one();
    let mut first = boxed(notify.notified());
    assert!(p.poll(&mut first).is_ready());
    // Only one permit, however many calls.
    let mut second = boxed(notify.notified());
    assert!(p.poll(&mut second).is_pending());
    notify.notify_one();
    assert_eq!(p.wakes(), 1);
    assert!(p.poll(&mut second).is_ready());
    // Fused.
    assert!(p.poll(&mut second).is_ready());
}

#[test]
fn notify_waiters_stores_no_permit_but_completes_futures_created_before() {
    let p = Poller::new();
    let notify = Notify::new();
    let mut polled = boxed(notify.notified());
    assert!(p.poll(&mut polled).is_pending());
    let mut never_polled = boxed(notify.notified());
    notify.notify_waiters();
    assert_eq!(p.wakes(), 1);
    assert!(p.poll(&mut polled).is_ready());
    assert!(p.poll(&mut never_polled).is_ready());
    // Nothing stored for a future made afterwards.
    let mut after = boxed(notify.notified());
    assert!(p.poll(&mut after).is_pending());
}

#[test]
fn notify_one_is_fifo_and_notify_last_is_lifo() {
    let p = Poller::new();
    let notify = Notify::new();
    let mut a = boxed(notify.notified());
    let mut b = boxed(notify.notified());
    let mut c = boxed(notify.notified());
    for f in [&mut a, &mut b, &mut c] {
        assert!(p.poll(f).is_pending());
    }
    notify.notify_one();
    assert!(p.poll(&mut a).is_ready());
    assert!(p.poll(&mut b).is_pending());
    notify.notify_last();
    assert!(p.poll(&mut c).is_ready());
    assert!(p.poll(&mut b).is_pending());
}

#[test]
fn a_dropped_notified_passes_its_notification_on() {
    let p = Poller::new();
    let notify = Notify::new();
    let mut a = boxed(notify.notified());
    let mut b = boxed(notify.notified());
    assert!(p.poll(&mut a).is_pending());
    assert!(p.poll(&mut b).is_pending());
    notify.notify_one();
    drop(a);
    assert!(p.poll(&mut b).is_ready());

    // With nobody to pass it to, it becomes the stored permit.
    let mut c = boxed(notify.notified());
    assert!(p.poll(&mut c).is_pending());
    notify.notify_one();
    drop(c);
    let mut d = boxed(notify.notified());
    assert!(p.poll(&mut d).is_ready());

    // A `notify_waiters` notification is not passed on.
    let mut e = boxed(notify.notified());
    assert!(p.poll(&mut e).is_pending());
    notify.notify_waiters();
    drop(e);
    let mut f = boxed(notify.notified());
    assert!(p.poll(&mut f).is_pending());
}

#[test]
fn enable_registers_without_polling_and_consumes_a_permit() {
    let p = Poller::new();
    let notify = Notify::new();
    let mut f = boxed(notify.notified());
    assert!(!f.as_mut().enable());
    notify.notify_one();
    // Registered by `enable`: the notification went to it, not to a permit.
    let mut other = boxed(notify.notified());
    assert!(p.poll(&mut other).is_pending());
    assert!(p.poll(&mut f).is_ready());
    drop(other);

    notify.notify_one();
    let mut g = boxed(notify.notified());
    assert!(g.as_mut().enable());
    assert!(p.poll(&mut g).is_ready());
}

#[test]
fn owned_notified_is_static_and_behaves_the_same() {
    fn is_static<T: 'static + Send + Sync>(_: &T) {}
    let p = Poller::new();
    let notify = Arc::new(Notify::new());
    let mut f = boxed(notify.clone().notified_owned());
    is_static(&f);
    assert!(p.poll(&mut f).is_pending());
    notify.notify_one();
    assert_eq!(p.poll(&mut f), Poll::Ready(()));
}

#[test]
fn const_new_makes_a_static_notify() {
    static N: Notify = Notify::const_new();
    N.notify_one();
    futures::executor::block_on(N.notified());
}

#[test]
fn notified_futures_are_not_unpin_like_tokios() {
    // Compiles only if the type is not `Unpin` (both impls would apply).
    trait AmbiguousIfUnpin<A> {
        fn some_item(&self) {}
    }
    impl<T: ?Sized> AmbiguousIfUnpin<()> for T {}
    impl<T: ?Sized + Unpin> AmbiguousIfUnpin<u8> for T {}
    let _ = <crate::sync::futures::Notified<'static> as AmbiguousIfUnpin<_>>::some_item;
    let _ = <crate::sync::futures::OwnedNotified as AmbiguousIfUnpin<_>>::some_item;
}
