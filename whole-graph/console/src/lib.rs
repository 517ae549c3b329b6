//! tokio-console against a tokiwa application: see `tests/console.rs`.
