//! tokiwa's own `select!`, `join!`, `try_join!` and `pin!`, used when this
//! source is built as the package named `tokio` (whole-graph mode), where
//! tokio's cannot be re-exported.
//!
//! They follow tokio 1.54's documented syntax and behaviour, and are
//! `#[macro_export]`ed so they sit at the crate root (`tokio::select!`),
//! as tokio's do. What their expansions name lives in the hidden
//! [`support`] module, at tokio's path `tokio::macros::support`.
//!
//! All of them are declarative macros but one detail: `select!` tests a
//! branch's output against its pattern by reference, which needs the
//! pattern's `mut`/`ref` binding modes removed, and only a procedural macro
//! can rewrite a pattern (`select_pattern_probe!` in `tokiwa-macros`).
//!
//! `select!` consults the task's cooperative budget before polling its
//! branches (see `crate::task::coop`); `join!` and `try_join!` rotate the
//! branch they poll first instead, as tokio's do. See each macro's module
//! for how its expansion works.

// Not `#[macro_use]`: inside the crate a bare `pin!` stays `std::pin::pin!`
// (which several modules import); this one is `crate::pin!`.
mod pin;

#[cfg(feature = "macros")]
#[macro_use]
mod select;

#[cfg(feature = "macros")]
#[macro_use]
mod join;

#[cfg(feature = "macros")]
#[macro_use]
mod try_join;

#[cfg(feature = "macros")]
mod maybe_done;

#[cfg(feature = "macros")]
pub(crate) mod thread_rng;

#[doc(hidden)]
pub mod support;

#[cfg(all(test, feature = "macros", feature = "rt"))]
mod tests;
