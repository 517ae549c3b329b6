//! The one part of `select!` a declarative macro cannot do: testing a
//! branch's pattern against its output without moving out of it.
//!
//! `select!` must decide, inside its poll, whether a completed branch's
//! output matches the branch pattern: if it does not, the branch is
//! disabled and the others keep being polled. The test is made on a shared
//! reference to the output, so that the value is still whole when it is
//! handed to the handler. Matching `&output` against the user's pattern as
//! written fails for `mut x` (which asks to move the value out from behind
//! the reference) and for `ref mut x` (which asks for a mutable borrow of a
//! shared one). So the probe pattern is the user's pattern with every
//! binding made plain: `mut x`, `ref x` and `ref mut x` all become `x`,
//! which default binding modes then bind by reference. Which values match is
//! unchanged, because binding modes never affect that.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit_mut::VisitMut;
use syn::{Pat, PatIdent};

/// `select_pattern_probe!(pattern)`: the pattern with plain bindings.
pub(crate) fn pattern_probe(input: TokenStream) -> TokenStream {
    let input = unwrap_invisible(input);
    let mut pattern = match syn::parse::Parser::parse2(Pat::parse_multi_with_leading_vert, input) {
        Ok(pattern) => pattern,
        Err(e) => return e.into_compile_error(),
    };
    PlainBindings.visit_pat_mut(&mut pattern);
    pattern.into_token_stream()
}

/// A `$p:pat` fragment forwarded by `macro_rules!` arrives wrapped in an
/// invisible group; the pattern is what is inside.
fn unwrap_invisible(input: TokenStream) -> TokenStream {
    let mut trees = input.clone().into_iter();
    match (trees.next(), trees.next()) {
        (Some(TokenTree::Group(group)), None) if group.delimiter() == Delimiter::None => {
            unwrap_invisible(group.stream())
        }
        _ => input,
    }
}

struct PlainBindings;

impl VisitMut for PlainBindings {
    fn visit_pat_ident_mut(&mut self, binding: &mut PatIdent) {
        binding.by_ref = None;
        binding.mutability = None;
        // `x @ subpattern`: the subpattern's bindings too.
        syn::visit_mut::visit_pat_ident_mut(self, binding);
    }
}
