//! tokiwa: a Tokio-compatible async runtime for Linux.
//!
//! An application switches from tokio by renaming the dependency
//! (`tokio = { package = "tokiwa", ... }`); module paths, names and the
//! behaviour programs rely on stay tokio's.
//!
//! # What is shared and what is tokiwa's own
//!
//! The runtime-independent vocabulary comes from the `tokio` crate built
//! *without* any runtime feature and is re-exported at tokio's paths: the I/O
//! traits and their utilities ([`io`]), the synchronisation primitives
//! ([`sync`]) and the `select!`/`join!`/`try_join!`/`pin!` macros. Because
//! they are the very same items, ecosystem crates written against tokio's
//! traits accept tokiwa's types without adapters.
//!
//! Everything that runs or waits is tokiwa's: the work-stealing executor and
//! its task harness ([`task`]), the runtime and its blocking pool
//! ([`runtime`]) and the attribute macros ([`main`], [`test`]). The design is
//! described in `ARCHITECTURE.md`; each module's documentation explains its
//! part.
#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
// Without `rt-multi-thread` the multi-thread scheduler is still compiled
// (the scheduler handle stays one enum, with no cfg on every match) but
// never built: its constructors are then unused.
#![cfg_attr(
    all(feature = "rt", not(feature = "rt-multi-thread")),
    allow(dead_code)
)]

// Whole-graph mode: `select!`, `join!`, `try_join!` and `pin!` are tokiwa's
// own (`#[macro_export]`ed at the crate root, as tokio's are), with their
// helpers under the same hidden `macros::support` path. Declared first, so
// every module below can use them by their bare names.
#[doc(hidden)]
#[cfg(tokiwa_own_vocabulary)]
#[macro_use]
pub mod macros;

pub(crate) mod loom;

#[cfg(feature = "rt")]
pub(crate) mod util;

#[cfg(all(test, tokiwa_loom, feature = "rt-multi-thread"))]
mod loom_tests;

#[cfg(feature = "rt")]
pub mod runtime;

#[cfg(feature = "rt")]
pub mod task;

#[cfg(feature = "rt")]
pub use task::spawn;

pub mod io;

#[cfg(feature = "fs")]
pub mod fs;

#[cfg(feature = "net")]
pub mod net;

#[cfg(feature = "process")]
pub mod process;

#[cfg(feature = "signal")]
pub mod signal;

// The process-wide signal handlers: `signal` listens through them, and
// `process` waits for SIGCHLD through them where the kernel has no pidfd
// (so they are built with either feature).
#[cfg(any(feature = "signal", feature = "process"))]
#[path = "signal/registry.rs"]
pub(crate) mod signal_registry;

#[cfg(feature = "time")]
pub mod time;

#[cfg(all(feature = "sync", not(tokiwa_own_vocabulary)))]
pub mod sync {
    //! Synchronisation primitives for use in asynchronous contexts.
    //!
    //! These are tokio's own primitives (re-exported from the `tokio` crate
    //! built without runtime features): they are executor-agnostic and the
    //! most tested in the ecosystem.
    pub use tokio::sync::*;
}

// Built as the package named `tokio` (whole-graph mode, see `build.rs`):
// tokiwa's own primitives, which consult its cooperative budget.
#[cfg(all(feature = "sync", tokiwa_own_vocabulary))]
pub mod sync;

#[cfg(all(feature = "macros", not(tokiwa_own_vocabulary)))]
pub use tokio::{join, pin, select, try_join};

#[doc(hidden)]
#[cfg(not(tokiwa_own_vocabulary))]
pub mod macros {
    //! tokio's hidden `tokio::macros::support` path, which some code (tokio's
    //! own tests among it) names directly. The macros tokiwa re-exports
    //! expand to the `tokio` crate's path, not to this one.
    #[doc(hidden)]
    pub mod support {
        //! The helpers of tokio's macros, re-exported.
        pub use tokio::macros::support::*;
    }
}

#[cfg(all(feature = "macros", not(tokiwa_own_vocabulary)))]
pub use tokiwa_macros::{main, test};

// Built as the package named `tokio`, the attributes' expansions name the
// runtime `::tokio` (the name the application's Cargo.toml gives it).
#[cfg(all(feature = "macros", tokiwa_own_vocabulary))]
pub use tokiwa_macros::{main_as_tokio as main, test_as_tokio as test};

#[doc(hidden)]
#[cfg(feature = "rt")]
pub mod __private {
    //! Items used by the code that `#[tokiwa::main]` and `#[tokiwa::test]`
    //! generate. Not part of the public API.
    pub use crate::runtime::Builder;
}
