#[tokiwa::main(unhandled_panic = "shutdown_runtime")]
async fn main() {}

#[tokiwa::test(flavor = "current_thread", unhandled_panic = "abort")]
async fn no_such_behavior() {}
