//! The io_uring floor: one thread, one ring, one `recv` and one `send` SQE
//! per message.
//!
//! Each connection has one operation in flight at a time, on its own 64 KiB
//! buffer: a `recv`, then a `send` of what arrived (continued while the
//! kernel takes part of it), then the next `recv`. The loop submits every
//! SQE the last completions produced with the same `io_uring_enter` that
//! waits for the next completion. The ring is set up with `SINGLE_ISSUER |
//! DEFER_TASKRUN` when the kernel has them (6.1+), as tokiwa's own.

use std::net::TcpListener;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use io_uring::{opcode, squeue, types, IoUring};

const BUF: usize = 64 * 1024;

/// What an SQE was for, in the low bits of its `user_data`; the
/// connection's index is above them.
const ACCEPT: u64 = 0;
const RECV: u64 = 1;
const SEND: u64 = 2;

struct Conn {
    fd: OwnedFd,
    buf: Box<[u8]>,
    /// The bytes of the current message received, and sent back so far.
    len: usize,
    sent: usize,
}

fn ring() -> IoUring {
    IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(512)
        .or_else(|_| IoUring::new(512))
        .expect("io_uring_setup")
}

/// Queues `sqe`, submitting what is queued first if the SQ is full.
fn push(ring: &mut IoUring, sqe: squeue::Entry) {
    loop {
        // SAFETY: every buffer and descriptor an SQE names belongs to a
        // `Conn` that is kept, unmoved (boxed buffer), until that SQE's
        // completion arrives: a connection has one operation in flight and
        // is dropped only when its completion says it is over.
        if unsafe { ring.submission().push(&sqe) }.is_ok() {
            return;
        }
        ring.submit().expect("io_uring_enter");
    }
}

fn recv(ring: &mut IoUring, i: usize, conn: &mut Conn) {
    let sqe = opcode::Recv::new(
        types::Fd(conn.fd.as_raw_fd()),
        conn.buf.as_mut_ptr(),
        BUF as u32,
    )
    .build()
    .user_data((i as u64) << 2 | RECV);
    push(ring, sqe);
}

fn send(ring: &mut IoUring, i: usize, conn: &mut Conn) {
    let rest = &conn.buf[conn.sent..conn.len];
    let sqe = opcode::Send::new(
        types::Fd(conn.fd.as_raw_fd()),
        rest.as_ptr(),
        rest.len() as u32,
    )
    .build()
    .user_data((i as u64) << 2 | SEND);
    push(ring, sqe);
}

fn accept(ring: &mut IoUring, listener: &TcpListener) {
    let sqe = opcode::Accept::new(
        types::Fd(listener.as_raw_fd()),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    )
    .flags(libc::SOCK_CLOEXEC)
    .build()
    .user_data(ACCEPT);
    push(ring, sqe);
}

pub fn serve(listener: TcpListener) -> ! {
    let mut ring = ring();
    let mut conns: Vec<Option<Conn>> = Vec::new();
    let mut done: Vec<(u64, i32)> = Vec::with_capacity(512);
    accept(&mut ring, &listener);
    loop {
        match ring.submit_and_wait(1) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(e) => panic!("io_uring_enter: {e}"),
        }
        done.extend(ring.completion().map(|c| (c.user_data(), c.result())));
        for (data, res) in done.drain(..) {
            let i = (data >> 2) as usize;
            match data & 3 {
                ACCEPT => {
                    accept(&mut ring, &listener);
                    if res < 0 {
                        continue;
                    }
                    // SAFETY: a successful accept returns a new descriptor
                    // that nothing else owns.
                    let fd = unsafe { OwnedFd::from_raw_fd(res) };
                    let _ = socket2::SockRef::from(&fd).set_tcp_nodelay(true);
                    let i = match conns.iter().position(Option::is_none) {
                        Some(i) => i,
                        None => {
                            conns.push(None);
                            conns.len() - 1
                        }
                    };
                    let conn = conns[i].insert(Conn {
                        fd,
                        buf: vec![0u8; BUF].into_boxed_slice(),
                        len: 0,
                        sent: 0,
                    });
                    recv(&mut ring, i, conn);
                }
                RECV => {
                    let conn = conns[i].as_mut().expect("a recv in flight");
                    if res <= 0 {
                        conns[i] = None;
                        continue;
                    }
                    conn.len = res as usize;
                    conn.sent = 0;
                    send(&mut ring, i, conn);
                }
                _ => {
                    let conn = conns[i].as_mut().expect("a send in flight");
                    if res < 0 {
                        conns[i] = None;
                        continue;
                    }
                    conn.sent += res as usize;
                    if conn.sent < conn.len {
                        send(&mut ring, i, conn);
                    } else {
                        recv(&mut ring, i, conn);
                    }
                }
            }
        }
    }
}
