//! Child processes: tokio's `tokio::process` API on tokiwa's drivers.
//!
//! [`Command`] wraps `std::process::Command` (the spawn itself is std's:
//! `posix_spawn` or `fork`/`exec`, with std's handling of `pre_exec`,
//! `uid`, `process_group` and of the exec error, which makes a missing
//! program an `ErrorKind::NotFound` from `spawn`). What tokiwa adds is
//! waiting without blocking a thread:
//!
//! * `pipe.rs`: the parent's pipe ends, non-blocking and registered with
//!   the worker's I/O driver, so stdin is an `AsyncWrite` and stdout and
//!   stderr are `AsyncRead`s on both drivers (epoll readiness, io_uring
//!   multishot polls).
//! * `exit.rs`: the exit of a running child wakes its task through a pidfd
//!   the driver polls (Linux 5.3 and later), or through SIGCHLD and the
//!   signal registry where there is no pidfd; the status then comes from
//!   `waitpid(WNOHANG)`.
//! * `child.rs`: [`Child`], the state of one child (running or done) and
//!   `wait`, `try_wait`, `kill`, `wait_with_output`.
//! * `orphan.rs`: a child dropped before it was reaped is never left a
//!   zombie. It is reaped at once if it has exited, otherwise by a small
//!   process-wide reaper thread woken by its pidfd (or SIGCHLD), and at each
//!   spawn; `kill_on_drop` sends `SIGKILL` first.
//!
//! Sources: `pidfd_open(2)`, `waitpid(2)`, `signal(7)` (SIGCHLD
//! coalesces); tokio's `process/unix/{pidfd_reaper,orphan}.rs` for the
//! behaviour programs rely on.
//!
//! # Caveats (as in tokio)
//!
//! A `Child` that is dropped keeps running unless
//! [`Command::kill_on_drop`] was set; the runtime reaps it, best-effort,
//! once it exits. Anything else in the process that waits for *any* child
//! (`waitpid(-1)`) can steal a status: the `Child` then reports `ECHILD`.
mod child;
mod exit;
mod orphan;
mod pipe;

pub use child::Child;
pub use pipe::{ChildStderr, ChildStdin, ChildStdout};

use crate::runtime::scheduler;
use std::ffi::OsStr;
use std::future::Future;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command as StdCommand, ExitStatus, Output, Stdio};

/// A builder of child processes, tokio's `Command`: the methods of
/// [`std::process::Command`], plus [`kill_on_drop`](Command::kill_on_drop)
/// and asynchronous [`spawn`](Command::spawn), [`status`](Command::status)
/// and [`output`](Command::output).
#[derive(Debug)]
pub struct Command {
    std: StdCommand,
    kill_on_drop: bool,
}

impl Command {
    /// A command that runs `program` with no arguments, the parent's
    /// environment and working directory, and inherited standard streams
    /// (piped for [`output`](Command::output)).
    pub fn new<S: AsRef<OsStr>>(program: S) -> Command {
        Command::from(StdCommand::new(program))
    }

    /// The std command inside.
    pub fn as_std(&self) -> &StdCommand {
        &self.std
    }

    /// The std command inside, to configure what this type does not offer.
    pub fn as_std_mut(&mut self) -> &mut StdCommand {
        &mut self.std
    }

    /// The std command inside (`kill_on_drop` is lost).
    pub fn into_std(self) -> StdCommand {
        self.std
    }

    /// Adds an argument.
    pub fn arg<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.std.arg(arg);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.std.args(args);
        self
    }

    /// Sets an environment variable for the child.
    pub fn env<K, V>(&mut self, key: K, val: V) -> &mut Command
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.env(key, val);
        self
    }

    /// Sets environment variables for the child.
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.envs(vars);
        self
    }

    /// Removes an environment variable from the child's environment.
    pub fn env_remove<K: AsRef<OsStr>>(&mut self, key: K) -> &mut Command {
        self.std.env_remove(key);
        self
    }

    /// Clears the child's environment (nothing is inherited).
    pub fn env_clear(&mut self) -> &mut Command {
        self.std.env_clear();
        self
    }

    /// Sets the child's working directory.
    pub fn current_dir<P: AsRef<Path>>(&mut self, dir: P) -> &mut Command {
        self.std.current_dir(dir);
        self
    }

    /// Configures the child's standard input.
    pub fn stdin<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdin(cfg);
        self
    }

    /// Configures the child's standard output.
    pub fn stdout<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stdout(cfg);
        self
    }

    /// Configures the child's standard error.
    pub fn stderr<T: Into<Stdio>>(&mut self, cfg: T) -> &mut Command {
        self.std.stderr(cfg);
        self
    }

    /// Whether dropping the [`Child`] (or the future of
    /// [`status`](Command::status) or [`output`](Command::output)) before
    /// the child has exited sends it `SIGKILL`. Off by default. Either way
    /// the runtime reaps the child once it exits.
    pub fn kill_on_drop(&mut self, kill_on_drop: bool) -> &mut Command {
        self.kill_on_drop = kill_on_drop;
        self
    }

    /// Whether [`kill_on_drop`](Command::kill_on_drop) is set.
    pub fn get_kill_on_drop(&self) -> bool {
        self.kill_on_drop
    }

    /// Sets the child's user id (`setuid` before `exec`).
    pub fn uid(&mut self, id: u32) -> &mut Command {
        self.std.uid(id);
        self
    }

    /// Sets the child's group id (`setgid` before `exec`).
    pub fn gid(&mut self, id: u32) -> &mut Command {
        self.std.gid(id);
        self
    }

    /// Sets the child's `argv[0]` (by default the program).
    pub fn arg0<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.std.arg0(arg);
        self
    }

    /// Runs `f` in the child after `fork` and before `exec`.
    ///
    /// # Safety
    ///
    /// As for [`std::os::unix::process::CommandExt::pre_exec`]: `f` runs in
    /// a copy of a multi-threaded process, so it may only call
    /// async-signal-safe functions (no allocation, no locks).
    pub unsafe fn pre_exec<F>(&mut self, f: F) -> &mut Command
    where
        F: FnMut() -> io::Result<()> + Send + Sync + 'static,
    {
        // SAFETY: the caller upholds `pre_exec`'s contract (this function's
        // `# Safety`).
        unsafe { self.std.pre_exec(f) };
        self
    }

    /// Puts the child in process group `pgroup` (`0`: a new group whose id
    /// is the child's pid).
    pub fn process_group(&mut self, pgroup: i32) -> &mut Command {
        self.std.process_group(pgroup);
        self
    }

    /// Spawns the child and returns its [`Child`] handle; its pipes and its
    /// exit belong to the current runtime.
    ///
    /// # Errors
    ///
    /// std's: `ErrorKind::NotFound` for a program that does not exist,
    /// `WouldBlock` at the process limit, the exec error otherwise; or a
    /// failure to register the child with the driver.
    ///
    /// # Panics
    ///
    /// Outside a runtime, or on one built without `enable_io`, with
    /// tokio's messages (before anything is spawned).
    #[track_caller]
    pub fn spawn(&mut self) -> io::Result<Child> {
        let handle = scheduler::Handle::current_for_io();
        handle.driver().io();
        orphan::reap_orphans();
        let child = self.std.spawn()?;
        Child::new(child, self.kill_on_drop, &handle)
    }

    /// Spawns the child with the standard streams it was given (pipes are
    /// closed at once) and waits for its status. The future does not borrow
    /// the command.
    ///
    /// # Errors
    ///
    /// As [`spawn`](Command::spawn) and [`Child::wait`].
    #[track_caller]
    pub fn status(&mut self) -> impl Future<Output = io::Result<ExitStatus>> {
        let child = self.spawn();
        async {
            let mut child = child?;
            // Nothing may wait on a pipe only this future holds.
            child.stdin.take();
            child.stdout.take();
            child.stderr.take();
            child.wait().await
        }
    }

    /// Spawns the child with stdout and stderr piped (stdin stays as
    /// configured, inherited by default) and collects its status and
    /// output. The future does not borrow the command.
    ///
    /// # Errors
    ///
    /// As [`spawn`](Command::spawn) and [`Child::wait_with_output`].
    #[track_caller]
    pub fn output(&mut self) -> impl Future<Output = io::Result<Output>> {
        self.std.stdout(Stdio::piped());
        self.std.stderr(Stdio::piped());
        let child = self.spawn();
        async { child?.wait_with_output().await }
    }
}

impl From<StdCommand> for Command {
    fn from(std: StdCommand) -> Command {
        Command {
            std,
            kill_on_drop: false,
        }
    }
}
