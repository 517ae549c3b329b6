#![cfg(feature = "full")]
//! The auto traits (`Send`, `Sync`, `Unpin`) of types whose traits tokio
//! fixes and code written against tokio may rely on, both present and
//! absent, checked at compile time with the trick tokio's
//! `tests/async_send_sync.rs` uses: an ambiguous impl makes a negative
//! assertion fail to compile when the trait is implemented.
//!
//! tokio's file itself runs in the conformance suite (`tests/conformance`);
//! these are the types tokiwa defines rather than re-exports.

use std::future::{Future, Ready};
use std::pin::Pin;

macro_rules! assert_traits {
    ($t:ty: $($tr:tt)*) => {{
        assert_traits!(@each $t; $($tr)*);
    }};
    (@each $t:ty; ) => {};
    (@each $t:ty; & $($rest:tt)*) => { assert_traits!(@each $t; $($rest)*) };
    (@each $t:ty; ! $tr:ident $($rest:tt)*) => {
        {
            #[allow(dead_code)]
            trait Ambiguous<A> {
                fn some_item() {}
            }
            impl<T: ?Sized> Ambiguous<()> for T {}
            #[allow(dead_code)]
            struct Invalid;
            impl<T: ?Sized + $tr> Ambiguous<Invalid> for T {}
            let _ = <$t as Ambiguous<_>>::some_item;
        }
        assert_traits!(@each $t; $($rest)*)
    };
    (@each $t:ty; $tr:ident $($rest:tt)*) => {
        {
            fn check<T: ?Sized + $tr>() {}
            check::<$t>();
        }
        assert_traits!(@each $t; $($rest)*)
    };
}

type BoxFutureSync = Pin<Box<dyn Future<Output = ()> + Send + Sync>>;

tokiwa::task_local! {
    static NUMBER: u32;
}

#[test]
fn coop() {
    assert_traits!(tokiwa::task::coop::RestoreOnPending: !Send & !Sync & Unpin);
    assert_traits!(tokiwa::task::coop::Coop<Ready<()>>: Send & Sync & Unpin);
    assert_traits!(tokiwa::task::coop::Unconstrained<Ready<()>>: Send & Sync & Unpin);
}

#[test]
fn enter_guard() {
    assert_traits!(tokiwa::runtime::EnterGuard<'static>: !Send & Sync & Unpin);
}

#[test]
fn task_local_scope() {
    let fut: BoxFutureSync = Box::pin(async {});
    // The type named below is the one `scope` returns.
    drop::<tokiwa::task::futures::TaskLocalFuture<u32, BoxFutureSync>>(NUMBER.scope(1, fut));
    assert_traits!(tokiwa::task::futures::TaskLocalFuture<u32, BoxFutureSync>: Send & Sync & !Unpin);
}

#[test]
fn unix_pipe() {
    use tokiwa::net::unix::pipe::{OpenOptions, Receiver, Sender};
    assert_traits!(OpenOptions: Send & Sync & Unpin);
    assert_traits!(Sender: Send & Sync & Unpin);
    assert_traits!(Receiver: Send & Sync & Unpin);
}

/// `File` and the futures of `fs` are `Send + Sync` in every build, the
/// io_uring one included, where `File` may hold a boxed ring operation
/// (tokio's `async_send_sync.rs` asserts all of them).
#[test]
fn fs_futures() {
    use std::os::unix::fs::PermissionsExt;
    use std::time::SystemTime;
    use tokiwa::fs::{self, DirBuilder, File, FileTimes, OpenOptions};

    fn send_sync<T: Send + Sync>(_: &T) {}

    assert_traits!(File: Send & Sync & Unpin);
    assert_traits!(fs::ReadDir: Send & Sync & Unpin);
    assert_traits!(fs::DirEntry: Send & Sync & Unpin);

    let file = File::from_std(std::fs::File::open("/dev/null").unwrap());
    send_sync(&file.sync_all());
    send_sync(&file.sync_data());
    send_sync(&file.set_len(0));
    send_sync(&file.metadata());
    send_sync(&file.try_clone());
    send_sync(&file.set_permissions(std::fs::Permissions::from_mode(0o644)));
    send_sync(&file.set_times(FileTimes::new()));
    send_sync(&file.set_modified(SystemTime::now()));
    send_sync(&File::open("/dev/null"));
    send_sync(&File::create("/dev/null"));
    send_sync(&OpenOptions::new().open("/dev/null"));
    send_sync(&DirBuilder::new().create("/"));
    send_sync(&fs::read("/dev/null"));
    send_sync(&fs::read_to_string("/dev/null"));
    send_sync(&fs::write("/dev/null", b""));
    send_sync(&fs::metadata("/"));
    send_sync(&fs::try_exists("/"));
    send_sync(&fs::read_dir("/"));
    send_sync(&fs::copy("/dev/null", "/dev/null"));
    send_sync(&file.into_std());
}
