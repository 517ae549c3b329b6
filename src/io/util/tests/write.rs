//! `AsyncWriteExt` and the `AsyncWrite` impls.
use std::io::{self, Cursor, IoSlice};
use std::pin::Pin;

use bytes::Buf;

use super::{assert_not_unpin, poll_n_times, run, Trickle};
use crate::io::{AsyncWrite, AsyncWriteExt};

#[test]
fn write_on_vec_cursor_and_trickle() {
    run(async {
        let mut vec = Vec::new();
        assert_eq!(vec.write(b"abc").await.unwrap(), 3);
        assert_eq!(vec, b"abc");

        let mut storage = [0u8; 4];
        let mut cursor = Cursor::new(&mut storage[..]);
        assert_eq!(cursor.write(b"abcdef").await.unwrap(), 4);
        assert_eq!(
            cursor.write(b"g").await.unwrap(),
            0,
            "a full slice takes nothing"
        );
        assert_eq!(&storage, b"abcd");

        // Cursors over owned or borrowed vectors grow.
        let mut owned = Cursor::new(Vec::new());
        owned.write_all(b"grow").await.unwrap();
        assert_eq!(owned.get_ref(), b"grow");
        let mut target = Vec::new();
        let mut borrowed = Cursor::new(&mut target);
        borrowed.write_all(b"grow").await.unwrap();
        assert_eq!(target, b"grow");
        let mut boxed = Cursor::new(vec![0u8; 2].into_boxed_slice());
        assert_eq!(boxed.write(b"xyz").await.unwrap(), 2);

        let mut trickle = Trickle::writer();
        assert_eq!(trickle.write(b"xyz").await.unwrap(), 1);
        assert_eq!(trickle.written, b"x");
    });
}

#[test]
fn write_all_writes_everything_or_fails_with_write_zero() {
    run(async {
        let mut trickle = Trickle::writer();
        trickle.write_all(b"hello").await.unwrap();
        assert_eq!(trickle.written, b"hello");

        let mut interrupted = Trickle::writer().failing_at(2, io::ErrorKind::Interrupted);
        interrupted.write_all(b"hello").await.unwrap();
        assert_eq!(interrupted.written, b"hello");

        let mut storage = [0u8; 3];
        let mut cursor = Cursor::new(&mut storage[..]);
        let err = cursor.write_all(b"hello").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        assert_eq!(&storage, b"hel");
    });
}

#[test]
fn write_all_resumed_after_pending_writes_each_byte_once() {
    let mut trickle = Trickle::writer();
    let mut future = Box::pin(trickle.write_all(b"abcdef"));
    assert!(poll_n_times(&mut future, 100).unwrap().is_ok());
    drop(future);
    assert_eq!(trickle.written, b"abcdef");
}

#[test]
fn write_vectored_uses_the_default_or_the_writers_own() {
    run(async {
        let bufs = [IoSlice::new(b""), IoSlice::new(b"ab"), IoSlice::new(b"cd")];
        // The default: the first non-empty buffer, through `poll_write`.
        let mut plain = Trickle::writer();
        assert!(!plain.is_write_vectored());
        assert_eq!(plain.write_vectored(&bufs).await.unwrap(), 1);
        assert_eq!(plain.written, b"a");

        let mut vec = Vec::new();
        assert!(vec.is_write_vectored());
        assert_eq!(vec.write_vectored(&bufs).await.unwrap(), 4);
        assert_eq!(vec, b"abcd");

        // Forwarding impls keep `is_write_vectored`.
        let boxed: Box<dyn AsyncWrite + Unpin> = Box::new(Vec::new());
        assert!(boxed.is_write_vectored());
        let mut inner = Vec::new();
        assert!(<&mut Vec<u8> as AsyncWrite>::is_write_vectored(&&mut inner));
        assert!(Box::pin(Vec::<u8>::new()).is_write_vectored());
        assert!(!Pin::new(&mut Trickle::writer()).is_write_vectored());
    });
}

#[test]
fn write_buf_and_write_all_buf_advance_the_buf() {
    run(async {
        let mut src = (&b"ab"[..]).chain(&b"cdef"[..]);
        let mut plain = Trickle::writer();
        assert_eq!(plain.write_buf(&mut src).await.unwrap(), 1);
        assert_eq!(src.remaining(), 5);
        plain.write_all_buf(&mut src).await.unwrap();
        assert!(!src.has_remaining());
        assert_eq!(plain.written, b"abcdef");
        assert_eq!(plain.write_buf(&mut src).await.unwrap(), 0, "empty buf");

        // A vectored writer is given several chunks at once.
        let mut src = (&b"a"[..]).chain(&b"bcd"[..]);
        let mut vectored = Trickle::writer();
        vectored.vectored = true;
        assert_eq!(vectored.write_buf(&mut src).await.unwrap(), 2);
        assert_eq!(vectored.written, b"ab");
        vectored.write_all_buf(&mut src).await.unwrap();
        assert_eq!(vectored.written, b"abcd");

        let mut storage = [0u8; 2];
        let mut full = Cursor::new(&mut storage[..]);
        let mut src = &b"abc"[..];
        let err = full.write_all_buf(&mut src).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        assert_eq!(src, b"c", "the buf keeps what was not written");
    });
}

#[test]
fn write_all_buf_dropped_half_way_keeps_the_rest_in_the_buf() {
    let mut trickle = Trickle::writer();
    let mut src = &b"abcdef"[..];
    // Each byte costs a poll, after a first `Pending`.
    let mut future = Box::pin(trickle.write_all_buf(&mut src));
    assert!(poll_n_times(&mut future, 4).is_none());
    drop(future);
    assert_eq!(trickle.written, b"abc");
    assert_eq!(src, b"def");
}

#[test]
fn flush_and_shutdown_complete() {
    run(async {
        let mut trickle = Trickle::writer();
        trickle.write_all(b"x").await.unwrap();
        trickle.flush().await.unwrap();
        trickle.shutdown().await.unwrap();
        let mut vec = Vec::new();
        vec.flush().await.unwrap();
        vec.shutdown().await.unwrap();
        let mut storage = [0u8; 1];
        Cursor::new(&mut storage[..]).shutdown().await.unwrap();
    });
}

#[test]
fn write_futures_are_not_unpin() {
    assert_not_unpin!(
        crate::io::util::write::Write<'static, Vec<u8>>,
        crate::io::util::write_all::WriteAll<'static, Vec<u8>>,
        crate::io::util::write_vectored::WriteVectored<'static, 'static, Vec<u8>>,
        crate::io::util::write_buf::WriteBuf<'static, Vec<u8>, &'static [u8]>,
        crate::io::util::write_buf::WriteAllBuf<'static, Vec<u8>, &'static [u8]>,
        crate::io::util::flush_shutdown::Flush<'static, Vec<u8>>,
        crate::io::util::flush_shutdown::Shutdown<'static, Vec<u8>>,
        crate::io::util::write_int::WriteU16<&'static mut Vec<u8>>,
    );
}
