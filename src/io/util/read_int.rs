//! The futures of `AsyncReadExt::read_u8` ... `read_f64_le`: read exactly
//! the number's size in bytes, then decode it big- or little-endian.
//!
//! Bytes read before the future is dropped are lost: these reads are not
//! cancellation safe (as tokio's are not). A source that ends before the
//! number is complete gives `UnexpectedEof`.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::mem::size_of;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use super::lent_buf::poll_read_into;
use super::read_exact::early_eof;
use crate::io::{AsyncRead, ReadBuf};

/// Reads into `buf[*filled..]` until `buf` is full.
fn poll_fill<R: AsyncRead + ?Sized>(
    mut reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    buf: &mut [u8],
    filled: &mut usize,
) -> Poll<io::Result<()>> {
    while *filled < buf.len() {
        let mut rest = ReadBuf::new(&mut buf[*filled..]);
        match poll_read_into(reader.as_mut(), cx, &mut rest) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Ok(0)) => return Poll::Ready(Err(early_eof())),
            Poll::Ready(Ok(n)) => *filled += n,
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
        }
    }
    Poll::Ready(Ok(()))
}

macro_rules! read_int_futures {
    ($($name:ident($ty:ty, $decode:ident, $method:literal);)*) => {$(
        pin_project! {
            #[doc = concat!("Future for the [`", $method, "`](super::AsyncReadExt::", $method, ") method.")]
            #[derive(Debug)]
            #[must_use = "futures do nothing unless you `.await` or poll them"]
            pub struct $name<R> {
                #[pin]
                src: R,
                buf: [u8; size_of::<$ty>()],
                filled: usize,
                #[pin]
                _pin: PhantomPinned,
            }
        }

        impl<R> $name<R> {
            pub(crate) fn new(src: R) -> Self {
                $name {
                    src,
                    buf: [0; size_of::<$ty>()],
                    filled: 0,
                    _pin: PhantomPinned,
                }
            }
        }

        impl<R: AsyncRead> Future for $name<R> {
            type Output = io::Result<$ty>;

            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<$ty>> {
                let me = self.project();
                std::task::ready!(poll_fill(me.src, cx, me.buf, me.filled))?;
                Poll::Ready(Ok(<$ty>::$decode(*me.buf)))
            }
        }
    )*};
}

read_int_futures! {
    ReadU8(u8, from_be_bytes, "read_u8");
    ReadI8(i8, from_be_bytes, "read_i8");
    ReadU16(u16, from_be_bytes, "read_u16");
    ReadI16(i16, from_be_bytes, "read_i16");
    ReadU32(u32, from_be_bytes, "read_u32");
    ReadI32(i32, from_be_bytes, "read_i32");
    ReadU64(u64, from_be_bytes, "read_u64");
    ReadI64(i64, from_be_bytes, "read_i64");
    ReadU128(u128, from_be_bytes, "read_u128");
    ReadI128(i128, from_be_bytes, "read_i128");
    ReadF32(f32, from_be_bytes, "read_f32");
    ReadF64(f64, from_be_bytes, "read_f64");
    ReadU16Le(u16, from_le_bytes, "read_u16_le");
    ReadI16Le(i16, from_le_bytes, "read_i16_le");
    ReadU32Le(u32, from_le_bytes, "read_u32_le");
    ReadI32Le(i32, from_le_bytes, "read_i32_le");
    ReadU64Le(u64, from_le_bytes, "read_u64_le");
    ReadI64Le(i64, from_le_bytes, "read_i64_le");
    ReadU128Le(u128, from_le_bytes, "read_u128_le");
    ReadI128Le(i128, from_le_bytes, "read_i128_le");
    ReadF32Le(f32, from_le_bytes, "read_f32_le");
    ReadF64Le(f64, from_le_bytes, "read_f64_le");
}
