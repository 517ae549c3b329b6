//! The work-stealing deques behind the run queues.
//!
//! In normal builds these are `crossbeam-deque`'s Chase-Lev worker/stealer
//! pair and its injector: well-kept, lock-free, and exactly the structure the
//! executor needs. Under `--cfg tokiwa_loom` they are replaced by
//! mutex-protected `VecDeque`s with the same API subset, built on the loom
//! facade: crossbeam's internals are not loom-instrumented (and are tested
//! by crossbeam), while what tokiwa builds on top (overflow into the
//! injector, stealing order, the park/notify protocol) is what the models
//! check.
#[cfg(not(tokiwa_loom))]
pub(crate) use crossbeam_deque::{Injector, Steal, Stealer, Worker};

#[cfg(tokiwa_loom)]
pub(crate) use self::model::{Injector, Steal, Stealer, Worker};

#[cfg(tokiwa_loom)]
mod model {
    use crate::loom::sync::{Arc, Mutex};
    use std::collections::VecDeque;

    pub(crate) enum Steal<T> {
        Empty,
        Success(T),
        #[allow(dead_code)]
        Retry,
    }

    pub(crate) struct Worker<T> {
        q: Arc<Mutex<VecDeque<T>>>,
    }

    pub(crate) struct Stealer<T> {
        q: Arc<Mutex<VecDeque<T>>>,
    }

    pub(crate) struct Injector<T> {
        q: Mutex<VecDeque<T>>,
    }

    /// How many tasks a batch steal moves at most (small, as the model's
    /// queues are).
    const BATCH: usize = 2;

    fn move_batch<T>(src: &mut VecDeque<T>, dest: &Worker<T>) -> Steal<T> {
        let Some(first) = src.pop_front() else {
            return Steal::Empty;
        };
        let n = src.len().div_ceil(2).min(BATCH - 1);
        let mut dest = dest.q.lock().unwrap();
        for _ in 0..n {
            if let Some(t) = src.pop_front() {
                dest.push_back(t);
            }
        }
        Steal::Success(first)
    }

    impl<T> Worker<T> {
        pub(crate) fn new_fifo() -> Worker<T> {
            Worker {
                q: Arc::new(Mutex::new(VecDeque::new())),
            }
        }
        pub(crate) fn stealer(&self) -> Stealer<T> {
            Stealer { q: self.q.clone() }
        }
        pub(crate) fn push(&self, t: T) {
            self.q.lock().unwrap().push_back(t)
        }
        pub(crate) fn pop(&self) -> Option<T> {
            self.q.lock().unwrap().pop_front()
        }
        pub(crate) fn len(&self) -> usize {
            self.q.lock().unwrap().len()
        }
        pub(crate) fn is_empty(&self) -> bool {
            self.q.lock().unwrap().is_empty()
        }
    }

    impl<T> Stealer<T> {
        pub(crate) fn steal_batch_and_pop(&self, dest: &Worker<T>) -> Steal<T> {
            let mut src = self.q.lock().unwrap();
            move_batch(&mut src, dest)
        }
        /// The model's batches are always small; the limit is ignored.
        pub(crate) fn steal_batch_with_limit_and_pop(
            &self,
            dest: &Worker<T>,
            _limit: usize,
        ) -> Steal<T> {
            self.steal_batch_and_pop(dest)
        }
        pub(crate) fn is_empty(&self) -> bool {
            self.q.lock().unwrap().is_empty()
        }
        pub(crate) fn len(&self) -> usize {
            self.q.lock().unwrap().len()
        }
    }

    impl<T> Injector<T> {
        pub(crate) fn new() -> Injector<T> {
            Injector {
                q: Mutex::new(VecDeque::new()),
            }
        }
        pub(crate) fn push(&self, t: T) {
            self.q.lock().unwrap().push_back(t)
        }
        pub(crate) fn steal(&self) -> Steal<T> {
            match self.q.lock().unwrap().pop_front() {
                Some(t) => Steal::Success(t),
                None => Steal::Empty,
            }
        }
        pub(crate) fn steal_batch_and_pop(&self, dest: &Worker<T>) -> Steal<T> {
            let mut src = self.q.lock().unwrap();
            move_batch(&mut src, dest)
        }
        pub(crate) fn is_empty(&self) -> bool {
            self.q.lock().unwrap().is_empty()
        }
        pub(crate) fn len(&self) -> usize {
            self.q.lock().unwrap().len()
        }
    }
}
