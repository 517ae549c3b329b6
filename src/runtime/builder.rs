//! `Builder`: tokio's runtime builder, method for method.
#[cfg(all(tokio_unstable, feature = "schedule-latency"))]
mod schedule_latency;

use super::blocking::pool::{Callback, ThreadNameFn};
use super::blocking::{BlockingPool, PoolConfig};
use super::config::Config;
use super::{scheduler, Handle, LocalOptions, LocalRuntime, Runtime};
use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Duration;

/// Builds a runtime with custom configuration values.
///
/// Methods can be chained; `build` creates the runtime.
///
/// ```
/// let rt = tokiwa::runtime::Builder::new_multi_thread()
///     .worker_threads(2)
///     .thread_name("my-worker")
///     .enable_all()
///     .build()
///     .unwrap();
/// assert_eq!(rt.block_on(async { 1 + 1 }), 2);
/// ```
pub struct Builder {
    kind: Kind,
    name: Option<String>,
    worker_threads: Option<usize>,
    max_blocking_threads: usize,
    thread_name: ThreadNameFn,
    thread_stack_size: Option<usize>,
    after_start: Option<Callback>,
    before_stop: Option<Callback>,
    before_park: Option<Callback>,
    after_unpark: Option<Callback>,
    keep_alive: Option<Duration>,
    global_queue_interval: Option<u32>,
    event_interval: u32,
    injection_queue_shards: Option<usize>,
    disable_lifo_slot: bool,
    /// `max_io_events_per_tick`, and `max_io_events_per_busy_tick` (`None`:
    /// the same).
    io_events_per_tick: usize,
    io_events_per_busy_tick: Option<usize>,
    enable_io: bool,
    enable_time: bool,
    start_paused: bool,
    driver: Option<super::Driver>,
    uring_plain: bool,
    uring_completion_io: bool,
    #[cfg(tokio_unstable)]
    hooks: super::TaskHooks,
    #[cfg(tokio_unstable)]
    unhandled_panic: UnhandledPanic,
    /// Whether the poll-time histogram is on, and its layout.
    #[cfg(tokio_unstable)]
    poll_time_histogram_enabled: bool,
    #[cfg(tokio_unstable)]
    poll_time_histogram: super::metrics::HistogramBuilder,
    #[cfg(tokio_unstable)]
    rng_seed: Option<super::RngSeed>,
    #[cfg(all(tokio_unstable, feature = "time", feature = "rt-multi-thread"))]
    alt_timer: bool,
    /// Task schedule latencies (`builder/schedule_latency.rs`).
    #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
    schedule_latency: super::metrics::ScheduleLatencyBuilder,
}

/// How the runtime responds to a spawned task's panic
/// ([`Builder::unhandled_panic`]).
///
/// **Note**: this is an unstable API (`--cfg tokio_unstable`), as in tokio.
#[cfg(tokio_unstable)]
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum UnhandledPanic {
    /// The panic goes to the task's `JoinHandle` (as a `JoinError`) and
    /// the other tasks keep running. The default.
    Ignore,
    /// The runtime shuts down as soon as a spawned task panics, even if
    /// its `JoinHandle` is still held: every task is cancelled, later
    /// spawns are cancelled at once, and `block_on` panics ("a spawned
    /// task panicked and the runtime is configured to shut down on
    /// unhandled panic"), on every thread that calls it from then on.
    /// Current-thread runtimes only.
    ShutdownRuntime,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    CurrentThread,
    #[cfg(feature = "rt-multi-thread")]
    MultiThread,
}

impl Builder {
    /// A builder for the current-thread runtime: every task runs on the
    /// thread that calls `block_on`.
    pub fn new_current_thread() -> Builder {
        Builder::new(Kind::CurrentThread, 31)
    }

    /// A builder for the multi-thread, work-stealing runtime.
    #[cfg(feature = "rt-multi-thread")]
    pub fn new_multi_thread() -> Builder {
        // tokio's multi-thread default adapts the global interval; a fixed
        // interval of 61 is its long-run value.
        Builder::new(Kind::MultiThread, 61)
    }

    fn new(kind: Kind, event_interval: u32) -> Builder {
        Builder {
            kind,
            name: None,
            worker_threads: None,
            max_blocking_threads: 512,
            thread_name: Arc::new(|| "tokio-runtime-worker".into()),
            thread_stack_size: None,
            after_start: None,
            before_stop: None,
            before_park: None,
            after_unpark: None,
            keep_alive: None,
            global_queue_interval: None,
            event_interval,
            injection_queue_shards: None,
            disable_lifo_slot: false,
            io_events_per_tick: super::driver::IO_EVENTS_PER_TICK,
            io_events_per_busy_tick: None,
            enable_io: false,
            enable_time: false,
            start_paused: false,
            driver: None,
            uring_plain: false,
            uring_completion_io: false,
            #[cfg(tokio_unstable)]
            hooks: super::TaskHooks::default(),
            #[cfg(tokio_unstable)]
            unhandled_panic: UnhandledPanic::Ignore,
            #[cfg(tokio_unstable)]
            poll_time_histogram_enabled: false,
            #[cfg(tokio_unstable)]
            poll_time_histogram: Default::default(),
            #[cfg(tokio_unstable)]
            rng_seed: None,
            #[cfg(all(tokio_unstable, feature = "time", feature = "rt-multi-thread"))]
            alt_timer: false,
            #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
            schedule_latency: Default::default(),
        }
    }

    /// Chooses the I/O driver (see [`Driver`](super::Driver)). Without this
    /// call the environment variable `TOKIWA_DRIVER=auto|legacy|uring`
    /// decides, and without it `Auto`; an explicit call here wins over the
    /// variable.
    ///
    /// `build` fails with an `io::Error` naming the missing capability and
    /// the kernel's errno when `Uring` is asked for where it cannot run
    /// (tokiwa built without the `uring` feature, a kernel before 6.1, a
    /// sandbox refusing `io_uring_setup`). `Auto` then runs legacy mode and
    /// [`Handle::driver_fallback_reason`](super::Handle::driver_fallback_reason)
    /// says why.
    pub fn driver(&mut self, driver: super::Driver) -> &mut Self {
        self.driver = Some(driver);
        self
    }

    /// io_uring mode without `DEFER_TASKRUN | TASKRUN_FLAG` (only
    /// `SINGLE_ISSUER`): completions are then run by the kernel's task work
    /// as they arrive instead of at the worker's next enter. For measuring
    /// what those flags bring (the benchmark's ablation); not for use.
    #[doc(hidden)]
    pub fn uring_defer_taskrun(&mut self, on: bool) -> &mut Self {
        self.uring_plain = !on;
        self
    }

    /// io_uring mode: TCP and Unix streams send and receive through the
    /// ring (off by default). No effect in legacy mode.
    ///
    /// *Sends:* `poll_write` copies the bytes into a buffer the ring owns
    /// and returns at once; the worker sends them with the submit that
    /// ends its turn, so a write costs no syscall of its own. At most 256
    /// KiB per socket are accepted and not yet sent (a write past that
    /// waits); `flush` and `shutdown` wait until every accepted byte was
    /// sent, and a failed send is reported by the next write, flush or
    /// shutdown. While bytes are queued, `try_write` returns `WouldBlock`
    /// and `into_std` fails with `WouldBlock` (flush first).
    ///
    /// *Receives:* a read that finds nothing arms a multishot receive
    /// into the worker's provided buffers; arriving bytes are copied into
    /// the stream's queue (at most 64 KiB, then the receive stops until
    /// the reader catches up) and reads take them from there, without a
    /// syscall of their own. `try_read`, `try_read_buf` and `peek` take
    /// queued bytes first, and return `WouldBlock` while a receive is
    /// armed and nothing is queued; the receive's completion makes the
    /// stream readable again. `into_std` cancels an armed receive and
    /// fails with `WouldBlock` while bytes are queued (read them first). A
    /// raw read of the descriptor does not see queued bytes.
    pub fn uring_completion_io(&mut self, on: bool) -> &mut Self {
        self.uring_completion_io = on;
        self
    }

    /// Enables both the I/O and the time drivers.
    pub fn enable_all(&mut self) -> &mut Self {
        self.enable_io = true;
        self.enable_time = true;
        self
    }

    /// Enables the I/O driver: one epoll instance per worker, each waited
    /// on by a poll thread (see `runtime/driver/legacy/reactor.rs`).
    pub fn enable_io(&mut self) -> &mut Self {
        self.enable_io = true;
        self
    }

    /// Enables the time driver: one timing wheel per worker.
    pub fn enable_time(&mut self) -> &mut Self {
        self.enable_time = true;
        self
    }

    /// tokio's switch to its alternative timer, whose point is one timing
    /// wheel per worker instead of one shared by all. tokiwa has a single
    /// timer, and it is already built that way (`time/driver.rs`), so this
    /// enables the time driver ([`enable_time`](Builder::enable_time)) and
    /// keeps the one rule in which tokio's alternative timer behaves
    /// differently: a `Sleep` that fired (at the latest when its runtime
    /// shut down) is ready when polled after the shutdown, where the
    /// default timer panics ("A Tokio 1.x context was found, but it is
    /// being shutdown."). A timer that was never registered still panics.
    ///
    /// Multi-thread runtimes only, as in tokio: on a current-thread
    /// builder only its `enable_time` part applies.
    ///
    /// **Note**: this is an unstable API (`--cfg tokio_unstable`), as in
    /// tokio.
    #[cfg(all(tokio_unstable, feature = "time", feature = "rt-multi-thread"))]
    pub fn enable_alt_timer(&mut self) -> &mut Self {
        self.alt_timer = true;
        self.enable_time()
    }

    /// Starts the runtime's clock paused (tokio's `test-util`): time only
    /// moves through `time::advance` or auto-advance when the runtime has
    /// nothing else to do. Only for current-thread runtimes, as in tokio.
    #[cfg(feature = "test-util")]
    pub fn start_paused(&mut self, start_paused: bool) -> &mut Self {
        self.start_paused = start_paused;
        self
    }

    /// Names the runtime (see [`Handle::name`]).
    ///
    /// # Panics
    ///
    /// Panics if the name is empty.
    #[track_caller]
    pub fn name(&mut self, val: impl Into<String>) -> &mut Self {
        let val = val.into();
        assert!(!val.trim().is_empty(), "runtime name shouldn't be empty");
        self.name = Some(val);
        self
    }

    /// Sets the number of worker threads (default: the number of CPUs).
    ///
    /// # Panics
    ///
    /// Panics if `val` is zero.
    #[track_caller]
    pub fn worker_threads(&mut self, val: usize) -> &mut Self {
        assert!(val > 0, "Worker threads cannot be set to 0");
        self.worker_threads = Some(val);
        self
    }

    /// Caps the threads of the blocking pool (default 512). Worker threads
    /// are not counted.
    ///
    /// # Panics
    ///
    /// Panics if `val` is zero.
    #[track_caller]
    pub fn max_blocking_threads(&mut self, val: usize) -> &mut Self {
        assert!(val > 0, "Max blocking threads cannot be set to 0");
        self.max_blocking_threads = val;
        self
    }

    /// Names the runtime's threads (default "tokio-runtime-worker", as in
    /// tokio, so tools that match on it keep working).
    pub fn thread_name(&mut self, val: impl Into<String>) -> &mut Self {
        let val = val.into();
        self.thread_name = Arc::new(move || val.clone());
        self
    }

    /// Names the runtime's threads with a function called per thread.
    pub fn thread_name_fn<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() -> String + Send + Sync + 'static,
    {
        self.thread_name = Arc::new(f);
        self
    }

    /// Sets the stack size of the runtime's threads.
    pub fn thread_stack_size(&mut self, val: usize) -> &mut Self {
        self.thread_stack_size = Some(val);
        self
    }

    /// Called on each runtime thread after it starts.
    pub fn on_thread_start<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.after_start = Some(Arc::new(f));
        self
    }

    /// Called on each runtime thread before it stops.
    pub fn on_thread_stop<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.before_stop = Some(Arc::new(f));
        self
    }

    /// Called by a worker just before it parks (goes idle).
    pub fn on_thread_park<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.before_park = Some(Arc::new(f));
        self
    }

    /// Called by a worker just after it wakes from parking.
    pub fn on_thread_unpark<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.after_unpark = Some(Arc::new(f));
        self
    }

    /// How long an idle blocking-pool thread waits for work before exiting
    /// (default 10 s).
    pub fn thread_keep_alive(&mut self, duration: Duration) -> &mut Self {
        self.keep_alive = Some(duration);
        self
    }

    /// Ticks between looks at the injection queue before the local queue
    /// (default 31 current-thread; multi-thread workers tune it to their
    /// tasks' poll times when it is not set).
    ///
    /// # Panics
    ///
    /// Panics if `val` is zero.
    #[track_caller]
    pub fn global_queue_interval(&mut self, val: u32) -> &mut Self {
        assert!(val > 0, "global_queue_interval must be greater than 0");
        self.global_queue_interval = Some(val);
        self
    }

    /// Ticks between non-blocking reaps of the I/O driver (default 61).
    ///
    /// # Panics
    ///
    /// Panics if `val` is zero.
    #[track_caller]
    pub fn event_interval(&mut self, val: u32) -> &mut Self {
        assert!(val > 0, "event_interval must be greater than 0");
        self.event_interval = val;
        self
    }

    /// The most I/O events a worker takes from its driver in one look
    /// (default 1024). In legacy mode this is the size of each `epoll_wait`
    /// batch; events left over stay in the kernel for the next look. In
    /// io_uring mode the completion queue is always drained whole (its
    /// size is the ring's), so only legacy mode uses it.
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is zero.
    #[track_caller]
    pub fn max_io_events_per_tick(&mut self, capacity: usize) -> &mut Self {
        assert!(capacity > 0, "max_io_events_per_tick must be non-zero");
        self.io_events_per_tick = capacity;
        self
    }

    /// The most I/O events a worker takes when it looks at its driver while
    /// it still has tasks to run (every `event_interval` tasks). A small
    /// batch leaves the rest in the kernel instead of overflowing the
    /// worker's queue under overload; a worker about to sleep still takes
    /// up to [`max_io_events_per_tick`](Builder::max_io_events_per_tick).
    /// Defaults to that same value; legacy mode only, as above.
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is zero.
    #[track_caller]
    pub fn max_io_events_per_busy_tick(&mut self, capacity: usize) -> &mut Self {
        assert!(capacity > 0, "max_io_events_per_busy_tick must be non-zero");
        self.io_events_per_busy_tick = Some(capacity);
        self
    }

    /// Disables the LIFO slot: woken tasks always go to the back of the
    /// queue. `tokio_unstable` only, as in tokio.
    #[cfg(tokio_unstable)]
    pub fn disable_lifo_slot(&mut self) -> &mut Self {
        self.disable_lifo_slot = true;
        self
    }

    /// Runs `f` on the spawning thread each time a task is spawned on the
    /// runtime (not for `spawn_blocking`, nor on a `LocalSet`), before the
    /// task can first run.
    ///
    /// **Note**: this is an unstable API (`--cfg tokio_unstable`).
    #[cfg(tokio_unstable)]
    pub fn on_task_spawn<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn(&super::TaskMeta<'_>) + Send + Sync + 'static,
    {
        self.hooks.spawn = Some(Arc::new(f));
        self
    }

    /// Runs `f` on the task's thread just before each poll of a task of
    /// the runtime.
    ///
    /// **Note**: this is an unstable API (`--cfg tokio_unstable`).
    #[cfg(tokio_unstable)]
    pub fn on_before_task_poll<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn(&super::TaskMeta<'_>) + Send + Sync + 'static,
    {
        self.hooks.set_poll(Some(Arc::new(f)), None);
        self
    }

    /// Runs `f` on the task's thread just after each poll of a task of
    /// the runtime.
    ///
    /// **Note**: this is an unstable API (`--cfg tokio_unstable`).
    #[cfg(tokio_unstable)]
    pub fn on_after_task_poll<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn(&super::TaskMeta<'_>) + Send + Sync + 'static,
    {
        self.hooks.set_poll(None, Some(Arc::new(f)));
        self
    }

    /// Runs `f` when a task of the runtime (blocking tasks included)
    /// terminates: completed, panicked or cancelled. It runs on the thread
    /// that finished the task, after its output is stored.
    ///
    /// **Note**: this is an unstable API (`--cfg tokio_unstable`).
    #[cfg(tokio_unstable)]
    pub fn on_task_terminate<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn(&super::TaskMeta<'_>) + Send + Sync + 'static,
    {
        self.hooks.terminate = Some(Arc::new(f));
        self
    }

    /// What the runtime does when a spawned task panics (see
    /// [`UnhandledPanic`]; default [`UnhandledPanic::Ignore`]).
    ///
    /// **Note**: this is an unstable API (`--cfg tokio_unstable`).
    ///
    /// # Panics
    ///
    /// `UnhandledPanic::ShutdownRuntime` on a multi-thread builder, as in
    /// tokio.
    #[cfg(tokio_unstable)]
    #[track_caller]
    pub fn unhandled_panic(&mut self, behavior: UnhandledPanic) -> &mut Self {
        if !matches!(self.kind, Kind::CurrentThread)
            && matches!(behavior, UnhandledPanic::ShutdownRuntime)
        {
            panic!("UnhandledPanic::ShutdownRuntime is only supported in current thread runtime");
        }
        self.unhandled_panic = behavior;
        self
    }

    /// Seeds the random numbers of the threads that drive the runtime, so
    /// that the branch order of an unbiased `select!` (which branch it
    /// polls first) is the same on every run. Each entry into the runtime
    /// (a `block_on`, a worker thread starting) takes the next seed of a
    /// sequence derived from `seed`, in the order the threads enter.
    ///
    /// The sequence depends on this build of tokiwa too, and it reaches
    /// tokiwa's own `select!` only: the package named `tokio` (whole-graph
    /// mode). Under a rename, `select!` is tokio's and the seed changes
    /// nothing.
    ///
    /// **Note**: this is an unstable API (`--cfg tokio_unstable`).
    ///
    /// ```
    /// use tokiwa::runtime::{Builder, RngSeed};
    ///
    /// let rt = Builder::new_current_thread()
    ///     .rng_seed(RngSeed::from_bytes(b"my seed"))
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    #[cfg(tokio_unstable)]
    pub fn rng_seed(&mut self, seed: super::RngSeed) -> &mut Self {
        self.rng_seed = Some(seed);
        self
    }

    /// Records how long each task poll takes, per worker, in a histogram
    /// ([`RuntimeMetrics::poll_time_histogram_bucket_count`] and the
    /// methods next to it). Off by default: it reads the clock twice per
    /// poll. Its layout is 10 linear buckets of 100 µs unless
    /// [`metrics_poll_time_histogram_configuration`] sets another.
    ///
    /// **Note**: this is an unstable API (`--cfg tokio_unstable`).
    ///
    /// ```
    /// let rt = tokiwa::runtime::Builder::new_current_thread()
    ///     .enable_metrics_poll_time_histogram()
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async { tokiwa::spawn(async {}).await.unwrap() });
    /// let m = rt.metrics();
    /// assert_eq!(m.poll_time_histogram_num_buckets(), 10);
    /// let polls: u64 = (0..10).map(|b| m.poll_time_histogram_bucket_count(0, b)).sum();
    /// assert_eq!(polls, 1);
    /// ```
    ///
    /// [`RuntimeMetrics::poll_time_histogram_bucket_count`]: super::RuntimeMetrics::poll_time_histogram_bucket_count
    /// [`metrics_poll_time_histogram_configuration`]: Builder::metrics_poll_time_histogram_configuration
    #[cfg(tokio_unstable)]
    pub fn enable_metrics_poll_time_histogram(&mut self) -> &mut Self {
        self.poll_time_histogram_enabled = true;
        self
    }

    /// Deprecated name of
    /// [`enable_metrics_poll_time_histogram`](Builder::enable_metrics_poll_time_histogram).
    #[cfg(tokio_unstable)]
    #[deprecated(
        note = "`poll_count_histogram` related methods have been renamed `poll_time_histogram` to better reflect their functionality."
    )]
    #[doc(hidden)]
    pub fn enable_metrics_poll_count_histogram(&mut self) -> &mut Self {
        self.enable_metrics_poll_time_histogram()
    }

    /// The bucket layout of the poll-time histogram: linear or log-scaled
    /// (see [`HistogramConfiguration`](super::HistogramConfiguration)).
    /// Only takes effect with
    /// [`enable_metrics_poll_time_histogram`](Builder::enable_metrics_poll_time_histogram);
    /// any of the deprecated `metrics_poll_count_histogram_*` settings
    /// override it.
    ///
    /// **Note**: this is an unstable API (`--cfg tokio_unstable`).
    #[cfg(tokio_unstable)]
    pub fn metrics_poll_time_histogram_configuration(
        &mut self,
        configuration: super::HistogramConfiguration,
    ) -> &mut Self {
        self.poll_time_histogram.configure(configuration);
        self
    }

    /// Deprecated: the scale of the poll-time histogram (linear, or each
    /// bucket twice the one before). Use
    /// [`metrics_poll_time_histogram_configuration`](Builder::metrics_poll_time_histogram_configuration).
    #[cfg(tokio_unstable)]
    #[deprecated(note = "use `metrics_poll_time_histogram_configuration`")]
    pub fn metrics_poll_count_histogram_scale(
        &mut self,
        histogram_scale: super::HistogramScale,
    ) -> &mut Self {
        self.poll_time_histogram
            .legacy(|l| l.scale = histogram_scale);
        self
    }

    /// Deprecated: the width of the poll-time histogram's first bucket
    /// (default 100 µs; rounded up to a power of two nanoseconds on the
    /// log scale). Use
    /// [`metrics_poll_time_histogram_configuration`](Builder::metrics_poll_time_histogram_configuration).
    ///
    /// # Panics
    ///
    /// When `resolution` is zero or above one second.
    #[cfg(tokio_unstable)]
    #[deprecated(note = "use `metrics_poll_time_histogram_configuration`")]
    #[track_caller]
    pub fn metrics_poll_count_histogram_resolution(&mut self, resolution: Duration) -> &mut Self {
        assert!(resolution > Duration::ZERO);
        assert!(resolution <= Duration::from_secs(1));
        let nanos = resolution.as_nanos() as u64;
        self.poll_time_histogram.legacy(|l| l.resolution = nanos);
        self
    }

    /// Deprecated: the number of buckets of the poll-time histogram
    /// (default 10; the last holds every longer poll). Use
    /// [`metrics_poll_time_histogram_configuration`](Builder::metrics_poll_time_histogram_configuration).
    #[cfg(tokio_unstable)]
    #[deprecated(note = "use `metrics_poll_time_histogram_configuration`")]
    pub fn metrics_poll_count_histogram_buckets(&mut self, buckets: usize) -> &mut Self {
        self.poll_time_histogram.legacy(|l| l.buckets = buckets);
        self
    }

    /// tokiwa extension: forces the number of injection-queue shards
    /// (default: none up to 32 workers, then one per 16 workers). Meant for
    /// tests and experiments with sharding on small machines.
    pub fn injection_queue_shards(&mut self, shards: usize) -> &mut Self {
        self.injection_queue_shards = Some(shards);
        self
    }

    /// Creates a [`LocalRuntime`]: a current-thread runtime bound to this
    /// thread, on which `spawn_local` works from any task.
    ///
    /// # Panics
    ///
    /// Panics on a multi-thread builder, as in tokio.
    #[track_caller]
    pub fn build_local(&mut self, _options: LocalOptions) -> io::Result<LocalRuntime> {
        match self.kind {
            Kind::CurrentThread => {
                let rt = self.build_with_owner(Some(std::thread::current().id()))?;
                Ok(LocalRuntime::from_runtime(rt))
            }
            #[cfg(feature = "rt-multi-thread")]
            Kind::MultiThread => panic!("multi_thread is not supported for LocalRuntime"),
        }
    }

    /// Creates the runtime.
    pub fn build(&mut self) -> io::Result<Runtime> {
        self.build_with_owner(None)
    }

    fn build_with_owner(
        &mut self,
        local_owner: Option<std::thread::ThreadId>,
    ) -> io::Result<Runtime> {
        // tokio: a multi-thread runtime's clock cannot be paused.
        #[cfg(all(feature = "test-util", feature = "rt-multi-thread"))]
        if self.start_paused && matches!(self.kind, Kind::MultiThread) {
            panic!("{}", crate::time::PAUSE_NEEDS_CURRENT_THREAD);
        }
        let driver_config = super::driver::Config {
            enable_io: self.enable_io,
            enable_time: self.enable_time,
            start_paused: self.start_paused,
            driver: self.driver,
            uring_plain: self.uring_plain,
            uring_completion_io: self.uring_completion_io,
            io_events_per_tick: self.io_events_per_tick,
            io_events_per_busy_tick: (self.io_events_per_busy_tick)
                .unwrap_or(self.io_events_per_tick)
                .min(self.io_events_per_tick),
            // tokio: the alternative timer applies to multi-thread runtimes.
            #[cfg(all(tokio_unstable, feature = "time", feature = "rt-multi-thread"))]
            alt_timer: self.alt_timer && matches!(self.kind, Kind::MultiThread),
        };
        let thread_name = (self.thread_name)();
        let workers = match self.kind {
            Kind::CurrentThread => 0,
            #[cfg(feature = "rt-multi-thread")]
            Kind::MultiThread => self
                .worker_threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        };
        let pool = BlockingPool::new(PoolConfig {
            thread_name: self.thread_name.clone(),
            stack_size: self.thread_stack_size,
            after_start: self.after_start.clone(),
            before_stop: self.before_stop.clone(),
            thread_cap: self.max_blocking_threads + workers,
            keep_alive: self.keep_alive.unwrap_or(Duration::from_secs(10)),
        });
        let config = Config {
            id: super::Id::next(),
            name: self.name.clone(),
            local_owner,
            global_queue_interval: self.global_queue_interval,
            event_interval: self.event_interval,
            before_park: self.before_park.clone(),
            after_unpark: self.after_unpark.clone(),
            disable_lifo_slot: self.disable_lifo_slot,
            #[cfg(tokio_unstable)]
            hooks: self.hooks.clone(),
            #[cfg(tokio_unstable)]
            unhandled_panic: self.unhandled_panic.clone(),
            #[cfg(tokio_unstable)]
            poll_time_histogram: self
                .poll_time_histogram_enabled
                .then(|| self.poll_time_histogram.layout()),
            #[cfg(tokio_unstable)]
            seed_generator: self
                .rng_seed
                .as_ref()
                .map(super::rng_seed::SeedGenerator::new),
            #[cfg(all(tokio_unstable, feature = "schedule-latency"))]
            schedule_latency: self.schedule_latency.build(),
        };
        let spawner = pool.spawner().clone();
        let handle = match self.kind {
            Kind::CurrentThread => {
                scheduler::Handle::CurrentThread(scheduler::current_thread::Handle::new(
                    config,
                    spawner,
                    &driver_config,
                    &thread_name,
                )?)
            }
            #[cfg(feature = "rt-multi-thread")]
            Kind::MultiThread => {
                let shards = self
                    .injection_queue_shards
                    .unwrap_or_else(|| scheduler::inject::default_shards(workers));
                scheduler::Handle::MultiThread(scheduler::multi_thread::launch(
                    workers,
                    shards,
                    config,
                    spawner,
                    &driver_config,
                    &thread_name,
                )?)
            }
        };
        Ok(Runtime::from_parts(Handle { inner: handle }, pool))
    }
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("kind", &self.kind)
            .field("worker_threads", &self.worker_threads)
            .field("max_blocking_threads", &self.max_blocking_threads)
            .field("thread_stack_size", &self.thread_stack_size)
            .field("thread_keep_alive", &self.keep_alive)
            .field("global_queue_interval", &self.global_queue_interval)
            .field("event_interval", &self.event_interval)
            .finish_non_exhaustive()
    }
}
