use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
fn main() {
    for flavor in ["mt", "ct"] {
        let rt = if flavor == "mt" {
            tokiwa::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap()
        } else {
            tokiwa::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
        };
        let v = rt.block_on(async {
            let h = tokiwa::spawn(async { 40 + 2 });
            let mut n = h.await.unwrap();
            let c = Arc::new(AtomicUsize::new(0));
            let mut hs = vec![];
            for _ in 0..10000 {
                let c = c.clone();
                hs.push(tokiwa::spawn(async move {
                    tokiwa::task::yield_now().await;
                    c.fetch_add(1, Ordering::Relaxed);
                }));
            }
            for h in hs {
                h.await.unwrap();
            }
            n += c.load(Ordering::Relaxed);
            let s = tokiwa::task::spawn_blocking(|| 5).await.unwrap();
            let p = tokiwa::spawn(async { panic!("boom") }).await.unwrap_err();
            assert!(p.is_panic(), "{p}");
            println!("{p}");
            let a = tokiwa::spawn(std::future::pending::<()>());
            a.abort();
            let e = a.await.unwrap_err();
            println!("{e}");
            n + s
        });
        println!("{flavor}: {v}");
    }
}
