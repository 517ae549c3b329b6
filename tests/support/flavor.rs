//! The runtime flavours every `rt_test!` body runs on: a scheduler and a
//! driver.
//!
//! [`for_each_flavor!`] is the one list: a new scheduler or driver becomes
//! new entries there, and every test written with `rt_test!` runs on it
//! with no other change. With the `uring` feature each scheduler runs on
//! both drivers, legacy (epoll and poll threads) and io_uring.
use std::fmt;
use tokiwa::runtime::{Builder, Driver, Runtime, RuntimeFlavor};

/// A way to build a runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flavor {
    pub scheduler: Scheduler,
    /// `Some`: passed to `Builder::driver`. `None`: not chosen, so
    /// `TOKIWA_DRIVER` or `Auto` decides (what a user's runtime gets).
    pub driver: Option<Driver>,
}

/// The scheduler half of a [`Flavor`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheduler {
    /// `Builder::new_current_thread()`.
    CurrentThread,
    /// `Builder::new_multi_thread()` with this many workers and, when
    /// `shards` is set, that many injection-queue shards (tokiwa extension).
    MultiThread {
        workers: usize,
        shards: Option<usize>,
    },
}

impl Flavor {
    /// A current-thread runtime on the default driver.
    pub const fn current_thread() -> Flavor {
        Flavor {
            scheduler: Scheduler::CurrentThread,
            driver: None,
        }
    }

    /// A multi-thread runtime of `workers` workers on the default driver.
    pub const fn multi_thread(workers: usize) -> Flavor {
        Flavor {
            scheduler: Scheduler::MultiThread {
                workers,
                shards: None,
            },
            driver: None,
        }
    }

    /// This flavour with `shards` injection-queue shards (multi-thread
    /// only).
    pub const fn sharded(self, shards: usize) -> Flavor {
        match self.scheduler {
            Scheduler::MultiThread { workers, .. } => Flavor {
                scheduler: Scheduler::MultiThread {
                    workers,
                    shards: Some(shards),
                },
                driver: self.driver,
            },
            Scheduler::CurrentThread => panic!("a current-thread runtime has no shards"),
        }
    }

    /// This flavour on `driver`.
    pub const fn on(self, driver: Driver) -> Flavor {
        Flavor {
            scheduler: self.scheduler,
            driver: Some(driver),
        }
    }

    /// A current-thread flavour on this flavour's driver (for a second
    /// runtime in a test).
    pub const fn as_current_thread(self) -> Flavor {
        Flavor {
            scheduler: Scheduler::CurrentThread,
            driver: self.driver,
        }
    }

    /// A builder for this flavour with every driver enabled, ready for more
    /// settings.
    pub fn builder(self) -> Builder {
        let mut builder = match self.scheduler {
            Scheduler::CurrentThread => Builder::new_current_thread(),
            Scheduler::MultiThread { workers, shards } => {
                let mut b = Builder::new_multi_thread();
                b.worker_threads(workers);
                if let Some(shards) = shards {
                    b.injection_queue_shards(shards);
                }
                b
            }
        };
        if let Some(driver) = self.driver {
            builder.driver(driver);
        }
        builder.enable_all();
        builder
    }

    /// Builds a runtime of this flavour.
    pub fn build(self) -> Runtime {
        self.builder().build().expect("failed to build the runtime")
    }

    pub fn is_multi_thread(self) -> bool {
        matches!(self.scheduler, Scheduler::MultiThread { .. })
    }

    /// What `RuntimeMetrics::num_workers` reports (1 for current-thread).
    pub fn workers(self) -> usize {
        match self.scheduler {
            Scheduler::CurrentThread => 1,
            Scheduler::MultiThread { workers, .. } => workers,
        }
    }

    pub fn runtime_flavor(self) -> RuntimeFlavor {
        match self.scheduler {
            Scheduler::CurrentThread => RuntimeFlavor::CurrentThread,
            Scheduler::MultiThread { .. } => RuntimeFlavor::MultiThread,
        }
    }
}

/// A short name without spaces (`mt4s3-uring`), for paths and socket names.
impl fmt::Display for Flavor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.scheduler {
            Scheduler::CurrentThread => f.write_str("ct")?,
            Scheduler::MultiThread { workers, shards } => {
                write!(f, "mt{workers}")?;
                if let Some(shards) = shards {
                    write!(f, "s{shards}")?;
                }
            }
        }
        match self.driver {
            Some(driver) => write!(f, "-{driver}"),
            None => f.write_str("-default"),
        }
    }
}

/// The drivers every flavour runs on: legacy and, with the `uring`
/// feature, io_uring (for tests that loop instead of using `rt_test!`).
pub const DRIVERS: &[Driver] = &[
    Driver::Legacy,
    #[cfg(feature = "uring")]
    Driver::Uring,
];

/// Invokes `$callback! { module_name, flavor_expression, $args... }` once
/// per flavour. **The** list of flavours: every scheduler on the legacy
/// driver and, with the `uring` feature, on the io_uring driver.
macro_rules! for_each_flavor {
    ($callback:ident { $($args:tt)* }) => {
        $callback! {
            current_thread,
            $crate::support::Flavor::current_thread().on(tokiwa::runtime::Driver::Legacy),
            $($args)*
        }
        $callback! {
            multi_thread_1,
            $crate::support::Flavor::multi_thread(1).on(tokiwa::runtime::Driver::Legacy),
            $($args)*
        }
        $callback! {
            multi_thread_2,
            $crate::support::Flavor::multi_thread(2).on(tokiwa::runtime::Driver::Legacy),
            $($args)*
        }
        $callback! {
            multi_thread_4_sharded,
            $crate::support::Flavor::multi_thread(4).sharded(3).on(tokiwa::runtime::Driver::Legacy),
            $($args)*
        }
        for_each_uring_flavor! { $callback { $($args)* } }
    };
}

/// The io_uring half of [`for_each_flavor!`] (internal): the same
/// schedulers on `Driver::Uring`, or nothing without the feature.
#[cfg(feature = "uring")]
macro_rules! for_each_uring_flavor {
    ($callback:ident { $($args:tt)* }) => {
        $callback! {
            uring_current_thread,
            $crate::support::Flavor::current_thread().on(tokiwa::runtime::Driver::Uring),
            $($args)*
        }
        $callback! {
            uring_multi_thread_1,
            $crate::support::Flavor::multi_thread(1).on(tokiwa::runtime::Driver::Uring),
            $($args)*
        }
        $callback! {
            uring_multi_thread_2,
            $crate::support::Flavor::multi_thread(2).on(tokiwa::runtime::Driver::Uring),
            $($args)*
        }
        $callback! {
            uring_multi_thread_4_sharded,
            $crate::support::Flavor::multi_thread(4).sharded(3).on(tokiwa::runtime::Driver::Uring),
            $($args)*
        }
    };
}

#[cfg(not(feature = "uring"))]
macro_rules! for_each_uring_flavor {
    ($callback:ident { $($args:tt)* }) => {};
}

/// Writes each test once and instantiates it for every flavour, in one
/// module per flavour (`current_thread::name`, `uring_multi_thread_2::name`,
/// ...).
///
/// ```ignore
/// rt_test! {
///     fn spawn_works() {
///         let rt = rt();                 // a runtime of this module's flavour
///         let b = builder();             // or a builder, to add settings
///         if FLAVOR.is_multi_thread() {} // the flavour itself
///         assert_eq!(rt.block_on(async { 1 }), 1);
///     }
/// }
/// ```
///
/// Each body runs under [`watchdog`](crate::support::watchdog) with
/// [`TEST_TIMEOUT`](crate::support::TEST_TIMEOUT), so a hang fails the test.
/// Attributes before `fn` (`#[ignore]`, doc comments) are kept.
macro_rules! rt_test {
    ($($items:tt)*) => {
        for_each_flavor! { rt_test_module { $($items)* } }
    };
}

/// One flavour's module of `rt_test!` (internal).
macro_rules! rt_test_module {
    ($module:ident, $flavor:expr, $( $(#[$attr:meta])* fn $name:ident() $body:block )*) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;

            #[allow(dead_code)]
            const FLAVOR: $crate::support::Flavor = $flavor;

            #[allow(dead_code)]
            fn rt() -> tokiwa::runtime::Runtime {
                FLAVOR.build()
            }

            #[allow(dead_code)]
            fn builder() -> tokiwa::runtime::Builder {
                FLAVOR.builder()
            }

            $(
                #[test]
                $(#[$attr])*
                fn $name() {
                    $crate::support::watchdog($crate::support::TEST_TIMEOUT, move || $body)
                }
            )*
        }
    };
}

/// An io_uring runtime (current-thread for `None`, else multi-thread with
/// that many workers) with every driver enabled, or `None` where the
/// kernel refuses io_uring: the caller skips, which [`uring_unavailable`]
/// makes visible (or a failure, under `TOKIWA_REQUIRE_URING=1`).
#[cfg(feature = "uring")]
pub fn uring_or_skip(workers: Option<usize>) -> Option<Runtime> {
    let mut builder = match workers {
        None => Builder::new_current_thread(),
        Some(n) => {
            let mut b = Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
    };
    match builder.enable_all().driver(Driver::Uring).build() {
        Ok(rt) => Some(rt),
        Err(e) => {
            uring_unavailable(&e);
            None
        }
    }
}

/// The variable that turns a skip for want of io_uring into a failure:
/// CI sets it to `1` on a kernel that has io_uring, where a skip could
/// only hide a broken probe or ring setup.
pub const REQUIRE_URING: &str = "TOKIWA_REQUIRE_URING";

/// A test about to skip because io_uring mode is unavailable (`reason`,
/// the kernel's refusal): says so on stderr, naming the test, or fails
/// the test when [`REQUIRE_URING`] is `1`.
#[track_caller]
pub fn uring_unavailable(reason: &dyn fmt::Display) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("this test");
    if std::env::var_os(REQUIRE_URING).is_some_and(|v| v == "1") {
        panic!("{test}: io_uring mode unavailable ({reason}), and {REQUIRE_URING}=1");
    }
    eprintln!("{test}: SKIPPED, io_uring mode unavailable ({reason})");
}

/// The driver of this build whose `Display` is `name` (a child process's
/// case names its driver so).
pub fn driver_named(name: &str) -> Driver {
    *DRIVERS
        .iter()
        .find(|driver| driver.to_string() == name)
        .unwrap_or_else(|| panic!("no driver {name:?} in this build"))
}
