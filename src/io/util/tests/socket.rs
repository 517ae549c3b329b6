//! The extension traits over tokiwa's own sockets, on both runtime
//! flavours: a real `AsyncRead`/`AsyncWrite` that returns `Pending` when
//! the kernel has no data, and wakes through the I/O driver.
use crate::io::{AsyncReadExt, AsyncWriteExt};
use crate::net::UnixStream;
use crate::runtime::{Builder, Runtime};

fn runtimes() -> [Runtime; 2] {
    [
        Builder::new_current_thread().enable_all().build().unwrap(),
        Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    ]
}

#[test]
fn framed_exchange_over_a_socket_pair() {
    for rt in runtimes() {
        rt.block_on(async {
            let (mut a, mut b) = UnixStream::pair().unwrap();
            let writer = crate::spawn(async move {
                for i in 0..100u32 {
                    a.write_u32(i).await.unwrap();
                    a.write_u16_le(i as u16).await.unwrap();
                    a.write_all(&vec![i as u8; i as usize]).await.unwrap();
                }
                a.write_all(b"tail").await.unwrap();
                a.flush().await.unwrap();
                a.shutdown().await.unwrap();
            });
            for i in 0..100u32 {
                assert_eq!(b.read_u32().await.unwrap(), i);
                assert_eq!(b.read_u16_le().await.unwrap(), i as u16);
                let mut body = vec![0u8; i as usize];
                b.read_exact(&mut body).await.unwrap();
                assert!(body.iter().all(|&x| x == i as u8));
            }
            let mut rest = String::new();
            b.read_to_string(&mut rest).await.unwrap();
            assert_eq!(rest, "tail");
            writer.await.unwrap();
        });
    }
}

#[test]
fn read_to_end_of_a_large_transfer() {
    for rt in runtimes() {
        rt.block_on(async {
            let (mut a, mut b) = UnixStream::pair().unwrap();
            let data: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
            let expected = data.clone();
            let writer = crate::spawn(async move {
                let mut src = &data[..];
                a.write_all_buf(&mut src).await.unwrap();
                a.shutdown().await.unwrap();
            });
            let mut out = Vec::new();
            let n = b.read_to_end(&mut out).await.unwrap();
            assert_eq!(n, expected.len());
            assert!(out == expected);
            writer.await.unwrap();
        });
    }
}
