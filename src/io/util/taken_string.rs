//! A `String` whose bytes a read appends to, kept valid UTF-8 throughout.
//!
//! `read_to_string` and `read_line` append raw bytes and can only check
//! them once the read is over, but a `&mut String` must hold valid UTF-8 at
//! every moment its owner can see it (even if the future is leaked). So the
//! String's bytes are taken out (leaving it empty) for the duration of the
//! read and put back at the end: with the new bytes if they are valid UTF-8
//! (and, for `read_to_string`, the read succeeded), without them otherwise.
//! A future dropped before the end puts back the original content.
use std::io;
use std::mem;

use super::vec_fill::VecFill;

/// The bytes of a `String` taken out for a read; see the module docs.
#[derive(Debug)]
pub(super) struct TakenString<'a> {
    output: &'a mut String,
    bytes: VecFill<Vec<u8>>,
    original_len: usize,
    finished: bool,
}

impl<'a> TakenString<'a> {
    pub(super) fn new(output: &'a mut String) -> TakenString<'a> {
        let bytes = mem::take(output).into_bytes();
        TakenString {
            output,
            original_len: bytes.len(),
            bytes: VecFill::new(bytes),
            finished: false,
        }
    }

    /// The bytes, for the read to append to.
    pub(super) fn bytes(&mut self) -> &mut VecFill<Vec<u8>> {
        &mut self.bytes
    }

    /// Puts the bytes back into the String once the read is over, and
    /// returns the read's result, or `InvalidData` if the new bytes are not
    /// UTF-8.
    ///
    /// After an I/O error, bytes read before it (if valid UTF-8) are kept
    /// when `keep_on_error` (`read_line`) and dropped otherwise
    /// (`read_to_string`).
    pub(super) fn finish(
        &mut self,
        result: io::Result<usize>,
        keep_on_error: bool,
    ) -> io::Result<usize> {
        self.finished = true;
        let bytes = self.bytes.take();
        match (String::from_utf8(bytes), result) {
            (Ok(string), Ok(n)) => {
                *self.output = string;
                Ok(n)
            }
            (Ok(string), Err(e)) => {
                *self.output = string;
                if !keep_on_error {
                    self.output.truncate(self.original_len);
                }
                Err(e)
            }
            (Err(invalid), result) => {
                let utf8_error = invalid.utf8_error();
                *self.output = original(invalid.into_bytes(), self.original_len);
                match result {
                    Ok(_) => Err(io::Error::new(io::ErrorKind::InvalidData, utf8_error)),
                    Err(e) => Err(e),
                }
            }
        }
    }
}

impl Drop for TakenString<'_> {
    fn drop(&mut self) {
        if !self.finished {
            let bytes = self.bytes.take();
            *self.output = original(bytes, self.original_len);
        }
    }
}

/// The String that `bytes` started as: its first `len` bytes, which were a
/// `String`'s and were only appended to.
fn original(mut bytes: Vec<u8>, len: usize) -> String {
    bytes.truncate(len);
    // Cannot fail (see above); an empty String is the safe answer if it did.
    String::from_utf8(bytes).unwrap_or_default()
}
