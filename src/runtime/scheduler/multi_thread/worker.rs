//! The multi-thread scheduler's workers.
//!
//! Each worker owns a `Core`: its local run queue (a Chase-Lev deque from
//! `crossbeam-deque`, stealable by the others), a LIFO slot, and its parker
//! (the driver). A worker thread runs the loop in [`Context::run`]:
//!
//! 1. every `global_queue_interval` ticks, take from the injection side
//!    first, so remote spawns are not starved by a busy local queue (the
//!    interval is tuned to the tasks' poll times unless the builder sets
//!    it: `tuning.rs`);
//! 2. else the LIFO slot, then the local queue, then a batch from the
//!    injection side;
//! 3. out of work: become a searcher (at most half the workers) and steal a
//!    batch from another worker, starting at a random one;
//! 4. nothing anywhere: park through the idle protocol (`idle.rs`).
//!
//! **The LIFO slot.** A task woken by the running task goes to the slot and
//! runs next, which is what message passing wants (the receiver runs while
//! the message is hot in cache). To keep two tasks that wake each other from
//! starving the queue, the slot may preempt the queue only
//! `MAX_LIFO_POLLS_PER_TICK` times in a row and only while the budget lasts;
//! after that the slot's task goes to the back of the queue.
//!
//! **Yields.** A task that wakes itself while it runs (`yield_now`, a spent
//! cooperative budget) waits in the core's `yielded` list until the worker
//! next polls its driver (every `event_interval` ticks, or at once when
//! nothing else is left to run or steal), then goes to the back of the
//! queue: as in tokio, the I/O and timers it may be waiting for get a
//! chance to arrive first.
//!
//! **Overflow.** The local queue is capped at `LOCAL_QUEUE_CAPACITY`; when
//! it is full, half of it moves to the worker's injection shard, where
//! idle workers find it.
//!
//! **`block_in_place`.** The core is kept in a `RefCell` of the worker's
//! context while a task runs. `block_in_place` takes it (first moving the
//! LIFO slot's task to the stealable queue) and hands it, in a slot, to a
//! new thread from the blocking pool, which carries on with the queue while
//! the current thread blocks. If that thread never took it (the pool was
//! at its cap or shutting down), the blocking thread takes the core back
//! when the closure returns, so a core is never lost. Otherwise, when the
//! task's poll returns, the old thread finds its core gone and leaves the
//! loop (its pool thread becomes an ordinary blocking thread).
//!
//! **Shutdown.** When the injection side is closed, each worker cancels the
//! tasks of the owned list (starting at its own shard), drops the
//! notifications in its queue and hands its core in; the last core in
//! drains the injection side.
mod park;

use super::idle::Idle;
use super::tuning::Tuning;
use super::Handle;
use crate::loom::sync::atomic::Ordering::Relaxed;
use crate::loom::sync::Mutex;
use crate::runtime::context;
use crate::runtime::coop;
use crate::runtime::driver::{Parker, Reach, Unparker};
use crate::runtime::metrics::WorkerMetrics;
use crate::runtime::scheduler;
use crate::runtime::scheduler::deque::{Stealer, Worker as Deque};
use crate::runtime::scheduler::inject::{retry, Inject};
use crate::runtime::task::{Notified, OwnedTasks};
use crate::util::FastRand;
use std::cell::RefCell;
use std::sync::Arc;

#[cfg(not(tokiwa_loom))]
const LOCAL_QUEUE_CAPACITY: usize = 256;
#[cfg(tokiwa_loom)]
const LOCAL_QUEUE_CAPACITY: usize = 4;

/// How many times in a row the LIFO slot may run ahead of the queue.
const MAX_LIFO_POLLS_PER_TICK: u32 = 3;

/// How long a searching worker polls for events before it parks (see
/// `Context::spin_for_completions`).
const SPIN_BEFORE_PARK: std::time::Duration = std::time::Duration::from_micros(50);

/// State shared by all workers.
pub(crate) struct Shared {
    pub(crate) remotes: Box<[Remote]>,
    pub(crate) inject: Inject,
    pub(crate) idle: Idle,
    pub(crate) owned: OwnedTasks,
    /// Cores handed in at shutdown; the last one in finishes the shutdown.
    /// (Boxed because cores move between threads by pointer.)
    #[allow(clippy::vec_box)]
    shutdown_cores: Mutex<Vec<Box<Core>>>,
    pub(crate) worker_metrics: Box<[WorkerMetrics]>,
    #[cfg(tokio_unstable)]
    pub(crate) scheduler_metrics: crate::runtime::metrics::SchedulerMetrics,
}

/// What other threads may touch of a worker.
pub(crate) struct Remote {
    steal: Stealer<Notified>,
    unpark: Unparker,
}

/// What a worker owns.
pub(crate) struct Core {
    index: usize,
    shard: Option<usize>,
    tick: u32,
    /// The global queue interval (`tuning.rs`).
    tuning: Tuning,
    lifo_slot: Option<Notified>,
    lifo_polls: u32,
    /// Tasks that woke themselves while running (`yield_now`, a spent
    /// budget): queued only after the next driver poll, as in tokio.
    yielded: Vec<Notified>,
    run_queue: Deque<Notified>,
    is_searching: bool,
    is_shutdown: bool,
    park: Option<Parker>,
    rand: FastRand,
    stats: Stats,
    /// When the busy period being measured began (`WorkerMetrics`).
    busy_since: std::time::Instant,
}

#[derive(Default)]
struct Stats {
    /// Tasks stolen.
    steals: u64,
    polls: u64,
    overflows: u64,
    #[cfg(tokio_unstable)]
    steal_operations: u64,
    #[cfg(tokio_unstable)]
    local_schedules: u64,
    #[cfg(tokio_unstable)]
    noops: u64,
    /// The poll count when the worker last woke from a park (0 before its
    /// first: as in tokio, a worker that sleeps for nothing from the start
    /// counts a no-op too).
    #[cfg(tokio_unstable)]
    polls_at_unpark: u64,
}

/// The scheduler context of a worker thread.
pub(crate) struct Context {
    pub(crate) handle: Arc<Handle>,
    core: RefCell<Option<Box<Core>>>,
}

impl Shared {
    /// Creates the shared state and the cores, one per worker (the
    /// config's global queue interval, if set, and its metrics settings).
    #[allow(clippy::vec_box)]
    pub(crate) fn new(
        num_workers: usize,
        shards: usize,
        parkers: Vec<Parker>,
        config: &crate::runtime::config::Config,
    ) -> (Shared, Vec<Box<Core>>) {
        let global_queue_interval = config.global_queue_interval;
        let inject = Inject::new(shards);
        let mut remotes = Vec::with_capacity(num_workers);
        let mut cores = Vec::with_capacity(num_workers);
        for (index, park) in parkers.into_iter().enumerate() {
            let run_queue = Deque::new_fifo();
            remotes.push(Remote {
                steal: run_queue.stealer(),
                unpark: park.unparker(),
            });
            cores.push(Box::new(Core {
                index,
                shard: inject.shard_of(index),
                tick: 0,
                tuning: Tuning::new(global_queue_interval),
                lifo_slot: None,
                lifo_polls: 0,
                yielded: Vec::new(),
                run_queue,
                is_searching: false,
                is_shutdown: false,
                park: Some(park),
                rand: FastRand::new(index as u64 + 1),
                stats: Stats::default(),
                busy_since: std::time::Instant::now(),
            }));
        }
        let shared = Shared {
            remotes: remotes.into_boxed_slice(),
            inject,
            idle: Idle::new(num_workers),
            owned: OwnedTasks::new(num_workers * 16),
            shutdown_cores: Mutex::new(Vec::with_capacity(num_workers)),
            worker_metrics: (0..num_workers)
                .map(|_| WorkerMetrics::new(config))
                .collect(),
            #[cfg(tokio_unstable)]
            scheduler_metrics: Default::default(),
        };
        (shared, cores)
    }

    /// Wakes a parked worker if nobody is searching (the notifier's side of
    /// the idle protocol).
    pub(crate) fn notify_parked(&self) {
        if let Some(index) = self.idle.worker_to_notify() {
            self.remotes[index].unpark.unpark();
        }
    }

    /// Wakes every worker (shutdown).
    pub(crate) fn notify_all(&self) {
        self.idle.take_all_parked();
        for remote in self.remotes.iter() {
            remote.unpark.unpark();
        }
    }

    /// Whether any queue other than `me`'s holds work.
    fn has_remote_work(&self, me: usize) -> bool {
        !self.inject.is_empty()
            || self
                .remotes
                .iter()
                .enumerate()
                .any(|(i, r)| i != me && !r.steal.is_empty())
    }

    pub(crate) fn worker_local_queue_depth(&self, worker: usize) -> usize {
        self.remotes[worker].steal.len()
    }
}

/// Runs a worker with `core` on the current thread until shutdown (or until
/// `block_in_place` takes the core away).
///
/// # Errors
///
/// Gives the core back, untouched, when the kernel refuses this thread the
/// worker's io_uring ring (`EMFILE` while `block_in_place` moves the core):
/// the caller puts it where its previous thread takes it back.
#[allow(clippy::result_large_err)]
pub(crate) fn run(handle: Arc<Handle>, core: Box<Core>) -> Result<(), (Box<Core>, std::io::Error)> {
    // A thread drives this core now: it reaps its own reactor's events
    // (and in io_uring mode becomes its ring's issuer).
    if let Err(e) = handle.driver.attach(core.index) {
        return Err((core, e));
    }
    #[cfg(tokio_unstable)]
    handle.shared.worker_metrics[core.index].set_thread_id();
    let scheduler_handle = scheduler::Handle::MultiThread(handle.clone());
    let _enter = context::enter_runtime(&scheduler_handle, true);
    let cx = scheduler::Context::MultiThread(Context {
        handle,
        core: RefCell::new(None),
    });
    context::set_scheduler(&cx, || {
        let scheduler::Context::MultiThread(cx) = &cx else {
            unreachable!()
        };
        if let Some(core) = cx.run(core) {
            cx.handle.driver.release(core.index);
            cx.handle.shutdown_core(core);
        }
    });
    Ok(())
}

impl Context {
    /// The worker loop. Returns the core at shutdown, or `None` when
    /// `block_in_place` took it.
    fn run(&self, mut core: Box<Core>) -> Option<Box<Core>> {
        let handle = &*self.handle;
        let config = &handle.config;
        core.busy_since = std::time::Instant::now();
        core.tuning.start_batch(core.stats.polls);
        while !core.is_shutdown {
            core.tick = core.tick.wrapping_add(1);
            // For the other workers' stall check (`driver/stall.rs`).
            handle
                .driver
                .note_progress(core.index, u64::from(core.tick));
            if core.tick % config.event_interval == 0 {
                core.tuning.end_batch(core.stats.polls);
                core = self.maintenance(core);
                if core.is_shutdown {
                    break;
                }
                core.tuning.start_batch(core.stats.polls);
            }
            if let Some(task) = core.next_task(handle, core.tuning.interval()) {
                core = self.run_task(task, core)?;
                continue;
            }
            if let Some(task) = core.steal_work(handle) {
                core = self.run_task(task, core)?;
                continue;
            }
            if !core.yielded.is_empty() {
                // Only tasks that yielded: poll the driver, then run them.
                core = self.maintenance(core);
                continue;
            }
            core.tuning.end_batch(core.stats.polls);
            core = self.park(core);
            core.tuning.start_batch(core.stats.polls);
        }
        core.pre_shutdown(handle);
        Some(core)
    }

    fn run_task(&self, task: Notified, mut core: Box<Core>) -> Option<Box<Core>> {
        core.transition_from_searching(&self.handle);
        core.lifo_polls = 0;
        // One poll, as tokio counts them: the task and the LIFO chain it
        // starts (`worker_poll_count`, the poll-time histogram and the
        // global-queue tuning all see one). The chain is timed when the
        // poll-time histogram is on, and recorded only while this thread
        // still holds the core (the histogram's one writer;
        // `block_in_place` may have handed it on).
        core.stats.polls += 1;
        let metrics = &self.handle.shared.worker_metrics[core.index];
        *self.core.borrow_mut() = Some(core);
        let config = &self.handle.config;
        coop::budget(|| {
            #[cfg(tokio_unstable)]
            let started = metrics.poll_started();
            scheduler::run_task(config, metrics, task);
            // Run what the task woke into the LIFO slot, within limits.
            loop {
                let mut core = self.core.borrow_mut().take()?;
                let lifo = core.lifo_slot.take();
                let over =
                    !coop::has_budget_remaining() || core.lifo_polls >= MAX_LIFO_POLLS_PER_TICK;
                if lifo.is_none() || over {
                    #[cfg(tokio_unstable)]
                    metrics.poll_ended(started);
                    if let Some(task) = lifo {
                        core.push_local(task, &self.handle);
                    }
                    return Some(core);
                }
                let task = lifo.expect("checked above");
                core.lifo_polls += 1;
                *self.core.borrow_mut() = Some(core);
                scheduler::run_task(config, metrics, task);
            }
        })
    }

    /// Reaps the driver without blocking, queues the tasks that yielded,
    /// checks for shutdown, publishes statistics.
    fn maintenance(&self, core: Box<Core>) -> Box<Core> {
        let index = core.index;
        // Tasks that yielded run after every event ready now; a periodic
        // look has nothing to order (`driver::Handle::tick`).
        let yielded = !core.yielded.is_empty();
        let mut core = self.with_core_in_context(core, || {
            if yielded {
                self.handle.driver.maintain(index, Reach::Own);
            } else {
                self.handle.driver.tick(index);
            }
        });
        core.queue_yielded(&self.handle);
        core.publish_stats(&self.handle);
        if self.handle.shared.inject.is_closed() {
            core.is_shutdown = true;
        }
        core
    }

    /// A worker that found nothing, not even by stealing, while work it is
    /// waiting for is bound to come back within microseconds (a blocking
    /// task in flight, such as a file read on the pool, or an io_uring
    /// operation), keeps polling its driver and the queues for up to
    /// `SPIN_BEFORE_PARK` before it parks. `Ok(core)` when it found work.
    ///
    /// **It does not spin for sockets.** Readiness of a socket depends on
    /// a peer, usually another process on the same CPUs: a worker spinning
    /// for it takes the CPU that peer needs to send. An earlier version
    /// spun whenever any I/O resource was registered; its own benchmarks,
    /// whose clients ran inside the measured runtime, showed a gain (one
    /// loopback echo connection 52k → 111k round trips/s), but loaded from
    /// another process (`benches/src/external/`, 2 CPUs) it cost 50-120%
    /// more server CPU per request than tokio and 6-12x its p99. Without
    /// it, idle means asleep, as in tokio.
    ///
    /// The spinner counts as searching, so a notifier does not wake a
    /// parked worker for work the spinner is about to find (it finds
    /// injected tasks too, and hands the search on when it finds work, as
    /// any searcher does; see `Idle::stop_searching_for_own_work`).
    fn spin_for_completions(&self, mut core: Box<Core>) -> Result<Box<Core>, Box<Core>> {
        let index = core.index;
        let deadline = std::time::Instant::now() + SPIN_BEFORE_PARK;
        loop {
            core = self.with_core_in_context(core, || {
                self.handle.driver.maintain(index, Reach::AlsoSleeping);
            });
            let shared = &self.handle.shared;
            let local = core.lifo_slot.is_some() || !core.run_queue.is_empty();
            let remote = shared.has_remote_work(index) || shared.inject.is_closed();
            if local && !remote {
                // Readiness this worker reaped itself: waking a parked
                // worker for it would only make that worker spin and park
                // again (a context switch per message in a one-connection
                // ping-pong). A push that raced the snapshot above and
                // counted on this searcher is handed on, though.
                core.stop_searching_for_own_work(&self.handle);
                return Ok(core);
            }
            if local || remote {
                return Ok(core);
            }
            if std::time::Instant::now() >= deadline {
                return Err(core);
            }
            std::hint::spin_loop();
        }
    }

    /// Runs `f` (which may wake tasks) with the core back in the context,
    /// so the tasks it wakes go to this worker's own queue.
    fn with_core_in_context(&self, core: Box<Core>, f: impl FnOnce()) -> Box<Core> {
        *self.core.borrow_mut() = Some(core);
        f();
        self.core.borrow_mut().take().expect("core missing")
    }

    /// Parks through the driver's park sequence (`runtime/driver/park.rs`)
    /// and the idle protocol; returns when there may be work. Expired
    /// timers are fired before and after, so the worker neither sleeps
    /// with a due timer nor leaves one unfired when it wakes.
    fn park(&self, mut core: Box<Core>) -> Box<Core> {
        // Spin only when a wakeup is due within microseconds: the
        // completion of a blocking task or of a ring operation (a file
        // read on the pool takes a few microseconds; parking made every
        // one cost a futex wait and wake on top of the pool's hop). Never
        // for sockets (see `spin_for_completions`).
        if self.handle.driver.has_ops_in_flight()
            || self.handle.blocking_spawner.has_tasks_in_flight()
        {
            if !core.is_searching {
                // Over the cap of searchers (half the workers): spinning is
                // searching for events, not stealing, so it counts as
                // searching without the cap (see `spin_for_completions`).
                self.handle.shared.idle.transition_to_searching_uncapped();
                core.is_searching = true;
            }
            core = match self.spin_for_completions(core) {
                Ok(core) => return core,
                Err(core) => core,
            };
        }
        let handle = &*self.handle;
        let index = core.index;
        let mut parker = core.park.take().expect("park missing");
        let mut site = park::WorkerPark {
            cx: self,
            core: Some(core),
            slept: false,
        };
        handle.driver.park(index, &mut parker, &mut site);
        let slept = site.slept;
        let mut core = site.core.take().expect("core missing");
        core.park = Some(parker);
        if !slept {
            return core;
        }
        // A worker that slept again without polling since it last woke
        // was woken for nothing.
        #[cfg(tokio_unstable)]
        {
            if core.stats.polls_at_unpark == core.stats.polls {
                core.stats.noops += 1;
            }
            core.stats.polls_at_unpark = core.stats.polls;
        }
        core.publish_stats(handle);
        if handle.shared.inject.is_closed() {
            core.is_shutdown = true;
        }
        if let Some(f) = &handle.config.after_unpark {
            f();
        }
        core
    }

    /// Schedules a task on this worker, if `handle` is this worker's runtime
    /// and the worker holds its core. Gives the task back otherwise.
    pub(crate) fn schedule_local(
        &self,
        handle: &Handle,
        task: Notified,
        is_yield: bool,
    ) -> Result<(), Notified> {
        if !std::ptr::eq(handle, &*self.handle) {
            return Err(task);
        }
        let mut core = self.core.borrow_mut();
        let Some(core) = core.as_mut() else {
            return Err(task);
        };
        #[cfg(tokio_unstable)]
        {
            core.stats.local_schedules += 1;
        }
        if is_yield {
            core.yielded.push(task);
        } else if handle.config.disable_lifo_slot {
            core.push_local(task, handle);
        } else if let Some(prev) = core.lifo_slot.replace(task) {
            core.push_local(prev, handle);
        }
        Ok(())
    }

    /// The index of the core this thread holds, if any.
    pub(crate) fn worker_index(&self) -> Option<usize> {
        self.core.borrow().as_ref().map(|core| core.index)
    }

    /// `block_in_place`: hands the core to a new worker thread, which
    /// carries on with the queue while this thread blocks. Returns the slot
    /// the core travels in (for [`Context::reclaim_core`]), or `None` if
    /// this thread holds no core (it is already blocking).
    pub(crate) fn hand_off_core(&self) -> Option<super::CoreSlot> {
        let mut core = self.core.borrow_mut().take()?;
        self.handle.driver.release(core.index);
        core.publish_stats(&self.handle);
        // The LIFO slot and the yielded tasks are not stealable: queue them
        // where others can take them while the core is in transit.
        if let Some(task) = core.lifo_slot.take() {
            core.push_local(task, &self.handle);
        }
        core.queue_yielded(&self.handle);
        let slot = Arc::new(Mutex::new(super::HandOff {
            core: Some(core),
            refused: None,
        }));
        self.handle.spawn_worker_thread_for(slot.clone());
        Some(slot)
    }

    /// After `block_in_place`: if the new thread never took the core (the
    /// pool was at its cap or shutting down) or could not drive it, this
    /// thread takes it back and goes on as the worker, so no core is ever
    /// lost. Returns why the new thread could not drive it, if it tried.
    pub(crate) fn reclaim_core(&self, slot: &super::CoreSlot) -> Option<std::io::Error> {
        let (core, refused) = {
            let mut hand_off = slot.lock().unwrap();
            (hand_off.core.take(), hand_off.refused.take())
        };
        let core = core?;
        // This thread drove the core last and nobody else took the ring
        // over (the one thread that tried put the core back): attaching
        // again finds the ring still this thread's, which cannot fail.
        if let Err(e) = self.handle.driver.attach(core.index) {
            unreachable!("tokiwa: a worker's own ring refused it back: {e}");
        }
        #[cfg(tokio_unstable)]
        self.handle.shared.worker_metrics[core.index].set_thread_id();
        *self.core.borrow_mut() = Some(core);
        refused
    }
}

impl Core {
    fn next_task(&mut self, handle: &Handle, global_queue_interval: u32) -> Option<Notified> {
        let inject = &handle.shared.inject;
        if self.tick % global_queue_interval == 0 {
            let start = self.rand.next_n(inject.num_shards() as u32 + 1) as usize;
            if let Some(task) = inject.pop(self.shard, start) {
                return Some(task);
            }
        }
        if let Some(task) = self.lifo_slot.take() {
            return Some(task);
        }
        if let Some(task) = self.run_queue.pop() {
            return Some(task);
        }
        let start = self.rand.next_n(inject.num_shards() as u32 + 1) as usize;
        let task = inject.steal_batch_and_pop(self.shard, start, &self.run_queue)?;
        if !self.run_queue.is_empty() {
            // The batch made work visible in this worker's queue, which
            // the notifications of its spawners did not count on: a worker
            // that searched while the batch was in flight may have parked
            // seeing it nowhere. Wake one to steal it, as a push does
            // (found by a test whose two tasks meet at a barrier: the
            // second one stayed queued behind the first for good).
            handle.shared.notify_parked();
        }
        Some(task)
    }

    fn steal_work(&mut self, handle: &Handle) -> Option<Notified> {
        let shared = &handle.shared;
        if !self.is_searching {
            if !shared.idle.transition_to_searching() {
                return None;
            }
            self.is_searching = true;
        }
        let n = shared.remotes.len();
        let start = self.rand.next_n(n as u32) as usize;
        for k in 0..n {
            let i = (start + k) % n;
            // A victim seen empty is skipped before the steal, which pins
            // crossbeam's epoch before it looks (two thread-local lookups
            // and a fence, and now and then a collection: 0.3% of a
            // one-connection server's samples, whose peer is always
            // empty). `is_empty` reads the same two indices around the
            // same SeqCst fence, so it finds empty exactly where the steal
            // would.
            if i == self.index || shared.remotes[i].steal.is_empty() {
                continue;
            }
            // Take half of the victim's queue (crossbeam's default batch is
            // capped at 32), so a thief does not run dry and park at once.
            let steal = || {
                shared.remotes[i]
                    .steal
                    .steal_batch_with_limit_and_pop(&self.run_queue, LOCAL_QUEUE_CAPACITY / 2)
            };
            let before = self.run_queue.len();
            if let Some(task) = retry(steal) {
                // The batch went to the local queue, plus the one returned.
                self.stats.steals += (self.run_queue.len() - before) as u64 + 1;
                #[cfg(tokio_unstable)]
                {
                    self.stats.steal_operations += 1;
                }
                return Some(task);
            }
        }
        let start = self.rand.next_n(shared.inject.num_shards() as u32 + 1) as usize;
        shared
            .inject
            .steal_batch_and_pop(self.shard, start, &self.run_queue)
    }

    /// Stops searching to run readiness of its own (see
    /// `Idle::stop_searching_for_own_work`): wakes a parked worker only
    /// for work others made visible meanwhile.
    fn stop_searching_for_own_work(&mut self, handle: &Handle) {
        self.is_searching = false;
        let shared = &handle.shared;
        if shared
            .idle
            .stop_searching_for_own_work(|| shared.has_remote_work(self.index))
        {
            shared.notify_parked();
        }
    }

    fn transition_from_searching(&mut self, handle: &Handle) {
        if !self.is_searching {
            return;
        }
        self.is_searching = false;
        if handle.shared.idle.transition_from_searching() {
            // The last searcher found work: there may be more, so hand the
            // search on.
            handle.shared.notify_parked();
        }
    }

    /// Moves the tasks that yielded to the back of the local queue.
    fn queue_yielded(&mut self, handle: &Handle) {
        let mut yielded = std::mem::take(&mut self.yielded);
        for task in yielded.drain(..) {
            self.push_local(task, handle);
        }
        // Keep the allocation for the next yields.
        self.yielded = yielded;
    }

    /// Pushes to the local queue (overflowing into the injection side)
    /// and, when there is more queued than this worker is about to run,
    /// lets an idle worker know there is work to steal. (A lone task that
    /// yields is not worth waking another worker for: it would only move.)
    fn push_local(&mut self, task: Notified, handle: &Handle) {
        if push_with_overflow(&self.run_queue, &handle.shared.inject, self.shard, task) {
            self.stats.overflows += 1;
        }
        if usize::from(self.lifo_slot.is_some()) + self.run_queue.len() > 1 {
            handle.shared.notify_parked();
        }
    }

    fn publish_stats(&mut self, handle: &Handle) {
        let m = &handle.shared.worker_metrics[self.index];
        self.busy_since = m.add_busy(self.busy_since);
        m.steal_count.store(self.stats.steals, Relaxed);
        m.poll_count.store(self.stats.polls, Relaxed);
        m.overflow_count.store(self.stats.overflows, Relaxed);
        #[cfg(tokio_unstable)]
        {
            m.steal_operations
                .store(self.stats.steal_operations, Relaxed);
            m.local_schedule_count
                .store(self.stats.local_schedules, Relaxed);
            m.noop_count.store(self.stats.noops, Relaxed);
            m.mean_poll_time_ns
                .store(self.tuning.mean_poll_ns(), Relaxed);
        }
        m.local_queue_depth
            .store(self.run_queue.len() as u64, Relaxed);
    }

    /// Cancels the owned tasks and drops the queued notifications.
    fn pre_shutdown(&mut self, handle: &Handle) {
        self.publish_stats(handle);
        handle.shared.owned.close_and_shutdown_all(self.index);
        drop(self.lifo_slot.take());
        self.yielded.clear();
        while let Some(task) = self.run_queue.pop() {
            drop(task);
        }
    }
}

/// Pushes `task` to a local queue; when the queue is full, first moves
/// its older half to the worker's injection shard, where idle workers
/// find it. Returns whether it overflowed.
pub(crate) fn push_with_overflow(
    run_queue: &Deque<Notified>,
    inject: &Inject,
    shard: Option<usize>,
    task: Notified,
) -> bool {
    let overflow = run_queue.len() >= LOCAL_QUEUE_CAPACITY;
    if overflow {
        for _ in 0..LOCAL_QUEUE_CAPACITY / 2 {
            match run_queue.pop() {
                Some(t) => inject.push(t, shard),
                None => break,
            }
        }
    }
    run_queue.push(task);
    overflow
}

impl Handle {
    /// A core handed in at shutdown; the last one finishes the job.
    fn shutdown_core(&self, core: Box<Core>) {
        let mut cores = self.shared.shutdown_cores.lock().unwrap();
        cores.push(core);
        if cores.len() != self.shared.remotes.len() {
            return;
        }
        // Every worker stopped: nothing can push locally any more.
        for core in cores.iter_mut() {
            drop(core.lifo_slot.take());
            while let Some(task) = core.run_queue.pop() {
                drop(task);
            }
        }
        self.shared.inject.close_and_drain();
        // Tasks spawned while the workers stopped were cancelled by the
        // closed list; this catches any the list closed behind.
        self.shared.owned.close_and_shutdown_all(0);
        cores.clear();
        drop(cores);
        // The tasks and their resources are gone: stop the drivers.
        self.driver.shutdown();
    }

    /// Schedules a task from anywhere.
    pub(crate) fn schedule_task(&self, task: Notified, is_yield: bool) {
        #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
        self.config.schedule_latency.stamp(&task);
        let task = context::with_scheduler(|cx| match cx {
            Some(scheduler::Context::MultiThread(cx)) => {
                cx.schedule_local(self, task, is_yield).err()
            }
            _ => Some(task),
        });
        let Some(task) = task else { return };
        #[cfg(tokio_unstable)]
        crate::runtime::metrics::SchedulerMetrics::inc(
            &self.shared.scheduler_metrics.remote_schedules,
        );
        match self.driver.delivering_to() {
            // A poll thread delivering to its sleeping worker, which it
            // unparks itself afterwards: no notify (it would wake whichever
            // worker parked last, and then the owner too).
            Some(worker) => {
                let shard = self.shared.inject.shard_of(worker);
                self.shared.inject.push(task, shard);
            }
            None => {
                self.shared.inject.push_remote(task);
                self.shared.notify_parked();
            }
        }
    }
}
