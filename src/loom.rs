//! The one place concurrency primitives come from.
//!
//! Code that takes part in tokiwa's concurrency protocols (task state, run
//! queues, park/notify) imports atomics, `Arc`, `Mutex`, `Condvar` and
//! `UnsafeCell` from here, never from `std::sync` directly. Under
//! `--cfg tokiwa_loom` they become loom's model-checked versions, so the same
//! source runs in the model tests (`src/loom_tests/`) and in production.
//!
//! `UnsafeCell` exposes loom's `with`/`with_mut` API in both builds: loom
//! checks every access for data races, std's version compiles to a plain
//! pointer access.
//!
//! Scheduler handles are reference-counted with `std::sync::Arc` even
//! under loom: their methods take `self: &Arc<Self>`, which loom's `Arc`
//! does not support, and their counts are not part of any protocol.
//!
//! OS threads that the runtime spawns (workers, the blocking pool) always use
//! `std::thread`: loom models exercise the protocols with loom threads of
//! their own, never a whole runtime.
#![allow(unused_imports, dead_code, unreachable_pub)]

#[cfg(not(tokiwa_loom))]
mod imp {
    pub(crate) mod sync {
        pub(crate) use std::sync::{
            Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard,
            WaitTimeoutResult,
        };

        pub(crate) mod atomic {
            pub(crate) use std::sync::atomic::{
                fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
            };
        }
    }

    pub(crate) mod cell {
        /// `std::cell::UnsafeCell` with loom's closure-based access API.
        #[derive(Debug)]
        #[repr(transparent)]
        pub(crate) struct UnsafeCell<T: ?Sized>(std::cell::UnsafeCell<T>);

        impl<T> UnsafeCell<T> {
            pub(crate) const fn new(value: T) -> Self {
                UnsafeCell(std::cell::UnsafeCell::new(value))
            }

            pub(crate) fn into_inner(self) -> T {
                self.0.into_inner()
            }
        }

        impl<T: ?Sized> UnsafeCell<T> {
            #[inline(always)]
            pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
                f(self.0.get())
            }

            #[inline(always)]
            pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
                f(self.0.get())
            }
        }
    }

    pub(crate) mod thread {
        pub(crate) use std::thread::{current, panicking, yield_now};
    }

    /// Spin-loop hint; under loom it yields to the model's scheduler.
    #[inline(always)]
    pub(crate) fn spin_loop() {
        std::hint::spin_loop()
    }
}

#[cfg(tokiwa_loom)]
mod imp {
    pub(crate) mod sync {
        pub(crate) use loom::sync::{
            Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard,
            WaitTimeoutResult,
        };

        pub(crate) mod atomic {
            pub(crate) use loom::sync::atomic::{
                fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
            };
        }
    }

    pub(crate) mod cell {
        pub(crate) use loom::cell::UnsafeCell;
    }

    pub(crate) mod thread {
        pub(crate) use loom::thread::{current, spawn, yield_now, JoinHandle};
        pub(crate) use std::thread::panicking;
    }

    pub(crate) fn spin_loop() {
        loom::thread::yield_now()
    }
}

pub(crate) use imp::*;
