//! `Interest`: which readiness events a registration asks the driver for.
// The crate-internal helpers serve the I/O driver only.
#![cfg_attr(not(tokiwa_io_driver), allow(dead_code))]
use super::ready::Ready;
use std::fmt;
use std::ops;

/// Readiness events an I/O resource is interested in, as in tokio.
///
/// Combine them with `|`: `Interest::READABLE | Interest::WRITABLE`.
#[derive(Clone, Copy, Eq, PartialEq)]
pub struct Interest(u8);

const READABLE: u8 = 0b0001;
const WRITABLE: u8 = 0b0010;
const PRIORITY: u8 = 0b0100;
const ERROR: u8 = 0b1000;

impl Interest {
    /// Interest in reading (and in the read side closing).
    pub const READABLE: Interest = Interest(READABLE);
    /// Interest in writing (and in the write side closing).
    pub const WRITABLE: Interest = Interest(WRITABLE);
    /// Interest in urgent, out-of-band data (`EPOLLPRI`).
    pub const PRIORITY: Interest = Interest(PRIORITY);
    /// Interest in error readiness (`EPOLLERR` is always reported by the
    /// kernel; this lets a caller wait for it alone).
    pub const ERROR: Interest = Interest(ERROR);

    /// Whether readable interest is included.
    pub const fn is_readable(self) -> bool {
        self.0 & READABLE != 0
    }

    /// Whether writable interest is included.
    pub const fn is_writable(self) -> bool {
        self.0 & WRITABLE != 0
    }

    /// Whether priority interest is included.
    pub const fn is_priority(self) -> bool {
        self.0 & PRIORITY != 0
    }

    /// Whether error interest is included.
    pub const fn is_error(self) -> bool {
        self.0 & ERROR != 0
    }

    /// Both interests together.
    pub const fn add(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }

    /// `self` without `other`; `None` when nothing would be left.
    pub fn remove(self, other: Interest) -> Option<Interest> {
        let rest = self.0 & !other.0;
        (rest != 0).then_some(Interest(rest))
    }

    /// The readiness bits that satisfy this interest: closing counts as
    /// ready, because the operation will then return at once.
    pub(crate) fn mask(self) -> Ready {
        let mut ready = Ready::EMPTY;
        if self.is_readable() {
            ready |= Ready::READABLE | Ready::READ_CLOSED;
        }
        if self.is_writable() {
            ready |= Ready::WRITABLE | Ready::WRITE_CLOSED;
        }
        if self.is_priority() {
            ready |= Ready::PRIORITY | Ready::READ_CLOSED;
        }
        if self.is_error() {
            ready |= Ready::ERROR;
        }
        ready
    }

    /// The epoll event flags for this interest (edge-triggered).
    #[cfg(tokiwa_io_driver)]
    pub(crate) fn to_epoll(self) -> u32 {
        let mut events = libc::EPOLLET as u32;
        if self.is_readable() {
            events |= (libc::EPOLLIN | libc::EPOLLRDHUP) as u32;
        }
        if self.is_writable() {
            events |= libc::EPOLLOUT as u32;
        }
        if self.is_priority() {
            events |= libc::EPOLLPRI as u32;
        }
        // EPOLLERR and EPOLLHUP are always reported; nothing to add for
        // `ERROR`.
        events
    }
}

impl ops::BitOr for Interest {
    type Output = Interest;
    fn bitor(self, other: Interest) -> Interest {
        self.add(other)
    }
}

impl ops::BitOrAssign for Interest {
    fn bitor_assign(&mut self, other: Interest) {
        *self = self.add(other);
    }
}

impl fmt::Debug for Interest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (self.is_readable(), "READABLE"),
            (self.is_writable(), "WRITABLE"),
            (self.is_priority(), "PRIORITY"),
            (self.is_error(), "ERROR"),
        ];
        let mut first = true;
        for (_, name) in names.iter().filter(|(on, _)| *on) {
            if !first {
                f.write_str(" | ")?;
            }
            f.write_str(name)?;
            first = false;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_remove_and_debug() {
        let both = Interest::READABLE | Interest::WRITABLE;
        assert!(both.is_readable() && both.is_writable() && !both.is_priority());
        assert_eq!(both.remove(Interest::WRITABLE), Some(Interest::READABLE));
        assert_eq!(Interest::READABLE.remove(Interest::READABLE), None);
        assert_eq!(format!("{both:?}"), "READABLE | WRITABLE");
        assert!(Interest::READABLE.mask().is_read_closed());
        assert!(!Interest::READABLE.mask().is_writable());
    }
}
