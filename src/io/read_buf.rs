//! [`ReadBuf`]: the buffer an [`AsyncRead`](super::AsyncRead) fills.
//!
//! A reader may be handed memory that was never written (a `Vec`'s spare
//! capacity, say). Zeroing it before every read would cost as much as the
//! read, so the buffer carries two cursors over a `[MaybeUninit<u8>]`:
//!
//! ```text
//! 0 ......... filled ......... initialized ......... capacity
//! [  data read  |  written, not data  |  maybe never written  ]
//! ```
//!
//! The invariant `filled <= initialized <= capacity` is what makes the safe
//! accessors sound: `filled()` and `initialized()` reinterpret their prefix
//! as `[u8]`. Every safe method keeps it (the panicking ones check before
//! moving a cursor); the two `unsafe` methods hand the caller the duty of
//! keeping it. Bytes are never de-initialised, so `initialized` only grows;
//! [`ReadBuf::take`] starts a sub-buffer with nothing known to be
//! initialised, as tokio's does.
//!
//! With `io-util`, `ReadBuf` is also a `bytes::BufMut` (as tokio's is), so
//! codecs can write into it directly.
use std::fmt;
use std::mem::MaybeUninit;

/// A byte buffer filled incrementally by a reader, which tracks how much of
/// it holds data (*filled*) and how much has ever been written
/// (*initialized*).
///
/// The filled region is always a prefix of the initialized region, which is
/// a prefix of the whole buffer:
///
/// ```text
/// [             capacity              ]
/// [ filled |         unfilled         ]
/// [    initialized    | uninitialized ]
/// ```
///
/// Bytes marked initialized must never be de-initialised, even through the
/// unsafe accessors: part of the "uninitialized" region may in fact be
/// initialized memory, which must stay so.
pub struct ReadBuf<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    filled: usize,
    initialized: usize,
}

impl<'a> ReadBuf<'a> {
    /// A `ReadBuf` over a fully initialized buffer, with nothing filled.
    #[inline]
    pub fn new(buf: &'a mut [u8]) -> ReadBuf<'a> {
        let initialized = buf.len();
        let len = buf.len();
        let ptr = buf.as_mut_ptr().cast::<MaybeUninit<u8>>();
        // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and `ptr`/`len` come
        // from a live `&'a mut [u8]` that this borrow replaces. Writing an
        // uninitialised byte through the result would break the caller's
        // `[u8]`; no method of `ReadBuf` does, and the unsafe accessors
        // forbid it (the whole buffer is marked initialized).
        let buf = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
        ReadBuf {
            buf,
            filled: 0,
            initialized,
        }
    }

    /// A `ReadBuf` over a buffer that may be uninitialized; nothing is marked
    /// initialized or filled. Use [`assume_init`](Self::assume_init) if part
    /// of it is known to be initialized.
    #[inline]
    pub fn uninit(buf: &'a mut [MaybeUninit<u8>]) -> ReadBuf<'a> {
        ReadBuf {
            buf,
            filled: 0,
            initialized: 0,
        }
    }

    /// The length of the whole buffer.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The filled part of the buffer: the data read so far.
    #[inline]
    pub fn filled(&self) -> &[u8] {
        // SAFETY: `filled <= initialized`, so the prefix was written.
        unsafe { assume_init(&self.buf[..self.filled]) }
    }

    /// The filled part of the buffer, mutably.
    #[inline]
    pub fn filled_mut(&mut self) -> &mut [u8] {
        // SAFETY: `filled <= initialized`, so the prefix was written.
        unsafe { assume_init_mut(&mut self.buf[..self.filled]) }
    }

    /// A new `ReadBuf` over the first `n` unfilled bytes (fewer if fewer
    /// remain), with nothing marked initialized or filled.
    ///
    /// What a reader writes into the returned buffer lands in this one's
    /// unfilled part; this one's cursors do not move.
    #[inline]
    pub fn take(&mut self, n: usize) -> ReadBuf<'_> {
        let len = n.min(self.remaining());
        let filled = self.filled;
        // The sub-buffer is a `ReadBuf`, whose safe methods never write an
        // uninitialised byte, and its `unsafe` accessors carry the same
        // no-de-initialising contract as ours, so handing it this memory
        // keeps our `initialized` truthful.
        ReadBuf::uninit(&mut self.buf[filled..filled + len])
    }

    /// The initialized part of the buffer (filled or not).
    #[inline]
    pub fn initialized(&self) -> &[u8] {
        // SAFETY: `initialized` counts bytes that were written.
        unsafe { assume_init(&self.buf[..self.initialized]) }
    }

    /// The initialized part of the buffer (filled or not), mutably.
    #[inline]
    pub fn initialized_mut(&mut self) -> &mut [u8] {
        // SAFETY: `initialized` counts bytes that were written.
        unsafe { assume_init_mut(&mut self.buf[..self.initialized]) }
    }

    /// The whole buffer, initialized or not.
    ///
    /// Bytes `..self.filled().len()` are filled and `..self.initialized().len()`
    /// initialized. A caller that initializes more must report it with
    /// [`assume_init`](Self::assume_init).
    ///
    /// # Safety
    ///
    /// The caller must not de-initialize any byte of the buffer (write
    /// `MaybeUninit::uninit()` into it), including bytes this `ReadBuf`
    /// considers uninitialized.
    #[inline]
    pub unsafe fn inner_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        self.buf
    }

    /// The unfilled part of the buffer, initialized or not.
    ///
    /// # Safety
    ///
    /// The caller must not de-initialize any byte of the buffer (write
    /// `MaybeUninit::uninit()` into it), including bytes this `ReadBuf`
    /// considers uninitialized.
    #[inline]
    pub unsafe fn unfilled_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        &mut self.buf[self.filled..]
    }

    /// The unfilled part of the buffer, zeroing whatever of it was not yet
    /// initialized. Only the first call pays for the zeroing.
    #[inline]
    pub fn initialize_unfilled(&mut self) -> &mut [u8] {
        self.initialize_unfilled_to(self.remaining())
    }

    /// The first `n` bytes of the unfilled part, zeroing whatever of them
    /// was not yet initialized.
    ///
    /// # Panics
    ///
    /// Panics if `n` is more than [`remaining`](Self::remaining).
    #[inline]
    #[track_caller]
    pub fn initialize_unfilled_to(&mut self, n: usize) -> &mut [u8] {
        assert!(n <= self.remaining(), "n overflows remaining");
        // No overflow: `filled + remaining == capacity`.
        let end = self.filled + n;
        if end > self.initialized {
            self.buf[self.initialized..end].fill(MaybeUninit::new(0));
            self.initialized = end;
        }
        // SAFETY: `end <= initialized` now: either it was, or the bytes up
        // to `end` were just zeroed.
        unsafe { assume_init_mut(&mut self.buf[self.filled..end]) }
    }

    /// How many bytes are not filled: `capacity() - filled().len()`.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.filled
    }

    /// Empties the filled region. The initialized region and the bytes
    /// themselves are unchanged.
    #[inline]
    pub fn clear(&mut self) {
        self.filled = 0;
    }

    /// Grows the filled region by `n` bytes, which must already be
    /// initialized.
    ///
    /// # Panics
    ///
    /// Panics if the filled region would become larger than the initialized
    /// region.
    #[inline]
    #[track_caller]
    pub fn advance(&mut self, n: usize) {
        let filled = self.filled.checked_add(n).expect("filled overflow");
        self.set_filled(filled);
    }

    /// Sets the length of the filled region; it may shrink (a reader that
    /// decodes in place, say) as well as grow.
    ///
    /// # Panics
    ///
    /// Panics if `n` is larger than the initialized region.
    #[inline]
    #[track_caller]
    pub fn set_filled(&mut self, n: usize) {
        assert!(
            n <= self.initialized,
            "filled must not become larger than initialized"
        );
        self.filled = n;
    }

    /// Declares that the first `n` unfilled bytes are initialized. Bytes are
    /// never de-initialised, so an `n` short of what is already known
    /// changes nothing.
    ///
    /// # Safety
    ///
    /// The first `n` bytes after the filled region must have been
    /// initialized.
    #[inline]
    pub unsafe fn assume_init(&mut self, n: usize) {
        // Saturating: an `n` this large breaks the caller's contract anyway
        // (no buffer holds it), and must not wrap to a small value.
        let end = self.filled.saturating_add(n);
        if end > self.initialized {
            self.initialized = end;
        }
    }

    /// Copies `buf` after the filled region and fills it, growing the
    /// initialized region if needed.
    ///
    /// # Panics
    ///
    /// Panics if `buf` is longer than [`remaining`](Self::remaining).
    #[inline]
    #[track_caller]
    pub fn put_slice(&mut self, buf: &[u8]) {
        assert!(
            buf.len() <= self.remaining(),
            "buf.len() must fit in remaining(); buf.len() = {}, remaining() = {}",
            buf.len(),
            self.remaining()
        );
        let end = self.filled + buf.len();
        for (dst, &src) in self.buf[self.filled..end].iter_mut().zip(buf) {
            *dst = MaybeUninit::new(src);
        }
        self.filled = end;
        if end > self.initialized {
            self.initialized = end;
        }
    }
}

#[cfg(feature = "io-util")]
// SAFETY: `chunk_mut` exposes only the unfilled part, as an `UninitSlice`,
// through which nothing can be de-initialised; `advance_mut`'s caller
// promises the bytes it counts were written, which is what `assume_init`
// needs, and `remaining_mut` is exactly the length of `chunk_mut`.
unsafe impl bytes::BufMut for ReadBuf<'_> {
    fn remaining_mut(&self) -> usize {
        self.remaining()
    }

    unsafe fn advance_mut(&mut self, cnt: usize) {
        // SAFETY: `BufMut::advance_mut`'s contract: the caller initialized
        // the first `cnt` bytes of `chunk_mut()`, our unfilled part.
        unsafe { self.assume_init(cnt) };
        self.advance(cnt);
    }

    fn chunk_mut(&mut self) -> &mut bytes::buf::UninitSlice {
        // SAFETY: the slice is only handed on as an `UninitSlice`, whose API
        // can write bytes but never de-initialise them.
        let unfilled = unsafe { self.unfilled_mut() };
        bytes::buf::UninitSlice::uninit(unfilled)
    }
}

impl fmt::Debug for ReadBuf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadBuf")
            .field("filled", &self.filled)
            .field("initialized", &self.initialized)
            .field("capacity", &self.capacity())
            .finish()
    }
}

/// `slice` as `[u8]`.
///
/// # Safety
///
/// Every byte of `slice` is initialized.
unsafe fn assume_init(slice: &[MaybeUninit<u8>]) -> &[u8] {
    // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and the caller promises
    // every byte is initialized.
    unsafe { std::slice::from_raw_parts(slice.as_ptr().cast::<u8>(), slice.len()) }
}

/// `slice` as `[u8]`, mutably.
///
/// # Safety
///
/// Every byte of `slice` is initialized. (Writes through a `&mut [u8]` can
/// only store initialized bytes, so the result cannot break the invariant.)
unsafe fn assume_init_mut(slice: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and the caller promises
    // every byte is initialized.
    unsafe { std::slice::from_raw_parts_mut(slice.as_mut_ptr().cast::<u8>(), slice.len()) }
}

#[cfg(test)]
mod tests {
    use super::ReadBuf;
    use std::mem::MaybeUninit;

    #[test]
    fn new_is_initialized_and_empty() {
        let mut storage = [7u8; 8];
        let buf = ReadBuf::new(&mut storage);
        assert_eq!(buf.capacity(), 8);
        assert_eq!(buf.filled(), b"");
        assert_eq!(buf.initialized(), &[7u8; 8]);
        assert_eq!(buf.remaining(), 8);
    }

    #[test]
    fn uninit_marks_nothing_initialized() {
        let mut storage = [MaybeUninit::<u8>::uninit(); 8];
        let mut buf = ReadBuf::uninit(&mut storage);
        assert_eq!(buf.initialized(), b"");
        buf.put_slice(b"abc");
        assert_eq!(buf.filled(), b"abc");
        assert_eq!(buf.initialized(), b"abc");
        assert_eq!(buf.remaining(), 5);
        // Zeroes exactly the missing part, and only once.
        assert_eq!(buf.initialize_unfilled_to(2), &[0, 0]);
        assert_eq!(buf.initialized().len(), 5);
        buf.initialize_unfilled()[0] = b'd';
        assert_eq!(buf.initialized().len(), 8);
        buf.advance(1);
        assert_eq!(buf.filled(), b"abcd");
    }

    #[test]
    fn clear_and_set_filled_keep_initialized() {
        let mut storage = [0u8; 4];
        let mut buf = ReadBuf::new(&mut storage);
        buf.put_slice(b"wxyz");
        buf.clear();
        assert_eq!(buf.filled(), b"");
        assert_eq!(buf.initialized(), b"wxyz");
        buf.set_filled(2);
        assert_eq!(buf.filled(), b"wx");
        buf.filled_mut()[0] = b'W';
        buf.initialized_mut()[3] = b'Z';
        buf.set_filled(1);
        assert_eq!(buf.filled(), b"W");
        assert_eq!(buf.initialized(), b"WxyZ");
    }

    #[test]
    fn take_writes_into_the_unfilled_part() {
        let mut storage = [MaybeUninit::<u8>::uninit(); 8];
        let mut buf = ReadBuf::uninit(&mut storage);
        buf.put_slice(b"ab");
        let mut sub = buf.take(3);
        assert_eq!(sub.capacity(), 3);
        assert_eq!(sub.initialized(), b"");
        sub.put_slice(b"cde");
        let n = sub.filled().len();
        // SAFETY: `sub` wrote `n` bytes right after our filled part.
        unsafe { buf.assume_init(n) };
        buf.advance(n);
        assert_eq!(buf.filled(), b"abcde");
        // A take larger than what remains is cut to it.
        assert_eq!(buf.take(100).capacity(), 3);
    }

    #[test]
    fn assume_init_never_shrinks() {
        let mut storage = [1u8; 6];
        let mut buf = ReadBuf::new(&mut storage);
        // SAFETY: all six bytes are initialized.
        unsafe { buf.assume_init(2) };
        assert_eq!(buf.initialized().len(), 6);
    }

    #[test]
    #[should_panic(expected = "filled must not become larger than initialized")]
    fn advance_past_initialized_panics() {
        let mut storage = [MaybeUninit::<u8>::uninit(); 4];
        let mut buf = ReadBuf::uninit(&mut storage);
        buf.put_slice(b"a");
        buf.advance(2);
    }

    #[test]
    #[should_panic(expected = "filled overflow")]
    fn advance_overflow_panics() {
        let mut storage = [0u8; 4];
        let mut buf = ReadBuf::new(&mut storage);
        buf.advance(1);
        buf.advance(usize::MAX);
    }

    #[test]
    #[should_panic(expected = "buf.len() must fit in remaining()")]
    fn put_slice_past_capacity_panics() {
        let mut storage = [0u8; 2];
        ReadBuf::new(&mut storage).put_slice(b"abc");
    }

    #[test]
    #[should_panic(expected = "n overflows remaining")]
    fn initialize_unfilled_to_past_capacity_panics() {
        let mut storage = [0u8; 2];
        ReadBuf::new(&mut storage).initialize_unfilled_to(3);
    }

    #[test]
    fn debug_shows_the_cursors() {
        let mut storage = [0u8; 3];
        let mut buf = ReadBuf::new(&mut storage);
        buf.put_slice(b"x");
        assert_eq!(
            format!("{buf:?}"),
            "ReadBuf { filled: 1, initialized: 3, capacity: 3 }"
        );
    }

    #[cfg(feature = "io-util")]
    #[test]
    fn buf_mut_fills_and_initializes() {
        use bytes::BufMut;
        let mut storage = [MaybeUninit::<u8>::uninit(); 8];
        let mut buf = ReadBuf::uninit(&mut storage);
        buf.put_u16(0x0102);
        buf.put_slice(b"xy");
        assert_eq!(buf.filled(), &[1, 2, b'x', b'y']);
        assert_eq!(buf.initialized().len(), 4);
        assert_eq!(buf.remaining_mut(), 4);
    }
}
