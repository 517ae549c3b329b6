//! Synchronisation primitives for use in asynchronous contexts.
//!
//! Whole-graph mode (the package named `tokio`): tokiwa's own primitives,
//! with tokio's API, which consult tokiwa's cooperative budget and refuse
//! to block a runtime thread.
pub mod broadcast;
pub mod mpsc;
