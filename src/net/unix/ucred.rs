//! `UCred`: the credentials of a Unix stream's peer, from `SO_PEERCRED`.
//!
//! `socket2` has no accessor for `SO_PEERCRED` (and std's is unstable), so
//! this is the one raw `getsockopt(2)` in `net`. The kernel records the
//! credentials at `connect(2)` (or `socketpair(2)`) time; see
//! `unix(7)`.
use crate::net::unix;
use std::io;
use std::os::fd::{AsRawFd, RawFd};

/// Credentials of a process.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct UCred {
    /// PID (process ID) of the process.
    pid: Option<unix::pid_t>,
    /// UID (user ID) of the process.
    uid: unix::uid_t,
    /// GID (group ID) of the process.
    gid: unix::gid_t,
}

impl UCred {
    /// Gets UID (user ID) of the process.
    pub fn uid(&self) -> unix::uid_t {
        self.uid
    }

    /// Gets GID (group ID) of the process.
    pub fn gid(&self) -> unix::gid_t {
        self.gid
    }

    /// Gets PID (process ID) of the process.
    ///
    /// This is only implemented under Linux, Android, iOS, macOS, Solaris
    /// and Illumos. On other platforms this will always return `None`.
    pub fn pid(&self) -> Option<unix::pid_t> {
        self.pid
    }
}

/// The peer credentials of the connected Unix socket `sock`.
pub(crate) fn peer_cred(sock: &impl AsRawFd) -> io::Result<UCred> {
    let fd: RawFd = sock.as_raw_fd();
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `fd` is an open socket borrowed from `sock` for the call;
    // `cred` and `len` are live locals, and `len` tells the kernel the size
    // of the buffer it may write.
    let ret = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if ret != 0 {
        return Err(io::Error::last_os_error());
    }
    if len as usize != std::mem::size_of::<libc::ucred>() {
        return Err(io::Error::other("SO_PEERCRED returned a short ucred"));
    }
    Ok(UCred {
        uid: cred.uid,
        gid: cred.gid,
        pid: Some(cred.pid),
    })
}
