//! Helpers for the socket tests (`tcp_*`, `udp_*`, `uds_*`).
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// A fresh path for a Unix socket, removed again on drop.
#[derive(Debug)]
pub struct TempSocketPath(PathBuf);

impl TempSocketPath {
    /// A path no other test (of any binary) uses: named after the process
    /// and a per-process counter.
    pub fn new(name: &str) -> TempSocketPath {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "tokiwa-{}-{}-{name}.sock",
            std::process::id(),
            NEXT.fetch_add(1, SeqCst)
        ));
        let _ = std::fs::remove_file(&path);
        TempSocketPath(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempSocketPath {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempSocketPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Raises the soft descriptor limit to the hard one, for the tests that
/// hold hundreds of sockets at once while other tests run in parallel.
pub fn raise_nofile_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a live, writable `rlimit`.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0
        && limit.rlim_cur < limit.rlim_max
    {
        limit.rlim_cur = limit.rlim_max;
        // SAFETY: `limit` is a valid `rlimit`; raising the soft limit up to
        // the hard one needs no privilege.
        unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
    }
}

/// Deterministic test data: `len` bytes from an xorshift generator.
pub fn pattern(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(&state.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// An order-sensitive checksum, fed in pieces of any size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checksum {
    hash: u64,
    len: u64,
}

impl Default for Checksum {
    fn default() -> Self {
        Checksum::new()
    }
}

impl Checksum {
    pub fn new() -> Checksum {
        Checksum {
            hash: 0xcbf2_9ce4_8422_2325,
            len: 0,
        }
    }

    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.len += bytes.len() as u64;
    }

    pub fn len(&self) -> u64 {
        self.len
    }
}

/// Whether `err` is the OS error `code`.
pub fn is_os_error(err: &io::Error, code: i32) -> bool {
    err.raw_os_error() == Some(code)
}
