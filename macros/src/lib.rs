//! `#[tokiwa::main]` and `#[tokiwa::test]`: run an `async fn` on a tokiwa
//! runtime. They take tokio's arguments and follow tokio's defaults, so a
//! program written for `#[tokio::main]` / `#[tokio::test]` works unchanged.
//!
//! # What the expansion looks like
//!
//! ```ignore
//! #[tokiwa::main(worker_threads = 2)]
//! async fn main() -> Result<(), Error> { body }
//! ```
//!
//! becomes, roughly,
//!
//! ```ignore
//! fn main() -> Result<(), Error> {
//!     let body = async move {
//!         // Fixes the block's output type before the user's code is
//!         // checked, so type errors point at the user's expressions.
//!         if false { return Option::<Result<(), Error>>::None.unwrap(); }
//!         body
//!     };
//!     let body = ::core::pin::pin!(body);
//!     return ::tokiwa::runtime::Builder::new_multi_thread()
//!         .worker_threads(2)
//!         .enable_all()
//!         .build()
//!         .expect("Failed building the Runtime")
//!         .block_on(body);
//! }
//! ```
//!
//! `#[tokiwa::test]` is the same with `#[::core::prelude::v1::test]` put in
//! front of the user's attributes (so `#[should_panic]` and `#[ignore]`
//! compose with it), the current-thread runtime as the default, and the
//! pinned body coerced to `Pin<&mut dyn Future>` so a test suite does not
//! instantiate `block_on` once per test.
//!
//! # Arguments
//!
//! * `flavor = "multi_thread" | "current_thread" | "local"`: `main`
//!   defaults to `multi_thread`, `test` to `current_thread`; `local` is a
//!   `LocalRuntime` (`Builder::build_local`), on which `spawn_local` works
//!   without a `LocalSet`.
//! * `worker_threads = N`: `N > 0`, only with `multi_thread`.
//! * `start_paused = bool`: only with `current_thread`; needs tokiwa's
//!   `test-util` feature, as in tokio.
//! * `driver = "auto" | "legacy" | "uring"` (tokiwa extension): calls
//!   `Builder::driver(Driver::Auto | Legacy | Uring)`. Without it the
//!   environment variable `TOKIWA_DRIVER` decides, as for any builder that
//!   is not told. `uring` needs tokiwa's `uring` feature and a kernel that
//!   supports it, else the runtime fails to build (a panic at start).
//! * `crate = "path"`: the crate to name the runtime through (a re-export,
//!   or `"tokio"`). Without it the macro finds tokiwa in the calling
//!   crate's Cargo.toml, under whatever name it is given there (via
//!   `proc-macro-crate`), falling back to `::tokiwa`. Within the tokiwa
//!   package itself the path is `::tokiwa` too, which is right for its
//!   integration tests, examples and doc tests; its own unit tests would
//!   need `extern crate self as tokiwa;` in `lib.rs`.
//!
//!   In whole-graph mode tokiwa is built as a package named `tokio` (put
//!   in crates.io tokio's place by `[patch.crates-io]`), and the
//!   application's Cargo.toml names it `tokio`. That package re-exports
//!   the hidden twins `main_as_tokio` and `test_as_tokio` as its `main` and
//!   `test`: the same attributes, which look for the package `tokio`
//!   instead and fall back to `::tokio`.
//!
//! # Errors
//!
//! Mistakes are reported at the offending token, and the function is still
//! expanded with the default configuration next to the error, so an IDE
//! keeps type information for the body while the attribute is being fixed.
//! If the item is not a function at all, it is passed through unchanged
//! with the error. See the `config` and `expand` modules for the details.

use proc_macro::TokenStream;

mod config;
mod expand;
mod select;

use config::{Kind, Package};
use expand::Function;

/// Runs an `async fn` (usually `main`) on a tokiwa runtime, multi-threaded
/// by default. Takes tokio's arguments: `flavor`, `worker_threads`,
/// `start_paused` and `crate`, and tokiwa's `name` and `driver`.
///
/// ```ignore
/// #[tokiwa::main(flavor = "current_thread")]
/// async fn main() {
///     println!("hello from tokiwa");
/// }
/// ```
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    entry(args.into(), item.into(), Kind::Main, Package::Tokiwa).into()
}

/// Marks an `async fn` as a test run on a tokiwa runtime, current-thread by
/// default. Takes the same arguments as [`macro@main`].
///
/// ```ignore
/// #[tokiwa::test]
/// #[should_panic]
/// async fn fails() {
///     panic!("boom");
/// }
/// ```
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    entry(args.into(), item.into(), Kind::Test, Package::Tokiwa).into()
}

/// [`macro@main`] for tokiwa built as the package named `tokio`
/// (whole-graph mode): the same attribute, naming the runtime as `tokio`
/// by default. That package re-exports it as `tokio::main`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn main_as_tokio(args: TokenStream, item: TokenStream) -> TokenStream {
    entry(args.into(), item.into(), Kind::Main, Package::Tokio).into()
}

/// [`macro@test`] for tokiwa built as the package named `tokio`; that
/// package re-exports it as `tokio::test`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn test_as_tokio(args: TokenStream, item: TokenStream) -> TokenStream {
    entry(args.into(), item.into(), Kind::Test, Package::Tokio).into()
}

fn entry(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
    kind: Kind,
    package: Package,
) -> proc_macro2::TokenStream {
    let function: Function = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(e) => {
            let mut out = item;
            out.extend(e.into_compile_error());
            return out;
        }
    };

    let (config, arg_error) = match config::parse(args, kind) {
        Ok(config) => (config, None),
        Err(e) => (config::Config::default_for(kind), Some(e)),
    };
    let error = [function.check(kind), arg_error]
        .into_iter()
        .flatten()
        .reduce(|mut all, e| {
            all.combine(e);
            all
        });

    let mut out = function.expand(kind, package, &config);
    if let Some(error) = error {
        out.extend(error.into_compile_error());
    }
    out
}

/// Not public API: used by the expansion of whole-graph mode's `select!`
/// (see the `select` module). Expands to the given pattern with every
/// binding made plain (`mut`/`ref`/`ref mut` removed), for testing a branch
/// output by reference.
#[doc(hidden)]
#[proc_macro]
pub fn select_pattern_probe(input: TokenStream) -> TokenStream {
    select::pattern_probe(input.into()).into()
}
