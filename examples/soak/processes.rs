//! Work that leaves the runtime's workers: `spawn_blocking` jobs, signals
//! the process sends itself, and child processes whose output is checked.
use std::sync::Arc;
use std::time::Duration;

use tokiwa::io::{AsyncReadExt, AsyncWriteExt};
use tokiwa::process::Command;
use tokiwa::signal::unix::{signal, SignalKind};
use tokiwa::task::JoinSet;
use tokiwa::time::{sleep, timeout};

use crate::rng::Rng;
use crate::stats::Stats;

/// Longer than any delivery may take on a loaded machine; a lost wakeup
/// waits for ever.
const DELIVERY_BOUND: Duration = Duration::from_secs(10);

/// Blocking jobs, four at a time, each checked.
pub async fn blocking(stats: Arc<Stats>) {
    let mut rng = Rng::new(7);
    while !stats.stopping() {
        let mut jobs = JoinSet::new();
        for _ in 0..4 {
            let n = 1 + rng.below(10_000);
            jobs.spawn_blocking(move || (n, (0..n).sum::<u64>()));
        }
        while let Some(job) = jobs.join_next().await {
            match job {
                Ok((n, sum)) if sum == n * (n - 1) / 2 => Stats::add(&stats.blocking_jobs, 1),
                Ok((n, sum)) => return stats.fail(format!("blocking: sum below {n} gave {sum}")),
                Err(e) => return stats.fail(format!("blocking: a job failed: {e}")),
            }
        }
    }
}

/// Sends itself `SIGUSR1` and waits for its delivery, again and again.
pub async fn signals(stats: Arc<Stats>) {
    let mut usr1 = match signal(SignalKind::user_defined1()) {
        Ok(usr1) => usr1,
        Err(e) => return stats.fail(format!("signals: listen for SIGUSR1: {e}")),
    };
    while !stats.stopping() {
        // SAFETY: kill(2) on this process with a signal it listens for;
        // no memory is involved.
        if unsafe { libc::kill(libc::getpid(), libc::SIGUSR1) } != 0 {
            let e = std::io::Error::last_os_error();
            return stats.fail(format!("signals: kill: {e}"));
        }
        match timeout(DELIVERY_BOUND, usr1.recv()).await {
            Ok(Some(())) => Stats::add(&stats.signals, 1),
            Ok(None) => return stats.fail("signals: the listener closed".into()),
            Err(_) => return stats.fail("signals: SIGUSR1 not delivered in 10 s".into()),
        }
        // Pacing: signals are a side load, not the main one.
        sleep(Duration::from_millis(2)).await;
    }
}

/// `cat` children, two at a time: random input in, the same out, a clean
/// exit; one in ten is killed instead and must report it.
pub async fn children(stats: Arc<Stats>) {
    let mut tasks = JoinSet::new();
    for seed in 0..2 {
        tasks.spawn(child_loop(stats.clone(), seed));
    }
    while tasks.join_next().await.is_some() {}
}

async fn child_loop(stats: Arc<Stats>, seed: u64) {
    let mut rng = Rng::new(500 + seed);
    while !stats.stopping() {
        let result = if rng.one_in(10) {
            killed_child().await
        } else {
            cat_child(&mut rng).await
        };
        match result {
            Ok(()) => Stats::add(&stats.children, 1),
            Err(e) => return stats.fail(format!("children: {e}")),
        }
    }
}

async fn cat_child(rng: &mut Rng) -> Result<(), String> {
    let input: Vec<u8> = (0..1 + rng.below(128 * 1024))
        .map(|_| rng.next_u64() as u8)
        .collect();
    let mut child = Command::new("cat")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("spawn cat: {e}"))?;
    let mut stdin = child.stdin.take().expect("stdin was piped");
    let mut stdout = child.stdout.take().expect("stdout was piped");
    // Written and read at once: more than a pipe's buffer goes through.
    let write = async {
        stdin.write_all(&input).await?;
        drop(stdin);
        Ok::<_, std::io::Error>(())
    };
    let mut output = Vec::new();
    let read = stdout.read_to_end(&mut output);
    let (written, read) = tokiwa::join!(write, read);
    written.map_err(|e| format!("write to cat: {e}"))?;
    read.map_err(|e| format!("read from cat: {e}"))?;
    let status = timeout(DELIVERY_BOUND, child.wait())
        .await
        .map_err(|_| "cat did not exit in 10 s".to_string())?
        .map_err(|e| format!("wait for cat: {e}"))?;
    if !status.success() {
        return Err(format!("cat exited with {status}"));
    }
    if output != input {
        return Err(format!(
            "cat gave back {} bytes for {}, or changed them",
            output.len(),
            input.len()
        ));
    }
    Ok(())
}

async fn killed_child() -> Result<(), String> {
    let mut child = Command::new("sleep")
        .arg("60")
        .spawn()
        .map_err(|e| format!("spawn sleep: {e}"))?;
    child.kill().await.map_err(|e| format!("kill sleep: {e}"))?;
    let status = child.wait().await.map_err(|e| format!("wait: {e}"))?;
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(libc::SIGKILL) => Ok(()),
        _ => Err(format!("a killed child exited with {status}")),
    }
}
