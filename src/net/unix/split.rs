//! `UnixStream::split` and `UnixStream::into_split`: the halves are
//! defined by `net/split.rs`, like `TcpStream`'s.
use crate::net::split::stream_halves;
use crate::net::unix::SocketAddr;
use crate::net::UnixStream;

stream_halves!(UnixStream, SocketAddr, "Unix");
