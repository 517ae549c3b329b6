#![cfg(feature = "full")]
//! Directories: `read_dir` over 10,000 entries (every name seen once, with
//! the right type), `DirEntry`'s accessors, `create_dir`,
//! `create_dir_all`, `DirBuilder`, `remove_dir` and `remove_dir_all`.
//!
//! Every test in `rt_test!` runs once per flavour of `support::flavor`.

#[macro_use]
mod support;

use std::collections::HashMap;
use std::future::poll_fn;
use std::io::ErrorKind;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

use support::fs::TempDir;
use tokiwa::fs::{self, DirBuilder};

/// What the test expects each entry to be.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    File,
    Dir,
    Symlink,
}

rt_test! {
    fn read_dir_sees_10000_entries_once_with_their_type() {
        let dir = TempDir::new("read-dir");
        let mut want = HashMap::new();
        // Made with std: the listing is what is under test.
        for i in 0..10_000 {
            let name = format!("e{i:05}");
            let path = dir.join(&name);
            let kind = match i % 10 {
                0 => {
                    std::fs::create_dir(&path).unwrap();
                    Kind::Dir
                }
                1 => {
                    std::os::unix::fs::symlink("nowhere", &path).unwrap();
                    Kind::Symlink
                }
                _ => {
                    std::fs::File::create(&path).unwrap();
                    Kind::File
                }
            };
            want.insert(name, kind);
        }
        rt().block_on(async {
            let mut entries = fs::read_dir(dir.path()).await.unwrap();
            let mut seen = 0;
            while let Some(entry) = entries.next_entry().await.unwrap() {
                let name = entry.file_name().into_string().unwrap();
                let kind = want.remove(&name).unwrap_or_else(|| panic!("{name} seen twice or unknown"));
                let ty = entry.file_type().await.unwrap();
                let got = if ty.is_dir() {
                    Kind::Dir
                } else if ty.is_symlink() {
                    Kind::Symlink
                } else {
                    assert!(ty.is_file());
                    Kind::File
                };
                assert_eq!(got, kind, "{name}");
                assert_eq!(entry.path(), dir.join(&name));
                if seen % 997 == 0 {
                    let meta = entry.metadata().await.unwrap();
                    assert_eq!(meta.ino(), entry.ino());
                    assert_eq!(meta.file_type(), ty);
                }
                seen += 1;
            }
            assert!(want.is_empty(), "never seen: {:?}", want.keys().take(5).collect::<Vec<_>>());
            assert_eq!(seen, 10_000);
            // Stays at the end.
            assert!(poll_fn(|cx| entries.poll_next_entry(cx)).await.unwrap().is_none());
        });
    }

    fn read_dir_of_an_empty_a_missing_and_a_file_path() {
        rt().block_on(async {
            let dir = TempDir::new("read-dir-edges");
            let mut entries = fs::read_dir(dir.path()).await.unwrap();
            assert!(entries.next_entry().await.unwrap().is_none());
            let err = fs::read_dir(dir.join("missing")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);
            fs::write(dir.join("file"), b"").await.unwrap();
            let err = fs::read_dir(dir.join("file")).await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::ENOTDIR));
        });
    }

    fn create_and_remove_directories() {
        rt().block_on(async {
            let dir = TempDir::new("mkdir");
            fs::create_dir(dir.join("a")).await.unwrap();
            assert!(fs::metadata(dir.join("a")).await.unwrap().is_dir());
            let err = fs::create_dir(dir.join("a")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AlreadyExists);
            let err = fs::create_dir(dir.join("x/y")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);

            fs::create_dir_all(dir.join("b/c/d")).await.unwrap();
            fs::create_dir_all(dir.join("b/c/d")).await.unwrap();
            fs::write(dir.join("b/c/d/f"), b"x").await.unwrap();

            DirBuilder::new().recursive(true).mode(0o700).create(dir.join("m/n")).await.unwrap();
            let mode = fs::metadata(dir.join("m/n")).await.unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
            let err = DirBuilder::new().create(dir.join("p/q")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);

            let err = fs::remove_dir(dir.join("b")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::DirectoryNotEmpty);
            fs::remove_dir(dir.join("a")).await.unwrap();
            fs::remove_dir_all(dir.join("b")).await.unwrap();
            assert!(!fs::try_exists(dir.join("b")).await.unwrap());
            let err = fs::remove_dir(dir.join("b")).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound);
        });
    }
}
