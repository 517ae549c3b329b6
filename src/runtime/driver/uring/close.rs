//! Closing a socket at once, whatever the ring that polls it is doing.
//!
//! A resource's multishot `PollAdd` holds a reference to the socket's
//! *file*, taken when the kernel resolved the descriptor at submission: the
//! descriptor number plays no part after that, so closing it is safe (a
//! reused number is never polled by mistake), but it does not close the
//! socket either. Only the ring's owner can end the poll and drop that
//! reference: `SINGLE_ISSUER` lets only it submit the cancel (and makes
//! `io_uring_register`'s synchronous cancel fail with `EEXIST` on any
//! other thread), and `DEFER_TASKRUN` lets only it run the cancelled
//! poll's completion, which is where the reference is dropped. On the
//! owner, `IoState::deregister` submits the cancel and the same
//! `io_uring_enter` runs that work, so the socket closes when its
//! descriptor does. Another thread can only ask (a request, and the
//! eventfd if the owner sleeps).
//!
//! That is not enough: an owner busy in a task does not turn until the task
//! yields, and a current-thread runtime outside `block_on` has no thread
//! turning its ring at all. The socket then stayed open: no EOF for the
//! peer, a listener that kept accepting, where legacy mode and tokio close
//! it at once. A program whose owner thread waits for the peer to see that
//! EOF deadlocks. Waking the owner harder does not help (there is no
//! preempting a task), and waiting for it in `drop` would block.
//!
//! So such a close is made effective by `shutdown(2)` before the
//! descriptor is closed ([`shut_down`]), the one way to stop a socket that
//! does not go through its file's last reference: a stream's peer sees EOF
//! (the FIN follows the data still queued, as after `close`), a TCP
//! listener stops listening (`inet_shutdown` disconnects a listener: its
//! queued connections are reset, new ones refused, and its port can be
//! bound again by a socket with `SO_REUSEADDR`), a Unix listener refuses
//! `connect`. The file itself is released when the owner runs the cancel.
//!
//! **When.** Only when the poll may still hold the file once the call
//! returns ([`super::WorkerRing::deregister`] says so): dropped off the
//! ring's owner with the poll armed, or on the owner when the kernel
//! refused the cancel's submit. A resource never polled, polled by a ring
//! its runtime closed (the kernel cancels those polls itself), or dropped
//! on the owner, is simply closed. The check costs nothing on the owner's
//! path.
//!
//! **What it changes.** `shutdown(2)` acts on the socket, not on the
//! descriptor: a duplicate of the descriptor (`dup`, one passed to another
//! process with `SCM_RIGHTS`, one a child inherited) loses the connection
//! too, where `close` alone leaves it to the duplicate. No call tells
//! whether another descriptor shares a file. A program that hands a socket
//! on gives it up with `into_std()` (which deregisters and closes nothing)
//! rather than dropping it.
//!
//! **What it does not cover.** A pipe or another descriptor that is not a
//! socket has no `shutdown` (`ENOTSOCK`), nor does a datagram socket a
//! port to give back: they close at the owner's next turn, at once if it
//! sleeps, within its maintenance interval if it runs tasks.
//!
//! **`AsyncFd`.** Whether dropping the object closes the descriptor is the
//! object's business (a wrapper of a raw descriptor does not). A
//! [`CloseWatch`] holds a duplicate across the object's drop and shuts the
//! socket down only if the object's descriptor is gone afterwards.
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Shuts the socket `fd` down in both directions (see the module docs).
/// An error changes nothing for the close that follows: `ENOTSOCK` (not a
/// socket), `ENOTCONN` (a socket never connected, whose flags are set all
/// the same), `EBADF` (impossible: the caller owns `fd`).
pub(crate) fn shut_down(fd: RawFd) {
    // SAFETY: a plain syscall on a descriptor the caller owns.
    let _ = unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
}

/// A duplicate of a descriptor whose object is about to be dropped, to
/// tell afterwards whether the drop closed it (see the module docs).
#[derive(Debug)]
pub(crate) struct CloseWatch {
    dup: OwnedFd,
    /// The file's device and inode.
    id: (u64, u64),
}

/// The device and inode of `fd`'s file, `None` if `fd` is not open.
fn file_id(fd: RawFd) -> Option<(u64, u64)> {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `stat` is writable memory of the right size; a closed `fd`
    // fails with `EBADF`.
    if unsafe { libc::fstat(fd, stat.as_mut_ptr()) } < 0 {
        return None;
    }
    // SAFETY: `fstat` succeeded, so it initialised `stat`.
    let stat = unsafe { stat.assume_init() };
    Some((stat.st_dev, stat.st_ino))
}

impl CloseWatch {
    /// Duplicates `fd`. `None` when no descriptor is left for the duplicate
    /// (`EMFILE`): the socket then closes at the owner's next turn.
    pub(crate) fn new(fd: RawFd) -> Option<CloseWatch> {
        // SAFETY: a plain syscall; the new descriptor is checked, then
        // owned by exactly one `OwnedFd`.
        let dup = unsafe {
            let dup = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0);
            if dup < 0 {
                return None;
            }
            OwnedFd::from_raw_fd(dup)
        };
        let id = file_id(dup.as_raw_fd())?;
        Some(CloseWatch { dup, id })
    }

    /// The object was dropped: if `fd` no longer names the watched file
    /// (closed, or closed and reused for another), shuts the socket down
    /// through the duplicate, then closes the duplicate.
    pub(crate) fn finish(self, fd: RawFd) {
        if file_id(fd) != Some(self.id) {
            shut_down(self.dup.as_raw_fd());
        }
    }
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::net::UnixStream;

    #[test]
    fn a_watch_shuts_down_only_a_socket_whose_descriptor_was_closed() {
        let (ours, mut peer) = UnixStream::pair().unwrap();
        peer.set_nonblocking(true).unwrap();
        let fd = ours.as_raw_fd();
        // Kept open: nothing happens to the socket.
        CloseWatch::new(fd).unwrap().finish(fd);
        let err = peer.read(&mut [0u8; 1]).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
        // Closed while watched (the duplicate keeps the file alive, as a
        // ring's poll would): shut down, the peer sees EOF.
        let watch = CloseWatch::new(fd).unwrap();
        let keep = ours.try_clone().unwrap();
        drop(ours);
        watch.finish(fd);
        assert_eq!(peer.read(&mut [0u8; 1]).unwrap(), 0);
        drop(keep);
    }
}
