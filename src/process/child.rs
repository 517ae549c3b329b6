//! [`Child`]: a spawned process, its standard streams and its exit.
//!
//! A child is `Running` until its status is known, then `Done` (the status
//! is kept, so `wait` and `try_wait` keep answering, as in tokio). A
//! `Running` child that is dropped is handed to the orphan reaper
//! (`orphan.rs`), after a `SIGKILL` if `kill_on_drop` was set and no kill
//! has been sent yet; it never stays a zombie.
use super::exit::ExitWatch;
use super::orphan;
use super::pipe::{ChildStderr, ChildStdin, ChildStdout};
use crate::io::{AsyncRead, ReadBuf};
use crate::runtime::scheduler;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::{pin, Pin};
use std::process::{Child as StdChild, ExitStatus, Output};
use std::task::{ready, Context, Poll};

/// A child process spawned by [`Command::spawn`](super::Command::spawn).
///
/// Dropping a `Child` does not kill the process (unless
/// [`Command::kill_on_drop`](super::Command::kill_on_drop) was set) but the
/// runtime still reaps it once it exits.
#[derive(Debug)]
pub struct Child {
    child: FusedChild,

    /// The handle for writing to the child's standard input, if it was
    /// captured ([`Stdio::piped`](std::process::Stdio::piped)).
    pub stdin: Option<ChildStdin>,

    /// The handle for reading the child's standard output, if captured.
    pub stdout: Option<ChildStdout>,

    /// The handle for reading the child's standard error, if captured.
    pub stderr: Option<ChildStderr>,
}

#[derive(Debug)]
enum FusedChild {
    Running(Running),
    Done(ExitStatus),
}

/// A child whose status is not known yet.
#[derive(Debug)]
struct Running {
    /// `Some` until dropped (then handed to the orphan reaper).
    std: Option<StdChild>,
    watch: ExitWatch,
    kill_on_drop: bool,
}

impl Running {
    fn std(&mut self) -> &mut StdChild {
        self.std.as_mut().expect("present until drop")
    }

    fn poll_exit(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatus>> {
        let std = self.std.as_mut().expect("present until drop");
        let status = ready!(self.watch.poll_exit(cx, std))?;
        // Reaped: there is nothing left to kill.
        self.kill_on_drop = false;
        Poll::Ready(Ok(status))
    }

    /// Sends `SIGKILL` (std's `kill`: nothing once the child is reaped).
    fn kill(&mut self) -> io::Result<()> {
        self.std().kill()?;
        self.kill_on_drop = false;
        Ok(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut std) = self.std.take() {
            if self.kill_on_drop {
                let _ = std.kill();
            }
            orphan::adopt(std);
        }
    }
}

impl Child {
    /// Wraps a child std just spawned: its pipes and its exit registered
    /// with `handle`'s driver. On an error the child is left to the orphan
    /// reaper (not killed, as in tokio).
    pub(super) fn new(
        mut std: StdChild,
        kill_on_drop: bool,
        handle: &scheduler::Handle,
    ) -> io::Result<Child> {
        let stdin = std.stdin.take();
        let stdout = std.stdout.take();
        let stderr = std.stderr.take();
        let parts = (|| {
            Ok::<_, io::Error>((
                stdin.map(ChildStdin::from_std).transpose()?,
                stdout.map(ChildStdout::from_std).transpose()?,
                stderr.map(ChildStderr::from_std).transpose()?,
                ExitWatch::new(std.id(), handle)?,
            ))
        })();
        match parts {
            Ok((stdin, stdout, stderr, watch)) => Ok(Child {
                child: FusedChild::Running(Running {
                    std: Some(std),
                    watch,
                    kill_on_drop,
                }),
                stdin,
                stdout,
                stderr,
            }),
            Err(e) => {
                orphan::adopt(std);
                Err(e)
            }
        }
    }

    /// The OS process id, or `None` once the child has been waited for
    /// (the id may then belong to another process).
    pub fn id(&self) -> Option<u32> {
        match &self.child {
            FusedChild::Running(running) => running.std.as_ref().map(StdChild::id),
            FusedChild::Done(_) => None,
        }
    }

    /// Sends `SIGKILL` to the child without waiting for it to exit; a
    /// child already waited for is left alone (`Ok`).
    ///
    /// # Errors
    ///
    /// When the signal cannot be sent.
    pub fn start_kill(&mut self) -> io::Result<()> {
        match &mut self.child {
            FusedChild::Running(running) => running.kill(),
            FusedChild::Done(_) => Ok(()),
        }
    }

    /// Kills the child and waits for it to exit.
    ///
    /// # Errors
    ///
    /// When the signal cannot be sent or waiting fails.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: the kill is sent on the first poll, and a later `wait`
    /// picks up where this one stopped.
    pub async fn kill(&mut self) -> io::Result<()> {
        self.start_kill()?;
        self.wait().await?;
        Ok(())
    }

    /// Waits for the child to exit and returns its status, reaping it.
    ///
    /// The child's stdin is closed first (so a child reading it to the end
    /// cannot keep this waiting forever).
    ///
    /// # Errors
    ///
    /// When waiting fails, or the runtime is shutting down.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        drop(self.stdin.take());
        match &mut self.child {
            FusedChild::Done(status) => Ok(*status),
            FusedChild::Running(running) => {
                let status = poll_fn(|cx| running.poll_exit(cx)).await?;
                self.child = FusedChild::Done(status);
                Ok(status)
            }
        }
    }

    /// The child's status if it has exited (reaping it), without waiting.
    ///
    /// Unlike [`wait`](Child::wait), this does not close stdin.
    ///
    /// # Errors
    ///
    /// When `waitpid` fails.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        match &mut self.child {
            FusedChild::Done(status) => Ok(Some(*status)),
            FusedChild::Running(running) => {
                let status = running.std().try_wait()?;
                if let Some(status) = status {
                    running.kill_on_drop = false;
                    self.child = FusedChild::Done(status);
                }
                Ok(status)
            }
        }
    }

    /// Waits for the child to exit while reading its stdout and stderr to
    /// the end (those that were captured), and returns all three.
    ///
    /// Stdin is closed first, as by [`wait`](Child::wait).
    ///
    /// # Errors
    ///
    /// When waiting or reading fails.
    pub async fn wait_with_output(mut self) -> io::Result<Output> {
        let mut stdout_pipe = self.stdout.take();
        let mut stderr_pipe = self.stderr.take();
        let mut stdout = Vec::new();
        let mut stderr = Vec::new();
        let mut status = None;
        let (mut stdout_done, mut stderr_done) = (false, false);
        let mut wait = pin!(self.wait());
        // A join of the three, each polled until done; the first error
        // ends it.
        poll_fn(|cx| {
            if status.is_none() {
                if let Poll::Ready(result) = wait.as_mut().poll(cx) {
                    status = Some(result?);
                }
            }
            if !stdout_done {
                stdout_done = read_to_end(cx, &mut stdout_pipe, &mut stdout)?.is_ready();
            }
            if !stderr_done {
                stderr_done = read_to_end(cx, &mut stderr_pipe, &mut stderr)?.is_ready();
            }
            if status.is_some() && stdout_done && stderr_done {
                Poll::Ready(Ok::<_, io::Error>(()))
            } else {
                Poll::Pending
            }
        })
        .await?;
        // Closed only now, as in tokio (tokio issue 4309).
        drop(stdout_pipe);
        drop(stderr_pipe);
        Ok(Output {
            status: status.expect("set before the join completes"),
            stdout,
            stderr,
        })
    }
}

/// Reads `pipe` (if captured) to its end into `out`.
fn read_to_end<R: AsyncRead + Unpin>(
    cx: &mut Context<'_>,
    pipe: &mut Option<R>,
    out: &mut Vec<u8>,
) -> Poll<io::Result<()>> {
    let Some(pipe) = pipe.as_mut() else {
        return Poll::Ready(Ok(()));
    };
    let mut chunk = [0u8; 8192];
    loop {
        let mut buf = ReadBuf::new(&mut chunk);
        ready!(Pin::new(&mut *pipe).poll_read(cx, &mut buf))?;
        if buf.filled().is_empty() {
            return Poll::Ready(Ok(()));
        }
        out.extend_from_slice(buf.filled());
    }
}
