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
//!
//! How the vector grows is tokio's documented-by-test policy (its
//! `io_read_to_end` tests check capacities and what the reader is offered),
//! since callers size their vectors by it:
//! - a read straight into the vector is only made with at least
//!   [`PROBE_SIZE`] spare bytes; with fewer, the vector grows first by
//!   `Vec::reserve`'s amortised doubling;
//! - except while the vector still has the capacity the caller gave it (if
//!   at least [`PROBE_SIZE`]): then the reader first gets a small buffer of
//!   fresh, uninitialised stack memory, and the vector grows only if that
//!   probe finds more data. A vector sized exactly for the data is not
//!   doubled just to learn that the reader is at end of file.
use std::io;
use std::mem::{self, MaybeUninit};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::lent_buf::poll_read_into;
use crate::io::{AsyncRead, ReadBuf};

/// The least spare capacity a read straight into the vector is given, and
/// the size of the probe read made instead while the vector keeps its
/// starting capacity (see the module docs).
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
    // The capacity the vector came with: while it still has it, a nearly
    // full vector is probed before it is grown.
    starting_capacity: usize,
}

impl<V: Storage> VecFill<V> {
    pub(super) fn new(mut storage: V) -> VecFill<V> {
        let starting_capacity = storage.vec().capacity();
        VecFill {
            storage,
            spare_initialized: 0,
            starting_capacity,
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
            let spare = vec.capacity() - vec.len();
            let probe_first = spare < PROBE_SIZE
                && vec.capacity() == self.starting_capacity
                && self.starting_capacity >= PROBE_SIZE;
            let polled = if probe_first {
                // Fresh memory, offered as uninitialised: the reader is not
                // told of initialised bytes it cannot see.
                let mut probe = [MaybeUninit::<u8>::uninit(); PROBE_SIZE];
                let mut lent = ReadBuf::uninit(&mut probe);
                let polled = ready!(poll_read_into(reader.as_mut(), cx, &mut lent));
                if let Ok(n) = polled {
                    if n > spare {
                        vec.reserve(PROBE_SIZE);
                        // A new allocation: nothing known of its spare bytes.
                        self.spare_initialized = 0;
                    } else {
                        // The first `n` known-initialised spare bytes (if
                        // any) are now part of the vector.
                        self.spare_initialized = self.spare_initialized.saturating_sub(n);
                    }
                    vec.extend_from_slice(lent.filled());
                }
                polled
            } else {
                if spare < PROBE_SIZE {
                    vec.reserve(PROBE_SIZE);
                    // `reserve` reallocated (the spare room was too small):
                    // nothing known of the new allocation's spare bytes.
                    self.spare_initialized = 0;
                }
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
