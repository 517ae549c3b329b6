#[tokiwa::main(worker_threads = "4")]
async fn string_threads() {}

#[tokiwa::main(flavor = current_thread)]
async fn unquoted_flavor() {}

#[tokiwa::main(crate = "not a path")]
async fn bad_crate() {}

#[tokiwa::main(flavor = "multi_thread", flavor = "current_thread")]
async fn flavor_twice() {}

#[tokiwa::main(current_thread)]
async fn bare_flavor() {}

fn main() {}
