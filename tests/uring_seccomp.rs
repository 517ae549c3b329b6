#![cfg(all(feature = "full", feature = "uring", target_arch = "x86_64"))]
//! A sandbox that refuses io_uring: a seccomp filter makes
//! `io_uring_setup` fail with `ENOSYS` for one thread (and the threads it
//! starts). There, `Driver::Uring` must fail to build with an error naming
//! the refused capability and the errno, and `Driver::Auto` must give a
//! working legacy runtime that says why.
//!
//! The kernel probe is cached per process, so each order is its own child
//! process of this binary: the probe first passed on a clean thread (the
//! refusal then comes from the workers' ring setup), or it first ran on
//! the sandboxed thread (the refusal is the probe's cached answer). The
//! filter is only ever installed in those children.

#[macro_use]
mod support;

use std::io;

use support::TEST_TIMEOUT;
use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::net::{TcpListener, TcpStream};
use tokiwa::runtime::{Builder, Driver, Runtime};

/// Which order [`seccomp_child`] runs.
const CHILD_CASE: &str = "TOKIWA_SECCOMP_TEST_CHILD_CASE";

/// Makes `io_uring_setup` fail with `ENOSYS` on the calling thread and on
/// the threads it starts from now on.
fn refuse_io_uring_setup() {
    const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    /// `struct seccomp_data`: `int nr; __u32 arch; ...`.
    const NR: u32 = 0;
    const ARCH: u32 = 4;
    const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
    let stmt = |code, k| libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |k, jt, jf| libc::sock_filter {
        code: JEQ_K,
        jt,
        jf,
        k,
    };
    let mut filter = [
        stmt(LD_W_ABS, ARCH),
        // Another ABI (x32, i386 syscalls): leave it alone.
        jump(AUDIT_ARCH_X86_64, 1, 0),
        stmt(RET_K, libc::SECCOMP_RET_ALLOW),
        stmt(LD_W_ABS, NR),
        jump(libc::SYS_io_uring_setup as u32, 0, 1),
        stmt(RET_K, libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        stmt(RET_K, libc::SECCOMP_RET_ALLOW),
    ];
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_mut_ptr(),
    };
    // SAFETY: plain syscalls; `prog` points at `filter`, both alive for
    // the call (the kernel copies the program). Without the TSYNC flag the
    // filter applies to this thread only.
    unsafe {
        assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
        let rc = libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &prog as *const libc::sock_fprog,
        );
        assert_eq!(rc, 0, "seccomp: {}", io::Error::last_os_error());
    }
}

fn build(driver: Driver, multi: bool) -> io::Result<Runtime> {
    let mut builder = if multi {
        let mut b = Builder::new_multi_thread();
        b.worker_threads(2);
        b
    } else {
        Builder::new_current_thread()
    };
    builder.driver(driver).enable_all().build()
}

/// One TCP echo through `rt`, with a spawned server.
fn echo_once(rt: &Runtime) {
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokiwa::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 4];
            socket.read_exact(&mut buf).await.unwrap();
            socket.write_all(&buf).await.unwrap();
        });
        let mut client = TcpStream::connect(addr).await.unwrap();
        client.write_all(b"ping").await.unwrap();
        let mut back = [0u8; 4];
        client.read_exact(&mut back).await.unwrap();
        assert_eq!(&back, b"ping");
        server.await.unwrap();
    });
}

/// What the sandboxed thread must see, whichever order the probe ran in.
fn check_sandboxed_thread() {
    for multi in [false, true] {
        let err = build(Driver::Uring, multi).expect_err("io_uring was refused");
        let msg = err.to_string();
        assert_eq!(err.kind(), io::ErrorKind::Unsupported, "{msg}");
        assert!(
            msg.contains("io_uring_setup"),
            "names the capability: {msg}"
        );
        assert!(
            msg.contains(&io::Error::from_raw_os_error(libc::ENOSYS).to_string()),
            "names the errno: {msg}"
        );

        let rt = build(Driver::Auto, multi).expect("Auto falls back to legacy");
        assert_eq!(rt.handle().driver(), Driver::Legacy);
        let reason = rt.handle().driver_fallback_reason().expect("a reason");
        assert!(reason.contains("io_uring"), "{reason}");
        assert!(reason.contains("io_uring_setup"), "{reason}");
        echo_once(&rt);
        let spawned = rt.block_on(rt.spawn(async { 6 * 7 })).unwrap();
        assert_eq!(spawned, 42);
    }
}

/// The body of the child processes of
/// [`seccomp_refusal_gives_an_error_or_a_legacy_runtime`]; a no-op in a
/// normal run.
#[test]
fn seccomp_child() {
    let Ok(case) = std::env::var(CHILD_CASE) else {
        return;
    };
    match case.as_str() {
        "probe-first" => {
            // The probe passes on this (clean) thread and is cached.
            let rt = build(Driver::Uring, true).unwrap();
            assert_eq!(rt.handle().driver(), Driver::Uring);
            echo_once(&rt);
        }
        "sandbox-first" => {}
        other => panic!("unknown case {other}"),
    }
    std::thread::spawn(|| {
        refuse_io_uring_setup();
        check_sandboxed_thread();
    })
    .join()
    .unwrap();
    println!("child case {case}: ok");
}

#[test]
fn seccomp_refusal_gives_an_error_or_a_legacy_runtime() {
    support::watchdog(TEST_TIMEOUT, run_children);
}

fn run_children() {
    for case in ["probe-first", "sandbox-first"] {
        // The builder's choice is explicit everywhere; keep the
        // environment out of it anyway.
        support::child::run_child_case(
            "seccomp_child",
            CHILD_CASE,
            case,
            &[("TOKIWA_DRIVER", None)],
        );
    }
}
