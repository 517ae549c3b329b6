#[tokiwa::main(flavor = "single_thread")]
async fn main() {}
