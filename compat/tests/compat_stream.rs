//! tokio-stream's wrappers of runtime types over tokiwa's types
//! (`tokiwa_compat::stream::wrappers`), on both schedulers × both drivers:
//! each yields what the wrapped type yields.
#[macro_use]
mod support;

use std::time::Duration;

use futures::StreamExt as _;
use tokiwa::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokiwa::signal::unix::{signal, SignalKind};
use tokiwa_compat::stream::wrappers::{
    CtrlCStream, IntervalStream, ReadDirStream, SignalStream, TcpListenerStream, UnixListenerStream,
};

use support::temp_dir;

compat_test! {
    fn interval_stream_yields_ticks() {
        let start = tokiwa::time::Instant::now();
        let mut ticks = IntervalStream::new(tokiwa::time::interval(Duration::from_millis(10)));
        assert_eq!(tokiwa_compat::stream::Stream::size_hint(&ticks), (usize::MAX, None));
        let seen: Vec<tokiwa::time::Instant> = ticks.by_ref().take(3).collect().await;
        assert!(seen.windows(2).all(|w| w[1] - w[0] >= Duration::from_millis(10)), "{seen:?}");
        assert!(seen[0] >= start);
        assert_eq!(ticks.as_ref().period(), Duration::from_millis(10));
        ticks.as_mut().reset();
        let _: tokiwa::time::Interval = ticks.into_inner();
    }

    fn tcp_listener_stream_yields_connections() {
        let listener = tokiwa::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut incoming = TcpListenerStream::new(listener);
        let addr = incoming.as_ref().local_addr().unwrap();
        let clients = tokiwa::spawn(async move {
            for i in 0..3u8 {
                let mut c = tokiwa::net::TcpStream::connect(addr).await.unwrap();
                let mut byte = [0];
                c.read_exact(&mut byte).await.unwrap();
                assert_eq!(byte[0], i);
            }
        });
        for i in 0..3u8 {
            let mut accepted = incoming.next().await.unwrap().unwrap();
            accepted.write_all(&[i]).await.unwrap();
        }
        clients.await.unwrap();
        let listener = incoming.into_inner();
        assert_eq!(listener.local_addr().unwrap(), addr);
    }

    fn unix_listener_stream_yields_connections() {
        let dir = temp_dir("uds");
        let path = dir.join("sock");
        let mut incoming = UnixListenerStream::new(tokiwa::net::UnixListener::bind(&path).unwrap());
        let client_path = path.clone();
        let client = tokiwa::spawn(async move {
            let mut c = tokiwa::net::UnixStream::connect(&client_path).await.unwrap();
            c.write_all(b"hi").await.unwrap();
        });
        let mut accepted = incoming.next().await.unwrap().unwrap();
        let mut got = [0; 2];
        accepted.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"hi");
        client.await.unwrap();
        assert!(incoming.as_mut().local_addr().is_ok());
        drop(incoming.into_inner());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn read_dir_stream_yields_entries() {
        let dir = temp_dir("readdir");
        for name in ["a", "b", "c"] {
            std::fs::write(dir.join(name), name).unwrap();
        }
        let entries = ReadDirStream::new(tokiwa::fs::read_dir(&dir).await.unwrap());
        let mut names: Vec<String> = entries
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect()
            .await;
        names.sort();
        assert_eq!(names, ["a", "b", "c"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn signal_streams_yield_deliveries() {
        let mut usr1 = SignalStream::new(signal(SignalKind::user_defined1()).unwrap());
        // SAFETY: raise only sends SIGUSR1 to this process, whose handler
        // (tokiwa's, installed above) is async-signal-safe.
        assert_eq!(unsafe { libc::raise(libc::SIGUSR1) }, 0);
        assert_eq!(usr1.next().await, Some(()));
        let _ = usr1.as_mut();
        let _: tokiwa::signal::unix::Signal = usr1.into_inner();

        let mut ctrl_c = CtrlCStream::ctrl_c().unwrap();
        // SAFETY: as above, for SIGINT, whose handler `ctrl_c()` installed:
        // the process is not interrupted.
        assert_eq!(unsafe { libc::raise(libc::SIGINT) }, 0);
        assert_eq!(ctrl_c.next().await, Some(()));
        let _ = ctrl_c.as_ref();
    }
}
