//! A provided buffer ring: buffers the kernel picks from when a receive
//! completes (`IORING_REGISTER_PBUF_RING`), so a receive can wait in the
//! kernel without holding memory of its own (`recv.rs`).
//!
//! **Layout.** `ENTRIES` descriptors (`io_uring_buf`: address, length,
//! buffer id) in one page-aligned block the kernel reads, and
//! `ENTRIES × BUF_SIZE` bytes of buffers. The ring's *tail* (the
//! application's index, where it hands buffers over) overlays the spare
//! field of descriptor 0, as the kernel's ABI defines; the head is the
//! kernel's and is not visible here. A receive that completes names the
//! buffer it filled (`IORING_CQE_F_BUFFER` and the id in the flags); the
//! owner copies the bytes out and hands the buffer back at once
//! ([`BufRing::recycle`]), publishing the tail once per reap
//! ([`BufRing::publish`]). So a buffer is out of the ring only between a
//! completion and its reap, and the ring runs dry only when a single reap
//! finds more completions than it has buffers: those receives fail with
//! `ENOBUFS` and are armed again.
//!
//! **Lifetime.** The memory belongs to the [`super::ring::Ring`] it was
//! registered with, which drops it after the ring's descriptor is closed.
//! The kernel writes into a buffer only for a receive in flight; the
//! receive table settles those before a ring is let go (`quiesce`), and
//! where it could not (a shutdown that did not wait), the memory is kept
//! forever instead (`op::keep_forever`): a leak, never a use-after-free.
use io_uring::types::BufRingEntry;
use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::io;
use std::sync::atomic::{AtomicU16, Ordering};

/// Buffers in a ring (a power of two, as the kernel requires).
pub(crate) const ENTRIES: u16 = 128;

/// Bytes per buffer: the most one receive completion delivers.
pub(crate) const BUF_SIZE: usize = 16 * 1024;

/// The buffer group id; each ring has its own groups, and one is enough.
pub(crate) const GROUP: u16 = 0;

pub(crate) struct BufRing {
    entries: *mut BufRingEntry,
    buffers: *mut u8,
    /// The tail as the application has advanced it (published or not).
    tail: u16,
}

// SAFETY: the ring is plain memory; it is used only by the thread that
// owns the io_uring ring (the `Ring` holding it is behind the worker's
// lock), and moves with it.
unsafe impl Send for BufRing {}

fn entries_layout() -> Layout {
    let bytes = ENTRIES as usize * std::mem::size_of::<BufRingEntry>();
    // 4096: the kernel wants the descriptors page-aligned.
    Layout::from_size_align(bytes, 4096).expect("a valid layout")
}

fn buffers_layout() -> Layout {
    Layout::from_size_align(ENTRIES as usize * BUF_SIZE, 64).expect("a valid layout")
}

impl BufRing {
    /// Allocates the ring and registers it with `submitter`'s ring, every
    /// buffer handed over.
    pub(crate) fn register(submitter: &io_uring::Submitter<'_>) -> io::Result<BufRing> {
        // SAFETY: both layouts have a non-zero size.
        let entries = unsafe { alloc_zeroed(entries_layout()) }.cast::<BufRingEntry>();
        // SAFETY: as above.
        let buffers = unsafe { alloc(buffers_layout()) };
        if entries.is_null() || buffers.is_null() {
            // SAFETY: each pointer, if not null, came from `alloc*` with
            // its layout just above.
            unsafe {
                if !entries.is_null() {
                    dealloc(entries.cast(), entries_layout());
                }
                if !buffers.is_null() {
                    dealloc(buffers, buffers_layout());
                }
            }
            return Err(io::ErrorKind::OutOfMemory.into());
        }
        let mut ring = BufRing {
            entries,
            buffers,
            tail: 0,
        };
        for id in 0..ENTRIES {
            ring.recycle(id);
        }
        ring.publish();
        // SAFETY: `entries` is page-aligned, `ENTRIES` descriptors long,
        // and lives until this `BufRing` is dropped, which its owner does
        // only once the kernel can no longer use it (module docs).
        let registered =
            unsafe { submitter.register_buf_ring_with_flags(entries as u64, ENTRIES, GROUP, 0) };
        // On error `ring` drops here and frees both blocks: the kernel
        // took nothing.
        registered.map(|()| ring)
    }

    /// The `len` bytes received into buffer `id`.
    pub(crate) fn bytes(&self, id: u16, len: usize) -> &[u8] {
        assert!(
            id < ENTRIES && len <= BUF_SIZE,
            "buffer {id} of {len} bytes"
        );
        // SAFETY: in bounds (checked above); the kernel wrote these bytes
        // before posting the completion that named the buffer, and writes
        // no more into it until it is handed back.
        unsafe { std::slice::from_raw_parts(self.buffers.add(id as usize * BUF_SIZE), len) }
    }

    /// Hands buffer `id` back (visible to the kernel at the next
    /// [`BufRing::publish`]).
    pub(crate) fn recycle(&mut self, id: u16) {
        let slot = (self.tail & (ENTRIES - 1)) as usize;
        // SAFETY: `slot` < ENTRIES; the kernel reads descriptors only
        // below the published tail, and this one is past it.
        let entry = unsafe { &mut *self.entries.add(slot) };
        // SAFETY: `id` < ENTRIES (callers pass ids the kernel gave back,
        // or the initial ones).
        entry.set_addr(unsafe { self.buffers.add(id as usize * BUF_SIZE) } as u64);
        entry.set_len(BUF_SIZE as u32);
        entry.set_bid(id);
        self.tail = self.tail.wrapping_add(1);
    }

    /// Publishes the buffers handed back since the last call.
    pub(crate) fn publish(&self) {
        // SAFETY: the tail field lies inside descriptor 0, which is
        // allocated, aligned for a `u16`, and written only here (the
        // kernel only reads it).
        let tail = unsafe { &*BufRingEntry::tail(self.entries).cast::<AtomicU16>() };
        // `Release`: the descriptors written before become visible to the
        // kernel's acquiring read of the tail.
        tail.store(self.tail, Ordering::Release);
    }
}

impl Drop for BufRing {
    fn drop(&mut self) {
        // SAFETY: both blocks came from `register` with these layouts, and
        // the owner drops the ring only when the kernel no longer uses it.
        unsafe {
            dealloc(self.entries.cast(), entries_layout());
            dealloc(self.buffers, buffers_layout());
        }
    }
}

impl std::fmt::Debug for BufRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufRing").field("tail", &self.tail).finish()
    }
}
