//! Derives tokiwa's internal cfgs from its features, so the source names one
//! condition instead of repeating a list of features everywhere.
//!
//! `tokiwa_io_driver`: the I/O driver (one epoll instance per worker, see
//! `src/runtime/driver/`) is built; every feature whose types register
//! descriptors with it turns it on.
//!
//! `tokiwa_own_vocabulary`: this source is being built as the package named
//! `tokio` (`whole-graph/tokio/`, applied with `[patch.crates-io]`). A package
//! named `tokio` cannot depend on crates.io tokio, so the runtime-independent
//! vocabulary (I/O traits and io-util, `sync`, `select!`/`join!`) is
//! tokiwa's own instead of tokio's re-exported. The package name is the one
//! switch between the two modes.
fn main() {
    println!("cargo:rustc-check-cfg=cfg(tokiwa_io_driver)");
    println!("cargo:rustc-check-cfg=cfg(tokiwa_own_vocabulary)");
    if std::env::var("CARGO_PKG_NAME").as_deref() == Ok("tokio") {
        println!("cargo:rustc-cfg=tokiwa_own_vocabulary");
    }
    let io_features = ["NET", "URING", "SIGNAL", "PROCESS"];
    if io_features
        .iter()
        .any(|f| std::env::var_os(format!("CARGO_FEATURE_{f}")).is_some())
    {
        println!("cargo:rustc-cfg=tokiwa_io_driver");
    }
}
