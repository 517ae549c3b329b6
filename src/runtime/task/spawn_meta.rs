//! What a spawn records about a task besides its future.
//!
//! Always its [`Id`]. Built with `--cfg tokio_unstable`, also the source
//! location of the spawn (the runtime's task hooks receive it in
//! [`TaskMeta::spawned_at`](crate::runtime::TaskMeta::spawned_at)) and,
//! with the `tracing` feature as well, the name given by
//! `task::Builder::name`, and the kind of task the `runtime.spawn` span
//! reports (`trace.rs`). Without the cfg
//! this is just the id, and a task's header carries nothing more than it
//! did before these existed.
//!
//! The location is taken with `#[track_caller]`, so every public spawn
//! function on the way from the user's call to [`SpawnMeta::new_unnamed`]
//! is `#[track_caller]` too (as in tokio), and the location is the user's
//! line, not one inside tokiwa.
use super::Id;
use std::marker::PhantomData;

/// The metadata of one spawn, handed down to the task's allocation.
#[derive(Clone, Copy)]
pub(crate) struct SpawnMeta<'a> {
    pub(crate) id: Id,
    #[cfg(tokio_unstable)]
    pub(crate) spawned_at: &'static std::panic::Location<'static>,
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    pub(crate) name: Option<&'a str>,
    /// What the tracing span calls the task (`task`, `local`, `blocking`).
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    pub(crate) kind: super::trace::Kind,
    _name: PhantomData<&'a str>,
}

impl SpawnMeta<'_> {
    /// A spawn with a fresh id and no name, at the caller's location.
    #[track_caller]
    pub(crate) fn new_unnamed() -> SpawnMeta<'static> {
        SpawnMeta {
            id: Id::next(),
            #[cfg(tokio_unstable)]
            spawned_at: std::panic::Location::caller(),
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            name: None,
            #[cfg(all(tokio_unstable, feature = "tracing"))]
            kind: super::trace::Kind::Task,
            _name: PhantomData,
        }
    }

    /// A spawn with a fresh id and `name`, at the caller's location.
    #[cfg(all(tokio_unstable, feature = "tracing"))]
    #[track_caller]
    pub(crate) fn new(name: Option<&str>) -> SpawnMeta<'_> {
        SpawnMeta {
            name,
            ..SpawnMeta::new_unnamed()
        }
    }
}

#[cfg(all(tokio_unstable, feature = "tracing"))]
impl<'a> SpawnMeta<'a> {
    /// The same spawn, reported as a task of `kind`.
    pub(crate) fn with_kind(self, kind: super::trace::Kind) -> SpawnMeta<'a> {
        SpawnMeta { kind, ..self }
    }
}
