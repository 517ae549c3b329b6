#![cfg(feature = "full")]
//! A runtime kept in a thread-local is dropped while the thread exits,
//! possibly after tokiwa's own thread-local context is gone. That must
//! neither panic nor abort (tokio's `runtime_in_thread_local`).
//!
//! In a file of its own: a panic inside a thread-local destructor aborts
//! the whole test process.

#[macro_use]
mod support;

use std::cell::RefCell;
use std::future::pending;
use std::thread;

use support::Counter;
use tokiwa::runtime::Runtime;

thread_local! {
    static RT: RefCell<Option<Runtime>> = const { RefCell::new(None) };
}

rt_test! {
    fn runtime_dropped_with_its_thread() {
        let drops = Counter::new();
        let d = drops.clone();
        thread::spawn(move || {
            // Stored first, so its destructor runs after those of
            // thread-locals first touched below (tokiwa's context among
            // them).
            RT.with(|cell| *cell.borrow_mut() = Some(rt()));
            RT.with(|cell| {
                let rt = cell.borrow();
                let rt = rt.as_ref().unwrap();
                let guard = d.guard();
                rt.spawn(async move {
                    let _guard = guard;
                    pending::<()>().await
                });
                assert_eq!(rt.block_on(async { tokiwa::spawn(async { 1 }).await.unwrap() }), 1);
            });
        })
        .join()
        .expect("the thread panicked while its runtime was dropped");
        assert_eq!(drops.get(), 1, "the pending task's future was dropped");
    }

    fn runtime_dropped_with_its_thread_unused() {
        thread::spawn(move || {
            RT.with(|cell| *cell.borrow_mut() = Some(rt()));
            let _other = rt();
        })
        .join()
        .expect("the thread panicked while its runtime was dropped");
    }
}
