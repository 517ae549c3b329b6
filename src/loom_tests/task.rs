//! Models of the task state machine.
use super::{model, poll_once, TestScheduler};
use crate::loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use crate::loom::thread;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Counts drops of whatever holds it.
struct DropCount(Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A future that completes on its second poll, having handed its waker to
/// another thread on the first.
struct WakeFromThread {
    polls: usize,
    waker_thread: Arc<crate::loom::sync::Mutex<Option<thread::JoinHandle<()>>>>,
}

impl Future for WakeFromThread {
    type Output = usize;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
        self.polls += 1;
        if self.polls == 1 {
            let waker = cx.waker().clone();
            let th = thread::spawn(move || waker.wake());
            *self.waker_thread.lock().unwrap() = Some(th);
            Poll::Pending
        } else {
            Poll::Ready(self.polls)
        }
    }
}

#[test]
fn loom_task_wake_during_poll() {
    model(|| {
        let sched = TestScheduler::new();
        let slot = Arc::new(crate::loom::sync::Mutex::new(None));
        let mut join = sched.spawn(WakeFromThread {
            polls: 0,
            waker_thread: slot.clone(),
        });
        // The wake may land while the task is running, idle, or queued.
        sched.run_all();
        let th = slot.lock().unwrap().take().expect("first poll ran");
        th.join().unwrap();
        sched.run_all();
        match poll_once(&mut join) {
            Poll::Ready(Ok(polls)) => assert_eq!(polls, 2),
            other => panic!("task did not complete: {:?}", other.map(|r| r.is_ok())),
        }
        sched.shutdown();
    });
}

#[test]
fn loom_task_abort_races_completion() {
    model(|| {
        let sched = TestScheduler::new();
        let drops = Arc::new(AtomicUsize::new(0));
        let guard = DropCount(drops.clone());
        let mut join = sched.spawn(async move {
            let _guard = guard;
            7
        });
        let abort = join.abort_handle();
        let th = thread::spawn(move || abort.abort());
        sched.run_all();
        th.join().unwrap();
        sched.run_all();
        match poll_once(&mut join) {
            Poll::Ready(Ok(v)) => assert_eq!(v, 7),
            Poll::Ready(Err(e)) => assert!(e.is_cancelled()),
            Poll::Pending => panic!("task neither completed nor cancelled"),
        }
        assert_eq!(drops.load(SeqCst), 1, "future dropped exactly once");
        sched.shutdown();
    });
}

#[test]
fn loom_task_join_handle_drop_races_output() {
    model(|| {
        let sched = TestScheduler::new();
        let drops = Arc::new(AtomicUsize::new(0));
        let output = DropCount(drops.clone());
        let join = sched.spawn(async move { output });
        let th = thread::spawn(move || drop(join));
        sched.run_all();
        th.join().unwrap();
        assert_eq!(drops.load(SeqCst), 1, "output dropped exactly once");
        sched.shutdown();
    });
}

#[test]
fn loom_task_waker_clone_drop_and_wake() {
    model(|| {
        let sched = TestScheduler::new();
        let slot = Arc::new(crate::loom::sync::Mutex::new(None));
        let slot2 = slot.clone();
        let mut polls = 0;
        let mut join = sched.spawn(poll_fn(move |cx| {
            polls += 1;
            if polls == 1 {
                *slot2.lock().unwrap() = Some(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(polls)
            }
        }));
        sched.run_all();
        let waker = slot.lock().unwrap().take().expect("polled once");
        let clone = waker.clone();
        let th = thread::spawn(move || drop(clone));
        waker.wake_by_ref();
        drop(waker);
        th.join().unwrap();
        sched.run_all();
        assert!(matches!(poll_once(&mut join), Poll::Ready(Ok(2))));
        sched.shutdown();
    });
}
