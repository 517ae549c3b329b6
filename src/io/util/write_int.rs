//! The futures of `AsyncWriteExt::write_u8` ... `write_f64_le`: encode the
//! number big- or little-endian, then write all its bytes.
//!
//! Not cancellation safe (as tokio's are not): a future dropped half-way
//! leaves part of the number written. A writer that accepts zero bytes
//! gives `WriteZero`.
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::mem::size_of;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use super::write_all::poll_write_all;
use crate::io::AsyncWrite;

macro_rules! write_int_futures {
    ($($name:ident($ty:ty, $encode:ident, $method:literal);)*) => {$(
        pin_project! {
            #[doc = concat!("Future for the [`", $method, "`](super::AsyncWriteExt::", $method, ") method.")]
            #[derive(Debug)]
            #[must_use = "futures do nothing unless you `.await` or poll them"]
            pub struct $name<W> {
                #[pin]
                dst: W,
                buf: [u8; size_of::<$ty>()],
                written: usize,
                #[pin]
                _pin: PhantomPinned,
            }
        }

        impl<W> $name<W> {
            pub(crate) fn new(dst: W, n: $ty) -> Self {
                $name {
                    dst,
                    buf: n.$encode(),
                    written: 0,
                    _pin: PhantomPinned,
                }
            }
        }

        impl<W: AsyncWrite> Future for $name<W> {
            type Output = io::Result<()>;

            fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                let me = self.project();
                poll_write_all(me.dst, cx, &me.buf[..], me.written)
            }
        }
    )*};
}

write_int_futures! {
    WriteU8(u8, to_be_bytes, "write_u8");
    WriteI8(i8, to_be_bytes, "write_i8");
    WriteU16(u16, to_be_bytes, "write_u16");
    WriteI16(i16, to_be_bytes, "write_i16");
    WriteU32(u32, to_be_bytes, "write_u32");
    WriteI32(i32, to_be_bytes, "write_i32");
    WriteU64(u64, to_be_bytes, "write_u64");
    WriteI64(i64, to_be_bytes, "write_i64");
    WriteU128(u128, to_be_bytes, "write_u128");
    WriteI128(i128, to_be_bytes, "write_i128");
    WriteF32(f32, to_be_bytes, "write_f32");
    WriteF64(f64, to_be_bytes, "write_f64");
    WriteU16Le(u16, to_le_bytes, "write_u16_le");
    WriteI16Le(i16, to_le_bytes, "write_i16_le");
    WriteU32Le(u32, to_le_bytes, "write_u32_le");
    WriteI32Le(i32, to_le_bytes, "write_i32_le");
    WriteU64Le(u64, to_le_bytes, "write_u64_le");
    WriteI64Le(i64, to_le_bytes, "write_i64_le");
    WriteU128Le(u128, to_le_bytes, "write_u128_le");
    WriteI128Le(i128, to_le_bytes, "write_i128_le");
    WriteF32Le(f32, to_le_bytes, "write_f32_le");
    WriteF64Le(f64, to_le_bytes, "write_f64_le");
}
