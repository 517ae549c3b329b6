//! The epoll floor: one thread, one level-triggered `epoll`.
//!
//! A readable connection gets one `read` of up to 64 KiB and the bytes go
//! straight back with one `write`. A write the socket cannot take whole
//! keeps the rest, and the connection waits for `EPOLLOUT` instead of
//! `EPOLLIN` until it is out (so a slow reader never makes the loop spin).

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;

/// The listener's token; a connection's token is its index in `conns`.
const LISTENER: u64 = u64::MAX;

struct Conn {
    stream: TcpStream,
    /// Echo bytes the socket has not taken yet.
    pending: Vec<u8>,
}

fn ctl(epfd: i32, op: i32, fd: i32, events: u32, token: u64) {
    let mut ev = libc::epoll_event { events, u64: token };
    // SAFETY: `ev` is a valid event for the duration of the call.
    let rc = unsafe { libc::epoll_ctl(epfd, op, fd, &mut ev) };
    assert_eq!(rc, 0, "epoll_ctl: {}", std::io::Error::last_os_error());
}

pub fn serve(listener: TcpListener) -> ! {
    listener.set_nonblocking(true).expect("nonblocking");
    // SAFETY: a plain syscall; the descriptor is checked.
    let epfd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    assert!(
        epfd >= 0,
        "epoll_create1: {}",
        std::io::Error::last_os_error()
    );
    ctl(
        epfd,
        libc::EPOLL_CTL_ADD,
        listener.as_raw_fd(),
        libc::EPOLLIN as u32,
        LISTENER,
    );
    let mut conns: Vec<Option<Conn>> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 256];
    loop {
        // SAFETY: `events` has room for `events.len()` entries.
        let n = unsafe { libc::epoll_wait(epfd, events.as_mut_ptr(), events.len() as i32, -1) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            assert_eq!(e.kind(), ErrorKind::Interrupted, "epoll_wait: {e}");
            continue;
        }
        for ev in &events[..n as usize] {
            let token = ev.u64;
            if token == LISTENER {
                accept_all(&listener, epfd, &mut conns);
                continue;
            }
            let i = token as usize;
            let Some(conn) = conns[i].as_mut() else {
                continue;
            };
            let fd = conn.stream.as_raw_fd();
            let alive = if conn.pending.is_empty() {
                echo_once(conn, &mut buf)
            } else {
                drain(conn)
            };
            match alive {
                // The `epoll` entry goes with the descriptor.
                None => conns[i] = None,
                Some(was_pending) => {
                    let now_pending = !conn.pending.is_empty();
                    if was_pending != now_pending {
                        let want = if now_pending {
                            libc::EPOLLOUT
                        } else {
                            libc::EPOLLIN
                        };
                        ctl(epfd, libc::EPOLL_CTL_MOD, fd, want as u32, token);
                    }
                }
            }
        }
    }
}

fn accept_all(listener: &TcpListener, epfd: i32, conns: &mut Vec<Option<Conn>>) {
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                let _ = stream.set_nodelay(true);
                stream.set_nonblocking(true).expect("nonblocking");
                let i = match conns.iter().position(Option::is_none) {
                    Some(i) => i,
                    None => {
                        conns.push(None);
                        conns.len() - 1
                    }
                };
                ctl(
                    epfd,
                    libc::EPOLL_CTL_ADD,
                    stream.as_raw_fd(),
                    libc::EPOLLIN as u32,
                    i as u64,
                );
                conns[i] = Some(Conn {
                    stream,
                    pending: Vec::new(),
                });
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // Out of descriptors or the like: the next readiness retries.
            Err(_) => return,
        }
    }
}

/// One `read`, its bytes written back. `None`: the connection is over;
/// `Some(false)`: nothing was pending before.
fn echo_once(conn: &mut Conn, buf: &mut [u8]) -> Option<bool> {
    let n = match conn.stream.read(buf) {
        Ok(0) => return None,
        Ok(n) => n,
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
            return Some(false)
        }
        Err(_) => return None,
    };
    match conn.stream.write(&buf[..n]) {
        Ok(w) => conn.pending.extend_from_slice(&buf[w..n]),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {
            conn.pending.extend_from_slice(&buf[..n])
        }
        Err(_) => return None,
    }
    Some(false)
}

/// Writes what is pending. `None`: the connection is over.
fn drain(conn: &mut Conn) -> Option<bool> {
    match conn.stream.write(&conn.pending) {
        Ok(w) => {
            conn.pending.drain(..w);
        }
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
        Err(_) => return None,
    }
    Some(true)
}
