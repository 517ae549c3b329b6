//! Runtimes and socket pairs for the completion I/O tests
//! (`tcp_completion.rs`, `tcp_completion_recv.rs`).
use std::net::{TcpListener as StdListener, TcpStream as StdStream};
use std::os::fd::AsRawFd;
use tokiwa::net::TcpStream;
use tokiwa::runtime::{Builder, Driver, Runtime};

/// Every driver × scheduler, each with the switch on. io_uring mode
/// unavailable: skipped visibly, or a failure under
/// `TOKIWA_REQUIRE_URING=1`.
pub fn runtimes(test: &str) -> Vec<(String, Runtime)> {
    let mut drivers = vec![Driver::Legacy];
    if cfg!(feature = "uring") {
        drivers.push(Driver::Uring);
    }
    let mut out = Vec::new();
    for driver in drivers {
        for workers in [0, 2] {
            let mut builder = if workers == 0 {
                Builder::new_current_thread()
            } else {
                let mut b = Builder::new_multi_thread();
                b.worker_threads(workers);
                b
            };
            builder
                .enable_all()
                .driver(driver)
                .uring_completion_io(true);
            match builder.build() {
                Ok(rt) => out.push((format!("{driver:?}/{workers} workers"), rt)),
                Err(e) if driver == Driver::Uring => {
                    if std::env::var_os("TOKIWA_REQUIRE_URING").is_some_and(|v| v == "1") {
                        panic!("{test}: io_uring mode unavailable ({e})");
                    }
                    eprintln!("{test}: io_uring SKIPPED ({e})");
                }
                Err(e) => panic!("{test}: legacy runtime: {e}"),
            }
        }
    }
    out
}

pub fn byte(i: usize) -> u8 {
    (i.wrapping_mul(31) ^ (i >> 9)) as u8
}

/// A loopback pair: a runtime stream (connected inside `rt`) and a std
/// peer.
pub fn pair(rt: &Runtime) -> (TcpStream, StdStream) {
    let listener = StdListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let stream = rt.block_on(TcpStream::connect(addr)).unwrap();
    let (peer, _) = listener.accept().unwrap();
    (stream, peer)
}

pub fn set_buf(fd: i32, opt: libc::c_int, size: libc::c_int) {
    // SAFETY: a valid socket and a pointer to an int of the given length.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            opt,
            (&size as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    assert_eq!(rc, 0, "setsockopt: {}", std::io::Error::last_os_error());
}

/// `SO_LINGER` 0 then close: the peer's connection is reset.
pub fn reset(peer: StdStream) {
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid socket and a `linger` of the right size.
    let rc = unsafe {
        libc::setsockopt(
            peer.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    assert_eq!(rc, 0);
    drop(peer);
}
