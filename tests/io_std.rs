#![cfg(feature = "full")]
//! `tokiwa::io::{stdin, stdout, stderr}` in a child process (this test
//! binary re-executed with `IO_STD_CASE` set, running `io_std_child`):
//!
//! * `echo_*`: a few MiB piped into stdin come back out of stdout intact
//!   while another pattern goes to stderr, from several tasks' handles;
//! * `broken_pipe_*`: a write to a stdout pipe whose reader is gone
//!   reports `BrokenPipe` (Rust programs ignore `SIGPIPE`).
//!
//! Each case runs on a current-thread (`_ct`) and a multi-thread (`_mt`)
//! runtime. The child frames its output with markers, since the test
//! harness prints to stdout too, and exits the process itself once done.
//!
//! With the `uring` feature the child also runs on the io_uring driver
//! (`_uring`).

#[macro_use]
mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::process::{Command, Stdio};

use support::net::{pattern, Checksum};
use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::runtime::{Builder, Driver, Runtime};

const CASE_VAR: &str = "IO_STD_CASE";
const BEGIN: &[u8] = b"<<tokiwa io_std begin>>";
const END: &[u8] = b"<<tokiwa io_std end>>";
const STDIN_LEN: usize = 3 << 20;
const STDERR_LEN: usize = 1 << 20;

fn checksum(bytes: &[u8]) -> Checksum {
    let mut sum = Checksum::new();
    sum.update(bytes);
    sum
}

fn runtime(case: &str) -> Runtime {
    let mut builder = if case.ends_with("_ct") || case.contains("_ct_") {
        Builder::new_current_thread()
    } else {
        let mut b = Builder::new_multi_thread();
        b.worker_threads(2);
        b
    };
    builder.enable_all();
    #[cfg(feature = "uring")]
    if case.contains("uring") {
        builder.driver(Driver::Uring);
    }
    if !case.contains("uring") {
        builder.driver(Driver::Legacy);
    }
    builder.build().unwrap()
}

/// The child's side: runs the case named by `IO_STD_CASE`, then exits the
/// process (0: every assertion held).
#[test]
fn io_std_child() {
    let Ok(case) = std::env::var(CASE_VAR) else {
        return;
    };
    let rt = runtime(&case);
    if case.starts_with("echo") {
        rt.block_on(async {
            // stdin to the end, through a handle made on another task.
            let input = tokiwa::spawn(async {
                let mut input = Vec::new();
                let mut stdin = tokiwa::io::stdin();
                assert!(stdin.as_raw_fd() == 0 && stdin.as_fd().as_raw_fd() == 0);
                stdin.read_to_end(&mut input).await.unwrap();
                input
            })
            .await
            .unwrap();
            assert_eq!(input.len(), STDIN_LEN);
            let err_task = tokiwa::spawn(async {
                let mut stderr = tokiwa::io::stderr();
                assert_eq!(stderr.as_raw_fd(), 2);
                stderr.write_all(BEGIN).await.unwrap();
                stderr.write_all(&pattern(STDERR_LEN, 2)).await.unwrap();
                stderr.write_all(END).await.unwrap();
                stderr.flush().await.unwrap();
            });
            let mut stdout = tokiwa::io::stdout();
            assert_eq!(stdout.as_raw_fd(), 1);
            stdout.write_all(BEGIN).await.unwrap();
            // In uneven pieces, so the 2 MiB chunking shows too.
            for piece in input.chunks(777_777) {
                stdout.write_all(piece).await.unwrap();
            }
            stdout.write_all(END).await.unwrap();
            stdout.flush().await.unwrap();
            err_task.await.unwrap();
        });
    } else if case.starts_with("broken_pipe") {
        // The harness has printed its lines; wait for the parent to close
        // our stdout (it says so with a byte on stdin).
        eprintln!("ready");
        let mut byte = [0];
        std::io::stdin().read_exact(&mut byte).unwrap();
        let err = rt.block_on(async {
            let mut stdout = tokiwa::io::stdout();
            let block = vec![b'x'; 64 << 10];
            loop {
                if let Err(e) = stdout.write_all(&block).await {
                    break e;
                }
                if let Err(e) = stdout.flush().await {
                    break e;
                }
            }
        });
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "{err:?}");
    } else {
        panic!("unknown case {case}");
    }
    drop(rt);
    eprintln!("child case {case}: ok");
    std::process::exit(0);
}

fn child(case: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", "io_std_child", "--nocapture", "--test-threads=1"])
        .env(CASE_VAR, case)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// The bytes between the markers of `out`.
fn framed(out: &[u8]) -> &[u8] {
    let find = |needle: &[u8], from: usize| {
        out[from..]
            .windows(needle.len())
            .position(|w| w == needle)
            .map(|i| i + from)
            .unwrap_or_else(|| panic!("marker {:?} missing", String::from_utf8_lossy(needle)))
    };
    let start = find(BEGIN, 0) + BEGIN.len();
    let end = out
        .windows(END.len())
        .rposition(|w| w == END)
        .unwrap_or_else(|| panic!("end marker missing"));
    assert!(start <= end);
    &out[start..end]
}

fn echo(case: &str) {
    let mut child = child(case).spawn().unwrap();
    let input = pattern(STDIN_LEN, 1);
    let mut stdin = child.stdin.take().unwrap();
    let writer = {
        let input = input.clone();
        std::thread::spawn(move || {
            stdin.write_all(&input).unwrap();
            // Dropped: EOF for the child.
        })
    };
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr_text = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{case}: {}\n{}",
        out.status,
        stderr_text.chars().take(4000).collect::<String>()
    );
    assert!(stderr_text.contains(&format!("child case {case}: ok")));
    assert_eq!(
        checksum(framed(&out.stdout)),
        checksum(&input),
        "{case}: stdout"
    );
    assert_eq!(
        checksum(framed(&out.stderr)),
        checksum(&pattern(STDERR_LEN, 2)),
        "{case}: stderr"
    );
}

fn broken_pipe(case: &str) {
    let mut child = child(case).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Once the child says "ready" (the harness has printed its lines and
    // the test waits on stdin), closing our end of its stdout makes every
    // later write EPIPE.
    let mut stderr_lines = BufReader::new(child.stderr.take().unwrap());
    let mut stderr = String::new();
    while !stderr.ends_with("ready\n") {
        assert!(
            stderr_lines.read_line(&mut stderr).unwrap() > 0,
            "{case}: {stderr}"
        );
    }
    drop(child.stdout.take());
    stdin.write_all(b"go").unwrap();
    drop(stdin);
    stderr_lines.read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert!(
        status.success() && stderr.contains(&format!("child case {case}: ok")),
        "{case}: {status}\n{stderr}"
    );
}

#[test]
fn echo_through_stdin_stdout_stderr_ct() {
    echo("echo_ct");
}

#[test]
fn echo_through_stdin_stdout_stderr_mt() {
    echo("echo_mt");
}

#[test]
fn stdout_to_a_closed_pipe_is_broken_pipe_ct() {
    broken_pipe("broken_pipe_ct");
}

#[test]
fn stdout_to_a_closed_pipe_is_broken_pipe_mt() {
    broken_pipe("broken_pipe_mt");
}

#[cfg(feature = "uring")]
#[test]
fn echo_and_broken_pipe_on_io_uring() {
    echo("echo_uring_mt");
    broken_pipe("broken_pipe_uring_ct");
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn stdout_outside_a_runtime_panics() {
    let mut out = tokiwa::io::stdout();
    let _ = futures::executor::block_on(out.write_all(b"hello\n"));
}
