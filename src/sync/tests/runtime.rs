//! The primitives inside tokiwa's runtimes: contention across workers,
//! the cooperative budget, and blocking calls on runtime threads.
use crate::runtime::{Builder, Runtime};
use crate::sync::{oneshot, Mutex, Notify, RwLock, Semaphore};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

const BLOCKING_MESSAGE: &str = "Cannot block the current thread from within a runtime. This \
     happens because a function attempted to block the current thread while the thread is \
     being used to drive asynchronous tasks.";

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

/// Runs `op` (always ready) in a loop in one task while a second task,
/// spawned after it on a current-thread runtime, waits to set a flag.
/// Returns after how many iterations the loop saw the flag: without the
/// budget the loop never yields and never sees it.
fn iterations_before_other_task_runs<F>(op: F) -> Option<usize>
where
    F: Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> + Send + 'static,
{
    current_thread().block_on(async move {
        let other_ran = Arc::new(AtomicBool::new(false));
        let seen = other_ran.clone();
        let looping = crate::spawn(async move {
            for i in 0..10_000 {
                op().await;
                if seen.load(Ordering::SeqCst) {
                    return Some(i);
                }
            }
            None
        });
        crate::spawn(async move { other_ran.store(true, Ordering::SeqCst) });
        looping.await.unwrap()
    })
}

#[test]
fn an_always_free_semaphore_yields_to_other_tasks() {
    let sem = Arc::new(Semaphore::new(1));
    let seen = iterations_before_other_task_runs(move || {
        let sem = sem.clone();
        Box::pin(async move {
            let _permit = sem.acquire().await.unwrap();
        })
    });
    let i = seen.expect("the loop starved the other task");
    assert!(
        i <= crate::runtime::coop::INITIAL_BUDGET as usize,
        "yielded only after {i}"
    );
}

#[test]
fn an_always_free_mutex_and_rwlock_yield_to_other_tasks() {
    let mutex = Arc::new(Mutex::new(0u64));
    let seen = iterations_before_other_task_runs(move || {
        let mutex = mutex.clone();
        Box::pin(async move {
            *mutex.lock().await += 1;
        })
    });
    assert!(seen.is_some(), "Mutex::lock starved the other task");

    let lock = Arc::new(RwLock::new(0u64));
    let seen = iterations_before_other_task_runs(move || {
        let lock = lock.clone();
        Box::pin(async move {
            let _ = *lock.read().await;
        })
    });
    assert!(seen.is_some(), "RwLock::read starved the other task");
}

/// tokio's `Notified` is not cooperative (unlike `lock`, `recv` or
/// `changed`): a task that always finds a permit spends no budget on it.
#[test]
fn a_notify_with_a_permit_every_time_spends_no_budget() {
    current_thread().block_on(async {
        let notify = Notify::new();
        for _ in 0..2 * crate::runtime::coop::INITIAL_BUDGET as usize {
            notify.notify_one();
            notify.notified().await;
        }
        assert!(
            crate::task::coop::has_budget_remaining(),
            "Notified spent the budget"
        );
    });
}

#[test]
fn an_always_ready_watch_yields_to_other_tasks() {
    let (tx, rx) = crate::sync::watch::channel(0u64);
    let rx = Arc::new(Mutex::new(rx));
    let seen = iterations_before_other_task_runs(move || {
        let rx = rx.clone();
        Box::pin(async move {
            let mut rx = rx.try_lock().unwrap();
            rx.mark_changed();
            rx.changed().await.unwrap();
        })
    });
    drop(tx);
    assert!(
        seen.is_some(),
        "watch::Receiver::changed starved the other task"
    );
}

#[test]
fn blocking_calls_inside_a_runtime_panic_with_tokios_message() {
    let rt = current_thread();
    let mutex = Mutex::new(());
    rt.block_on(async {
        let err = catch_unwind(AssertUnwindSafe(|| drop(mutex.blocking_lock()))).unwrap_err();
        assert_eq!(panic_message(err), BLOCKING_MESSAGE);
        let (_tx, rx) = oneshot::channel::<()>();
        let err = catch_unwind(AssertUnwindSafe(|| rx.blocking_recv())).unwrap_err();
        assert_eq!(panic_message(err), BLOCKING_MESSAGE);
    });
    // Inside a task too.
    let sem = Arc::new(Semaphore::new(1));
    let result = rt.block_on(async move {
        crate::spawn(async move {
            let _ = sem.blocking_acquire();
        })
        .await
    });
    assert!(result.unwrap_err().is_panic());
    // Outside the runtime the same call works.
    drop(mutex.blocking_lock());
}

#[test]
fn blocking_lock_on_the_blocking_pool_waits_for_an_async_holder() {
    let rt = current_thread();
    rt.block_on(async {
        let mutex = Arc::new(Mutex::new(0));
        let mut guard = mutex.clone().lock_owned().await;
        let blocked = {
            let mutex = mutex.clone();
            crate::task::spawn_blocking(move || *mutex.blocking_lock() + 1)
        };
        crate::task::yield_now().await;
        *guard = 1;
        drop(guard);
        assert_eq!(blocked.await.unwrap(), 2);
    });
}

#[cfg(feature = "rt-multi-thread")]
#[test]
fn mutex_excludes_tasks_on_every_worker() {
    let rt = Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mutex = Arc::new(Mutex::new(0u64));
        let inside = Arc::new(AtomicBool::new(false));
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (mutex, inside) = (mutex.clone(), inside.clone());
            tasks.push(crate::spawn(async move {
                for _ in 0..200 {
                    let mut guard = mutex.lock().await;
                    assert!(!inside.swap(true, Ordering::SeqCst), "two holders at once");
                    let read = *guard;
                    // Hold the lock across a yield: another worker may run
                    // a task that wants it meanwhile.
                    crate::task::yield_now().await;
                    *guard = read + 1;
                    inside.store(false, Ordering::SeqCst);
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(*mutex.lock().await, 1600);
    });
}

#[cfg(feature = "rt-multi-thread")]
#[test]
fn semaphore_bounds_concurrency_across_workers() {
    let rt = Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let sem = Arc::new(Semaphore::new(3));
        let active = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..16 {
            let (sem, active) = (sem.clone(), active.clone());
            tasks.push(crate::spawn(async move {
                for _ in 0..50 {
                    let _permit = sem.acquire().await.unwrap();
                    let now = active.fetch_add(1, Ordering::SeqCst) + 1;
                    assert!(now <= 3, "{now} holders of 3 permits");
                    crate::task::yield_now().await;
                    active.fetch_sub(1, Ordering::SeqCst);
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(sem.available_permits(), 3);
    });
}

#[test]
fn a_task_out_of_budget_keeps_its_place_in_the_lock_queue() {
    use super::{boxed, Poller};
    use futures::FutureExt;
    use std::task::Poll;
    current_thread().block_on(async {
        let mutex = Arc::new(crate::sync::Mutex::new(()));
        let guard = mutex.clone().try_lock_owned().unwrap();
        let (pa, pb) = (Poller::new(), Poller::new());
        while crate::task::coop::consume_budget().now_or_never().is_some() {}
        // Out of budget, the lock still queues (as tokio's: the budget is
        // checked once the lock is taken), so FIFO order holds.
        let mut a = boxed(mutex.clone().lock_owned());
        assert!(pa.poll(&mut a).is_pending());
        let mut b = boxed(mutex.clone().lock_owned());
        assert!(pb.poll(&mut b).is_pending());
        drop(guard);
        assert_eq!((pa.wakes(), pb.wakes()), (1, 0));
        // Still out of budget: `a` holds the lock but yields.
        assert!(pa.poll(&mut a).is_pending());
        assert!(mutex.try_lock().is_err());
        crate::task::yield_now().await;
        // A fresh budget: `a` gets the lock it held; `b` still waits.
        let Poll::Ready(guard) = pa.poll(&mut a) else {
            panic!("the lock was not handed over")
        };
        assert!(pb.poll(&mut b).is_pending());
        drop(guard);
        assert!(pb.poll(&mut b).is_ready());
    });
}

#[test]
fn a_lock_dropped_while_yielding_for_budget_gives_the_lock_back() {
    use super::{boxed, Poller};
    use futures::FutureExt;
    current_thread().block_on(async {
        let mutex = Arc::new(crate::sync::Mutex::new(()));
        let guard = mutex.clone().try_lock_owned().unwrap();
        let p = Poller::new();
        let mut a = boxed(mutex.clone().lock_owned());
        assert!(p.poll(&mut a).is_pending());
        while crate::task::coop::consume_budget().now_or_never().is_some() {}
        drop(guard);
        // Granted, but out of budget: pending, holding the lock.
        assert!(p.poll(&mut a).is_pending());
        assert!(mutex.try_lock().is_err());
        drop(a);
        assert!(mutex.try_lock().is_ok());
    });
}
