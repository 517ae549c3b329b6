//! The pool's threads and queue.
//!
//! One mutex guards the queue and the thread counts; idle threads wait on a
//! condvar for at most the keep-alive and then exit. A job wakes an idle
//! thread if there is one (counted in `num_notify`, so a spurious condvar
//! wakeup is not mistaken for work), else starts a thread if the cap allows,
//! else waits in the queue.
//!
//! Shutdown sets the flag and wakes everybody; threads then run the
//! *mandatory* jobs left in the queue (the runtime's workers must get to
//! shut down their tasks) and cancel the others. `shutdown` waits for the
//! threads to exit, up to a timeout.
use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::{Arc, Condvar, Mutex};
use crate::runtime::task::Notified;
use crate::runtime::{context, scheduler};
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io;
use std::thread;
use std::time::{Duration, Instant};

pub(crate) type Callback = std::sync::Arc<dyn Fn() + Send + Sync>;
pub(crate) type ThreadNameFn = std::sync::Arc<dyn Fn() -> String + Send + Sync + 'static>;

/// What the builder decides about the pool.
pub(crate) struct PoolConfig {
    pub(crate) thread_name: ThreadNameFn,
    pub(crate) stack_size: Option<usize>,
    pub(crate) after_start: Option<Callback>,
    pub(crate) before_stop: Option<Callback>,
    /// Blocking threads plus worker threads.
    pub(crate) thread_cap: usize,
    pub(crate) keep_alive: Duration,
}

pub(crate) struct BlockingPool {
    spawner: Spawner,
}

#[derive(Clone)]
pub(crate) struct Spawner {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Mutex<Shared>,
    /// Blocking tasks queued or running (not the workers' own loops). A
    /// hint for idle workers: while one is in flight, its completion is
    /// likely to wake a task within microseconds, so a worker about to
    /// park spins for it first. `Relaxed`: nothing is published through
    /// it, and a stale value only costs a spin or a park.
    in_flight: AtomicUsize,
    /// Idle threads wait here for jobs.
    condvar: Condvar,
    /// `shutdown` waits here for threads to exit.
    exited: Condvar,
    config: PoolConfig,
}

struct Shared {
    queue: VecDeque<Job>,
    num_threads: usize,
    num_idle: usize,
    /// Wakeups sent to idle threads and not yet taken.
    num_notify: usize,
    shutdown: bool,
    threads: HashMap<usize, thread::JoinHandle<()>>,
    next_thread_id: usize,
}

struct Job {
    task: Notified,
    mandatory: bool,
    /// Counted in `Inner::in_flight`.
    counted: bool,
}

/// What a job is, for the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobKind {
    /// `spawn_blocking`: cancelled if the pool shuts down before it starts.
    Optional,
    /// Runs even when the pool is shutting down (a file write the caller
    /// was told is done).
    #[cfg_attr(not(any(feature = "fs", feature = "io-std")), allow(dead_code))]
    Mandatory,
    /// A worker's loop (mandatory, and not a blocking task in flight).
    Worker,
}

/// The pool is shut down; the job was cancelled.
#[derive(Debug)]
pub(crate) struct ShutdownError;

impl BlockingPool {
    pub(crate) fn new(config: PoolConfig) -> BlockingPool {
        BlockingPool {
            spawner: Spawner {
                inner: Arc::new(Inner {
                    shared: Mutex::new(Shared {
                        queue: VecDeque::new(),
                        num_threads: 0,
                        num_idle: 0,
                        num_notify: 0,
                        shutdown: false,
                        threads: HashMap::new(),
                        next_thread_id: 0,
                    }),
                    in_flight: AtomicUsize::new(0),
                    condvar: Condvar::new(),
                    exited: Condvar::new(),
                    config,
                }),
            },
        }
    }

    pub(crate) fn spawner(&self) -> &Spawner {
        &self.spawner
    }

    /// Stops the pool and waits up to `timeout` (`None`: forever) for its
    /// threads to exit. Returns whether they all did.
    pub(crate) fn shutdown(&self, timeout: Option<Duration>) -> bool {
        // A timeout too large to add (`Duration::MAX`) means no limit.
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let inner = &self.spawner.inner;
        let mut shared = inner.shared.lock().unwrap();
        if !shared.shutdown {
            shared.shutdown = true;
            inner.condvar.notify_all();
        }
        // A pool thread dropping the runtime does not wait for itself.
        let own = usize::from(is_pool_thread(inner));
        while shared.num_threads > own {
            match deadline {
                None => shared = inner.exited.wait(shared).unwrap(),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return false;
                    }
                    shared = inner.exited.wait_timeout(shared, deadline - now).unwrap().0;
                }
            }
        }
        let threads: Vec<_> = shared.threads.drain().map(|(_, h)| h).collect();
        drop(shared);
        // Only a pool thread needs to skip itself (and only then is
        // `thread::current` consulted: it may be unavailable while a
        // thread-local destructor drops the runtime).
        let me = (own == 1).then(|| thread::current().id());
        for handle in threads {
            // Every thread has left `run`; joining only waits for its
            // thread-local destructors. Never join ourselves.
            if Some(handle.thread().id()) != me {
                let _ = handle.join();
            }
        }
        true
    }
}

thread_local! {
    static POOL: std::cell::Cell<*const ()> = const { std::cell::Cell::new(std::ptr::null()) };
}

fn is_pool_thread(inner: &Arc<Inner>) -> bool {
    POOL.try_with(|p| p.get() == Arc::as_ptr(inner) as *const ())
        .unwrap_or(false)
}

impl Spawner {
    /// Queues a task (see [`JobKind`]).
    pub(crate) fn spawn(
        &self,
        task: Notified,
        kind: JobKind,
        rt: &scheduler::Handle,
    ) -> Result<(), ShutdownError> {
        let inner = &self.inner;
        let mut shared = inner.shared.lock().unwrap();
        if shared.shutdown {
            drop(shared);
            task.shutdown();
            return Err(ShutdownError);
        }
        let counted = kind != JobKind::Worker;
        if counted {
            inner.in_flight.fetch_add(1, Ordering::Relaxed);
        }
        shared.queue.push_back(Job {
            task,
            mandatory: kind != JobKind::Optional,
            counted,
        });
        if shared.num_idle > 0 {
            shared.num_idle -= 1;
            shared.num_notify += 1;
            drop(shared);
            // Notified after the unlock: the woken thread's first step is
            // to take this lock (it waits on the condvar with it), and
            // waking it while we held it made it block again at once (5% of
            // a 4 KiB file-read benchmark's time was that contention). The
            // wakeup is not lost: `num_notify` was raised under the lock,
            // and an idle thread only releases the lock inside `wait`.
            inner.condvar.notify_one();
            return Ok(());
        }
        if shared.num_threads >= inner.config.thread_cap {
            // Queued until a thread frees up.
            return Ok(());
        }
        let id = shared.next_thread_id;
        shared.next_thread_id += 1;
        match self.spawn_thread(id, rt) {
            Ok(handle) => {
                shared.num_threads += 1;
                shared.threads.insert(id, handle);
                Ok(())
            }
            Err(err) if shared.num_threads == 0 => {
                // Nobody will ever run the job: fail loudly, as tokio does.
                let job = shared.queue.pop_back();
                drop(shared);
                drop(job);
                panic!("OS can't spawn worker thread: {err}")
            }
            // A running thread will pick the job up later.
            Err(_) => Ok(()),
        }
    }

    fn spawn_thread(
        &self,
        id: usize,
        rt: &scheduler::Handle,
    ) -> io::Result<thread::JoinHandle<()>> {
        let config = &self.inner.config;
        let mut builder = thread::Builder::new().name((config.thread_name)());
        if let Some(size) = config.stack_size {
            builder = builder.stack_size(size);
        }
        let spawner = self.clone();
        let rt = rt.clone();
        builder.spawn(move || {
            let _ = POOL.try_with(|p| p.set(Arc::as_ptr(&spawner.inner) as *const ()));
            let _current = context::set_current(&rt);
            drop(rt);
            spawner.inner.run(id);
        })
    }

    /// Whether blocking tasks are queued or running (see
    /// `Inner::in_flight`).
    pub(crate) fn has_tasks_in_flight(&self) -> bool {
        self.inner.in_flight.load(Ordering::Relaxed) != 0
    }

    pub(crate) fn num_threads(&self) -> usize {
        self.inner.shared.lock().unwrap().num_threads
    }

    pub(crate) fn num_idle_threads(&self) -> usize {
        self.inner.shared.lock().unwrap().num_idle
    }

    pub(crate) fn queue_depth(&self) -> usize {
        self.inner.shared.lock().unwrap().queue.len()
    }
}

impl Inner {
    fn run(&self, id: usize) {
        if let Some(f) = &self.config.after_start {
            f();
        }
        let mut shared = self.shared.lock().unwrap();
        'main: loop {
            while let Some(job) = shared.queue.pop_front() {
                drop(shared);
                let counted = job.counted;
                job.task.run();
                if counted {
                    self.in_flight.fetch_sub(1, Ordering::Relaxed);
                }
                shared = self.shared.lock().unwrap();
            }

            shared.num_idle += 1;
            while !shared.shutdown {
                let (guard, res) = self
                    .condvar
                    .wait_timeout(shared, self.config.keep_alive)
                    .unwrap();
                shared = guard;
                if shared.num_notify > 0 {
                    // Woken for a job (`spawn` already took us off idle).
                    shared.num_notify -= 1;
                    continue 'main;
                }
                if !shared.shutdown && res.timed_out() {
                    // Idle for the whole keep-alive: exit, detached.
                    shared.num_idle -= 1;
                    drop(shared.threads.remove(&id));
                    break 'main;
                }
            }

            // Shutdown: run what must run, cancel the rest.
            shared.num_idle -= 1;
            while let Some(job) = shared.queue.pop_front() {
                drop(shared);
                let counted = job.counted;
                if job.mandatory {
                    job.task.run();
                } else {
                    job.task.shutdown();
                }
                if counted {
                    self.in_flight.fetch_sub(1, Ordering::Relaxed);
                }
                shared = self.shared.lock().unwrap();
            }
            break;
        }
        drop(shared);
        if let Some(f) = &self.config.before_stop {
            f();
        }
        let mut shared = self.shared.lock().unwrap();
        shared.num_threads -= 1;
        self.exited.notify_all();
    }
}

impl fmt::Debug for BlockingPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockingPool").finish_non_exhaustive()
    }
}
