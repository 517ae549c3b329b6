//! The attribute's arguments: `#[tokiwa::main(flavor = "...", ...)]`.
//!
//! Arguments are read as `name = literal` pairs (a `syn::Meta` list) and
//! folded into a [`Config`]. Every mistake becomes a `syn::Error` spanned at
//! the token that caused it; the caller still expands the function with
//! [`Config::default_for`] so IDEs keep working while the error is shown.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, Meta, Token};

/// Which attribute is being expanded; decides defaults and message wording.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Main,
    Test,
}

impl Kind {
    /// The attribute as the user writes it, for error messages.
    pub(crate) fn macro_name(self) -> &'static str {
        match self {
            Kind::Main => "tokiwa::main",
            Kind::Test => "tokiwa::test",
        }
    }
}

/// The package the attribute was reached through, which decides the
/// default path of the runtime in the expansion.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Package {
    /// `tokiwa` (the user names it `tokiwa`, or `tokio` by a rename).
    Tokiwa,
    /// tokiwa built as the package named `tokio` (whole-graph mode, where
    /// a `[patch]` puts it in the place of crates.io tokio).
    Tokio,
}

impl Package {
    /// The package name, as a Cargo.toml's `package = "..."` spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Package::Tokiwa => "tokiwa",
            Package::Tokio => "tokio",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    CurrentThread,
    MultiThread,
    /// A `LocalRuntime` (`Builder::build_local`): the current-thread
    /// runtime on which `spawn_local` works without a `LocalSet`.
    Local,
}

/// `driver = "..."`: the variant of `tokiwa::runtime::Driver` to pass to
/// `Builder::driver`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Driver {
    Auto,
    Legacy,
    Uring,
}

/// `unhandled_panic = "..."`: the variant of `runtime::UnhandledPanic`
/// to pass to `Builder::unhandled_panic` (a `tokio_unstable` method, so
/// the expansion only compiles with that cfg, as tokio's does).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnhandledPanic {
    Ignore,
    ShutdownRuntime,
}

/// The settled configuration the expansion is generated from.
pub(crate) struct Config {
    pub(crate) flavor: Flavor,
    pub(crate) worker_threads: Option<usize>,
    pub(crate) start_paused: Option<bool>,
    /// `name = "..."`: the runtime's name (`Handle::name`).
    pub(crate) name: Option<syn::LitStr>,
    /// `driver = "..."`; `None` leaves the choice to `TOKIWA_DRIVER`, else
    /// `Auto`, as for a builder that is not told.
    pub(crate) driver: Option<Driver>,
    /// `crate = "..."`; `None` means "find tokiwa in the user's Cargo.toml".
    pub(crate) crate_path: Option<syn::Path>,
    /// `unhandled_panic = "..."` (current-thread and local flavors only).
    pub(crate) unhandled_panic: Option<UnhandledPanic>,
}

impl Config {
    /// tokio's defaults: `main` runs on the multi-thread runtime, tests on
    /// the current-thread one.
    pub(crate) fn default_for(kind: Kind) -> Config {
        Config {
            flavor: match kind {
                Kind::Main => Flavor::MultiThread,
                Kind::Test => Flavor::CurrentThread,
            },
            worker_threads: None,
            start_paused: None,
            name: None,
            driver: None,
            crate_path: None,
            unhandled_panic: None,
        }
    }

    /// The builder expression, e.g.
    /// `::tokiwa::runtime::Builder::new_multi_thread().worker_threads(4)`.
    pub(crate) fn builder(&self, krate: &TokenStream) -> TokenStream {
        let mut builder = match self.flavor {
            Flavor::CurrentThread | Flavor::Local => {
                quote!(#krate::runtime::Builder::new_current_thread())
            }
            Flavor::MultiThread => quote!(#krate::runtime::Builder::new_multi_thread()),
        };
        if let Some(n) = self.worker_threads {
            let n = proc_macro2::Literal::usize_unsuffixed(n);
            builder = quote!(#builder.worker_threads(#n));
        }
        if let Some(paused) = self.start_paused {
            builder = quote!(#builder.start_paused(#paused));
        }
        if let Some(name) = &self.name {
            builder = quote!(#builder.name(#name));
        }
        if let Some(driver) = self.driver {
            let variant = match driver {
                Driver::Auto => quote!(Auto),
                Driver::Legacy => quote!(Legacy),
                Driver::Uring => quote!(Uring),
            };
            builder = quote!(#builder.driver(#krate::runtime::Driver::#variant));
        }
        if let Some(behavior) = self.unhandled_panic {
            let variant = match behavior {
                UnhandledPanic::Ignore => quote!(Ignore),
                UnhandledPanic::ShutdownRuntime => quote!(ShutdownRuntime),
            };
            builder = quote!(#builder.unhandled_panic(#krate::runtime::UnhandledPanic::#variant));
        }
        builder
    }

    /// The call that turns the builder into the runtime.
    pub(crate) fn build(&self, krate: &TokenStream) -> TokenStream {
        match self.flavor {
            Flavor::Local => {
                quote!(build_local(#krate::runtime::LocalOptions::default()))
            }
            Flavor::CurrentThread | Flavor::MultiThread => quote!(build()),
        }
    }
}

const KNOWN: &str =
    "`flavor`, `worker_threads`, `start_paused`, `crate`, `unhandled_panic`, `name`, `driver`";
const FLAVORS: &str = "The runtime flavors are `current_thread`, `local`, and `multi_thread`.";
const DRIVERS: &str = "The drivers are `auto`, `legacy` and `uring`.";

/// Parses the attribute's arguments into a [`Config`].
pub(crate) fn parse(args: TokenStream, kind: Kind) -> syn::Result<Config> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;

    let mut flavor = None;
    let mut worker_threads = None;
    let mut start_paused = None;
    let mut crate_path = None;
    let mut rt_name = None;
    let mut driver = None;
    let mut unhandled_panic = None;
    for meta in metas {
        let (name, lit) = name_and_value(meta, kind)?;
        let span = lit.span();
        match name.to_string().as_str() {
            "flavor" => set(&mut flavor, &name, parse_flavor(&lit)?)?,
            "worker_threads" => set(&mut worker_threads, &name, (parse_threads(&lit)?, span))?,
            "start_paused" => set(&mut start_paused, &name, (parse_paused(&lit)?, span))?,
            "crate" => set(&mut crate_path, &name, parse_crate_path(&lit)?)?,
            "name" => set(&mut rt_name, &name, parse_name(&lit)?)?,
            "driver" => set(&mut driver, &name, parse_driver(&lit)?)?,
            "unhandled_panic" => set(
                &mut unhandled_panic,
                &name,
                (parse_unhandled_panic(&lit)?, span),
            )?,
            other => return Err(unknown(&name, other)),
        }
    }

    let flavor = flavor.unwrap_or(Config::default_for(kind).flavor);
    let use_flavor =
        |flavor: &str| format!("Use `#[{}(flavor = \"{flavor}\")]`", kind.macro_name());
    if let (Flavor::CurrentThread | Flavor::Local, Some((_, span))) = (flavor, worker_threads) {
        let msg = "The `worker_threads` option requires the `multi_thread` runtime flavor.";
        let msg = format!("{msg} {}", use_flavor("multi_thread"));
        return Err(syn::Error::new(span, msg));
    }
    // As in tokio: a paused clock is only offered on the single-threaded runtime.
    if let (Flavor::MultiThread, Some((_, span))) = (flavor, start_paused) {
        let msg = "The `start_paused` option requires the `current_thread` runtime flavor.";
        let msg = format!("{msg} {}", use_flavor("current_thread"));
        return Err(syn::Error::new(span, msg));
    }
    if let (Flavor::MultiThread, Some((_, span))) = (flavor, unhandled_panic) {
        let msg = "The `unhandled_panic` option requires the `current_thread` runtime flavor.";
        let msg = format!("{msg} {}", use_flavor("current_thread"));
        return Err(syn::Error::new(span, msg));
    }

    Ok(Config {
        flavor,
        worker_threads: worker_threads.map(|(n, _)| n),
        start_paused: start_paused.map(|(b, _)| b),
        crate_path,
        name: rt_name,
        driver,
        unhandled_panic: unhandled_panic.map(|(behavior, _)| behavior),
    })
}

fn parse_unhandled_panic(lit: &Lit) -> syn::Result<UnhandledPanic> {
    const BEHAVIORS: &str = "The unhandled panic behaviors are `ignore` and `shutdown_runtime`.";
    let Lit::Str(s) = lit else {
        let msg = format!("`unhandled_panic` must be a string. {BEHAVIORS}");
        return Err(syn::Error::new(lit.span(), msg));
    };
    match s.value().as_str() {
        "ignore" => Ok(UnhandledPanic::Ignore),
        "shutdown_runtime" => Ok(UnhandledPanic::ShutdownRuntime),
        other => {
            let msg = format!("No such unhandled panic behavior `{other}`. {BEHAVIORS}");
            Err(syn::Error::new(s.span(), msg))
        }
    }
}

fn parse_name(lit: &Lit) -> syn::Result<syn::LitStr> {
    match lit {
        Lit::Str(s) if !s.value().trim().is_empty() => Ok(s.clone()),
        _ => Err(syn::Error::new(
            lit.span(),
            "`name` must be a non-empty string, e.g. \"my-runtime\".",
        )),
    }
}

/// Splits `name = "literal"`, explaining the other shapes an argument can take.
fn name_and_value(meta: Meta, kind: Kind) -> syn::Result<(syn::Ident, Lit)> {
    let name_value = match meta {
        Meta::NameValue(name_value) => name_value,
        Meta::Path(path) => return Err(bare_name_error(&path, kind)),
        Meta::List(list) => {
            let msg = "expected `name = value`, e.g. `flavor = \"multi_thread\"`";
            return Err(syn::Error::new_spanned(list, msg));
        }
    };
    // `crate` is a keyword, but syn's `Meta` parser takes it as an ident here.
    let Some(name) = name_value.path.get_ident().cloned() else {
        return Err(unknown(&name_value.path, &path_name(&name_value.path)));
    };
    match name_value.value {
        Expr::Lit(ExprLit { lit, .. }) => Ok((name, lit)),
        other => Err(syn::Error::new_spanned(other, "expected a literal")),
    }
}

/// Stores an argument's value, refusing a second one.
fn set<T>(slot: &mut Option<T>, name: &syn::Ident, value: T) -> syn::Result<()> {
    if slot.is_some() {
        let msg = format!("`{name}` set multiple times.");
        return Err(syn::Error::new(name.span(), msg));
    }
    *slot = Some(value);
    Ok(())
}

fn parse_threads(lit: &Lit) -> syn::Result<usize> {
    let Lit::Int(int) = lit else {
        let msg = "`worker_threads` must be an integer.";
        return Err(syn::Error::new(lit.span(), msg));
    };
    match int.base10_parse::<usize>()? {
        0 => Err(syn::Error::new(
            lit.span(),
            "`worker_threads` may not be 0.",
        )),
        n => Ok(n),
    }
}

fn parse_paused(lit: &Lit) -> syn::Result<bool> {
    match lit {
        Lit::Bool(b) => Ok(b.value),
        _ => Err(syn::Error::new(
            lit.span(),
            "`start_paused` must be `true` or `false`.",
        )),
    }
}

fn parse_crate_path(lit: &Lit) -> syn::Result<syn::Path> {
    let Lit::Str(s) = lit else {
        let msg = "`crate` must be a string naming a path, e.g. \"tokiwa\".";
        return Err(syn::Error::new(lit.span(), msg));
    };
    s.parse().map_err(|_| {
        let msg = format!(
            "Failed to parse value of `crate` as path: \"{}\"",
            s.value()
        );
        syn::Error::new(s.span(), msg)
    })
}

fn parse_flavor(lit: &Lit) -> syn::Result<Flavor> {
    let Lit::Str(s) = lit else {
        let msg = "`flavor` must be a string, e.g. \"multi_thread\".";
        return Err(syn::Error::new(lit.span(), msg));
    };
    match s.value().as_str() {
        "current_thread" => Ok(Flavor::CurrentThread),
        "multi_thread" => Ok(Flavor::MultiThread),
        "local" => Ok(Flavor::Local),
        other => {
            let msg = format!("No such runtime flavor `{other}`. {FLAVORS}");
            Err(syn::Error::new(s.span(), msg))
        }
    }
}

fn parse_driver(lit: &Lit) -> syn::Result<Driver> {
    let Lit::Str(s) = lit else {
        let msg = format!("`driver` must be a string, e.g. \"uring\". {DRIVERS}");
        return Err(syn::Error::new(lit.span(), msg));
    };
    match s.value().as_str() {
        "auto" => Ok(Driver::Auto),
        "legacy" => Ok(Driver::Legacy),
        "uring" => Ok(Driver::Uring),
        other => {
            let msg = format!("No such driver `{other}`. {DRIVERS}");
            Err(syn::Error::new(s.span(), msg))
        }
    }
}

fn unknown(at: impl quote::ToTokens, name: &str) -> syn::Error {
    let msg = format!("Unknown attribute {name} is specified; expected one of: {KNOWN}.");
    syn::Error::new_spanned(at, msg)
}

fn path_name(path: &syn::Path) -> String {
    quote!(#path).to_string().replace(' ', "")
}

/// A name without `= value`: point at the right spelling where we can guess it.
fn bare_name_error(path: &syn::Path, kind: Kind) -> syn::Error {
    let name = match path.get_ident() {
        Some(ident) => ident.to_string(),
        None => return unknown(path, &path_name(path)),
    };
    let msg = match name.as_str() {
        "multi_thread" | "current_thread" => format!(
            "Set the runtime flavor with #[{}(flavor = \"{name}\")].",
            kind.macro_name()
        ),
        "flavor" | "worker_threads" | "start_paused" | "crate" | "unhandled_panic" | "name"
        | "driver" => {
            format!("The `{name}` attribute requires an argument.")
        }
        _ => return unknown(path, &name),
    };
    syn::Error::new_spanned(path, msg)
}
