//! Asynchronous signal handling: tokio's `tokio::signal` API on tokiwa's
//! drivers.
//!
//! * `registry.rs` (`crate::signal_registry`, also built for `process`):
//!   the process-wide part. One handler per signal number,
//!   installed through `signal-hook-registry` (which chains to any handler
//!   installed before), counts deliveries and writes one eventfd, the only
//!   things a signal handler may safely do.
//! * `unix.rs`: [`unix::signal`] and [`unix::Signal`]. Each listener owns a
//!   duplicate of that eventfd registered with the runtime's I/O driver, so
//!   both drivers (epoll and io_uring) serve signals as they serve sockets,
//!   and remembers the delivery count it last saw: a delivery made while it
//!   exists is never lost, deliveries between two `recv`s coalesce into one
//!   (as in tokio), and a delivery made before it existed is not replayed
//!   once a runtime turn has published it (`registry.rs`).
use crate::signal_registry as registry;
pub mod unix;

use std::io;

/// Completes when the process receives `SIGINT` (ctrl-c).
///
/// The handler is installed on first use and stays installed for the life
/// of the process, as in tokio: after the first call, ctrl-c no longer ends
/// the process by default.
///
/// # Errors
///
/// When the handler cannot be installed.
///
/// # Panics
///
/// Outside a runtime, or on one built without `enable_io`, with tokio's
/// messages.
pub async fn ctrl_c() -> io::Result<()> {
    let mut interrupts = unix::signal(unix::SignalKind::interrupt())?;
    interrupts.recv().await;
    Ok(())
}
