//! Compile-fail tests: each `tests/ui/*.rs` must fail to build with exactly
//! the diagnostics in its `.stderr` file. Regenerate those with
//! `TRYBUILD=overwrite cargo test -p tokiwa-macros --test trybuild` and
//! review the diff; the wording depends a little on the rustc version.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
