#[tokiwa::main]
async fn main(argc: usize) {
    let _ = argc;
}
