//! The attribute macros reached as `tokio::main` / `tokio::test` from an
//! application whose Cargo.toml names tokiwa `tokio` through a `[patch]`:
//! their expansions must name the runtime `::tokio`, not `::tokiwa`.

#[tokio::test]
async fn test_runs_on_a_current_thread_runtime() {
    let flavor = tokio::runtime::Handle::current().runtime_flavor();
    assert_eq!(flavor, tokio::runtime::RuntimeFlavor::CurrentThread);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_takes_tokio_arguments() {
    let flavor = tokio::runtime::Handle::current().runtime_flavor();
    assert_eq!(flavor, tokio::runtime::RuntimeFlavor::MultiThread);
    assert_eq!(tokio::spawn(async { 7 }).await.unwrap(), 7);
}

#[tokio::test(crate = "tokio")]
async fn crate_argument_still_overrides() {
    assert_eq!(tokio::spawn(async { 1 }).await.unwrap(), 1);
}

#[tokio::main(flavor = "current_thread")]
async fn answer() -> u32 {
    tokio::spawn(async { 42 }).await.unwrap()
}

#[test]
fn main_attribute_builds_a_runtime() {
    assert_eq!(answer(), 42);
}
