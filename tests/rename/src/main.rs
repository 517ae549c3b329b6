//! An application written for tokio, built against tokiwa through the
//! one-line rename in Cargo.toml (`tokio = { package = "tokiwa", ... }`).
//! Nothing below mentions tokiwa.
use tokio::sync::mpsc;
use tokio::task::JoinSet;

async fn pipeline(n: u64) -> u64 {
    let (tx, mut rx) = mpsc::channel(16);
    let producer = tokio::spawn(async move {
        for i in 1..=n {
            tx.send(i).await.unwrap();
        }
    });
    let mut set = JoinSet::new();
    while let Some(i) = rx.recv().await {
        set.spawn(async move { i * i });
    }
    producer.await.unwrap();
    let mut sum = 0;
    while let Some(r) = set.join_next().await {
        sum += r.unwrap();
    }
    let blocking = tokio::task::spawn_blocking(move || sum + 1).await.unwrap();
    tokio::select! {
        v = async { blocking - 1 } => v,
    }
}

#[tokio::main]
async fn main() {
    let sum = pipeline(100).await;
    assert_eq!(sum, (1..=100u64).map(|i| i * i).sum::<u64>());
    println!("sum of squares 1..=100 through a renamed tokio: {sum}");
}

#[cfg(test)]
mod tests {
    use super::pipeline;

    #[tokio::test]
    async fn current_thread_by_default() {
        assert_eq!(
            tokio::runtime::Handle::current().runtime_flavor(),
            tokio::runtime::RuntimeFlavor::CurrentThread
        );
        assert_eq!(pipeline(10).await, 385);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn multi_thread() {
        assert_eq!(tokio::runtime::Handle::current().metrics().num_workers(), 2);
        assert_eq!(pipeline(10).await, 385);
    }

    // tokiwa's `driver` argument through the renamed crate: the generated
    // `Builder::driver` call names `tokio::runtime::Driver`.
    #[tokio::test(driver = "legacy")]
    async fn driver_through_the_renamed_crate() {
        assert_eq!(
            tokio::runtime::Handle::current().driver(),
            tokio::runtime::Driver::Legacy
        );
        assert_eq!(pipeline(10).await, 385);
    }

    #[tokio::test]
    async fn returns_result() -> Result<(), tokio::task::JoinError> {
        let v = tokio::spawn(async { 1 }).await?;
        assert_eq!(v, 1);
        Ok(())
    }

    #[tokio::test]
    async fn tcp_echo() -> std::io::Result<()> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        use tokio::net::{TcpListener, TcpStream};

        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await?;
            let (mut r, mut w) = socket.split();
            tokio::io::copy(&mut r, &mut w).await
        });
        let mut client = TcpStream::connect(addr).await?;
        client.write_all(b"through tokio::net").await?;
        client.shutdown().await?;
        let mut back = String::new();
        client.read_to_string(&mut back).await?;
        assert_eq!(back, "through tokio::net");
        assert_eq!(server.await??, 18);
        Ok(())
    }

    #[tokio::test]
    #[should_panic(expected = "boom")]
    async fn should_panic_composes() {
        panic!("boom");
    }
}
