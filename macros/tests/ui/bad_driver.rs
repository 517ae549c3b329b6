#[tokiwa::main(driver = "epoll")]
async fn main() {}

#[tokiwa::test(driver = 1)]
async fn numeric_driver() {}

#[tokiwa::test(driver)]
async fn bare_driver() {}
