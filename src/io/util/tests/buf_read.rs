//! `AsyncBufReadExt`, `Lines` and `Split`.
use std::io::{self, Cursor};

use super::{assert_not_unpin, assert_unpin, poll_n_times, poll_once, run, Trickle};
use crate::io::AsyncBufReadExt;

const TEXT: &[u8] = b"first\r\nsecond\n\nlast";

#[test]
fn read_until_includes_the_delimiter() {
    run(async {
        for mut reader in [Trickle::reader(b"a,bc,d"), Trickle::reader(b"a,bc,d")] {
            let mut out = Vec::new();
            assert_eq!(reader.read_until(b',', &mut out).await.unwrap(), 2);
            assert_eq!(reader.read_until(b',', &mut out).await.unwrap(), 3);
            assert_eq!(reader.read_until(b',', &mut out).await.unwrap(), 1);
            assert_eq!(reader.read_until(b',', &mut out).await.unwrap(), 0);
            assert_eq!(out, b"a,bc,d");
        }
        let mut slice: &[u8] = b"xx;y";
        let mut out = Vec::new();
        slice.read_until(b';', &mut out).await.unwrap();
        assert_eq!(out, b"xx;");
        assert_eq!(slice, b"y");
    });
}

#[test]
fn read_until_is_cancel_safe() {
    let mut reader = Trickle::reader(b"abc\ndef");
    let mut out = Vec::new();
    {
        // Each byte costs a poll, after a first `Pending`.
        let mut future = Box::pin(reader.read_until(b'\n', &mut out));
        assert!(poll_n_times(&mut future, 3).is_none());
    }
    assert_eq!(out, b"ab", "bytes read before the drop are kept");
    let n = run(reader.read_until(b'\n', &mut out)).unwrap();
    assert_eq!(n, 2);
    assert_eq!(out, b"abc\n");
}

#[test]
fn read_until_keeps_bytes_read_before_an_error() {
    run(async {
        let mut reader = Trickle::reader(b"abcdef").failing_at(2, io::ErrorKind::BrokenPipe);
        let mut out = Vec::new();
        let err = reader.read_until(b'\n', &mut out).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(out, b"ab");

        let mut reader = Trickle::reader(b"ab\n").failing_at(1, io::ErrorKind::Interrupted);
        let mut out = Vec::new();
        assert_eq!(reader.read_until(b'\n', &mut out).await.unwrap(), 3);
    });
}

#[test]
fn read_line_keeps_line_endings_and_reads_a_last_line_without_one() {
    run(async {
        let mut reader = Trickle::reader(TEXT);
        let mut line = String::new();
        let mut lines = Vec::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).await.unwrap() == 0 {
                break;
            }
            lines.push(line.clone());
        }
        assert_eq!(lines, ["first\r\n", "second\n", "\n", "last"]);

        // Appends to what the String held.
        let mut cursor = Cursor::new(b"b\n".to_vec());
        let mut line = String::from("a");
        assert_eq!(cursor.read_line(&mut line).await.unwrap(), 2);
        assert_eq!(line, "ab\n");
    });
}

#[test]
fn read_line_invalid_utf8_keeps_earlier_content() {
    run(async {
        let mut reader: &[u8] = b"bad \xff line\nnext\n";
        let mut line = String::from("kept");
        let err = reader.read_line(&mut line).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(line, "kept");
        // The bad line was consumed; the next one reads normally.
        line.clear();
        reader.read_line(&mut line).await.unwrap();
        assert_eq!(line, "next\n");
    });
}

#[test]
fn read_line_io_error_keeps_the_partial_line() {
    run(async {
        let mut reader = Trickle::reader(b"abcdef\n").failing_at(3, io::ErrorKind::BrokenPipe);
        let mut line = String::from(">");
        let err = reader.read_line(&mut line).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(line, ">abc");
    });
}

#[test]
fn read_line_dropped_half_way_restores_the_string() {
    let mut reader = Trickle::reader(b"abcdef\n");
    let mut line = String::from("kept");
    {
        let mut future = Box::pin(reader.read_line(&mut line));
        assert!(poll_n_times(&mut future, 5).is_none());
    }
    assert_eq!(line, "kept");
}

#[test]
fn lines_strip_crlf_and_lf_and_return_a_last_line_without_one() {
    run(async {
        let mut lines = Trickle::reader(TEXT).lines();
        let mut got = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            got.push(line);
        }
        assert_eq!(got, ["first", "second", "", "last"]);
        assert!(lines.next_line().await.unwrap().is_none(), "stays at end");
        assert_eq!(lines.get_ref().pos, TEXT.len());

        // A lone `\r` at the end is data, not a line ending.
        let mut lines = (&b"a\r"[..]).lines();
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("a\r"));

        let mut lines = (&b"ok\n\xff\nafter\n"[..]).lines();
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("ok"));
        let err = lines.next_line().await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("after"));
    });
}

#[test]
fn next_line_is_cancel_safe() {
    let mut lines = Trickle::reader(b"hello\nworld").lines();
    {
        let mut future = Box::pin(lines.next_line());
        assert!(poll_n_times(&mut future, 6).is_none());
    }
    assert_eq!(run(lines.next_line()).unwrap().as_deref(), Some("hello"));
    assert_eq!(run(lines.next_line()).unwrap().as_deref(), Some("world"));
    assert_eq!(run(lines.next_line()).unwrap(), None);
}

#[test]
fn split_removes_the_delimiter() {
    run(async {
        let mut split = Trickle::reader(b"a\0bc\0\0d").split(0);
        let mut got = Vec::new();
        while let Some(segment) = split.next_segment().await.unwrap() {
            got.push(segment);
        }
        assert_eq!(got, [&b"a"[..], b"bc", b"", b"d"]);

        // CRLF data split on `\n` keeps the `\r`.
        let mut split = AsyncBufReadExt::split(&b"x\r\ny"[..], b'\n');
        assert_eq!(split.next_segment().await.unwrap().unwrap(), b"x\r");
        assert_eq!(split.next_segment().await.unwrap().unwrap(), b"y");
        assert_eq!(split.next_segment().await.unwrap(), None);
    });
}

#[test]
fn next_segment_is_cancel_safe() {
    let mut split = Trickle::reader(b"ab,cd").split(b',');
    {
        let mut future = Box::pin(split.next_segment());
        assert!(poll_n_times(&mut future, 2).is_none());
    }
    assert_eq!(run(split.next_segment()).unwrap().unwrap(), b"ab");
    assert_eq!(run(split.next_segment()).unwrap().unwrap(), b"cd");
}

#[test]
fn fill_buf_and_consume() {
    run(async {
        let mut cursor = Cursor::new(b"abc".to_vec());
        assert_eq!(cursor.fill_buf().await.unwrap(), b"abc");
        cursor.consume(2);
        assert_eq!(cursor.fill_buf().await.unwrap(), b"c");
        cursor.consume(1);
        assert_eq!(cursor.fill_buf().await.unwrap(), b"");
    });
    // Pending first, then the buffer, borrowed from the reader.
    let mut trickle = Trickle::reader(b"xy");
    let mut future = Box::pin(trickle.fill_buf());
    assert!(poll_once(&mut future).is_pending());
    assert_eq!(run(future).unwrap(), b"x");
}

#[test]
fn buf_read_types_are_unpin_when_their_reader_is_and_futures_are_not() {
    assert_unpin::<crate::io::Lines<&'static [u8]>>();
    assert_unpin::<crate::io::Split<&'static [u8]>>();
    assert_not_unpin!(
        crate::io::util::read_until::ReadUntil<'static, &'static [u8]>,
        crate::io::util::read_line::ReadLine<'static, &'static [u8]>,
        crate::io::util::fill_buf::FillBuf<'static, &'static [u8]>,
    );
}
