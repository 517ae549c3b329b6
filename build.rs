//! Derives tokiwa's internal cfgs from its features, so the source names one
//! condition instead of repeating a list of features everywhere.
//!
//! `tokiwa_io_driver`: the I/O driver (one epoll instance per worker, see
//! `src/runtime/driver/`) is built; every feature whose types register
//! descriptors with it turns it on.
fn main() {
    println!("cargo:rustc-check-cfg=cfg(tokiwa_io_driver)");
    let io_features = ["NET", "URING", "SIGNAL", "PROCESS"];
    if io_features
        .iter()
        .any(|f| std::env::var_os(format!("CARGO_FEATURE_{f}")).is_some())
    {
        println!("cargo:rustc-cfg=tokiwa_io_driver");
    }
}
