//! Enough of the Redis protocol (RESP2) for `redis-benchmark -t get,set`:
//! a parser of command arrays and a shared key-value store, with no runtime
//! in them (the server loop is `workloads_servers.rs`, on each runtime).
//!
//! A command is an array of bulk strings (`*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n`).
//! `redis-benchmark` also sends `CONFIG GET save` and `CONFIG GET
//! appendonly` once at start; they get the answer of a server that saves
//! nothing.

use std::collections::HashMap;
use std::sync::Mutex;

/// What the start of a buffer holds.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed<'a> {
    /// A whole command (its arguments) and how many bytes it took.
    Command(Vec<&'a [u8]>, usize),
    /// Not a whole command yet.
    Incomplete,
    /// Not RESP: the connection is closed.
    Invalid,
}

/// The line at the start of `buf` (without its `\r\n`) and the bytes after.
fn line(buf: &[u8]) -> Option<(&[u8], &[u8])> {
    let end = buf.windows(2).position(|w| w == b"\r\n")?;
    Some((&buf[..end], &buf[end + 2..]))
}

fn number(digits: &[u8]) -> Option<usize> {
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Parses the command at the start of `buf`.
pub fn parse(buf: &[u8]) -> Parsed<'_> {
    if buf.is_empty() {
        return Parsed::Incomplete;
    }
    if buf[0] != b'*' {
        return Parsed::Invalid;
    }
    let Some((head, mut rest)) = line(&buf[1..]) else {
        return Parsed::Incomplete;
    };
    let Some(count) = number(head) else {
        return Parsed::Invalid;
    };
    let mut args = Vec::with_capacity(count);
    for _ in 0..count {
        if rest.is_empty() {
            return Parsed::Incomplete;
        }
        if rest[0] != b'$' {
            return Parsed::Invalid;
        }
        let Some((len, after)) = line(&rest[1..]) else {
            return Parsed::Incomplete;
        };
        let Some(len) = number(len) else {
            return Parsed::Invalid;
        };
        if after.len() < len + 2 {
            return Parsed::Incomplete;
        }
        if &after[len..len + 2] != b"\r\n" {
            return Parsed::Invalid;
        }
        args.push(&after[..len]);
        rest = &after[len + 2..];
    }
    Parsed::Command(args, buf.len() - rest.len())
}

/// The keys and values, shared by every connection of a server.
#[derive(Default)]
pub struct Store {
    map: Mutex<HashMap<Vec<u8>, Vec<u8>>>,
}

fn bulk(out: &mut Vec<u8>, value: &[u8]) {
    out.extend_from_slice(format!("${}\r\n", value.len()).as_bytes());
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

impl Store {
    /// Runs one command and appends its reply to `out`.
    pub fn execute(&self, args: &[&[u8]], out: &mut Vec<u8>) {
        let name = args.first().map(|a| a.to_ascii_uppercase());
        match (name.as_deref(), args.len()) {
            (Some(b"GET"), 2) => match self.map.lock().unwrap().get(args[1]) {
                Some(value) => bulk(out, value),
                None => out.extend_from_slice(b"$-1\r\n"),
            },
            (Some(b"SET"), 3) => {
                self.map
                    .lock()
                    .unwrap()
                    .insert(args[1].to_vec(), args[2].to_vec());
                out.extend_from_slice(b"+OK\r\n");
            }
            (Some(b"PING"), 1) => out.extend_from_slice(b"+PONG\r\n"),
            (Some(b"CONFIG"), 3) => {
                out.extend_from_slice(b"*2\r\n");
                bulk(out, args[2]);
                bulk(out, b"");
            }
            _ => out.extend_from_slice(b"-ERR unknown command\r\n"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_whole_partial_and_pipelined_commands() {
        let two = b"*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n*1\r\n$4\r\nPING\r\n";
        let Parsed::Command(args, len) = parse(two) else {
            panic!("a command")
        };
        assert_eq!(args, [&b"GET"[..], b"key"]);
        assert_eq!(
            parse(&two[len..]),
            Parsed::Command(vec![b"PING"], two.len() - len)
        );
        for cut in 1..len {
            assert_eq!(parse(&two[..cut]), Parsed::Incomplete, "cut at {cut}");
        }
        assert_eq!(parse(b"GET key\r\n"), Parsed::Invalid);
    }

    #[test]
    fn set_then_get() {
        let store = Store::default();
        let mut out = Vec::new();
        store.execute(&[b"GET", b"k"], &mut out);
        store.execute(&[b"SET", b"k", b"xyz"], &mut out);
        store.execute(&[b"get", b"k"], &mut out);
        assert_eq!(out, b"$-1\r\n+OK\r\n$3\r\nxyz\r\n");
    }
}
