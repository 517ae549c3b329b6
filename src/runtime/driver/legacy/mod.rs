//! The legacy driver: per worker, an epoll instance waited on by a poll
//! thread, which wakes the parked worker through its condition variable.
//! Always built (the io_uring driver is the `uring` feature's).
//!
//! * `reactor.rs`: the epoll instance, its registry and its poll thread
//!   ([`Reactor`], one per worker);
//! * `poll_gate.rs`: the handshake deciding whether the worker or its poll
//!   thread reaps the worker's epoll;
//! * `watch.rs`: the poll thread's own epoll, watching the worker's one
//!   event at a time;
//! * `placement.rs`: which worker's reactor polls a resource (for one made
//!   off the workers: its first waiter's);
//! * `reap_backoff.rs`: how often a worker about to sleep reaps its
//!   sleeping peers' epolls, and its own.
mod placement;
pub(crate) mod poll_gate;
mod reactor;
mod reap_backoff;
mod watch;

pub(crate) use placement::Placement;
pub(crate) use reactor::Reactor;
