#![cfg(feature = "full")]
//! `tokiwa::process` pipes: `ChildStdin` is an `AsyncWrite`, `ChildStdout`
//! and `ChildStderr` are `AsyncRead`s on the I/O driver, on every flavour
//! and driver; large transfers in both directions at once arrive intact;
//! the conversions back to blocking descriptors work.

#[macro_use]
mod support;

use std::io::Read;
use std::os::fd::{AsFd, AsRawFd};
use std::process::Stdio;
use std::sync::OnceLock;

use support::net::{pattern, Checksum};
use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::process::{ChildStderr, ChildStdin, ChildStdout, Command};

const BIG: usize = 64 << 20;

/// 64 MiB of test data and its checksum, made once per binary.
fn big() -> &'static (Vec<u8>, Checksum) {
    static BIG_DATA: OnceLock<(Vec<u8>, Checksum)> = OnceLock::new();
    BIG_DATA.get_or_init(|| {
        let data = pattern(BIG, 0x5eed);
        let mut sum = Checksum::new();
        sum.update(&data);
        (data, sum)
    })
}

fn cat() -> Command {
    let mut command = Command::new("cat");
    command.stdin(Stdio::piped()).stdout(Stdio::piped());
    command
}

rt_test! {
    fn cat_echoes_64_mib_written_and_read_concurrently() {
        let (data, expected) = big();
        rt().block_on(async {
            let mut child = cat().spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let mut stdout = child.stdout.take().unwrap();
            // The pipes hold 64 KiB each way: neither side can finish
            // without the other making progress.
            let writer = async move {
                for chunk in data.chunks(1 << 20) {
                    stdin.write_all(chunk).await.unwrap();
                }
                // Dropped: `cat` sees the end of its input.
            };
            let reader = async {
                let mut sum = Checksum::new();
                let mut buf = vec![0; 1 << 16];
                loop {
                    let n = stdout.read(&mut buf).await.unwrap();
                    if n == 0 {
                        break sum;
                    }
                    sum.update(&buf[..n]);
                }
            };
            let ((), sum) = tokiwa::join!(writer, reader);
            assert_eq!(sum.len(), BIG as u64);
            assert_eq!(&sum, expected);
            assert!(child.wait().await.unwrap().success());
        });
    }

    fn writer_and_reader_on_different_tasks() {
        rt().block_on(async {
            let data = pattern(4 << 20, 7);
            let mut expected = Checksum::new();
            expected.update(&data);
            let mut child = cat().spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let mut stdout = child.stdout.take().unwrap();
            let writer = tokiwa::spawn(async move {
                stdin.write_all(&data).await.unwrap();
                stdin.flush().await.unwrap();
                stdin.shutdown().await.unwrap();
            });
            let reader = tokiwa::spawn(async move {
                let mut out = Vec::new();
                stdout.read_to_end(&mut out).await.unwrap();
                out
            });
            writer.await.unwrap();
            let out = reader.await.unwrap();
            let mut sum = Checksum::new();
            sum.update(&out);
            assert_eq!(sum, expected);
            assert!(child.wait().await.unwrap().success());
        });
    }

    fn stderr_is_readable() {
        rt().block_on(async {
            let mut child = Command::new("/bin/sh")
                .args(["-c", "echo to-stderr >&2"])
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).await.unwrap();
            assert_eq!(err, "to-stderr\n");
            assert!(child.wait().await.unwrap().success());
        });
    }

    fn wait_closes_stdin() {
        rt().block_on(async {
            // `cat` exits only once its stdin closes: `wait` must close it.
            let mut child = cat().stdout(Stdio::null()).spawn().unwrap();
            assert!(child.stdin.is_some());
            assert!(child.wait().await.unwrap().success());
            assert!(child.stdin.is_none());
        });
    }

    fn a_stdout_pipe_becomes_the_next_childs_stdin() {
        rt().block_on(async {
            let mut first = Command::new("echo")
                .arg("hello")
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let stdout: ChildStdout = first.stdout.take().unwrap();
            let stdio: Stdio = stdout.try_into().unwrap();
            let output = Command::new("tr")
                .args(["a-z", "A-Z"])
                .stdin(stdio)
                .output()
                .await
                .unwrap();
            assert_eq!(output.stdout, b"HELLO\n");
            assert!(first.wait().await.unwrap().success());
        });
    }

    fn descriptors_convert_back_to_blocking() {
        rt().block_on(async {
            let mut child = Command::new("/bin/sh")
                .args(["-c", "read line; echo \"got $line\"; echo e >&2"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let stdin: ChildStdin = child.stdin.take().unwrap();
            let stdout: ChildStdout = child.stdout.take().unwrap();
            let stderr: ChildStderr = child.stderr.take().unwrap();
            assert_eq!(stdin.as_raw_fd(), stdin.as_fd().as_raw_fd());
            assert!(stdout.as_raw_fd() >= 0 && stderr.as_raw_fd() >= 0);

            let stdin = std::fs::File::from(stdin.into_owned_fd().unwrap());
            let mut stdout = std::fs::File::from(stdout.into_owned_fd().unwrap());
            let stderr: Stdio = stderr.try_into().unwrap();
            drop(stderr);
            // SAFETY: plain syscall on a descriptor we own.
            let flags = unsafe { libc::fcntl(stdout.as_raw_fd(), libc::F_GETFL) };
            assert_eq!(flags & libc::O_NONBLOCK, 0, "back in blocking mode");
            std::io::Write::write_all(&mut &stdin, b"x\n").unwrap();
            drop(stdin);
            // Blocking reads, off the runtime's threads.
            let out = tokiwa::task::spawn_blocking(move || {
                let mut out = String::new();
                stdout.read_to_string(&mut out).unwrap();
                out
            })
            .await
            .unwrap();
            assert_eq!(out, "got x\n");
            child.wait().await.unwrap();
        });
    }

    fn from_std_pipes() {
        rt().block_on(async {
            let mut std_child = std::process::Command::new("cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = ChildStdin::from_std(std_child.stdin.take().unwrap()).unwrap();
            let mut stdout = ChildStdout::from_std(std_child.stdout.take().unwrap()).unwrap();
            stdin.write_all(b"ping").await.unwrap();
            drop(stdin);
            let mut out = Vec::new();
            stdout.read_to_end(&mut out).await.unwrap();
            assert_eq!(out, b"ping");
            // A blocking wait on a child that has closed its stdout: it is
            // exiting.
            assert!(std_child.wait().unwrap().success());
        });
    }
}
