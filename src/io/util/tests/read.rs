//! `AsyncReadExt`, `Take` and `Chain`.
use std::io::{self, Cursor};
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{assert_not_unpin, assert_unpin, poll_n_times, poll_once, run, Trickle};
use crate::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, ReadBuf};

/// Replaces the `ReadBuf` it is given with a full one over its own memory.
struct Swapper;

impl AsyncRead for Swapper {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let own: &'static mut [u8] = Box::leak(vec![0xAA; 4096].into_boxed_slice());
        let mut other = ReadBuf::new(own);
        other.advance(4096);
        *buf = other;
        Poll::Ready(Ok(()))
    }
}

#[test]
fn read_on_slice_cursor_and_trickle() {
    run(async {
        let mut buf = [0u8; 4];
        let mut slice: &[u8] = b"hello";
        assert_eq!(slice.read(&mut buf).await.unwrap(), 4);
        assert_eq!(&buf, b"hell");
        assert_eq!(slice, b"o");

        let mut cursor = Cursor::new(b"abc".to_vec());
        assert_eq!(cursor.read(&mut buf).await.unwrap(), 3);
        assert_eq!(&buf[..3], b"abc");
        assert_eq!(cursor.read(&mut buf).await.unwrap(), 0, "end of file");
        cursor.set_position(100);
        assert_eq!(cursor.read(&mut buf).await.unwrap(), 0, "past the end");

        let mut trickle = Trickle::reader(b"xy");
        assert_eq!(trickle.read(&mut buf).await.unwrap(), 1);
        assert_eq!(buf[0], b'x');
    });
}

#[test]
fn read_exact_fills_or_fails_with_unexpected_eof() {
    run(async {
        let mut buf = [0u8; 5];
        let mut trickle = Trickle::reader(b"hello world");
        assert_eq!(trickle.read_exact(&mut buf).await.unwrap(), 5);
        assert_eq!(&buf, b"hello");

        let mut short: &[u8] = b"abc";
        let err = short.read_exact(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);

        let mut interrupted = Trickle::reader(b"abcde").failing_at(2, io::ErrorKind::Interrupted);
        assert_eq!(interrupted.read_exact(&mut buf).await.unwrap(), 5);
        assert_eq!(&buf, b"abcde");

        let mut failing = Trickle::reader(b"abcde").failing_at(2, io::ErrorKind::BrokenPipe);
        let err = failing.read_exact(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    });
}

#[test]
fn read_to_end_appends_everything() {
    run(async {
        let mut out = b"pre:".to_vec();
        let mut slice: &[u8] = b"0123456789";
        assert_eq!(slice.read_to_end(&mut out).await.unwrap(), 10);
        assert_eq!(out, b"pre:0123456789");

        // Longer than the probe read, one byte per poll.
        let data: Vec<u8> = (0..200u8).collect();
        let mut out = Vec::new();
        let mut trickle = Trickle::reader(&data);
        assert_eq!(trickle.read_to_end(&mut out).await.unwrap(), 200);
        assert_eq!(out, data);

        // A vector with room for exactly the data: end of file is found
        // without growing it.
        let mut out = Vec::with_capacity(10);
        let mut cursor = Cursor::new(&b"0123456789"[..]);
        cursor.read_to_end(&mut out).await.unwrap();
        assert_eq!(out, b"0123456789");
        assert_eq!(out.capacity(), 10);
    });
}

#[test]
fn read_to_end_keeps_bytes_read_before_an_error() {
    run(async {
        let mut out = Vec::new();
        let mut trickle = Trickle::reader(b"abcdef").failing_at(3, io::ErrorKind::ConnectionReset);
        let err = trickle.read_to_end(&mut out).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
        assert_eq!(out, b"abc");

        let mut out = Vec::new();
        let mut trickle = Trickle::reader(b"abcdef").failing_at(3, io::ErrorKind::Interrupted);
        assert_eq!(trickle.read_to_end(&mut out).await.unwrap(), 6);
        assert_eq!(out, b"abcdef");
    });
}

#[test]
fn read_to_end_dropped_half_way_keeps_what_it_read() {
    let mut out = Vec::new();
    let mut trickle = Trickle::reader(b"abcdef");
    // Each byte costs a poll, after a first `Pending`.
    let mut future = Box::pin(trickle.read_to_end(&mut out));
    assert!(poll_n_times(&mut future, 4).is_none());
    drop(future);
    assert_eq!(out, b"abc");
}

#[test]
#[should_panic(expected = "buf was swapped")]
fn read_to_end_does_not_trust_a_swapped_buffer() {
    let mut out = Vec::with_capacity(16);
    let _ = run(Swapper.read_to_end(&mut out));
}

/// Gives one byte per read after zeroing its whole buffer the way wrappers
/// of `std::io::Read` do (`initialize_unfilled`), counting the bytes it had
/// to zero because they were not known to be initialised.
struct Zeroing {
    left: usize,
    zeroed: usize,
}

impl AsyncRead for Zeroing {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.zeroed += buf.capacity() - buf.initialized().len();
        let unfilled = buf.initialize_unfilled();
        if this.left > 0 && !unfilled.is_empty() {
            unfilled[0] = b'z';
            buf.advance(1);
            this.left -= 1;
        }
        Poll::Ready(Ok(()))
    }
}

#[test]
fn read_to_end_does_not_make_a_zeroing_reader_zero_twice() {
    let mut reader = Zeroing {
        left: 100,
        zeroed: 0,
    };
    let mut out = Vec::with_capacity(1000);
    assert_eq!(run(reader.read_to_end(&mut out)).unwrap(), 100);
    assert_eq!(out, [b'z'; 100]);
    // The spare capacity is zeroed once, not once per read (which would be
    // about 100 * 1000 bytes).
    assert_eq!(reader.zeroed, 1000);
}

#[test]
fn take_passes_on_what_is_known_initialised() {
    let mut take = Zeroing {
        left: 10,
        zeroed: 0,
    }
    .take(5);
    let mut storage = [0u8; 8];
    let mut buf = ReadBuf::new(&mut storage);
    let mut cx = Context::from_waker(futures::task::noop_waker_ref());
    assert!(Pin::new(&mut take).poll_read(&mut cx, &mut buf).is_ready());
    assert_eq!(buf.filled(), b"z");
    assert_eq!(
        take.get_ref().zeroed,
        0,
        "the caller's buffer was initialised"
    );

    let mut storage = [MaybeUninit::<u8>::uninit(); 8];
    let mut buf = ReadBuf::uninit(&mut storage);
    assert!(Pin::new(&mut take).poll_read(&mut cx, &mut buf).is_ready());
    assert!(Pin::new(&mut take).poll_read(&mut cx, &mut buf).is_ready());
    assert_eq!(buf.filled(), b"zz");
    // The first read zeroed the 4 bytes the limit then allowed; the second
    // found them known to be initialised.
    assert_eq!(take.get_ref().zeroed, 4);
    assert_eq!(buf.initialized().len(), 4);
}

#[test]
fn read_to_string_appends_valid_utf8() {
    run(async {
        let mut out = String::from("é:");
        let mut trickle = Trickle::reader("ünïcødé".as_bytes());
        let n = trickle.read_to_string(&mut out).await.unwrap();
        assert_eq!(n, "ünïcødé".len());
        assert_eq!(out, "é:ünïcødé");
    });
}

#[test]
fn read_to_string_invalid_utf8_keeps_earlier_content() {
    run(async {
        let mut out = String::from("kept");
        let mut slice: &[u8] = b"ok \xff\xfe bad";
        let err = slice.read_to_string(&mut out).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(out, "kept");
        // The reader was still read to the end.
        assert!(slice.is_empty());

        // A multi-byte character cut by the end of file is invalid too.
        let mut out = String::from("kept");
        let mut cut: &[u8] = &"é".as_bytes()[..1];
        let err = cut.read_to_string(&mut out).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(out, "kept");
    });
}

#[test]
fn read_to_string_io_error_keeps_only_earlier_content() {
    run(async {
        let mut out = String::from("kept");
        let mut trickle = Trickle::reader(b"abcdef").failing_at(2, io::ErrorKind::BrokenPipe);
        let err = trickle.read_to_string(&mut out).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(out, "kept");
    });
}

#[test]
fn read_to_string_dropped_half_way_restores_the_string() {
    let mut out = String::from("kept");
    let mut trickle = Trickle::reader(b"abcdef");
    let mut future = Box::pin(trickle.read_to_string(&mut out));
    assert!(poll_n_times(&mut future, 5).is_none());
    drop(future);
    assert_eq!(out, "kept");
}

#[test]
fn read_to_string_leaked_future_leaves_valid_utf8() {
    let mut out = String::from("kept");
    let mut trickle = Trickle::reader(b"\xffabc");
    let mut future = Box::pin(trickle.read_to_string(&mut out));
    assert!(poll_n_times(&mut future, 4).is_none());
    std::mem::forget(future);
    // Never anything but valid UTF-8, even with the drop skipped.
    assert!(std::str::from_utf8(out.as_bytes()).is_ok());
}

#[test]
fn read_buf_fills_spare_capacity() {
    run(async {
        let mut out = Vec::with_capacity(8);
        let mut slice: &[u8] = b"hello";
        assert_eq!(slice.read_buf(&mut out).await.unwrap(), 5);
        assert_eq!(out, b"hello");
        assert_eq!(slice.read_buf(&mut out).await.unwrap(), 0, "end of file");

        let mut bytes = bytes::BytesMut::with_capacity(4);
        let mut trickle = Trickle::reader(b"xyz");
        assert_eq!(trickle.read_buf(&mut bytes).await.unwrap(), 1);
        assert_eq!(&bytes[..], b"x");

        // A `BufMut` with no room reads nothing and does not call the reader.
        let mut storage = [0u8; 2];
        let mut full: &mut [u8] = &mut storage[..0];
        assert_eq!(Swapper.read_buf(&mut full).await.unwrap(), 0);
    });
}

#[test]
#[should_panic(expected = "buf was swapped")]
fn read_buf_does_not_trust_a_swapped_buffer() {
    let mut out: Vec<u8> = Vec::with_capacity(16);
    let _ = run(Swapper.read_buf(&mut out));
}

#[test]
fn read_buf_into_a_read_buf_never_exposes_uninitialised_memory() {
    run(async {
        let mut storage = [MaybeUninit::<u8>::uninit(); 8];
        let mut target = ReadBuf::uninit(&mut storage);
        let mut slice: &[u8] = b"abc";
        assert_eq!(slice.read_buf(&mut target).await.unwrap(), 3);
        assert_eq!(target.filled(), b"abc");
        assert_eq!(target.initialized(), b"abc");
    });
}

#[test]
fn integers_round_trip_in_both_byte_orders() {
    run(async {
        let mut out = Vec::new();
        out.write_u8(0xfe).await.unwrap();
        out.write_i8(-2).await.unwrap();
        out.write_u16(0x0102).await.unwrap();
        out.write_u16_le(0x0102).await.unwrap();
        out.write_i16(-3).await.unwrap();
        out.write_i16_le(-3).await.unwrap();
        out.write_u32(0x0102_0304).await.unwrap();
        out.write_u32_le(0x0102_0304).await.unwrap();
        out.write_i32(-5).await.unwrap();
        out.write_i32_le(-5).await.unwrap();
        out.write_u64(u64::MAX - 1).await.unwrap();
        out.write_u64_le(u64::MAX - 1).await.unwrap();
        out.write_i64(i64::MIN).await.unwrap();
        out.write_i64_le(i64::MIN).await.unwrap();
        out.write_u128(u128::MAX / 3).await.unwrap();
        out.write_u128_le(u128::MAX / 3).await.unwrap();
        out.write_i128(i128::MIN + 7).await.unwrap();
        out.write_i128_le(i128::MIN + 7).await.unwrap();
        out.write_f32(1.5).await.unwrap();
        out.write_f32_le(-2.25).await.unwrap();
        out.write_f64(3.125).await.unwrap();
        out.write_f64_le(f64::MIN_POSITIVE).await.unwrap();

        // The byte layouts are the documented ones.
        assert_eq!(&out[..2], &[0xfe, 0xfe]);
        assert_eq!(&out[2..6], &[1, 2, 2, 1]);
        assert_eq!(&out[10..18], &[1, 2, 3, 4, 4, 3, 2, 1]);

        // Read back one byte per poll.
        let mut r = Trickle::reader(&out);
        assert_eq!(r.read_u8().await.unwrap(), 0xfe);
        assert_eq!(r.read_i8().await.unwrap(), -2);
        assert_eq!(r.read_u16().await.unwrap(), 0x0102);
        assert_eq!(r.read_u16_le().await.unwrap(), 0x0102);
        assert_eq!(r.read_i16().await.unwrap(), -3);
        assert_eq!(r.read_i16_le().await.unwrap(), -3);
        assert_eq!(r.read_u32().await.unwrap(), 0x0102_0304);
        assert_eq!(r.read_u32_le().await.unwrap(), 0x0102_0304);
        assert_eq!(r.read_i32().await.unwrap(), -5);
        assert_eq!(r.read_i32_le().await.unwrap(), -5);
        assert_eq!(r.read_u64().await.unwrap(), u64::MAX - 1);
        assert_eq!(r.read_u64_le().await.unwrap(), u64::MAX - 1);
        assert_eq!(r.read_i64().await.unwrap(), i64::MIN);
        assert_eq!(r.read_i64_le().await.unwrap(), i64::MIN);
        assert_eq!(r.read_u128().await.unwrap(), u128::MAX / 3);
        assert_eq!(r.read_u128_le().await.unwrap(), u128::MAX / 3);
        assert_eq!(r.read_i128().await.unwrap(), i128::MIN + 7);
        assert_eq!(r.read_i128_le().await.unwrap(), i128::MIN + 7);
        assert_eq!(r.read_f32().await.unwrap(), 1.5);
        assert_eq!(r.read_f32_le().await.unwrap(), -2.25);
        assert_eq!(r.read_f64().await.unwrap(), 3.125);
        assert_eq!(r.read_f64_le().await.unwrap(), f64::MIN_POSITIVE);
        let err = r.read_u8().await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    });
}

#[test]
fn a_truncated_integer_is_unexpected_eof() {
    run(async {
        let mut slice: &[u8] = &[1, 2, 3];
        let err = slice.read_u32().await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    });
}

#[test]
fn take_stops_at_its_limit() {
    run(async {
        let mut take = Trickle::reader(b"abcdef").take(4);
        let mut out = Vec::new();
        assert_eq!(take.read_to_end(&mut out).await.unwrap(), 4);
        assert_eq!(out, b"abcd");
        assert_eq!(take.limit(), 0);

        // Resumed with a new limit.
        take.set_limit(10);
        out.clear();
        take.read_to_end(&mut out).await.unwrap();
        assert_eq!(out, b"ef");
        assert_eq!(take.limit(), 8);
        assert_eq!(take.get_ref().pos, 6);
        assert_eq!(take.into_inner().pos, 6);

        // A limit smaller than the caller's buffer.
        let mut take = (&b"0123456789"[..]).take(3);
        let mut buf = [0u8; 8];
        assert_eq!(take.read(&mut buf).await.unwrap(), 3);
        assert_eq!(take.read(&mut buf).await.unwrap(), 0);
    });
}

#[test]
fn take_as_buf_read_never_passes_its_limit() {
    run(async {
        let mut take = (&b"line one\nline two\n"[..]).take(6);
        assert_eq!(take.fill_buf().await.unwrap(), b"line o");
        // An oversized consume cannot reset the limit.
        AsyncBufReadExt::consume(&mut take, 100);
        assert_eq!(take.limit(), 0);
        assert_eq!(take.fill_buf().await.unwrap(), b"");
        assert_eq!(*take.get_ref(), b"ne\nline two\n");
    });
}

#[test]
#[should_panic(expected = "buf was swapped")]
fn take_does_not_trust_a_swapped_buffer() {
    let mut buf = [0u8; 16];
    let _ = run(Swapper.take(8).read(&mut buf));
}

#[test]
fn chain_reads_one_then_the_other() {
    run(async {
        let mut chain = Trickle::reader(b"ab").chain(&b"cd"[..]);
        let mut out = String::new();
        chain.read_to_string(&mut out).await.unwrap();
        assert_eq!(out, "abcd");
        let (first, second) = chain.get_ref();
        assert_eq!(first.pos, 2);
        assert!(second.is_empty());

        // A read into a full buffer does not end the first reader.
        let mut chain = (&b"ab"[..]).chain(&b"cd"[..]);
        let mut empty = [0u8; 0];
        assert_eq!(chain.read(&mut empty).await.unwrap(), 0);
        let mut two = [0u8; 2];
        chain.read_exact(&mut two).await.unwrap();
        assert_eq!(&two, b"ab");

        // As a buffered reader, lines may span the two.
        let mut chain = (&b"one\ntw"[..]).chain(&b"o\nthree"[..]);
        let mut lines = Vec::new();
        let mut line = String::new();
        while chain.read_line(&mut line).await.unwrap() != 0 {
            lines.push(std::mem::take(&mut line));
        }
        // `read_line` stops at the end of the first reader's buffer only
        // when it holds a newline; "tw" + "o\n" is one line.
        assert_eq!(lines, ["one\n", "two\n", "three"]);
        assert_eq!(
            format!("{:?}", (&b""[..]).chain(&b""[..])),
            "Chain { t: [], u: [] }"
        );
    });
}

#[test]
fn futures_are_not_unpin_and_adapters_are_unpin_when_their_reader_is() {
    assert_not_unpin!(
        crate::io::util::read::Read<'static, &'static [u8]>,
        crate::io::util::read_buf::ReadBuf<'static, &'static [u8], Vec<u8>>,
        crate::io::util::read_exact::ReadExact<'static, &'static [u8]>,
        crate::io::util::read_to_end::ReadToEnd<'static, &'static [u8]>,
        crate::io::util::read_to_string::ReadToString<'static, &'static [u8]>,
        crate::io::util::read_int::ReadU8<&'static [u8]>,
        crate::io::util::read_int::ReadF64Le<&'static [u8]>,
    );
    assert_unpin::<crate::io::Take<&'static [u8]>>();
    assert_unpin::<crate::io::Chain<&'static [u8], &'static [u8]>>();
}

#[test]
fn read_u8_dropped_while_pending_loses_nothing() {
    let mut trickle = Trickle::reader(b"\x07");
    {
        let mut future = Box::pin(trickle.read_u8());
        assert!(poll_once(&mut future).is_pending());
    }
    assert_eq!(run(trickle.read_u8()).unwrap(), 7);
}

#[test]
fn forwarding_impls_read_through_box_mut_ref_and_pin() {
    run(async {
        let mut boxed: Box<dyn AsyncRead + Unpin> = Box::new(&b"box"[..]);
        let mut out = String::new();
        boxed.read_to_string(&mut out).await.unwrap();
        assert_eq!(out, "box");

        let mut inner: &[u8] = b"ref";
        let mut by_ref = &mut inner;
        out.clear();
        (&mut by_ref).read_to_string(&mut out).await.unwrap();
        assert_eq!(out, "ref");

        let mut pinned = Box::pin(Trickle::reader(b"pin"));
        out.clear();
        pinned.read_to_string(&mut out).await.unwrap();
        assert_eq!(out, "pin");
        // `Pin<P>` is also a buffered reader when its target is.
        let mut pinned = Box::pin(Cursor::new(b"a\nb".to_vec()));
        assert_eq!(Pin::new(&mut pinned).poll_fill_buf_ready(), b"a\nb");
    });
}

/// `poll_fill_buf` on a reader that is always ready.
trait PollFillBufReady {
    fn poll_fill_buf_ready(self) -> Vec<u8>;
}

impl<R: AsyncBufRead> PollFillBufReady for Pin<&mut R> {
    fn poll_fill_buf_ready(self) -> Vec<u8> {
        let mut cx = Context::from_waker(futures::task::noop_waker_ref());
        match self.poll_fill_buf(&mut cx) {
            Poll::Ready(Ok(buf)) => buf.to_vec(),
            other => panic!("not ready: {:?}", other.map(|r| r.map(<[u8]>::to_vec))),
        }
    }
}

#[test]
fn futures_and_adapters_are_send_and_sync_when_their_reader_is() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<crate::io::util::read_to_end::ReadToEnd<'static, &'static [u8]>>();
    assert_send_sync::<crate::io::util::read_to_string::ReadToString<'static, &'static [u8]>>();
    assert_send_sync::<crate::io::util::read_line::ReadLine<'static, &'static [u8]>>();
    assert_send_sync::<crate::io::util::fill_buf::FillBuf<'static, &'static [u8]>>();
    assert_send_sync::<crate::io::util::read_int::ReadU64<&'static mut &'static [u8]>>();
    assert_send_sync::<crate::io::Lines<&'static [u8]>>();
    assert_send_sync::<crate::io::Take<&'static [u8]>>();
    assert_send_sync::<ReadBuf<'static>>();
}
