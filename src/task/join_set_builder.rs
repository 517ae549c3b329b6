//! `join_set::Builder`: spawning a named task into a [`JoinSet`]
//! (`tokio_unstable` + `tracing`, as in tokio), through
//! [`task::Builder`](crate::task::Builder).
use super::{AbortHandle, JoinSet, LocalSet};
use crate::runtime::Handle;
use std::fmt;
use std::future::Future;

/// A variant of [`task::Builder`](crate::task::Builder) that spawns into a
/// [`JoinSet`] (from [`JoinSet::build_task`]).
///
/// **Note**: this is an unstable API (`--cfg tokio_unstable` and the
/// `tracing` feature), as in tokio.
#[must_use = "builders do nothing unless used to spawn a task"]
pub struct Builder<'a, T> {
    joinset: &'a mut JoinSet<T>,
    builder: super::Builder<'a>,
}

impl<T> JoinSet<T> {
    /// A [`Builder`] to configure a task (its name) before spawning it into
    /// this set.
    pub fn build_task(&mut self) -> Builder<'_, T> {
        Builder {
            joinset: self,
            builder: super::Builder::new(),
        }
    }
}

impl<'a, T: 'static> Builder<'a, T> {
    /// Names the task.
    pub fn name(self, name: &'a str) -> Self {
        let builder = self.builder.name(name);
        Self { builder, ..self }
    }

    /// Spawns the task on the current runtime, as [`JoinSet::spawn`].
    ///
    /// # Panics
    ///
    /// Outside a runtime.
    #[track_caller]
    pub fn spawn<F>(self, future: F) -> std::io::Result<AbortHandle>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        Ok(self.joinset.insert(self.builder.spawn(future)?))
    }

    /// Spawns the task on `handle`'s runtime, as [`JoinSet::spawn_on`].
    #[track_caller]
    pub fn spawn_on<F>(self, future: F, handle: &Handle) -> std::io::Result<AbortHandle>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        Ok(self.joinset.insert(self.builder.spawn_on(future, handle)?))
    }

    /// Runs a blocking closure on the current runtime's blocking pool, as
    /// [`JoinSet::spawn_blocking`].
    ///
    /// # Errors
    ///
    /// When the pool is shut down.
    #[track_caller]
    pub fn spawn_blocking<F>(self, f: F) -> std::io::Result<AbortHandle>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send,
    {
        Ok(self.joinset.insert(self.builder.spawn_blocking(f)?))
    }

    /// Runs a blocking closure on `handle`'s blocking pool, as
    /// [`JoinSet::spawn_blocking_on`].
    ///
    /// # Errors
    ///
    /// When the pool is shut down.
    #[track_caller]
    pub fn spawn_blocking_on<F>(self, f: F, handle: &Handle) -> std::io::Result<AbortHandle>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send,
    {
        Ok(self
            .joinset
            .insert(self.builder.spawn_blocking_on(f, handle)?))
    }

    /// Spawns a `!Send` task on the current `LocalSet` or `LocalRuntime`,
    /// as [`JoinSet::spawn_local`].
    #[track_caller]
    pub fn spawn_local<F>(self, future: F) -> std::io::Result<AbortHandle>
    where
        F: Future<Output = T> + 'static,
    {
        Ok(self.joinset.insert(self.builder.spawn_local(future)?))
    }

    /// Spawns a `!Send` task on `local_set`, as
    /// [`JoinSet::spawn_local_on`].
    #[track_caller]
    pub fn spawn_local_on<F>(self, future: F, local_set: &LocalSet) -> std::io::Result<AbortHandle>
    where
        F: Future<Output = T> + 'static,
    {
        Ok(self
            .joinset
            .insert(self.builder.spawn_local_on(future, local_set)?))
    }
}

// Not derived: `Debug` whatever `T` is.
impl<T> fmt::Debug for Builder<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("join_set::Builder")
            .field("joinset", &self.joinset)
            .field("builder", &self.builder)
            .finish()
    }
}
