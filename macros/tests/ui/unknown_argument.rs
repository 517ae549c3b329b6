#[tokiwa::main(threads = 4)]
async fn main() {}
