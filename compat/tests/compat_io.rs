//! The futures-io adapters (`tokiwa_compat::Compat`) on tokiwa's files and
//! sockets, in both directions, on both schedulers × both drivers.
#[macro_use]
mod support;

use std::io::{self, IoSlice, SeekFrom};
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncSeekExt as _, AsyncWriteExt as _};
use futures::StreamExt as _;
use tokiwa::io::{AsyncReadExt as _, AsyncSeekExt as _, AsyncWriteExt as _, ReadBuf};
use tokiwa_compat::{
    Compat, FuturesAsyncReadCompatExt, FuturesAsyncWriteCompatExt, TokioAsyncReadCompatExt,
    TokioAsyncWriteCompatExt,
};

use support::{checksum, data, tcp_pair, temp_dir, total_for, CHUNKS};

/// Writes `bytes` in `chunk`-sized `write_all`s through futures-io, then
/// closes (tokio's shutdown).
async fn write_chunked<W: futures::io::AsyncWrite + Unpin>(w: &mut W, bytes: &[u8], chunk: usize) {
    for piece in bytes.chunks(chunk) {
        w.write_all(piece).await.unwrap();
    }
    w.flush().await.unwrap();
}

/// Reads to EOF through futures-io with a `chunk`-sized buffer, then checks
/// that a read after EOF returns 0 again.
async fn read_chunked<R: futures::io::AsyncRead + Unpin>(r: &mut R, chunk: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0; chunk];
    loop {
        let n = r.read(&mut buf).await.unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
    assert_eq!(r.read(&mut buf).await.unwrap(), 0, "a read after EOF");
    out
}

compat_test! {
    fn tcp_round_trip_every_chunking() {
        for (i, &chunk) in CHUNKS.iter().enumerate() {
            let sent = data(total_for(chunk), i as u64);
            let (client, server) = tcp_pair().await;
            let expect = checksum(&sent);
            let writer = tokiwa::spawn(async move {
                let mut w = client.compat_write();
                write_chunked(&mut w, &sent, chunk).await;
                w.close().await.unwrap();
                w
            });
            let got = read_chunked(&mut server.compat(), chunk).await;
            assert_eq!((got.len(), checksum(&got)), (total_for(chunk), expect), "chunk {chunk}");
            writer.await.unwrap();
        }
    }

    fn tcp_copy_read_to_end_bufreader_lines() {
        // futures::io::copy from a Cursor into the socket, read_to_end out.
        let sent = data((1 << 20) + 7, 99);
        let (client, server) = tcp_pair().await;
        let expect = checksum(&sent);
        let writer = tokiwa::spawn(async move {
            let mut w = client.compat_write();
            let n = futures::io::copy(futures::io::Cursor::new(sent), &mut w).await.unwrap();
            w.close().await.unwrap();
            n
        });
        let mut got = Vec::new();
        server.compat().read_to_end(&mut got).await.unwrap();
        assert_eq!(checksum(&got), expect);
        assert_eq!(writer.await.unwrap(), got.len() as u64);

        // futures::io::BufReader + lines, and copy from the socket.
        let (client, server) = tcp_pair().await;
        let writer = tokiwa::spawn(async move {
            let mut w = client.compat_write();
            for i in 0..1000 {
                w.write_all(format!("line {i}\n").as_bytes()).await.unwrap();
            }
            w.close().await.unwrap();
        });
        let lines: Vec<String> = futures::io::BufReader::new(server.compat())
            .lines()
            .map(Result::unwrap)
            .collect()
            .await;
        writer.await.unwrap();
        assert_eq!(lines.len(), 1000);
        assert!(lines.iter().enumerate().all(|(i, l)| *l == format!("line {i}")));

        let (client, server) = tcp_pair().await;
        let sent = data(300_000, 5);
        let expect = checksum(&sent);
        tokiwa::spawn(async move {
            let mut client = client;
            client.write_all(&sent).await.unwrap();
        });
        let mut sink = Vec::new();
        let n = futures::io::copy(futures::io::BufReader::new(server.compat()), &mut sink).await.unwrap();
        assert_eq!((n, checksum(&sink)), (300_000, expect));
    }

    fn file_round_trip_every_chunking_and_seek() {
        let dir = temp_dir("file");
        for (i, &chunk) in CHUNKS.iter().enumerate() {
            let path = dir.join(format!("chunk-{chunk}"));
            let sent = data(total_for(chunk), 100 + i as u64);
            let mut w = tokiwa::fs::File::create(&path).await.unwrap().compat_write();
            write_chunked(&mut w, &sent, chunk).await;
            w.close().await.unwrap();

            let mut r = tokiwa::fs::File::open(&path).await.unwrap().compat();
            let got = read_chunked(&mut r, chunk).await;
            assert_eq!(checksum(&got), checksum(&sent), "chunk {chunk}");

            // Seeks from each end, through futures' AsyncSeekExt.
            let len = sent.len() as u64;
            assert_eq!(r.seek(SeekFrom::Start(3)).await.unwrap(), 3);
            let mut four = [0; 4];
            r.read_exact(&mut four).await.unwrap();
            assert_eq!(four, sent[3..7]);
            assert_eq!(r.seek(SeekFrom::Current(-2)).await.unwrap(), 5);
            assert_eq!(r.seek(SeekFrom::End(-4)).await.unwrap(), len - 4);
            let mut tail = Vec::new();
            r.read_to_end(&mut tail).await.unwrap();
            assert_eq!(tail, sent[sent.len() - 4..]);
            assert_eq!(r.seek(SeekFrom::Current(0)).await.unwrap(), len);
        }

        // futures BufReader + lines over a file, and copy out of it.
        let path = dir.join("lines");
        let text: String = (0..500).map(|i| format!("row {i}\n")).collect();
        tokiwa::fs::write(&path, &text).await.unwrap();
        let file = tokiwa::fs::File::open(&path).await.unwrap();
        let lines: Vec<String> =
            futures::io::BufReader::new(file.compat()).lines().map(Result::unwrap).collect().await;
        assert_eq!(lines.len(), 500);
        assert_eq!(lines[499], "row 499");
        let mut copied = Vec::new();
        let file = tokiwa::fs::File::open(&path).await.unwrap();
        futures::io::copy(file.compat(), &mut copied).await.unwrap();
        assert_eq!(copied, text.as_bytes());

        // tokio's BufReader seen as futures' AsyncBufRead.
        let file = tokiwa::fs::File::open(&path).await.unwrap();
        let mut buffered = tokiwa::io::BufReader::new(file).compat();
        let mut first = String::new();
        buffered.read_line(&mut first).await.unwrap();
        assert_eq!(first, "row 0\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn errors_and_eof_pass_through() {
        // A peer that closes with unread data resets the connection: the
        // reset reaches the futures-io reader as ConnectionReset.
        let (client, server) = tcp_pair().await;
        let mut client = client.compat();
        client.write_all(b"unread").await.unwrap();
        server.readable().await.unwrap();
        drop(server);
        let mut buf = [0; 16];
        let err = loop {
            match client.read(&mut buf).await {
                Ok(0) => panic!("EOF instead of a reset"),
                Ok(_) => continue,
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);

        // A futures-io reader's error reaches tokio's read_to_end unchanged.
        let mut failing = Failing.compat();
        let err = failing.read_to_end(&mut Vec::new()).await.unwrap_err();
        assert_eq!((err.kind(), err.to_string()), (io::ErrorKind::InvalidData, "failing".into()));

        // EOF: a closed writer gives 0, again and again, in both directions.
        let (client, server) = tcp_pair().await;
        client.compat_write().close().await.unwrap();
        let mut server = server.compat();
        assert_eq!(server.read(&mut buf).await.unwrap(), 0);
        assert_eq!(server.read(&mut buf).await.unwrap(), 0);
        let mut empty = futures::io::Cursor::new(Vec::<u8>::new()).compat();
        assert_eq!(tokiwa::io::AsyncReadExt::read(&mut empty, &mut buf).await.unwrap(), 0);
        assert_eq!(tokiwa::io::AsyncReadExt::read(&mut empty, &mut buf).await.unwrap(), 0);
    }

    fn futures_into_tokio() {
        // A futures Cursor (and AllowStdIo) copied into a tokiwa socket with
        // tokiwa::io::copy, read back with AsyncReadExt.
        let sent = data((1 << 20) + 4095, 7);
        let expect = checksum(&sent);
        let (mut client, mut server) = tcp_pair().await;
        let copy_in = sent.clone();
        let writer = tokiwa::spawn(async move {
            let mut reader = futures::io::Cursor::new(copy_in).compat();
            let a = tokiwa::io::copy(&mut reader, &mut client).await.unwrap();
            let mut std_reader = futures::io::AllowStdIo::new(io::Cursor::new(b"tail".to_vec())).compat();
            let b = tokiwa::io::copy(&mut std_reader, &mut client).await.unwrap();
            client.shutdown().await.unwrap();
            a + b
        });
        let mut got = Vec::new();
        server.read_to_end(&mut got).await.unwrap();
        assert_eq!(writer.await.unwrap(), got.len() as u64);
        assert_eq!(&got[got.len() - 4..], b"tail");
        assert_eq!(checksum(&got[..got.len() - 4]), expect);

        // A futures writer seen as tokio's, with vectored writes and shutdown.
        let mut sink = futures::io::Cursor::new(Vec::new()).compat_write();
        tokiwa::io::copy(&mut &sent[..], &mut sink).await.unwrap();
        let n = sink.write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")]).await.unwrap();
        sink.write_all(&b"abcd"[n..]).await.unwrap();
        sink.shutdown().await.unwrap();
        let bytes = sink.into_inner().into_inner();
        assert_eq!(checksum(&bytes[..sent.len()]), expect);
        assert_eq!(&bytes[sent.len()..], b"abcd");

        // Seeking a futures Cursor with tokio's AsyncSeekExt, and lines
        // from a futures AsyncBufRead with tokio's AsyncBufReadExt.
        let mut cursor = futures::io::Cursor::new(b"0123456789".to_vec()).compat();
        assert_eq!(cursor.seek(SeekFrom::End(-3)).await.unwrap(), 7);
        assert_eq!(cursor.stream_position().await.unwrap(), 7);
        let mut rest = String::new();
        cursor.read_to_string(&mut rest).await.unwrap();
        assert_eq!(rest, "789");
        let mut lines =
            tokiwa::io::AsyncBufReadExt::lines(futures::io::Cursor::new(b"a\nb\n".to_vec()).compat());
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("a"));
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("b"));
        assert_eq!(lines.next_line().await.unwrap(), None);

        // get_ref / get_mut / into_inner.
        let mut c = futures::io::Cursor::new(vec![1u8]).compat();
        c.get_mut().get_mut().push(2);
        assert_eq!(c.get_ref().get_ref(), &[1, 2]);
        let _: futures::io::Cursor<Vec<u8>> = c.into_inner();
    }

    fn tcp_vectored_writes() {
        let (client, mut server) = tcp_pair().await;
        let mut w = client.compat_write();
        let mut written = 0;
        while written < 6 {
            let parts = [IoSlice::new(b"abc"), IoSlice::new(b"def")];
            let mut skip = written;
            let left: Vec<IoSlice<'_>> = parts
                .iter()
                .filter_map(|p| {
                    let cut = skip.min(p.len());
                    skip -= cut;
                    (cut < p.len()).then(|| IoSlice::new(&p[cut..]))
                })
                .collect();
            written += w.write_vectored(&left).await.unwrap();
        }
        w.close().await.unwrap();
        let mut got = String::new();
        server.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "abcdef");
    }

    fn a_reused_read_buf_is_zeroed_once() {
        // One ReadBuf over uninitialised memory, polled until full: the
        // marks the reader left past what it returned are still there on the
        // next call (zeroing on every call would erase them).
        let mut storage = vec![MaybeUninit::<u8>::uninit(); 16 * 1024];
        let mut buf = ReadBuf::uninit(&mut storage);
        let mut reader = Marking::default().compat();
        while buf.remaining() > 0 {
            std::future::poll_fn(|cx| tokiwa::io::AsyncRead::poll_read(Pin::new(&mut reader), cx, &mut buf))
                .await
                .unwrap();
        }
        let marking = reader.get_ref();
        assert!(marking.checked > 1000, "checked {}", marking.checked);
        assert_eq!(marking.rezeroed, 0, "memory zeroed again");
        assert_eq!(buf.initialized().len(), 16 * 1024);
        assert!(buf.filled().iter().all(|&b| b == DATA));

        // tokio's read_to_end carries the initialised length from call to
        // call; the adapter keeps it too.
        let mut reader = Marking { left: Some(5000), ..Marking::default() }.compat();
        let mut out = Vec::with_capacity(1 << 20);
        assert_eq!(reader.read_to_end(&mut out).await.unwrap(), 5000);
        let marking = reader.get_ref();
        assert!(marking.checked > 1000, "checked {}", marking.checked);
        assert_eq!(marking.rezeroed, 0, "memory zeroed again");

        // A fresh ReadBuf over a 1 MiB uninitialised buffer on every call
        // (read_buf into spare capacity): each call zeroes a bounded window,
        // not the whole megabyte (tokio issue 7194).
        let mut reader = Marking { left: Some(3000), ..Marking::default() }.compat();
        let mut out = Vec::with_capacity(1 << 20);
        while reader.read_buf(&mut out).await.unwrap() > 0 {}
        assert_eq!(out.len(), 3000);
        assert!(reader.get_ref().largest <= 64 * 1024, "offered {}", reader.get_ref().largest);
        // Initialised memory needs no zeroing and is offered in full.
        let mut reader = Marking::default().compat();
        let mut init = vec![0u8; 1 << 20];
        tokiwa::io::AsyncReadExt::read(&mut reader, &mut init).await.unwrap();
        assert_eq!(reader.get_ref().largest, 1 << 20);
    }

    fn a_seek_pending_is_not_started_twice() {
        // futures' poll_seek repeated after Pending must wait for the seek
        // it started: a relative seek started twice would land at 10.
        let mut seeker = SlowSeeker::default().compat();
        assert_eq!(futures::io::AsyncSeekExt::seek(&mut seeker, SeekFrom::Current(5)).await.unwrap(), 5);
        assert_eq!(futures::io::AsyncSeekExt::seek(&mut seeker, SeekFrom::Current(5)).await.unwrap(), 10);
        assert_eq!(seeker.get_ref().started, 2);
    }
}

/// A futures-io reader that fails.
struct Failing;

impl futures::io::AsyncRead for Failing {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        _: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, "failing")))
    }
}

const DATA: u8 = 0x5A;
const MARK: u8 = 0xA5;

/// A futures-io reader that returns at most 3 bytes of `DATA` per call and
/// fills the rest of the slice with `MARK`; when the next call's slice
/// starts where the returned bytes ended (the same buffer, reused), it
/// checks that its marks are still there.
#[derive(Default)]
struct Marking {
    /// Bytes left before EOF (`None`: no end).
    left: Option<usize>,
    /// Where the last call's returned bytes ended, and how many marks
    /// followed them.
    last: Option<(usize, usize)>,
    checked: usize,
    rezeroed: usize,
    largest: usize,
}

impl futures::io::AsyncRead for Marking {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        slice: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        this.largest = this.largest.max(slice.len());
        if let Some((end, marks)) = this.last {
            if end == slice.as_ptr() as usize && marks > 0 {
                this.checked += 1;
                // The first marks suffice: zeroing would start with them.
                if slice[..marks.min(slice.len()).min(64)]
                    .iter()
                    .any(|&b| b != MARK)
                {
                    this.rezeroed += 1;
                }
            }
        }
        let mut n = slice.len().min(3);
        if let Some(left) = &mut this.left {
            n = n.min(*left);
            *left -= n;
        }
        slice[..n].fill(DATA);
        slice[n..].fill(MARK);
        this.last = Some((slice.as_ptr() as usize + n, slice.len() - n));
        Poll::Ready(Ok(n))
    }
}

/// A tokio seeker whose every seek is `Pending` once before it lands.
#[derive(Default)]
struct SlowSeeker {
    position: u64,
    pending: Option<SeekFrom>,
    polled_once: bool,
    started: usize,
}

impl tokiwa::io::AsyncSeek for SlowSeeker {
    fn start_seek(mut self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        self.started += 1;
        self.pending = Some(position);
        self.polled_once = false;
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let Some(position) = self.pending else {
            return Poll::Ready(Ok(self.position));
        };
        if !self.polled_once {
            self.polled_once = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.position = match position {
            SeekFrom::Start(n) => n,
            SeekFrom::Current(d) => self.position.checked_add_signed(d).unwrap(),
            SeekFrom::End(_) => unimplemented!(),
        };
        self.pending = None;
        Poll::Ready(Ok(self.position))
    }
}

#[allow(dead_code)]
fn _compat_is_the_exported_type(c: Compat<tokiwa::net::TcpStream>) -> tokiwa::net::TcpStream {
    c.into_inner()
}

impl tokiwa::io::AsyncRead for SlowSeeker {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        _: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
