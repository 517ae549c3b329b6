//! The runtime flavours every `rt_test!` body runs on.
//!
//! [`for_each_flavor!`] is the one list: a new driver (epoll, io_uring)
//! becomes new entries there, and every test written with `rt_test!` runs on
//! it with no other change.
use tokiwa::runtime::{Builder, Runtime, RuntimeFlavor};

/// A way to build a runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
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
    /// A builder for this flavour with every driver enabled, ready for more
    /// settings.
    pub fn builder(self) -> Builder {
        let mut builder = match self {
            Flavor::CurrentThread => Builder::new_current_thread(),
            Flavor::MultiThread { workers, shards } => {
                let mut b = Builder::new_multi_thread();
                b.worker_threads(workers);
                if let Some(shards) = shards {
                    b.injection_queue_shards(shards);
                }
                b
            }
        };
        builder.enable_all();
        builder
    }

    /// Builds a runtime of this flavour.
    pub fn build(self) -> Runtime {
        self.builder().build().expect("failed to build the runtime")
    }

    pub fn is_multi_thread(self) -> bool {
        matches!(self, Flavor::MultiThread { .. })
    }

    /// What `RuntimeMetrics::num_workers` reports (1 for current-thread).
    pub fn workers(self) -> usize {
        match self {
            Flavor::CurrentThread => 1,
            Flavor::MultiThread { workers, .. } => workers,
        }
    }

    pub fn runtime_flavor(self) -> RuntimeFlavor {
        match self {
            Flavor::CurrentThread => RuntimeFlavor::CurrentThread,
            Flavor::MultiThread { .. } => RuntimeFlavor::MultiThread,
        }
    }
}

/// Invokes `$callback! { module_name, flavor_expression, $args... }` once
/// per flavour. **The** list of flavours.
macro_rules! for_each_flavor {
    ($callback:ident { $($args:tt)* }) => {
        $callback! { current_thread, $crate::support::Flavor::CurrentThread, $($args)* }
        $callback! {
            multi_thread_1,
            $crate::support::Flavor::MultiThread { workers: 1, shards: None },
            $($args)*
        }
        $callback! {
            multi_thread_2,
            $crate::support::Flavor::MultiThread { workers: 2, shards: None },
            $($args)*
        }
        $callback! {
            multi_thread_4_sharded,
            $crate::support::Flavor::MultiThread { workers: 4, shards: Some(3) },
            $($args)*
        }
    };
}

/// Writes each test once and instantiates it for every flavour, in one
/// module per flavour (`current_thread::name`, `multi_thread_2::name`, ...).
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
