//! Multi-producer, single-consumer channels: many tasks send values, one
//! task receives them in the order they were sent.
//!
//! - [`channel`] is bounded: it buffers at most a fixed number of values,
//!   and senders wait for room, which pushes back on fast producers.
//!   Capacity can be reserved before the value exists ([`Sender::reserve`],
//!   [`Sender::reserve_many`], [`Sender::reserve_owned`]).
//! - [`unbounded_channel`] never makes a sender wait.
//!
//! The channel closes for the receiver when every sender is dropped:
//! `recv` then returns the buffered values and finally `None`. The
//! receiver may close it from its side ([`Receiver::close`]) and drain
//! what is buffered. [`WeakSender`]s do not keep a channel open.
//!
//! `blocking_send` and `blocking_recv` let synchronous code on other
//! threads take part; they panic on a thread that drives a runtime.
//!
//! # Implementation
//!
//! tokiwa's own (whole-graph mode), with tokio's API. Both flavours share
//! one core (`chan.rs`): a queue of fixed blocks that is given back as it
//! drains (`block_queue.rs`) and the waiting parties under one mutex,
//! with a bounded channel's capacity counted as permits and senders waiting
//! for them in a FIFO (`waiters.rs`). Every wait spends the task's
//! cooperative budget, as tokio's does. The races that matter (a send
//! against the receiver going to sleep, the last sender's drop against
//! `recv`, a receive freeing capacity for a waiting sender) are loom models
//! in `loom_tests.rs`.
mod block_queue;
mod bounded;
mod chan;
mod unbounded;
pub(crate) mod waiters;

pub mod error;

pub use bounded::{channel, OwnedPermit, Permit, PermitIterator, Receiver, Sender, WeakSender};
pub use unbounded::{unbounded_channel, UnboundedReceiver, UnboundedSender, WeakUnboundedSender};

#[cfg(all(test, not(tokiwa_loom)))]
pub(crate) mod test_wakers;
#[cfg(all(test, not(tokiwa_loom)))]
mod tests;

// Loom models; without `--cfg tokiwa_loom` they run once as plain tests.
#[cfg(test)]
mod loom_tests;
