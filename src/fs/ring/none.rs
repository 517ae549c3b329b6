//! The stand-in for builds without the `uring` feature: no ring is ever
//! available, and every operation gives its inputs back (see the contract
//! in `mod.rs`), so the callers take the blocking pool.
use crate::io::blocking::Buf;
use std::fs::File as StdFile;
use std::io;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::sync::Arc;

/// A buffer a ring operation could take: only the bound of the API here.
pub(crate) trait RingBuf: Send + Unpin + 'static {}

impl RingBuf for Vec<u8> {}

impl RingBuf for Buf {}

/// No ring in this build.
pub(crate) fn available() -> bool {
    false
}

pub(crate) async fn read<B: RingBuf>(
    file: Arc<StdFile>,
    buf: B,
    len: usize,
) -> Result<(io::Result<usize>, B), (Arc<StdFile>, B)> {
    let _ = len;
    Err((file, buf))
}

pub(crate) async fn write_all<B: RingBuf>(
    file: Arc<StdFile>,
    buf: B,
) -> Result<(io::Result<()>, B), (Arc<StdFile>, B, usize)> {
    Err((file, buf, 0))
}

pub(crate) async fn open(path: &Path, flags: i32, mode: u32) -> Result<io::Result<StdFile>, ()> {
    let _ = (path, flags, mode);
    Err(())
}

pub(crate) async fn statx(path: &Path, follow: bool) -> Result<io::Result<libc::statx>, ()> {
    let _ = (path, follow);
    Err(())
}

pub(crate) async fn fsync(
    file: Arc<StdFile>,
    datasync: bool,
) -> Result<io::Result<()>, Arc<StdFile>> {
    let _ = datasync;
    Err(file)
}

pub(crate) fn close(fd: OwnedFd) -> Result<(), OwnedFd> {
    Err(fd)
}
