//! Receiving straight into a `bytes::BufMut`: tokio's `try_read_buf`,
//! `recv_buf`, `try_recv_buf`, `recv_buf_from` and `try_recv_buf_from`
//! (built with the `io-util` feature, which brings `bytes`, as in tokio).
//!
//! These read into the buffer's spare capacity (`BufMut::chunk_mut`),
//! which may be uninitialised: a `Vec` or `BytesMut` with room to spare
//! has not written those bytes yet. Rust code must never read them, nor
//! make a `&mut [u8]` of them. So the spare capacity is handed to the
//! kernel as `&mut [MaybeUninit<u8>]` (a raw `read(2)`, or `socket2`'s
//! `recv`/`recv_from`, which take that type), and the buffer is advanced
//! over exactly the bytes the kernel reports it wrote. Where only std's
//! API can produce the result (a Unix datagram's sender address, which
//! std cannot build from raw parts when it is unnamed), the spare capacity
//! is zeroed first and lent as initialised bytes instead.
//!
//! Readiness is the sockets' own: these go through the same `try_io` /
//! `async_io` as `try_read` and `recv`, so `WouldBlock` and readiness
//! clearing mean what they mean there.
use crate::io::poll_evented::{copy_to_uninit, read_uninit, PollEvented};
use crate::io::Interest;
use bytes::BufMut;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd};

/// Runs `recv` on the spare capacity of `buf`, then advances `buf` over
/// the `n` bytes `recv` reports having written there. `recv` must only
/// write received bytes into the slice (the kernel does).
pub(crate) fn recv_into_spare<B, T>(
    buf: &mut B,
    recv: impl FnOnce(&mut [MaybeUninit<u8>]) -> io::Result<(usize, T)>,
) -> io::Result<(usize, T)>
where
    B: BufMut + ?Sized,
{
    let spare = buf.chunk_mut();
    // SAFETY: `as_uninit_slice_mut` asks that no uninitialised byte be
    // written through the slice; the only writer is `recv`, which passes
    // it to a receive syscall that stores received (initialised) bytes.
    let spare = unsafe { spare.as_uninit_slice_mut() };
    let room = spare.len();
    let (n, value) = recv(spare)?;
    assert!(
        n <= room,
        "a receive reported more bytes than it was given room for"
    );
    // SAFETY: `recv` wrote the first `n` bytes of the chunk `chunk_mut`
    // returned, and `n` does not exceed its length.
    unsafe { buf.advance_mut(n) };
    Ok((n, value))
}

/// Like [`recv_into_spare`], for a receive that needs initialised memory:
/// the spare capacity is zeroed first.
pub(crate) fn recv_into_zeroed<B, T>(
    buf: &mut B,
    recv: impl FnOnce(&mut [u8]) -> io::Result<(usize, T)>,
) -> io::Result<(usize, T)>
where
    B: BufMut + ?Sized,
{
    recv_into_spare(buf, |spare| {
        let zeroed = zero(spare);
        recv(zeroed)
    })
}

/// Initialises every byte of `spare` to zero and returns it as bytes.
fn zero(spare: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    for byte in spare.iter_mut() {
        byte.write(0);
    }
    // SAFETY: every byte was initialised just above; `MaybeUninit<u8>`
    // and `u8` have the same layout, and the borrow is carried over.
    unsafe { &mut *(spare as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

impl<E: AsRawFd + AsFd> PollEvented<E> {
    /// One `read(2)` into `buf`'s spare capacity if the descriptor is
    /// readable now (the streams' and the pipe's `try_read_buf`).
    pub(crate) fn try_read_buf<B: BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.try_io(Interest::READABLE, || {
            recv_into_spare(buf, |spare| {
                let n = self.read_queued_or(true, spare, copy_to_uninit, |spare| {
                    read_uninit(self.get_ref().as_raw_fd(), spare)
                })?;
                Ok((n, ()))
            })
        })
        .map(|(n, ())| n)
    }
}
