#![cfg(feature = "full")]
//! `tokiwa::process`: spawning, exit statuses, `wait`/`try_wait`/`kill`,
//! `kill_on_drop`, children dropped un-waited (never left zombies),
//! `wait_with_output`, `process_group` and `pre_exec`, on every flavour and
//! driver.
//!
//! The whole binary runs a second time with `TOKIWA_PROCESS_NO_PIDFD=1`
//! (`sigchld_fallback_passes_the_suite`), so every test also covers the
//! SIGCHLD path that kernels without pidfds take.
//!
//! Children are observed from outside through `/proc` (`support::process`).
//! Waiting there is a bounded poll, used only where no event exists: the
//! kernel turning a child into a zombie, and the reaper thread reaping an
//! orphan.

#[macro_use]
mod support;

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

use support::process::{is_reaped, open_pidfds, proc_id, wait_reaped, wait_zombie};
use tokiwa::process::Command;

/// Set in the run of this binary that exercises the SIGCHLD path.
const NO_PIDFD: &str = "TOKIWA_PROCESS_NO_PIDFD";

fn fallback_run() -> bool {
    std::env::var_os(NO_PIDFD).is_some()
}

/// `sh -c script`.
fn sh(script: &str) -> Command {
    let mut command = Command::new("/bin/sh");
    command.arg("-c").arg(script);
    command
}

/// A child that runs until its stdin closes (or it is killed).
fn cat() -> Command {
    let mut command = Command::new("cat");
    command.stdin(Stdio::piped()).stdout(Stdio::null());
    command
}

/// A child that runs until it is killed.
fn sleeper() -> Command {
    let mut command = Command::new("sleep");
    command.arg("1000");
    command
}

rt_test! {
    fn exit_codes_are_reported() {
        rt().block_on(async {
            let status = Command::new("true").status().await.unwrap();
            assert!(status.success());
            let status = sh("exit 3").status().await.unwrap();
            assert_eq!(status.code(), Some(3));
            assert_eq!(status.signal(), None);
        });
    }

    fn a_missing_program_is_not_found() {
        rt().block_on(async {
            let err = Command::new("/nonexistent/tokiwa-no-such-program")
                .spawn()
                .unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::NotFound);
            let err = Command::new("tokiwa-no-such-program-on-path")
                .output()
                .await
                .unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::NotFound);
        });
    }

    fn a_child_that_exited_before_wait_is_reaped_by_wait() {
        rt().block_on(async {
            let mut child = Command::new("true").spawn().unwrap();
            let id = proc_id(child.id().unwrap());
            wait_zombie(id);
            let status = child.wait().await.unwrap();
            assert!(status.success());
            assert!(is_reaped(id));
            assert_eq!(child.id(), None);
            // The status is kept.
            assert!(child.wait().await.unwrap().success());
            assert!(child.try_wait().unwrap().unwrap().success());
        });
    }

    fn try_wait_before_and_after_exit() {
        rt().block_on(async {
            let mut child = cat().spawn().unwrap();
            let id = proc_id(child.id().unwrap());
            // `cat` is blocked reading its stdin, which we hold open.
            assert!(child.try_wait().unwrap().is_none());
            assert!(child.id().is_some());
            drop(child.stdin.take());
            wait_zombie(id);
            let status = child.try_wait().unwrap().expect("exited");
            assert!(status.success());
            assert!(is_reaped(id));
            assert_eq!(child.try_wait().unwrap(), Some(status));
            assert_eq!(child.wait().await.unwrap(), status);
        });
    }

    fn kill_reports_sigkill() {
        rt().block_on(async {
            let mut child = sleeper().spawn().unwrap();
            let id = proc_id(child.id().unwrap());
            child.kill().await.unwrap();
            let status = child.wait().await.unwrap();
            assert_eq!(status.signal(), Some(libc::SIGKILL));
            assert_eq!(status.code(), None);
            assert!(is_reaped(id));
            // Killing a child already waited for is not an error.
            child.start_kill().unwrap();
            child.kill().await.unwrap();
        });
    }

    fn an_external_signal_ends_the_wait() {
        rt().block_on(async {
            let mut child = sleeper().spawn().unwrap();
            let pid = child.id().unwrap() as libc::pid_t;
            let waiter = tokiwa::spawn(async move { child.wait().await });
            // SAFETY: `pid` is our child, not reaped yet (only `waiter`
            // reaps it, after this signal ends it).
            assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
            let status = waiter.await.unwrap().unwrap();
            assert_eq!(status.signal(), Some(libc::SIGKILL));
            let mut child = sleeper().spawn().unwrap();
            // SAFETY: as above.
            assert_eq!(unsafe { libc::kill(child.id().unwrap() as libc::pid_t, libc::SIGTERM) }, 0);
            assert_eq!(child.wait().await.unwrap().signal(), Some(libc::SIGTERM));
        });
    }

    fn two_hundred_concurrent_children() {
        rt().block_on(async {
            let waiters: Vec<_> = (0..200)
                .map(|i| {
                    tokiwa::spawn(async move {
                        let status = sh(&format!("exit {}", i % 100)).status().await.unwrap();
                        assert_eq!(status.code(), Some(i % 100), "child {i}");
                    })
                })
                .collect();
            for waiter in waiters {
                waiter.await.unwrap();
            }
        });
    }

    fn kill_on_drop_kills_and_reaps() {
        let rt = rt();
        let id = rt.block_on(async {
            let mut command = sleeper();
            assert!(!command.get_kill_on_drop());
            command.kill_on_drop(true);
            assert!(command.get_kill_on_drop());
            let child = command.spawn().unwrap();
            let id = proc_id(child.id().unwrap());
            drop(child);
            id
        });
        // `sleep 1000` ends only if it was killed; reaped means it ended.
        wait_reaped(id);
        drop(rt);
    }

    fn kill_on_drop_after_a_cancelled_wait() {
        rt().block_on(async {
            let mut child = sleeper().kill_on_drop(true).spawn().unwrap();
            let id = proc_id(child.id().unwrap());
            {
                let wait = std::pin::pin!(child.wait());
                assert!(futures::poll!(wait).is_pending());
            }
            drop(child);
            wait_reaped(id);
        });
    }

    fn no_zombie_is_left_behind_by_dropped_children() {
        let rt = rt();
        let ids = rt.block_on(async {
            let mut ids = Vec::new();
            // Children that will have exited when dropped...
            for _ in 0..10 {
                let child = Command::new("true").spawn().unwrap();
                let id = proc_id(child.id().unwrap());
                wait_zombie(id);
                drop(child);
                ids.push(id);
            }
            // ...and children still running: they exit once their stdin
            // (dropped with the `Child`) closes, after the drop.
            for _ in 0..10 {
                let child = cat().spawn().unwrap();
                ids.push(proc_id(child.id().unwrap()));
                drop(child);
            }
            ids
        });
        // Reaped without another spawn or wait, even once the runtime is
        // gone.
        drop(rt);
        for id in ids {
            wait_reaped(id);
        }
    }

    fn wait_with_output_captures_stdout_and_stderr() {
        rt().block_on(async {
            let child = sh("echo out; echo err >&2; exit 7")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let output = child.wait_with_output().await.unwrap();
            assert_eq!(output.status.code(), Some(7));
            assert_eq!(output.stdout, b"out\n");
            assert_eq!(output.stderr, b"err\n");

            let output = sh("printf x; printf y >&2").output().await.unwrap();
            assert!(output.status.success());
            assert_eq!(output.stdout, b"x");
            assert_eq!(output.stderr, b"y");
        });
    }

    fn environment_directory_and_arg0() {
        rt().block_on(async {
            let output = Command::new("/bin/sh")
                .arg("-c")
                .arg("echo \"$FOO:$HOME:$(pwd)\"")
                .env_clear()
                .env("FOO", "foo")
                .envs([("HOME", "/h")])
                .env("BAR", "x")
                .env_remove("BAR")
                .current_dir("/")
                .output()
                .await
                .unwrap();
            assert_eq!(output.stdout, b"foo:/h:/\n");

            // `argv[0]` as the program sees it.
            let output = Command::new("/bin/sh")
                .arg0("my-shell")
                .args(["-c", "echo $0"])
                .output()
                .await
                .unwrap();
            assert_eq!(output.stdout, b"my-shell\n");

            let std: std::process::Command = {
                let mut command = Command::new("true");
                command.kill_on_drop(true);
                command.as_std_mut().arg("x");
                assert_eq!(command.as_std().get_args().count(), 1);
                command.into_std()
            };
            let mut command = Command::from(std);
            assert!(!command.get_kill_on_drop());
            assert!(command.status().await.unwrap().success());
        });
    }

    fn process_group_puts_the_child_in_its_group() {
        rt().block_on(async {
            let mut child = sleeper().process_group(0).spawn().unwrap();
            let pid = child.id().unwrap() as libc::pid_t;
            // SAFETY: plain syscall on our unreaped child.
            assert_eq!(unsafe { libc::getpgid(pid) }, pid);
            // SAFETY: plain syscall: the whole new group, which is only the
            // child.
            assert_eq!(unsafe { libc::kill(-pid, libc::SIGKILL) }, 0);
            assert_eq!(child.wait().await.unwrap().signal(), Some(libc::SIGKILL));
        });
    }

    fn pre_exec_runs_in_the_child() {
        rt().block_on(async {
            let mut command = sh("umask");
            // SAFETY: `umask` is async-signal-safe.
            unsafe {
                command.pre_exec(|| {
                    libc::umask(0o027);
                    Ok(())
                });
            }
            let output = command.output().await.unwrap();
            assert_eq!(output.stdout, b"0027\n");

            let mut command = Command::new("true");
            // SAFETY: constructs an error without allocating.
            unsafe {
                command.pre_exec(|| Err(io::Error::from_raw_os_error(libc::EXDEV)));
            }
            let err = command.spawn().unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EXDEV));
        });
    }

    fn the_exit_is_watched_through_a_pidfd_unless_disabled() {
        rt().block_on(async {
            let mut child = cat().spawn().unwrap();
            let pidfds = open_pidfds();
            if fallback_run() {
                assert_eq!(pidfds, 0, "no pidfd in the SIGCHLD run");
            } else {
                assert!(pidfds >= 1, "the running child has a pidfd");
            }
            drop(child.stdin.take());
            assert!(child.wait().await.unwrap().success());
        });
    }

    fn a_child_outlives_its_runtime_and_is_waited_on_another() {
        // `cat` runs until its stdin closes: it is still running when the
        // runtime that spawned it (and registered its exit watch) is gone.
        let mut child = rt().block_on(async { cat().spawn().unwrap() });
        rt().block_on(async {
            drop(child.stdin.take());
            assert!(child.wait().await.unwrap().success());
        });
    }
}

#[test]
#[should_panic = "there is no reactor running"]
fn spawn_outside_a_runtime_panics() {
    let _ = Command::new("true").spawn();
}

/// Runs every other test of this binary again with pidfds disabled.
#[test]
fn sigchld_fallback_passes_the_suite() {
    if fallback_run() {
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--skip",
            "sigchld_fallback_passes_the_suite",
            "--test-threads=4",
        ])
        .env(NO_PIDFD, "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the SIGCHLD run failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The auto traits tokio's types have (tokio's `async_send_sync.rs`).
#[test]
fn types_and_futures_are_send_and_sync() {
    fn unpin<T: Send + Sync + Unpin>() {}
    fn future<F: std::future::Future + Send + Sync>(_: &F) {}
    unpin::<tokiwa::process::Child>();
    unpin::<tokiwa::process::ChildStdin>();
    unpin::<tokiwa::process::ChildStdout>();
    unpin::<tokiwa::process::ChildStderr>();
    unpin::<Command>();
    let rt = support::Flavor::current_thread().build();
    rt.block_on(async {
        let mut child = Command::new("true").spawn().unwrap();
        future(&child.wait());
        future(&child.kill());
        future(&Command::new("true").status());
        future(&Command::new("true").output());
        future(&child.wait_with_output());
    });
}
