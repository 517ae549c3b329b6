//! The attributes against the real tokiwa runtime: defaults, arguments, and
//! composition with the standard test attributes.

use std::num::ParseIntError;

#[tokiwa::test]
async fn current_thread_by_default() {
    async {}.await;
}

#[tokiwa::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_thread_with_workers() {
    async {}.await;
}

/// `local` is a `LocalRuntime`: `!Send` tasks spawn without a `LocalSet`
/// (on the plain current-thread runtime, `spawn_local` panics here).
#[tokiwa::test(flavor = "local")]
async fn local_flavor_runs_spawn_local() {
    let shared = std::rc::Rc::new(std::cell::Cell::new(1));
    let inner = shared.clone();
    let doubled = tokiwa::task::spawn_local(async move { inner.get() * 2 })
        .await
        .unwrap();
    assert_eq!(doubled, 2);
    assert_eq!(std::rc::Rc::strong_count(&shared), 1);
}

#[tokiwa::main(flavor = "local")]
async fn local_main() -> u32 {
    tokiwa::task::spawn_local(async { 5 }).await.unwrap()
}

#[test]
fn main_with_local_flavor_blocks_on_a_local_runtime() {
    assert_eq!(local_main(), 5);
}

#[tokiwa::test(flavor = "current_thread", crate = "tokiwa")]
async fn explicit_crate_path() {}

#[tokiwa::test(crate = "::tokiwa")]
async fn absolute_crate_path() {}

#[tokiwa::test]
async fn returns_result() -> Result<(), ParseIntError> {
    let n: u32 = "7".parse()?;
    assert_eq!(n, 7);
    Ok(())
}

/// Doc comments and `#[should_panic]` stay on the test.
#[tokiwa::test]
#[should_panic(expected = "boom")]
async fn should_panic_composes() {
    panic!("boom");
}

#[tokiwa::test]
#[ignore = "checks that #[ignore] composes; never run"]
async fn ignore_composes() {
    panic!("an ignored test ran");
}

#[tokiwa::main]
async fn multi_thread_main(n: u32) -> u32 {
    n + 1
}

#[tokiwa::main(flavor = "current_thread")]
async fn fallible_main(input: &str) -> Result<u32, ParseIntError> {
    let n: u32 = input.parse()?;
    Ok(n * 2)
}

// `#[tokiwa::main]` works on any function, and each call gets its own runtime.
#[test]
fn main_on_other_functions() {
    assert_eq!(multi_thread_main(1), 2);
    assert_eq!(fallible_main("21"), Ok(42));
    assert!(fallible_main("x").is_err());
}

#[tokiwa::test(driver = "legacy")]
async fn driver_legacy() {
    let handle = tokiwa::runtime::Handle::current();
    assert_eq!(handle.driver(), tokiwa::runtime::Driver::Legacy);
    assert_eq!(handle.driver_fallback_reason(), None);
}

#[tokiwa::test(
    flavor = "multi_thread",
    worker_threads = 2,
    driver = "legacy",
    crate = "::tokiwa"
)]
async fn driver_legacy_multi_thread_with_crate_path() {
    let handle = tokiwa::runtime::Handle::current();
    assert_eq!(handle.driver(), tokiwa::runtime::Driver::Legacy);
}

/// `auto` overrides `TOKIWA_DRIVER`: io_uring when it can run here, else
/// legacy with the reason.
#[tokiwa::test(driver = "auto")]
async fn driver_auto() {
    let handle = tokiwa::runtime::Handle::current();
    match handle.driver() {
        tokiwa::runtime::Driver::Uring => assert_eq!(handle.driver_fallback_reason(), None),
        tokiwa::runtime::Driver::Legacy => {
            let reason = handle.driver_fallback_reason();
            assert!(reason.is_some_and(|r| r.contains("io_uring")), "{reason:?}");
        }
        other => panic!("Handle::driver() reported {other:?}"),
    }
}

#[cfg(feature = "uring")]
#[tokiwa::test(driver = "uring")]
async fn driver_uring() {
    let handle = tokiwa::runtime::Handle::current();
    assert_eq!(handle.driver(), tokiwa::runtime::Driver::Uring);
}

#[cfg(feature = "uring")]
#[tokiwa::test(flavor = "multi_thread", worker_threads = 2, driver = "uring")]
async fn driver_uring_multi_thread() {
    let handle = tokiwa::runtime::Handle::current();
    assert_eq!(handle.driver(), tokiwa::runtime::Driver::Uring);
    let on_worker = tokiwa::spawn(async { tokiwa::runtime::Handle::current().driver() });
    assert_eq!(on_worker.await.unwrap(), tokiwa::runtime::Driver::Uring);
}

#[cfg(feature = "uring")]
#[tokiwa::main(flavor = "current_thread", driver = "uring")]
async fn uring_main() -> tokiwa::runtime::Driver {
    tokiwa::runtime::Handle::current().driver()
}

#[cfg(feature = "uring")]
#[test]
fn main_with_driver() {
    assert_eq!(uring_main(), tokiwa::runtime::Driver::Uring);
}
