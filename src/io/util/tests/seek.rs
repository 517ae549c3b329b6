//! `AsyncSeekExt` and the `AsyncSeek` impls.
use std::io::{self, Cursor, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{assert_not_unpin, run};
use crate::io::{AsyncReadExt, AsyncSeek, AsyncSeekExt};

#[test]
fn seek_rewind_and_stream_position_on_a_cursor() {
    run(async {
        let mut cursor = Cursor::new(b"0123456789".to_vec());
        assert_eq!(cursor.seek(SeekFrom::Start(4)).await.unwrap(), 4);
        assert_eq!(cursor.read_u8().await.unwrap(), b'4');
        assert_eq!(cursor.stream_position().await.unwrap(), 5);
        assert_eq!(cursor.seek(SeekFrom::End(-1)).await.unwrap(), 9);
        assert_eq!(cursor.seek(SeekFrom::Current(-2)).await.unwrap(), 7);
        assert_eq!(cursor.rewind().await.unwrap(), 0);
        assert_eq!(
            cursor.seek(SeekFrom::Start(20)).await.unwrap(),
            20,
            "past the end"
        );
        let err = cursor.seek(SeekFrom::Current(-30)).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    });
}

/// A seeker whose seeks take one `Pending` to complete, recording the
/// order of calls.
#[derive(Default)]
struct SlowSeek {
    pos: u64,
    in_flight: Option<u64>,
    ready_next: bool,
    log: Vec<&'static str>,
}

impl AsyncSeek for SlowSeek {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        let this = self.get_mut();
        this.log.push("start");
        if this.in_flight.is_some() {
            return Err(io::Error::other("seek in flight"));
        }
        let to = match position {
            SeekFrom::Start(to) => to,
            SeekFrom::Current(by) => this.pos.checked_add_signed(by).unwrap(),
            SeekFrom::End(_) => return Err(io::ErrorKind::Unsupported.into()),
        };
        this.in_flight = Some(to);
        Ok(())
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let this = self.get_mut();
        this.log.push("complete");
        if let Some(to) = this.in_flight {
            if !this.ready_next {
                this.ready_next = true;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            this.ready_next = false;
            this.pos = to;
            this.in_flight = None;
        }
        Poll::Ready(Ok(this.pos))
    }
}

#[test]
fn seek_completes_an_earlier_seek_before_starting() {
    run(async {
        let mut seeker = SlowSeek::default();
        Pin::new(&mut seeker)
            .start_seek(SeekFrom::Start(3))
            .unwrap();
        assert_eq!(seeker.seek(SeekFrom::Start(8)).await.unwrap(), 8);
        assert_eq!(
            seeker.log,
            ["start", "complete", "complete", "start", "complete", "complete"]
        );
        // Through a `Box` and a `&mut`.
        let mut boxed: Box<dyn AsyncSeek + Unpin> = Box::new(SlowSeek::default());
        assert_eq!(boxed.seek(SeekFrom::Start(2)).await.unwrap(), 2);
        let mut by_ref = &mut boxed;
        assert_eq!(AsyncSeekExt::stream_position(&mut by_ref).await.unwrap(), 2);
    });
}

#[test]
fn seek_future_is_not_unpin() {
    assert_not_unpin!(crate::io::util::seek::Seek<'static, Cursor<Vec<u8>>>);
}
