//! tokio-console against a tokiwa application.
//!
//! The application installs `console-subscriber`'s `ConsoleLayer` as its
//! tracing subscriber and serves the layer's gRPC API on a local port, as a
//! tokio-console user's application does. The test then spawns named tasks
//! (`task::Builder::name`) that are polled several times, connects with
//! console-api's `InstrumentClient` (what the `tokio-console` TUI uses) and
//! reads `watch_updates` until the task list has those names with their
//! poll counts, busy time and wakes (the wakes come from the waker events). That only works if tokiwa, built as `tokio`
//! with `--cfg tokio_unstable` and the `tracing` feature, emits tokio's
//! `runtime.spawn` spans (names, fields) and enters them around each poll.
//!
//! It runs once per I/O driver (both, or the one `TOKIWA_DRIVER` names),
//! each driver's tasks under names of their own; the console server keeps
//! one runtime of its own for the whole process (one global subscriber).
//! The task list read back is printed (`--nocapture` shows it).
#[cfg(not(tokio_unstable))]
compile_error!(
    "tokio-console needs tokio's instrumentation: build with RUSTFLAGS=\"--cfg tokio_unstable\""
);

use std::collections::HashMap;
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use console_api::field::{Name, Value};
use console_api::instrument::instrument_client::InstrumentClient;
use console_api::instrument::InstrumentRequest;
use tokio::runtime::{Builder, Driver};
use tracing_subscriber::layer::SubscriberExt;

/// How long the whole test may take before it fails instead of hanging.
const DEADLINE: Duration = Duration::from_secs(120);
/// How many times each probe task is polled at least.
const POLLS: u64 = 6;
/// How many named tasks each driver's run spawns.
const TASKS: usize = 3;

/// Where the test body is, for the message of a test that runs out of
/// time: a hang says which step never finished.
static STAGE: Mutex<String> = Mutex::new(String::new());

fn stage(now: String) {
    *STAGE.lock().unwrap_or_else(|p| p.into_inner()) = now;
}

/// What the console listed for one task.
#[derive(Debug, Default, Clone)]
struct Listed {
    name: String,
    kind: String,
    polls: u64,
    busy: Duration,
    wakes: u64,
    waker_clones: u64,
}

fn drivers() -> Vec<Driver> {
    match std::env::var("TOKIWA_DRIVER").unwrap_or_default().as_str() {
        "legacy" => vec![Driver::Legacy],
        "uring" => vec![Driver::Uring],
        _ => vec![Driver::Legacy, Driver::Uring],
    }
}

#[test]
fn console_lists_named_tasks_with_poll_times() {
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        run();
        let _ = done_tx.send(());
    });
    match done_rx.recv_timeout(DEADLINE) {
        Ok(()) => {}
        Err(mpsc::RecvTimeoutError::Timeout) => {
            let at = STAGE.lock().unwrap_or_else(|p| p.into_inner()).clone();
            panic!(
                "no task list with the named tasks, their polls, the lock op and the Sleep resources within {DEADLINE:?}; stuck at: {at}"
            )
        }
        // The body panicked: its message is already printed.
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the test body failed"),
    }
}

fn run() {
    // The console's own runtime: the layer's aggregator and its gRPC server
    // on a port the kernel picks.
    let (layer, server) = console_subscriber::ConsoleLayer::builder()
        .publish_interval(Duration::from_millis(50))
        .retention(Duration::from_secs(600))
        .build();
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
        .expect("no other global subscriber");
    let (addr_tx, addr_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            let parts = server.into_parts();
            tokio::spawn(parts.aggregator.run());
            tonic::transport::Server::builder()
                .add_service(parts.instrument_server)
                .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
                .await
                .unwrap();
        });
    });
    stage("starting the console server".into());
    let addr = addr_rx.recv().unwrap();

    // Sleep resources the console listed after the previous driver's run:
    // it keeps them (retention), so each run needs that many more.
    let mut sleeps_before = 0;
    for driver in drivers() {
        let rt = match Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .driver(driver)
            .build()
        {
            Ok(rt) => rt,
            Err(e) if driver == Driver::Uring => {
                println!("io_uring refused by the kernel ({e}): skipped");
                continue;
            }
            Err(e) => panic!("runtime on {driver:?}: {e}"),
        };
        let names: Vec<String> = (0..TASKS)
            .map(|i| format!("console-probe-{driver:?}-{i}").to_lowercase())
            .collect();
        let locker = format!("console-probe-{driver:?}-lock").to_lowercase();
        stage(format!("{driver:?} driver: the probe tasks run"));
        let (listed, lock_op, sleeps) = rt.block_on(check(addr, &names, &locker, sleeps_before));
        sleeps_before = sleeps;
        println!("task list read from the console API, {driver:?} driver:");
        for task in &listed {
            println!(
                "  {:<28} kind={:<6} polls={:<3} busy={:<12?} wakes={:<3} waker_clones={}",
                task.name, task.kind, task.polls, task.busy, task.wakes, task.waker_clones
            );
        }
        println!("  async op {lock_op}");
    }
}

/// Spawns `names`, each polled `POLLS` times, and `locker`, which locks a
/// `Mutex`; reads the console's task list until it has them all with their
/// polls, busy time and wakes, the lock as an async op of a `Mutex`
/// resource polled by `locker`, and the `Sleep` resources of their timers
/// (`sleeps_before` plus one per sleep). Returns the Sleep resources listed.
async fn check(
    addr: std::net::SocketAddr,
    names: &[String],
    locker: &str,
    sleeps_before: usize,
) -> (Vec<Listed>, String, usize) {
    let mut handles = Vec::new();
    for name in names {
        let handle = tokio::task::Builder::new()
            .name(name)
            .spawn(async {
                for _ in 0..POLLS {
                    // A timer and a yield: each wakes the task and makes
                    // one more poll.
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    tokio::task::yield_now().await;
                }
            })
            .unwrap();
        handles.push(handle);
    }
    let mutex = std::sync::Arc::new(tokio::sync::Mutex::new(0_u32));
    let locked = mutex.clone();
    handles.push(
        tokio::task::Builder::new()
            .name(locker)
            .spawn(async move { *locked.lock().await += 1 })
            .unwrap(),
    );
    for (i, handle) in handles.into_iter().enumerate() {
        stage(format!("{locker}: awaiting probe task {i}"));
        handle.await.unwrap();
    }
    assert_eq!(*mutex.lock().await, 1);
    stage(format!("{locker}: connecting to the console server"));

    let mut client = InstrumentClient::connect(format!("http://{addr}"))
        .await
        .expect("connect to the console server");
    let mut updates = client
        .watch_updates(InstrumentRequest {})
        .await
        .expect("watch_updates")
        .into_inner();

    // console ids → what the updates said about them.
    let mut tasks: HashMap<u64, Listed> = HashMap::new();
    // Resources (id → concrete type) and async ops (id → source, resource
    // id, the task that polled it).
    let mut resources: HashMap<u64, String> = HashMap::new();
    let mut ops: HashMap<u64, (String, u64, Option<u64>)> = HashMap::new();
    loop {
        let update = updates
            .message()
            .await
            .expect("the update stream")
            .expect("the server closed the update stream");
        if let Some(resource_update) = update.resource_update {
            for resource in resource_update.new_resources {
                if let Some(id) = resource.id {
                    resources.insert(id.id, resource.concrete_type);
                }
            }
        }
        if let Some(op_update) = update.async_op_update {
            for op in op_update.new_async_ops {
                if let (Some(id), Some(resource)) = (op.id, op.resource_id) {
                    let entry = ops.entry(id.id).or_default();
                    entry.0 = op.source;
                    entry.1 = resource.id;
                }
            }
            for (id, stats) in op_update.stats_update {
                if let Some(task) = stats.task_id {
                    ops.entry(id).or_default().2 = Some(task.id);
                }
            }
        }
        let Some(task_update) = update.task_update else {
            continue;
        };
        for task in task_update.new_tasks {
            let Some(id) = task.id else { continue };
            let entry = tasks.entry(id.id).or_default();
            for field in task.fields {
                let name = match field.name {
                    Some(Name::StrName(name)) => name,
                    _ => continue,
                };
                let value = match field.value {
                    Some(Value::DebugVal(v)) | Some(Value::StrVal(v)) => v,
                    _ => continue,
                };
                match name.as_str() {
                    "task.name" => entry.name = value,
                    "kind" => entry.kind = value,
                    _ => {}
                }
            }
        }
        for (id, stats) in task_update.stats_update {
            let entry = tasks.entry(id).or_default();
            entry.wakes = stats.wakes;
            entry.waker_clones = stats.waker_clones;
            if let Some(poll) = stats.poll_stats {
                entry.polls = poll.polls;
                if let Some(busy) = poll.busy_time {
                    entry.busy = Duration::new(busy.seconds as u64, busy.nanos as u32);
                }
            }
        }
        let found: Vec<Listed> = names
            .iter()
            .filter_map(|name| tasks.values().find(|t| &t.name == name).cloned())
            .collect();
        let complete = found.len() == names.len()
            && found
                .iter()
                .all(|t| t.polls > POLLS && t.busy > Duration::ZERO && t.wakes >= POLLS);
        let locker_id = tasks
            .iter()
            .find(|(_, t)| t.name == locker)
            .map(|(id, _)| *id);
        let lock_op = ops.values().find(|(source, resource, task)| {
            source == "Mutex::lock"
                && resources.get(resource).map(String::as_str) == Some("Mutex")
                && task.is_some()
                && *task == locker_id
        });
        // The aggregator hands its buffered events on in batches, so a
        // task's polls (shared counters) can be listed before the Sleep
        // resources its polls created: keep reading until both are there.
        let sleeps = resources.values().filter(|t| *t == "Sleep").count();
        let all_sleeps = sleeps >= sleeps_before + names.len() * POLLS as usize;
        stage(format!(
            "{locker}: reading updates; listed so far: {found:?}, lock op {}, {sleeps} Sleep resources (want {})",
            lock_op.is_some(),
            sleeps_before + names.len() * POLLS as usize
        ));
        if let (true, true, Some((source, resource, _))) = (complete, all_sleeps, lock_op) {
            for task in &found {
                assert_eq!(task.kind, "task", "{task:?}");
            }
            let lock_op =
                format!("{source} on resource {resource} (Mutex), polled by {locker}; {sleeps} Sleep resources");
            return (found, lock_op, sleeps);
        }
    }
}
