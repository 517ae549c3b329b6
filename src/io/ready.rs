//! `Ready`: the readiness a resource was found to have.
// The crate-internal helpers serve the I/O driver only.
#![cfg_attr(not(tokiwa_io_driver), allow(dead_code))]
use std::fmt;
use std::ops;

/// Describes the readiness state of an I/O resource, as in tokio.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ready(usize);

const READABLE: usize = 0b00_0001;
const WRITABLE: usize = 0b00_0010;
const READ_CLOSED: usize = 0b00_0100;
const WRITE_CLOSED: usize = 0b00_1000;
const PRIORITY: usize = 0b01_0000;
const ERROR: usize = 0b10_0000;
const ALL: usize = READABLE | WRITABLE | READ_CLOSED | WRITE_CLOSED | PRIORITY | ERROR;

impl Ready {
    /// No readiness.
    pub const EMPTY: Ready = Ready(0);
    /// Readable.
    pub const READABLE: Ready = Ready(READABLE);
    /// Writable.
    pub const WRITABLE: Ready = Ready(WRITABLE);
    /// The read side is closed (EOF, `EPOLLRDHUP` or `EPOLLHUP`).
    pub const READ_CLOSED: Ready = Ready(READ_CLOSED);
    /// The write side is closed (`EPOLLHUP` or an error on a writer).
    pub const WRITE_CLOSED: Ready = Ready(WRITE_CLOSED);
    /// Urgent data is available (`EPOLLPRI`).
    pub const PRIORITY: Ready = Ready(PRIORITY);
    /// An error is pending (`EPOLLERR`).
    pub const ERROR: Ready = Ready(ERROR);
    /// Every kind of readiness.
    pub const ALL: Ready = Ready(ALL);

    /// Whether no readiness is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Readable, or the read side closed (a read returns at once).
    pub fn is_readable(self) -> bool {
        self.0 & (READABLE | READ_CLOSED) != 0
    }

    /// Writable, or the write side closed (a write returns at once).
    pub fn is_writable(self) -> bool {
        self.0 & (WRITABLE | WRITE_CLOSED) != 0
    }

    /// The read side is closed.
    pub fn is_read_closed(self) -> bool {
        self.0 & READ_CLOSED != 0
    }

    /// The write side is closed.
    pub fn is_write_closed(self) -> bool {
        self.0 & WRITE_CLOSED != 0
    }

    /// Urgent data is available.
    pub fn is_priority(self) -> bool {
        self.0 & PRIORITY != 0
    }

    /// An error is pending.
    pub fn is_error(self) -> bool {
        self.0 & ERROR != 0
    }

    pub(crate) const fn as_usize(self) -> usize {
        self.0
    }

    pub(crate) const fn from_usize(bits: usize) -> Ready {
        Ready(bits & ALL)
    }

    /// Readiness from epoll event flags, following the kernel's meaning of
    /// each flag (epoll_ctl(2), poll(2)).
    #[cfg(tokiwa_io_driver)]
    pub(crate) fn from_epoll(events: u32) -> Ready {
        let has = |flag: libc::c_int| events & flag as u32 != 0;
        let mut ready = Ready::EMPTY;
        if has(libc::EPOLLIN) || has(libc::EPOLLPRI) {
            ready |= Ready::READABLE;
        }
        if has(libc::EPOLLOUT) {
            ready |= Ready::WRITABLE;
        }
        // Hang-up closes both directions; RDHUP only the peer's writing
        // half, i.e. our read side.
        if has(libc::EPOLLHUP) || has(libc::EPOLLRDHUP) {
            ready |= Ready::READ_CLOSED;
        }
        if has(libc::EPOLLHUP) || has(libc::EPOLLERR) {
            ready |= Ready::WRITE_CLOSED;
        }
        if has(libc::EPOLLPRI) {
            ready |= Ready::PRIORITY;
        }
        if has(libc::EPOLLERR) {
            ready |= Ready::ERROR;
        }
        ready
    }
}

impl ops::BitOr for Ready {
    type Output = Ready;
    fn bitor(self, other: Ready) -> Ready {
        Ready(self.0 | other.0)
    }
}

impl ops::BitOrAssign for Ready {
    fn bitor_assign(&mut self, other: Ready) {
        self.0 |= other.0;
    }
}

impl ops::BitAnd for Ready {
    type Output = Ready;
    fn bitand(self, other: Ready) -> Ready {
        Ready(self.0 & other.0)
    }
}

impl ops::Sub for Ready {
    type Output = Ready;
    fn sub(self, other: Ready) -> Ready {
        Ready(self.0 & !other.0)
    }
}

impl fmt::Debug for Ready {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ready")
            .field("is_readable", &self.is_readable())
            .field("is_writable", &self.is_writable())
            .field("is_read_closed", &self.is_read_closed())
            .field("is_write_closed", &self.is_write_closed())
            .field("is_priority", &self.is_priority())
            .field("is_error", &self.is_error())
            .finish()
    }
}
