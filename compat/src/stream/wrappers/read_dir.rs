use std::io;

use tokiwa::fs::{DirEntry, ReadDir};

super::wrapper! {
    /// A [`ReadDir`] as a `Stream` of its entries, ending after the last
    /// (tokio-stream's `ReadDirStream`).
    ReadDirStream(ReadDir) -> io::Result<DirEntry>,
    |read_dir, cx| read_dir.poll_next_entry(cx).map(Result::transpose)
}
