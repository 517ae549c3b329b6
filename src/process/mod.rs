//! Child processes (tokio's `tokio::process` API).
