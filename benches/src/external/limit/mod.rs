//! The floor of the echo rows: two hand-written one-thread echo servers,
//! run beside the runtimes so a reader sees how close each comes to the
//! least a server can do per message.
//!
//! * `epoll.rs`: one level-triggered `epoll`, one `read` and one `write`
//!   per message (and `epoll_wait`, shared by every connection ready at
//!   once);
//! * `uring.rs`: one io_uring (`SINGLE_ISSUER | DEFER_TASKRUN` where the
//!   kernel has them), one `recv` and one `send` SQE per message, every
//!   SQE of a turn submitted by the one `io_uring_enter` that waits for
//!   the next completions.
//!
//! Neither is a runtime: no tasks, no wakers, no timers, no second thread.
//! They answer the bench's `COUNTERS` line like the runtime servers (with
//! `none`) and end when their stdin closes, so `external::Server` drives
//! them unchanged (`tokiwa-benches --serve-limit epoll|uring`).

mod epoll;
mod uring;

use std::io::Write;
use std::net::TcpListener;

/// Which floor server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Epoll,
    Uring,
}

impl Limit {
    pub const ALL: [Limit; 2] = [Limit::Epoll, Limit::Uring];

    /// The name in the table (at most 8 characters) and on the command line.
    pub fn label(self) -> &'static str {
        match self {
            Limit::Epoll => "epoll1t",
            Limit::Uring => "uring1t",
        }
    }

    pub fn parse(s: &str) -> Option<Limit> {
        Limit::ALL.into_iter().find(|l| l.label() == s)
    }
}

/// `tokiwa-benches --serve-limit epoll1t|uring1t`.
pub fn serve_main(args: &[String]) {
    let Some(limit) = args.first().and_then(|a| Limit::parse(a)) else {
        eprintln!("usage: --serve-limit epoll1t|uring1t");
        std::process::exit(2);
    };
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("local_addr").port();
    let mut stdout = std::io::stdout();
    writeln!(stdout, "PORT {port}").expect("stdout");
    stdout.flush().expect("stdout");
    std::thread::spawn(|| {
        for line in std::io::BufRead::lines(std::io::stdin().lock()) {
            let Ok(line) = line else { break };
            if line.trim() == "COUNTERS" {
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(stdout, "COUNTERS none");
                let _ = stdout.flush();
            }
        }
        std::process::exit(0);
    });
    match limit {
        Limit::Epoll => epoll::serve(listener),
        Limit::Uring => uring::serve(listener),
    }
}
