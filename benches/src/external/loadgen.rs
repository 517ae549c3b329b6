//! The echo load generator: a process of its own, started by the bench
//! (`tokiwa-benches --loadgen-echo ADDR CONNS MSG WARMUP_MS WINDOW_MS
//! [RATE]`), that knows nothing of any runtime.
//!
//! ONE thread drives every connection with non-blocking sockets and a
//! level-triggered `epoll`: closed loop, one message outstanding per
//! connection, latency = from the message's first `write` to the moment
//! the whole echo is back. One thread handling many completions per wakeup
//! is the cheapest client there is, so on a shared machine the server is
//! the side that runs out of CPU, as in `http_rows.rs`. It prints one line,
//! `trips=N elapsed_ns=E mean_ns=.. p50_ns=.. p99_ns=.. p999_ns=..`, parsed
//! by `external::tools`.
//!
//! **Paced** (`RATE`, round trips per second over all connections): each
//! connection sends at its own schedule, one message every `CONNS / RATE`
//! seconds (staggered across connections), still one outstanding at a
//! time, and latency counts from the *scheduled* send, so a server that
//! falls behind pays for the messages it delayed. Every server that keeps
//! up then serves the same throughput, and their latencies compare at
//! equal load; a `timerfd` in the same `epoll` wakes the loop for the
//! next send (re-armed only when the earliest due send changes).

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use crate::echo_round::percentile;

struct Conn {
    stream: TcpStream,
    /// Bytes of the current message written and echoed back so far.
    sent: usize,
    received: usize,
    started: Instant,
    /// Whether `EPOLLOUT` is in the interest (a write is unfinished).
    want_write: bool,
    /// Paced: when the next message is due (`None` while one is out).
    due: Option<Instant>,
}

/// The token of the pacing timer in the `epoll`.
const TIMER: u64 = u64::MAX;

fn epoll_ctl(epfd: i32, op: i32, fd: i32, events: u32, token: u64) {
    let mut ev = libc::epoll_event { events, u64: token };
    // SAFETY: `ev` is a valid event for the duration of the call.
    let rc = unsafe { libc::epoll_ctl(epfd, op, fd, &mut ev) };
    assert_eq!(rc, 0, "epoll_ctl: {}", std::io::Error::last_os_error());
}

/// Parses the arguments after `--loadgen-echo`, runs, prints the result.
pub fn main(args: &[String]) {
    let (addr, conns, msg, warmup_ms, window_ms, rate) = match args {
        [a, c, m, w, win] => (a, c, m, w, win, None),
        [a, c, m, w, win, r] => (a, c, m, w, win, Some(r)),
        _ => {
            eprintln!("usage: --loadgen-echo ADDR CONNS MSG WARMUP_MS WINDOW_MS [RATE]");
            std::process::exit(2);
        }
    };
    let rate: Option<f64> = rate.map(|r| r.parse().expect("rate"));
    let addr: SocketAddr = addr.parse().expect("address");
    let conns: usize = conns.parse().expect("connections");
    let msg: usize = msg.parse().expect("message size");
    let warmup = Duration::from_millis(warmup_ms.parse().expect("warm-up"));
    let window = Duration::from_millis(window_ms.parse().expect("window"));
    let out = vec![0x5au8; msg];
    let mut back = vec![0u8; msg.max(64 * 1024)];

    // SAFETY: a plain syscall; the descriptor is checked.
    let epfd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    assert!(
        epfd >= 0,
        "epoll_create1: {}",
        std::io::Error::last_os_error()
    );
    let mut conns: Vec<Conn> = (0..conns)
        .map(|i| {
            let stream = TcpStream::connect(addr).expect("connect");
            stream.set_nodelay(true).expect("nodelay");
            stream.set_nonblocking(true).expect("nonblocking");
            epoll_ctl(
                epfd,
                libc::EPOLL_CTL_ADD,
                stream.as_raw_fd(),
                libc::EPOLLIN as u32,
                i as u64,
            );
            Conn {
                stream,
                sent: 0,
                received: 0,
                started: Instant::now(),
                want_write: false,
                due: None,
            }
        })
        .collect();
    let start = Instant::now();
    let measure_from = start + warmup;
    let end = measure_from + window;
    // Paced: one message per connection every `interval`, staggered.
    let interval = rate.map(|r| Duration::from_secs_f64(conns.len() as f64 / r));
    let timer = interval.map(|_| Timer::new(epfd));
    let n_conns = conns.len() as u32;
    for (i, conn) in conns.iter_mut().enumerate() {
        match interval {
            Some(every) => conn.due = Some(start + every * i as u32 / n_conns),
            None => send(conn, &out, epfd, i),
        }
    }
    let mut rtts_ns: Vec<u64> = Vec::with_capacity(1 << 20);
    // Paced: how late this process sent each message of the window, which
    // every column's latency includes (the load generator's own wakeups).
    let late_ns = std::cell::RefCell::new(Vec::<u64>::new());
    let send_due = |conns: &mut [Conn]| {
        let Some(timer) = &timer else {
            return;
        };
        let now = Instant::now();
        for (i, conn) in conns.iter_mut().enumerate() {
            if let Some(due) = conn.due.filter(|&due| due <= now) {
                conn.due = None;
                if due >= measure_from && due <= end {
                    late_ns.borrow_mut().push((now - due).as_nanos() as u64);
                }
                send(conn, &out, epfd, i);
                // Latency counts from the schedule, not from the write.
                conn.started = due;
            }
        }
        if let Some(next) = conns.iter().filter_map(|c| c.due).min() {
            timer.set(next, now);
        }
    };
    send_due(&mut conns);
    until(epfd, end, |i, events| {
        if i as u64 == TIMER {
            if let Some(timer) = &timer {
                timer.clear();
            }
            send_due(&mut conns);
            return;
        }
        let conn = &mut conns[i];
        if events & libc::EPOLLOUT as u32 != 0 {
            send(conn, &out, epfd, i);
        }
        if events & (libc::EPOLLIN | libc::EPOLLHUP | libc::EPOLLERR) as u32 == 0 {
            return;
        }
        loop {
            let want = msg - conn.received;
            match conn.stream.read(&mut back[..want]) {
                Ok(0) => panic!("the server closed connection {i}"),
                Ok(n) => {
                    conn.received += n;
                    if conn.received < msg {
                        continue;
                    }
                    let done = Instant::now();
                    if conn.started >= measure_from && done <= end {
                        rtts_ns.push((done - conn.started).as_nanos() as u64);
                    }
                    conn.received = 0;
                    conn.sent = 0;
                    match interval {
                        Some(every) => {
                            conn.due = Some(conn.started + every);
                            send_due(&mut conns);
                        }
                        None => send(conn, &out, epfd, i),
                    }
                    break;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => panic!("read on connection {i}: {e}"),
            }
        }
    });
    report(rtts_ns, window);
    if interval.is_some() {
        let mut late = late_ns.take();
        late.sort_unstable();
        let mean = late.iter().map(|&ns| ns as f64).sum::<f64>() / late.len().max(1) as f64;
        let p = |permille| {
            if late.is_empty() {
                0
            } else {
                percentile(&late, permille)
            }
        };
        println!(
            "sent_late_mean_ns={mean:.0} sent_late_p50_ns={} sent_late_p99_ns={}",
            p(500),
            p(990)
        );
    }
}

/// Waits on `epfd` until `end`, handing each event's token and bits to
/// `on_event`.
fn until(epfd: i32, end: Instant, mut on_event: impl FnMut(usize, u32)) {
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 512];
    loop {
        let now = Instant::now();
        if now >= end {
            return;
        }
        let timeout_ms = (end - now).as_millis().min(100) as i32 + 1;
        // SAFETY: `events` is writable for `events.len()` entries.
        let n =
            unsafe { libc::epoll_wait(epfd, events.as_mut_ptr(), events.len() as i32, timeout_ms) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            assert_eq!(e.kind(), ErrorKind::Interrupted, "epoll_wait: {e}");
            continue;
        }
        for ev in &events[..n as usize] {
            on_event(ev.u64 as usize, ev.events);
        }
    }
}

/// The pacing timer: a `timerfd` in the load generator's `epoll`, and
/// the deadline it is armed for (`None` once it fired), so that a
/// completion that leaves the earliest due send unchanged costs no
/// syscall.
struct Timer(std::os::fd::OwnedFd, std::cell::Cell<Option<Instant>>);

impl Timer {
    fn new(epfd: i32) -> Timer {
        use std::os::fd::FromRawFd;
        // SAFETY: a plain syscall; the descriptor is checked, then owned.
        let fd = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        assert!(
            fd >= 0,
            "timerfd_create: {}",
            std::io::Error::last_os_error()
        );
        epoll_ctl(epfd, libc::EPOLL_CTL_ADD, fd, libc::EPOLLIN as u32, TIMER);
        // SAFETY: `fd` is open and owned by nothing else.
        Timer(
            unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) },
            std::cell::Cell::new(None),
        )
    }

    /// Fires once at `deadline` (`now` is the current time; at once if it
    /// has passed), unless it is armed for that deadline already.
    fn set(&self, deadline: Instant, now: Instant) {
        if self.1.get() == Some(deadline) {
            return;
        }
        self.1.set(Some(deadline));
        let after = deadline
            .saturating_duration_since(now)
            .max(Duration::from_nanos(1));
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: after.as_secs() as libc::time_t,
                tv_nsec: after.subsec_nanos() as libc::c_long,
            },
        };
        // SAFETY: `spec` is valid for the call; a null old value is allowed.
        let rc =
            unsafe { libc::timerfd_settime(self.0.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
        assert_eq!(
            rc,
            0,
            "timerfd_settime: {}",
            std::io::Error::last_os_error()
        );
    }

    /// Consumes the expiry count, so the level-triggered `epoll` quiets;
    /// the timer is disarmed.
    fn clear(&self) {
        self.1.set(None);
        let mut count = [0u8; 8];
        // SAFETY: `count` is 8 writable bytes; `EAGAIN` (nothing expired)
        // is fine.
        let _ = unsafe { libc::read(self.0.as_raw_fd(), count.as_mut_ptr().cast(), 8) };
    }
}

/// Prints the result line: trips in the window, their mean and their
/// percentiles.
fn report(mut rtts_ns: Vec<u64>, window: Duration) {
    let trips = rtts_ns.len();
    let mean_ns = rtts_ns.iter().map(|&ns| ns as f64).sum::<f64>() / trips.max(1) as f64;
    rtts_ns.sort_unstable();
    let p = |permille| {
        if trips == 0 {
            0
        } else {
            percentile(&rtts_ns, permille)
        }
    };
    println!(
        "trips={trips} elapsed_ns={} mean_ns={mean_ns:.0} p50_ns={} p99_ns={} p999_ns={}",
        window.as_nanos(),
        p(500),
        p(990),
        p(999)
    );
}

/// Starts (or continues) writing the current message of `conn`.
fn send(conn: &mut Conn, out: &[u8], epfd: i32, token: usize) {
    if conn.sent == 0 {
        conn.started = Instant::now();
    }
    while conn.sent < out.len() {
        match conn.stream.write(&out[conn.sent..]) {
            Ok(n) => conn.sent += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => panic!("write on connection {token}: {e}"),
        }
    }
    let want_write = conn.sent < out.len();
    if want_write != conn.want_write {
        let mut events = libc::EPOLLIN as u32;
        if want_write {
            events |= libc::EPOLLOUT as u32;
        }
        epoll_ctl(
            epfd,
            libc::EPOLL_CTL_MOD,
            conn.stream.as_raw_fd(),
            events,
            token as u64,
        );
        conn.want_write = want_write;
    }
}

/// A churning slot: one connection's life, then the next.
struct Slot {
    stream: Option<socket2::Socket>,
    connected: bool,
    sent: usize,
    received: usize,
    started: Instant,
}

/// The churn load generator (`--loadgen-churn ADDR SLOTS WARMUP_MS
/// WINDOW_MS`): SLOTS connections at a time, each connects, sends 64 bytes,
/// reads the echo and closes, and its slot starts the next at once.
/// Latency is from the `connect` to the whole echo. Prints
/// `trips=N elapsed_ns=E p50_ns=.. p99_ns=.. p999_ns=..`, one trip per
/// connection.
pub fn churn_main(args: &[String]) {
    let [addr, slots, warmup_ms, window_ms] = args else {
        eprintln!("usage: --loadgen-churn ADDR SLOTS WARMUP_MS WINDOW_MS");
        std::process::exit(2);
    };
    let addr: SocketAddr = addr.parse().expect("address");
    let slots: usize = slots.parse().expect("slots");
    let warmup = Duration::from_millis(warmup_ms.parse().expect("warm-up"));
    let window = Duration::from_millis(window_ms.parse().expect("window"));
    const MSG: usize = 64;
    let out = [0x5au8; MSG];
    let mut back = [0u8; MSG];
    // SAFETY: a plain syscall; the descriptor is checked.
    let epfd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    assert!(
        epfd >= 0,
        "epoll_create1: {}",
        std::io::Error::last_os_error()
    );
    let mut slots: Vec<Slot> = (0..slots)
        .map(|_| Slot {
            stream: None,
            connected: false,
            sent: 0,
            received: 0,
            started: Instant::now(),
        })
        .collect();
    let start = Instant::now();
    let measure_from = start + warmup;
    let end = measure_from + window;
    for (i, slot) in slots.iter_mut().enumerate() {
        connect(slot, addr, epfd, i);
    }
    let mut rtts_ns: Vec<u64> = Vec::with_capacity(1 << 18);
    until(epfd, end, |i, _| {
        let slot = &mut slots[i];
        let Some(stream) = slot.stream.as_ref() else {
            return;
        };
        if !slot.connected {
            match stream.take_error() {
                Ok(None) => slot.connected = true,
                Ok(Some(e)) | Err(e) => panic!("connect on slot {i}: {e}"),
            }
        }
        while slot.sent < MSG {
            match stream.send(&out[slot.sent..]) {
                Ok(n) => slot.sent += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => panic!("write on slot {i}: {e}"),
            }
        }
        loop {
            let buf = unsafe_uninit(&mut back[slot.received..]);
            match stream.recv(buf) {
                Ok(0) => panic!("the server closed slot {i} before the echo"),
                Ok(n) => {
                    slot.received += n;
                    if slot.received < MSG {
                        continue;
                    }
                    let done = Instant::now();
                    if slot.started >= measure_from && done <= end {
                        rtts_ns.push((done - slot.started).as_nanos() as u64);
                    }
                    // Closing drops it from the epoll set.
                    slot.stream = None;
                    connect(slot, addr, epfd, i);
                    break;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => panic!("read on slot {i}: {e}"),
            }
        }
    });
    report(rtts_ns, window);
}

/// `bytes` as the uninitialised-capable buffer socket2's `recv` takes.
fn unsafe_uninit(bytes: &mut [u8]) -> &mut [std::mem::MaybeUninit<u8>] {
    // SAFETY: initialised bytes are valid `MaybeUninit<u8>`s, and `recv`
    // only writes initialised bytes into them.
    unsafe { &mut *(bytes as *mut [u8] as *mut [std::mem::MaybeUninit<u8>]) }
}

/// Starts slot `i`'s next connection (non-blocking connect, `EPOLLOUT`
/// for its completion and `EPOLLIN` for the echo).
fn connect(slot: &mut Slot, addr: SocketAddr, epfd: i32, i: usize) {
    use socket2::{Domain, Protocol, SockAddr, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).expect("socket");
    socket.set_nonblocking(true).expect("nonblocking");
    socket.set_tcp_nodelay(true).expect("nodelay");
    slot.started = Instant::now();
    match socket.connect(&SockAddr::from(addr)) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => {}
        Err(e) => panic!("connect on slot {i}: {e}"),
    }
    epoll_ctl(
        epfd,
        libc::EPOLL_CTL_ADD,
        socket.as_raw_fd(),
        (libc::EPOLLIN | libc::EPOLLOUT | libc::EPOLLET) as u32,
        i as u64,
    );
    slot.stream = Some(socket);
    slot.connected = false;
    slot.sent = 0;
    slot.received = 0;
}
