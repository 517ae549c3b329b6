#[tokiwa::main(flavor = "current_thread", worker_threads = 2)]
async fn main() {}

// `test` defaults to the current-thread runtime.
#[tokiwa::test(worker_threads = 2)]
async fn defaults_to_current_thread() {}
