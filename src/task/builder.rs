//! `task::Builder`: spawning with a name (`tokio_unstable` + `tracing`,
//! where tokio has it).
//!
//! The name is stored in the task's header (`core.rs`, out of line), where
//! a tracing layer reads it; the spawn location goes there too. Each
//! method spawns exactly as its plain counterpart does and, like tokio's,
//! returns `io::Result` so that a failure to spawn can be reported: only
//! the blocking spawns can fail (the pool is shut down).
use super::{JoinHandle, LocalSet};
use crate::runtime::task::SpawnMeta;
use crate::runtime::{context, Handle};
use std::future::Future;
use std::io;

/// Configures a task before spawning it (its name, for tracing and
/// tokio-console).
///
/// **Note**: this is an unstable API (`--cfg tokio_unstable` and the
/// `tracing` feature), as in tokio.
#[derive(Default, Debug)]
pub struct Builder<'a> {
    name: Option<&'a str>,
}

impl<'a> Builder<'a> {
    /// A builder with no name set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Names the task.
    pub fn name(&self, name: &'a str) -> Self {
        Self { name: Some(name) }
    }

    /// Spawns a task on the current runtime, as [`task::spawn`] does.
    ///
    /// # Panics
    ///
    /// Outside a runtime, as [`task::spawn`].
    ///
    /// [`task::spawn`]: crate::task::spawn
    #[track_caller]
    pub fn spawn<Fut>(self, future: Fut) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + Send + 'static,
        Fut::Output: Send + 'static,
    {
        let meta = SpawnMeta::new(self.name);
        match context::with_current(|handle| handle.spawn(future, meta)) {
            Ok(join) => Ok(join),
            Err(e) => panic!("{}", e),
        }
    }

    /// Spawns a task on the runtime of `handle`, as [`Handle::spawn`].
    #[track_caller]
    pub fn spawn_on<Fut>(self, future: Fut, handle: &Handle) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + Send + 'static,
        Fut::Output: Send + 'static,
    {
        Ok(handle.inner.spawn(future, SpawnMeta::new(self.name)))
    }

    /// Spawns a `!Send` task on the current `LocalSet` or `LocalRuntime`,
    /// as [`task::spawn_local`](crate::task::spawn_local).
    ///
    /// # Panics
    ///
    /// Outside both, as `spawn_local`.
    #[track_caller]
    pub fn spawn_local<Fut>(self, future: Fut) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + 'static,
        Fut::Output: 'static,
    {
        Ok(super::local::spawn_local_with(
            future,
            SpawnMeta::new(self.name),
        ))
    }

    /// Spawns a `!Send` task on `local_set`, as
    /// [`LocalSet::spawn_local`].
    #[track_caller]
    pub fn spawn_local_on<Fut>(
        self,
        future: Fut,
        local_set: &LocalSet,
    ) -> io::Result<JoinHandle<Fut::Output>>
    where
        Fut: Future + 'static,
        Fut::Output: 'static,
    {
        Ok(local_set.spawn_with(future, SpawnMeta::new(self.name)))
    }

    /// Runs a blocking closure on the current runtime's blocking pool, as
    /// [`task::spawn_blocking`](crate::task::spawn_blocking).
    ///
    /// # Errors
    ///
    /// When the pool is shut down ("blocking pool shutting down").
    ///
    /// # Panics
    ///
    /// Outside a runtime.
    #[track_caller]
    pub fn spawn_blocking<Function, Output>(
        self,
        function: Function,
    ) -> io::Result<JoinHandle<Output>>
    where
        Function: FnOnce() -> Output + Send + 'static,
        Output: Send + 'static,
    {
        let handle = Handle::current();
        self.spawn_blocking_on(function, &handle)
    }

    /// Runs a blocking closure on the blocking pool of `handle`'s runtime.
    ///
    /// # Errors
    ///
    /// When the pool is shut down ("blocking pool shutting down").
    #[track_caller]
    pub fn spawn_blocking_on<Function, Output>(
        self,
        function: Function,
        handle: &Handle,
    ) -> io::Result<JoinHandle<Output>>
    where
        Function: FnOnce() -> Output + Send + 'static,
        Output: Send + 'static,
    {
        let (join, spawned) = handle
            .inner
            .spawn_blocking_with(function, SpawnMeta::new(self.name));
        if spawned {
            Ok(join)
        } else {
            Err(io::Error::other("blocking pool shutting down"))
        }
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests {
    use super::Builder;

    /// The name reaches the task's header (where a tracing layer reads
    /// it), on every spawn path; an unnamed task has none.
    #[test]
    fn name_is_stored_in_the_task() {
        let rt = crate::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let handle = rt.handle().clone();
        rt.block_on(async move {
            let named = Builder::new().name("worker-7").spawn(async {}).unwrap();
            assert_eq!(named.name().as_deref(), Some("worker-7"));
            let on = Builder::new()
                .name("on")
                .spawn_on(async {}, &handle)
                .unwrap();
            assert_eq!(on.name().as_deref(), Some("on"));
            let blocking = Builder::new().name("b").spawn_blocking(|| ()).unwrap();
            assert_eq!(blocking.name().as_deref(), Some("b"));
            let unnamed = Builder::new().spawn(async {}).unwrap();
            assert_eq!(unnamed.name(), None);
            assert_eq!(crate::spawn(async {}).name(), None);
            for h in [named, on, blocking, unnamed] {
                h.await.unwrap();
            }
        });
        let local = crate::task::LocalSet::new();
        let h = Builder::new()
            .name("local")
            .spawn_local_on(async {}, &local)
            .unwrap();
        assert_eq!(h.name().as_deref(), Some("local"));
    }
}
