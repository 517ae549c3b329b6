//! The bodies of a `File`'s operations as the blocking pool runs them.
//!
//! Each takes the buffer it was lent and gives it back with the outcome;
//! none may panic on an I/O error. Reads and writes go through `&File`
//! (`Read`/`Write`/`Seek` are implemented for `&std::fs::File`), so clones
//! of the `Arc` may be used concurrently by `metadata` and friends.
use std::fs::File as StdFile;
use std::io::{Seek, SeekFrom};

use super::op::Operation;
use crate::io::blocking::Buf;

/// One `read(2)` of at most `max` bytes into `buf`.
pub(super) fn read(std: &StdFile, mut buf: Buf, max: usize) -> (Operation, Buf) {
    let res = buf.read_from(&mut &*std, max);
    (Operation::Read(res), buf)
}

/// `pre_seek`, then the whole of `buf`.
pub(super) fn write(std: &StdFile, mut buf: Buf, pre_seek: Option<SeekFrom>) -> (Operation, Buf) {
    let res = match pre_seek {
        Some(pre) => (&*std).seek(pre).and_then(|_| buf.write_to(&mut &*std)),
        None => buf.write_to(&mut &*std),
    };
    (Operation::Write(res), buf)
}

/// `pre_seek`, then `pos`.
pub(super) fn seek(
    std: &StdFile,
    buf: Buf,
    pre_seek: Option<SeekFrom>,
    pos: SeekFrom,
) -> (Operation, Buf) {
    let res = match pre_seek {
        Some(pre) => (&*std).seek(pre).and_then(|_| (&*std).seek(pos)),
        None => (&*std).seek(pos),
    };
    (Operation::Seek(res), buf)
}

/// `pre_seek`, then `ftruncate` to `size`; the position reported is where
/// the cursor stands afterwards (unchanged by the truncation).
pub(super) fn set_len(
    std: &StdFile,
    buf: Buf,
    pre_seek: Option<SeekFrom>,
    size: u64,
) -> (Operation, Buf) {
    let res = match pre_seek {
        Some(pre) => (&*std).seek(pre).map(|_| ()),
        None => Ok(()),
    }
    .and_then(|()| std.set_len(size))
    .and_then(|()| (&*std).stream_position());
    (Operation::Seek(res), buf)
}
