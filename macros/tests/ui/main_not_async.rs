#[tokiwa::main]
fn main() {}
