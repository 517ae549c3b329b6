#![cfg(feature = "full")]
//! The free functions of `tokiwa::fs` that work on paths (each at least
//! once) and the error kinds programs match on: a missing file, permission
//! denied, a directory where a file was expected, invalid UTF-8; the
//! no-runtime panic and the error of a blocking task that never ran.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::io::ErrorKind;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::PathBuf;

use support::fs::{is_root, TempDir};
use tokiwa::fs::{self, File, OpenOptions};
use tokiwa::io::AsyncWriteExt;

rt_test! {
    fn read_write_copy_rename() {
        rt().block_on(async {
            let dir = TempDir::new("rw");
            let a = dir.join("a");
            fs::write(&a, "héllo").await.unwrap();
            assert_eq!(fs::read(&a).await.unwrap(), "héllo".as_bytes());
            assert_eq!(fs::read_to_string(&a).await.unwrap(), "héllo");
            fs::write(&a, vec![b'x'; 3]).await.unwrap();
            assert_eq!(fs::read(&a).await.unwrap(), b"xxx");

            std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o604)).unwrap();
            assert_eq!(fs::copy(&a, dir.join("b")).await.unwrap(), 3);
            assert_eq!(fs::read(dir.join("b")).await.unwrap(), b"xxx");
            let mode = fs::metadata(dir.join("b")).await.unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o604);

            fs::rename(dir.join("b"), dir.join("c")).await.unwrap();
            assert!(!fs::try_exists(dir.join("b")).await.unwrap());
            assert!(fs::try_exists(dir.join("c")).await.unwrap());
            fs::remove_file(dir.join("c")).await.unwrap();
            assert!(!fs::try_exists(dir.join("c")).await.unwrap());
        });
    }

    fn links_metadata_and_permissions() {
        rt().block_on(async {
            let dir = TempDir::new("links");
            let target = dir.join("target");
            fs::write(&target, b"data").await.unwrap();

            fs::hard_link(&target, dir.join("hard")).await.unwrap();
            let (m1, m2) = (fs::metadata(&target).await.unwrap(), fs::metadata(dir.join("hard")).await.unwrap());
            assert_eq!(m1.ino(), m2.ino());
            assert_eq!(m1.nlink(), 2);

            fs::symlink("target", dir.join("soft")).await.unwrap();
            assert_eq!(fs::read_link(dir.join("soft")).await.unwrap(), PathBuf::from("target"));
            assert!(fs::symlink_metadata(dir.join("soft")).await.unwrap().file_type().is_symlink());
            assert!(fs::metadata(dir.join("soft")).await.unwrap().is_file());
            let canonical = fs::canonicalize(dir.join("soft")).await.unwrap();
            assert_eq!(canonical, std::fs::canonicalize(&target).unwrap());
            let err = fs::hard_link(&target, dir.join("hard")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AlreadyExists);

            fs::symlink("missing", dir.join("broken")).await.unwrap();
            assert!(!fs::try_exists(dir.join("broken")).await.unwrap());
            let err = fs::canonicalize(dir.join("broken")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);

            fs::set_permissions(&target, std::fs::Permissions::from_mode(0o400)).await.unwrap();
            assert_eq!(fs::metadata(&target).await.unwrap().permissions().mode() & 0o777, 0o400);
        });
    }

    fn missing_files_are_not_found() {
        rt().block_on(async {
            let dir = TempDir::new("missing");
            let missing = dir.join("missing");
            for err in [
                File::open(&missing).await.unwrap_err(),
                fs::read(&missing).await.unwrap_err(),
                fs::read_to_string(&missing).await.unwrap_err(),
                fs::metadata(&missing).await.unwrap_err(),
                fs::symlink_metadata(&missing).await.unwrap_err(),
                fs::remove_file(&missing).await.unwrap_err(),
                fs::read_link(&missing).await.unwrap_err(),
                fs::copy(&missing, dir.join("to")).await.unwrap_err(),
                fs::rename(&missing, dir.join("to")).await.unwrap_err(),
                fs::write(dir.join("no/such/dir"), b"").await.unwrap_err(),
            ] {
                assert_eq!(err.kind(), ErrorKind::NotFound, "{err:?}");
            }
            assert!(!fs::try_exists(&missing).await.unwrap());
        });
    }

    fn permission_denied() {
        rt().block_on(async {
            let dir = TempDir::new("perm");
            let locked = dir.join("locked");
            fs::write(&locked, b"secret").await.unwrap();
            fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).await.unwrap();
            let sub = dir.join("sub");
            fs::create_dir(&sub).await.unwrap();
            fs::write(sub.join("f"), b"").await.unwrap();
            fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o000)).await.unwrap();

            let read = fs::read(&locked).await;
            let open = OpenOptions::new().write(true).open(&locked).await;
            let exists = fs::try_exists(sub.join("f")).await;
            if is_root() {
                println!("note: running as root, so permissions are not enforced; checking that root gets through");
                assert_eq!(read.unwrap(), b"secret");
                open.unwrap();
                assert!(exists.unwrap());
            } else {
                assert_eq!(read.unwrap_err().kind(), ErrorKind::PermissionDenied);
                assert_eq!(open.unwrap_err().kind(), ErrorKind::PermissionDenied);
                assert_eq!(exists.unwrap_err().kind(), ErrorKind::PermissionDenied);
            }
            fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o700)).await.unwrap();
        });
    }

    fn a_directory_where_a_file_was_expected() {
        rt().block_on(async {
            let dir = TempDir::new("isdir");
            let err = OpenOptions::new().write(true).open(dir.path()).await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EISDIR), "{err:?}");
            assert_eq!(err.kind(), ErrorKind::IsADirectory);
            let err = fs::read(dir.path()).await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EISDIR), "{err:?}");
            let err = fs::write(dir.path(), b"x").await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EISDIR), "{err:?}");
            // Opening a directory read-only works; reading it does not.
            let mut file = File::open(dir.path()).await.unwrap();
            let err = tokiwa::io::AsyncReadExt::read(&mut file, &mut [0; 8]).await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EISDIR), "{err:?}");
            let err = fs::remove_file(dir.path()).await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EISDIR), "{err:?}");
        });
    }

    fn invalid_utf8_is_invalid_data() {
        rt().block_on(async {
            let dir = TempDir::new("utf8");
            let path = dir.join("bad");
            fs::write(&path, [b'o', b'k', 0xff, 0xfe]).await.unwrap();
            let err = fs::read_to_string(&path).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidData);
            assert_eq!(fs::read(&path).await.unwrap().len(), 4);
        });
    }
}

#[test]
#[should_panic(
    expected = "there is no reactor running, must be called from the context of a Tokio 1.x runtime"
)]
fn panics_outside_a_runtime() {
    let _ = futures::executor::block_on(fs::read("/nonexistent"));
}

#[test]
fn a_blocking_task_that_never_runs_is_background_task_failed() {
    let dir = TempDir::new("dead-pool");
    let path = dir.join("f");
    std::fs::write(&path, b"1234").unwrap();
    let rt = tokiwa::runtime::Builder::new_multi_thread()
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    rt.shutdown_timeout(std::time::Duration::ZERO);
    let _enter = handle.enter();
    let err = futures::executor::block_on(fs::read(&path)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Other);
    assert_eq!(err.to_string(), "background task failed");
    // A File's write cannot start either; the File stays usable.
    let mut file = File::from_std(std::fs::OpenOptions::new().write(true).open(&path).unwrap());
    let err = futures::executor::block_on(file.write(b"x")).unwrap_err();
    assert_eq!(err.to_string(), "background task failed");
    let _ = futures::executor::block_on(file.flush());
}
