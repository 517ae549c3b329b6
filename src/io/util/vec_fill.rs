//! [`VecFill`]: a vector that readers fill through its spare capacity,
//! remembering how much of that spare memory is already initialised.
//!
//! `read_to_end` lends the reader the vector's spare capacity as an
//! uninitialised [`ReadBuf`], so nothing is zeroed up front. Some readers
//! zero it themselves (`ReadBuf::initialize_unfilled`, the usual way to wrap
//! a `std::io::Read`), and lending the same spare memory as uninitialised
//! again on the next read would have them zero it again: with a large spare
//! region and small reads, quadratic work. So the count of spare bytes known
//! to be initialised is kept and declared on the next lend.
//!
//! That count is only true of the very vector it was measured on, untouched
//! in between. `VecFill` therefore holds the vector (owned, or borrowed for
//! its whole life) and never lets it out without forgetting the count; the
//! [`Storage`] trait is private and implemented only for `Vec<u8>` and
//! `&mut Vec<u8>`, which always give back the same vector.
use std::io;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::lent_buf::poll_read_into;
use crate::io::{AsyncRead, ReadBuf};

/// The size of the probe read made when the vector is full, so a vector
/// sized exactly for the data is not doubled just to find end of file.
const PROBE_SIZE: usize = 32;

/// Where a [`VecFill`] keeps its vector. Implemented only here, for types
/// whose `vec` returns the same vector every time.
pub(super) trait Storage {
    fn vec(&mut self) -> &mut Vec<u8>;
}

impl Storage for Vec<u8> {
    fn vec(&mut self) -> &mut Vec<u8> {
        self
    }
}

impl Storage for &mut Vec<u8> {
    fn vec(&mut self) -> &mut Vec<u8> {
        self
    }
}

/// A vector being filled by reads; see the module docs.
#[derive(Debug)]
pub(super) struct VecFill<V> {
    storage: V,
    // Bytes of spare capacity, from `len` on, that are initialised. Only
    // ever set right after a read measured it, and reset whenever the
    // vector may change by other means.
    spare_initialized: usize,
}

impl<V: Storage> VecFill<V> {
    pub(super) fn new(storage: V) -> VecFill<V> {
        VecFill {
            storage,
            spare_initialized: 0,
        }
    }

    /// The vector, to change freely: the spare-memory count is forgotten.
    pub(super) fn vec_mut(&mut self) -> &mut Vec<u8> {
        self.spare_initialized = 0;
        self.storage.vec()
    }

    /// Reads to end of file, appending to the vector and counting in
    /// `read`.
    ///
    /// Returns (and resets) the count at end of file. On an error the count
    /// stays, and the bytes read before it stay in the vector.
    /// `Interrupted` errors are retried.
    pub(super) fn poll_read_to_end<R: AsyncRead + ?Sized>(
        &mut self,
        mut reader: Pin<&mut R>,
        cx: &mut Context<'_>,
        read: &mut usize,
    ) -> Poll<io::Result<usize>> {
        loop {
            let vec = self.storage.vec();
            let polled = if vec.len() == vec.capacity() {
                let mut probe = [0u8; PROBE_SIZE];
                let mut lent = ReadBuf::new(&mut probe);
                let polled = ready!(poll_read_into(reader.as_mut(), cx, &mut lent));
                if let Ok(n) = polled {
                    vec.extend_from_slice(&probe[..n]);
                    // Possibly a new allocation: nothing known of it.
                    self.spare_initialized = 0;
                }
                polled
            } else {
                let len = vec.len();
                let mut lent = ReadBuf::uninit(vec.spare_capacity_mut());
                // SAFETY: `spare_initialized` was measured on this very
                // vector after the last read into it, and the vector has not
                // changed since (it only leaves `VecFill` through `vec_mut`,
                // which resets the count), so that many spare bytes are
                // still initialised.
                unsafe { lent.assume_init(self.spare_initialized) };
                let polled = ready!(poll_read_into(reader.as_mut(), cx, &mut lent));
                if let Ok(n) = polled {
                    // `poll_read_into` confirmed `lent` is the buffer over
                    // our spare capacity, so its cursors describe it.
                    self.spare_initialized = lent.initialized().len() - n;
                    // SAFETY: by the same confirmation, the first `n` spare
                    // bytes (from `len` on, within capacity) were written.
                    unsafe { vec.set_len(len + n) };
                }
                polled
            };
            match polled {
                Ok(0) => return Poll::Ready(Ok(mem::take(read))),
                Ok(n) => *read += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl VecFill<Vec<u8>> {
    /// Takes the vector out, leaving an empty one.
    pub(super) fn take(&mut self) -> Vec<u8> {
        mem::take(self.vec_mut())
    }
}
