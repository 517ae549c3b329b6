//! Refusing, at registration, a descriptor whose file cannot be polled.
//!
//! epoll refuses such a file (`epoll_ctl` fails with `EPERM` when the file
//! has no `poll` method: `/dev/null`, `/dev/zero`, regular files on most
//! file systems), and so do legacy mode and tokio. io_uring does not: a
//! `PollAdd` on it completes at once with the default mask
//! (`EPOLLIN | EPOLLOUT`), and since the kernel cannot leave a poll armed
//! on a file without a wait queue, the multishot poll ends with that
//! completion, is armed again and completes again, forever, a worker at
//! 100% CPU (io_uring/poll.c, `__io_arm_poll_handler`: no wait queue
//! entry, `EPOLLET`, a mask: complete inline).
//!
//! The file's kind does not tell: a character device may or may not have
//! a `poll` method, and some regular files do (`/proc/self/mounts`,
//! cgroup and PSI files), which epoll accepts. So the kernel is asked the
//! question epoll asks: the descriptor is added to a fresh epoll instance,
//! which is closed at once. Its answer is epoll's own, error for error.
//! Three system calls, only for descriptors of unknown kind (`AsyncFd`,
//! pipes opened by path); the sockets tokiwa creates skip this.
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Fails as `epoll_ctl(EPOLL_CTL_ADD)` of `fd` for `events` would: `EPERM`
/// for a file that cannot be polled, `EBADF` for a closed descriptor.
///
/// # Errors
///
/// Also when no epoll instance can be created for the question (`EMFILE`,
/// `ENFILE`, `ENOMEM`): the descriptor is then not registered, since
/// accepting one that cannot be polled would spin a worker.
pub(crate) fn refuse_unpollable(fd: RawFd, events: u32) -> io::Result<()> {
    // SAFETY: a plain syscall; the result is checked, then owned by
    // exactly one `OwnedFd`, which closes it (and with it the question's
    // registration) on return.
    let epoll = unsafe {
        let epfd = libc::epoll_create1(libc::EPOLL_CLOEXEC);
        if epfd < 0 {
            return Err(io::Error::last_os_error());
        }
        OwnedFd::from_raw_fd(epfd)
    };
    let mut event = libc::epoll_event { events, u64: 0 };
    // SAFETY: `event` is a valid `epoll_event` for the call; `fd` is the
    // caller's open descriptor (a closed one fails with `EBADF`).
    let rc = unsafe { libc::epoll_ctl(epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut event) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(all(test, not(tokiwa_loom)))]
mod tests {
    use super::*;

    fn check(path: &str) -> io::Result<()> {
        let file = std::fs::File::open(path).unwrap();
        refuse_unpollable(file.as_raw_fd(), libc::EPOLLIN as u32)
    }

    #[test]
    fn answers_as_epoll_does() {
        for path in ["/dev/null", "/dev/zero", "/proc/self/exe"] {
            let err = check(path).unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EPERM), "{path}");
        }
        check("/proc/self/mounts").unwrap();
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        refuse_unpollable(a.as_raw_fd(), libc::EPOLLIN as u32).unwrap();
    }
}
