//! Turning `async fn f() -> T { body }` into a synchronous `fn f() -> T`
//! that builds a runtime and blocks on the body.
//!
//! The function is parsed only down to its signature: the body is kept as
//! the raw tokens the user wrote (after lifting any `#![inner]` attributes,
//! which an `async` block cannot carry). That keeps expansion cheap, keeps
//! every span of the body intact, and means a body with a syntax error still
//! expands, leaving rustc to report the error at the user's own tokens.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{braced, AttrStyle, Attribute, ReturnType, Signature, Type, Visibility};

use crate::config::{Config, Kind, Package};

/// An `fn` item whose body has not been parsed.
pub(crate) struct Function {
    attrs: Vec<Attribute>,
    vis: Visibility,
    sig: Signature,
    brace: syn::token::Brace,
    body: TokenStream,
}

impl Parse for Function {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let sig = input.parse()?;
        let content;
        let brace = braced!(content in input);
        for mut attr in content.call(Attribute::parse_inner)? {
            attr.style = AttrStyle::Outer;
            attrs.push(attr);
        }
        let body = content.parse()?;
        Ok(Function {
            attrs,
            vis,
            sig,
            brace,
            body,
        })
    }
}

impl Function {
    /// Problems with the function itself, as opposed to the arguments.
    pub(crate) fn check(&self, kind: Kind) -> Option<syn::Error> {
        let mut errors = Vec::new();
        if self.sig.asyncness.is_none() {
            let msg = "the `async` keyword is missing from the function declaration";
            errors.push(syn::Error::new_spanned(self.sig.fn_token, msg));
        }
        match kind {
            Kind::Main if self.sig.ident == "main" && !self.sig.inputs.is_empty() => {
                let msg = "the main function cannot accept arguments";
                errors.push(syn::Error::new_spanned(&self.sig.inputs, msg));
            }
            Kind::Test if !self.sig.inputs.is_empty() => {
                let msg = "the test function cannot accept arguments";
                errors.push(syn::Error::new_spanned(&self.sig.inputs, msg));
            }
            _ => {}
        }
        if let (Kind::Test, Some(attr)) = (kind, self.test_attr()) {
            let msg = "second test attribute is supplied, consider removing or changing the order of your test attributes";
            errors.push(syn::Error::new_spanned(attr, msg));
        }
        errors.into_iter().reduce(|mut all, e| {
            all.combine(e);
            all
        })
    }

    /// A `#[test]` the user already wrote: bare `test`, or the prelude path
    /// `[::]core|std::prelude::<edition>::test` that test macros expand to.
    fn test_attr(&self) -> Option<&Attribute> {
        self.attrs.iter().find(|attr| {
            let syn::Meta::Path(path) = &attr.meta else {
                return false;
            };
            let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            match names.as_slice() {
                [test] => path.leading_colon.is_none() && test == "test",
                [root, prelude, _, test] => {
                    (root == "core" || root == "std") && prelude == "prelude" && test == "test"
                }
                _ => false,
            }
        })
    }

    /// The synchronous function: user attributes, the signature without
    /// `async`, and a body that runs the original body on a fresh runtime.
    pub(crate) fn expand(mut self, kind: Kind, package: Package, config: &Config) -> TokenStream {
        let krate = crate_path(config, package);
        let builder = config.builder(&krate);
        let build = config.build(&krate);
        let output = nameable_output(&self.sig.output);

        // Emitted first, so the built-in `#[test]` sees `#[should_panic]`
        // and `#[ignore]` among the attributes that follow. Left out when the
        // function could never be a test, so rustc does not repeat our error.
        let test_attr =
            (kind == Kind::Test && self.test_attr().is_none() && self.sig.inputs.is_empty())
                .then(|| quote!(#[::core::prelude::v1::test]));

        // The async block's output type is fixed by its first `return`. An
        // unreachable `return` of a value typed as the declared return type,
        // placed before the user's statements, pins it: a type error then
        // points at the user's offending expression and `?` knows its error
        // type. (A `let output: T = { block };` would do the same, but makes
        // `panic!()` in the body trip clippy's `diverging_sub_expression`.)
        // `impl Trait` and `!` cannot be named here; those bodies are
        // checked by the `return` of the function instead.
        let fix_output = output.as_ref().map(|ty| {
            // Located at the declared type, so rustc's "return type inferred
            // to be `T` here" note points at the signature.
            let at = Span::call_site().located_at(type_span(&self.sig.output));
            quote_spanned!(at=> if false { return ::core::option::Option::<#ty>::None.unwrap(); })
        });
        // The user's statements go straight into the async block, under the
        // user's own braces: errors about the block as a whole (a missing
        // tail expression, say) point at the original body, and no nested
        // block trips the `unused_braces` lint.
        let mut future = quote!(async move);
        self.brace.surround(&mut future, |tokens| {
            tokens.extend(fix_output);
            tokens.extend(self.body);
        });

        // Tests block on a `dyn Future`, so a test suite does not instantiate
        // `block_on` once per test.
        let body = local("body");
        let pinned = match (kind, &output) {
            (Kind::Test, Some(ty)) => quote! {
                let #body: ::core::pin::Pin<&mut dyn ::core::future::Future<Output = #ty>> =
                    ::core::pin::pin!(#body);
            },
            _ => quote!(let #body = ::core::pin::pin!(#body);),
        };

        self.sig.asyncness = None;
        let Function {
            attrs, vis, sig, ..
        } = self;
        quote! {
            #test_attr
            #(#attrs)*
            #vis #sig {
                let #body = #future;
                #pinned
                #[allow(clippy::expect_used, clippy::diverging_sub_expression, clippy::needless_return)]
                {
                    return #builder
                        .enable_all()
                        .#build
                        .expect("Failed building the Runtime")
                        .block_on(#body);
                }
            }
        }
    }
}

/// A generated local. Mixed-site hygiene: user code can neither see nor
/// shadow it.
fn local(name: &str) -> proc_macro2::Ident {
    proc_macro2::Ident::new(name, Span::mixed_site())
}

fn type_span(output: &ReturnType) -> Span {
    match output {
        ReturnType::Default => Span::call_site(),
        ReturnType::Type(_, ty) => ty.span(),
    }
}

/// The declared return type, if it can be named in a turbofish.
fn nameable_output(output: &ReturnType) -> Option<TokenStream> {
    match output {
        ReturnType::Default => Some(quote!(())),
        ReturnType::Type(_, ty) if matches!(**ty, Type::Never(_)) => None,
        ReturnType::Type(_, ty) => {
            let tokens = ty.to_token_stream();
            (!mentions_impl(tokens.clone())).then_some(tokens)
        }
    }
}

fn mentions_impl(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == "impl",
        TokenTree::Group(group) => mentions_impl(group.stream()),
        _ => false,
    })
}

/// The path the generated code names the runtime by: `crate = "..."` if
/// given, else the package the attribute came from (tokiwa, or tokiwa built
/// as `tokio`) under whatever name the user's Cargo.toml gives it.
fn crate_path(config: &Config, package: Package) -> TokenStream {
    use proc_macro_crate::{crate_name, FoundCrate};

    if let Some(path) = &config.crate_path {
        return path.to_token_stream();
    }
    let package = package.name();
    let name = match crate_name(package) {
        Ok(FoundCrate::Name(name)) => name,
        // Inside the package itself, "itself" is usually an integration
        // test, example or doc test: a separate crate that names it by its
        // package name. (Its own unit tests need `extern crate self as
        // tokiwa;`, or `as tokio;`, for this to resolve.)
        Ok(FoundCrate::Itself) | Err(_) => package.to_owned(),
    };
    let ident = proc_macro2::Ident::new(&name, Span::call_site());
    quote!(::#ident)
}
