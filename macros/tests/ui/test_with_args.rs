#[tokiwa::test]
async fn takes_args(n: u32) {
    let _ = n;
}

fn main() {}
