#![cfg(feature = "full")]
//! `tokiwa::process` on the SIGCHLD path (no pidfds, as before Linux 5.3)
//! out of descriptors: nothing that fails for want of a descriptor stays
//! failed once descriptors are free again.
//!
//! * Spawning, when the signal registry's eventfd cannot be created (the
//!   first use of the registry in the process), fails with the kernel's
//!   `EMFILE`; afterwards children are spawned and waited for.
//! * The orphan reaper thread, which could not be started then (no
//!   descriptor for its epoll instance), is started by a later orphan.
//! * The reaper's SIGCHLD wakeup, which could not be set up (no descriptor
//!   for its duplicate of the registry's eventfd), is set up by a later
//!   orphan, and the reaper then reaps orphans as they exit.
//!
//! Both the registry's state and the reaper are process-wide and created
//! on first use, so each driver's case runs in a child process of this
//! binary (`support::child`) with `TOKIWA_PROCESS_NO_PIDFD=1`; the
//! descriptor limit being per process too, the binary holds this one test.
//! Orphans are observed from outside through `/proc` (`support::process`).

#[macro_use]
mod support;

use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::Stdio;

use support::child::run_child_case;
use support::fds::Exhausted;
use support::flavor::driver_named;
use support::process::{proc_id, wait_reaped};
use support::{Flavor, DRIVERS, TEST_TIMEOUT};
use tokiwa::process::Command;
use tokiwa::runtime::Driver;

/// The driver whose case [`process_at_emfile_recovers`] runs in a child
/// process.
const CHILD_CASE: &str = "TOKIWA_PROCESS_EMFILE_CHILD_CASE";
const TEST_NAME: &str = "process_at_emfile_recovers";

/// `cat` reading a socket: it runs until the returned end is dropped. Its
/// spawn opens no descriptor in this process (std's `posix_spawn`, with
/// the child's stdin already open), so it gets as far as tokiwa's own
/// setup even when every descriptor is in use.
fn cat_until_closed() -> (Command, UnixStream) {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let mut command = Command::new("cat");
    command.stdin(Stdio::from(OwnedFd::from(theirs)));
    (command, ours)
}

/// The pids of this process's children running `cat`.
fn cat_children() -> Vec<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // `pid (comm) state ppid ...`; `comm` may hold spaces.
            let comm = &stat[stat.find('(').unwrap() + 1..stat.rfind(')').unwrap()];
            let ppid = stat[stat.rfind(')').unwrap() + 1..]
                .split_whitespace()
                .nth(1);
            comm == "cat" && ppid == Some(&me.to_string())
        })
        .collect()
}

fn child_case(driver: Driver) {
    let rt = Flavor::current_thread().on(driver).build();
    rt.block_on(async {
        // The registry's eventfd cannot be created: the spawn fails with
        // the kernel's error, after std started the child (which is then
        // an orphan, and the reaper cannot start either).
        let (mut command, stdin1) = cat_until_closed();
        let fillers = Exhausted::new();
        let err = command.spawn().unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EMFILE), "{err:?}");
        drop(fillers);
        let orphans = cat_children();
        assert_eq!(
            orphans.len(),
            1,
            "the error came from watching a started child: {orphans:?}"
        );
        let first = proc_id(orphans[0]);

        let status = tokiwa::time::timeout(TEST_TIMEOUT, Command::new("true").status())
            .await
            .expect("the exit is observed")
            .expect("descriptors are free again");
        assert!(status.success());

        // One descriptor free when a child becomes an orphan: enough for
        // the reaper's epoll instance, not for its SIGCHLD wakeup.
        let (mut command, stdin2) = cat_until_closed();
        let second = command.spawn().unwrap();
        let second_id = proc_id(second.id().unwrap());
        let mut fillers = Exhausted::new();
        fillers.free_one();
        drop(second);
        drop(fillers);

        // The next orphan finds a running reaper and gives it its wakeup.
        let (mut command, stdin3) = cat_until_closed();
        let third = command.spawn().unwrap();
        let third_id = proc_id(third.id().unwrap());
        drop(third);

        // Every orphan exits; nothing spawns from here on, so only the
        // reaper thread, woken by SIGCHLD, can reap them.
        drop((stdin1, stdin2, stdin3));
        for id in [first, second_id, third_id] {
            wait_reaped(id);
        }
    });
}

#[test]
fn process_at_emfile_recovers() {
    match std::env::var(CHILD_CASE) {
        Ok(case) => support::watchdog(TEST_TIMEOUT, move || {
            child_case(driver_named(&case));
            println!("child case {case}: ok");
        }),
        Err(_) => support::watchdog(TEST_TIMEOUT * 2, || {
            for driver in DRIVERS {
                run_child_case(
                    TEST_NAME,
                    CHILD_CASE,
                    &driver.to_string(),
                    &[("TOKIWA_PROCESS_NO_PIDFD", Some("1"))],
                );
            }
        }),
    }
}
