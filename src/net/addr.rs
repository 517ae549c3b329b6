//! `ToSocketAddrs`: what `bind`, `connect` and `send_to` accept.
//!
//! The trait is sealed, as in tokio: its one method lives in the private
//! [`sealed::ToSocketAddrsPriv`] supertrait, so users can name the trait in
//! bounds but not implement it, and the resolution strategy stays ours.
//!
//! Literal addresses (`SocketAddr`, `(IpAddr, u16)`, `"127.0.0.1:80"`,
//! `("::1", 80)`) resolve at once, in a ready future. Anything that needs
//! a name lookup (`"example.com:80"`) runs `getaddrinfo(3)` through
//! `std::net::ToSocketAddrs` on the blocking pool, because the libc
//! resolver blocks.
use std::future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};

/// Converts or resolves without blocking to one or more `SocketAddr`
/// values.
///
/// # DNS
///
/// Implementations of `ToSocketAddrs` for string types require a DNS
/// lookup, which runs on the runtime's blocking pool.
///
/// # Calling
///
/// Currently, this trait is only used as an argument to tokiwa functions
/// that need to reference a target socket address. To perform a socket
/// address lookup directly, use [`lookup_host`](super::lookup_host).
///
/// This trait is sealed and is intended to be opaque. The details of the
/// trait will change; stabilization is pending enhancements to the Rust
/// language.
pub trait ToSocketAddrs: sealed::ToSocketAddrsPriv {}

type ReadyFuture<T> = future::Ready<io::Result<T>>;

/// Starts resolving `arg`.
pub(crate) fn to_socket_addrs<T>(arg: T) -> T::Future
where
    T: ToSocketAddrs,
{
    arg.to_socket_addrs(sealed::Internal)
}

/// Tries each address `addrs` resolves to, in order, and returns the first
/// success, or the last error (tokio's "could not resolve to any address"
/// when there was none).
pub(crate) async fn try_each<A, T, F, Fut>(addrs: A, mut f: F) -> io::Result<T>
where
    A: ToSocketAddrs,
    F: FnMut(SocketAddr) -> Fut,
    Fut: future::Future<Output = io::Result<T>>,
{
    let mut last_err = None;
    for addr in to_socket_addrs(addrs).await? {
        match f(addr).await {
            Ok(value) => return Ok(value),
            Err(e) => last_err = Some(e),
        }
    }
    Err(last_err.unwrap_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "could not resolve to any address",
        )
    }))
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {}

impl<T> sealed::ToSocketAddrsPriv for &T
where
    T: sealed::ToSocketAddrsPriv + ?Sized,
{
    type Iter = T::Iter;
    type Future = T::Future;

    fn to_socket_addrs(&self, _: sealed::Internal) -> Self::Future {
        (**self).to_socket_addrs(sealed::Internal)
    }
}

/// Implements the trait for a type that converts into one `SocketAddr`
/// without a lookup.
macro_rules! literal_addr {
    ($($ty:ty => |$this:ident| $convert:expr;)*) => {$(
        impl ToSocketAddrs for $ty {}

        impl sealed::ToSocketAddrsPriv for $ty {
            type Iter = std::option::IntoIter<SocketAddr>;
            type Future = ReadyFuture<Self::Iter>;

            fn to_socket_addrs(&self, _: sealed::Internal) -> Self::Future {
                let $this = *self;
                future::ready(Ok(Some($convert).into_iter()))
            }
        }
    )*};
}

literal_addr! {
    SocketAddr => |addr| addr;
    SocketAddrV4 => |addr| SocketAddr::V4(addr);
    SocketAddrV6 => |addr| SocketAddr::V6(addr);
    (IpAddr, u16) => |pair| SocketAddr::from(pair);
    (Ipv4Addr, u16) => |pair| SocketAddr::V4(SocketAddrV4::new(pair.0, pair.1));
    (Ipv6Addr, u16) => |pair| SocketAddr::V6(SocketAddrV6::new(pair.0, pair.1, 0, 0));
}

impl ToSocketAddrs for &[SocketAddr] {}

impl sealed::ToSocketAddrsPriv for &[SocketAddr] {
    type Iter = std::vec::IntoIter<SocketAddr>;
    type Future = ReadyFuture<Self::Iter>;

    fn to_socket_addrs(&self, _: sealed::Internal) -> Self::Future {
        // The iterator must be `'static`: copy the slice out.
        let addrs = Vec::from(*self);
        future::ready(Ok(addrs.into_iter()))
    }
}

impl ToSocketAddrs for str {}

impl sealed::ToSocketAddrsPriv for str {
    type Iter = sealed::OneOrMore;
    type Future = sealed::MaybeReady;

    fn to_socket_addrs(&self, _: sealed::Internal) -> Self::Future {
        if let Ok(addr) = self.parse::<SocketAddr>() {
            return sealed::MaybeReady::ready(addr);
        }
        let host = self.to_owned();
        sealed::MaybeReady::lookup(move || std::net::ToSocketAddrs::to_socket_addrs(&host))
    }
}

impl ToSocketAddrs for (&str, u16) {}

impl sealed::ToSocketAddrsPriv for (&str, u16) {
    type Iter = sealed::OneOrMore;
    type Future = sealed::MaybeReady;

    fn to_socket_addrs(&self, _: sealed::Internal) -> Self::Future {
        let (host, port) = *self;
        if let Ok(ip) = host.parse::<Ipv4Addr>() {
            return sealed::MaybeReady::ready(SocketAddr::V4(SocketAddrV4::new(ip, port)));
        }
        if let Ok(ip) = host.parse::<Ipv6Addr>() {
            return sealed::MaybeReady::ready(SocketAddr::V6(SocketAddrV6::new(ip, port, 0, 0)));
        }
        let host = host.to_owned();
        sealed::MaybeReady::lookup(move || {
            std::net::ToSocketAddrs::to_socket_addrs(&(host.as_str(), port))
        })
    }
}

impl ToSocketAddrs for (String, u16) {}

impl sealed::ToSocketAddrsPriv for (String, u16) {
    type Iter = sealed::OneOrMore;
    type Future = sealed::MaybeReady;

    fn to_socket_addrs(&self, _: sealed::Internal) -> Self::Future {
        (self.0.as_str(), self.1).to_socket_addrs(sealed::Internal)
    }
}

impl ToSocketAddrs for String {}

impl sealed::ToSocketAddrsPriv for String {
    type Iter = sealed::OneOrMore;
    type Future = sealed::MaybeReady;

    fn to_socket_addrs(&self, _: sealed::Internal) -> Self::Future {
        self.as_str().to_socket_addrs(sealed::Internal)
    }
}

pub(crate) mod sealed {
    //! The private half of `ToSocketAddrs`. Its items are `pub` only so the
    //! public trait may name them; nothing outside the crate can reach
    //! this module.
    #![allow(unreachable_pub)]

    use crate::task::JoinHandle;
    use std::future::Future;
    use std::io;
    use std::net::SocketAddr;
    use std::pin::Pin;
    use std::task::{ready, Context, Poll};
    use std::{option, vec};

    #[doc(hidden)]
    pub trait ToSocketAddrsPriv {
        type Iter: Iterator<Item = SocketAddr> + Send + 'static;
        type Future: Future<Output = io::Result<Self::Iter>> + Send + 'static;

        fn to_socket_addrs(&self, internal: Internal) -> Self::Future;
    }

    /// Proof that the caller is inside this crate.
    #[allow(missing_debug_implementations)]
    pub struct Internal;

    /// A literal address, or a name lookup running on the blocking pool.
    #[doc(hidden)]
    #[derive(Debug)]
    pub struct MaybeReady(State);

    #[derive(Debug)]
    enum State {
        Ready(Option<SocketAddr>),
        Blocking(JoinHandle<io::Result<vec::IntoIter<SocketAddr>>>),
    }

    impl MaybeReady {
        pub(super) fn ready(addr: SocketAddr) -> MaybeReady {
            MaybeReady(State::Ready(Some(addr)))
        }

        /// Runs `resolve` on the current runtime's blocking pool.
        ///
        /// # Panics
        ///
        /// Outside a runtime, with tokio's message.
        #[track_caller]
        pub(super) fn lookup(
            resolve: impl FnOnce() -> io::Result<vec::IntoIter<SocketAddr>> + Send + 'static,
        ) -> MaybeReady {
            MaybeReady(State::Blocking(crate::task::spawn_blocking(resolve)))
        }
    }

    /// The addresses a string resolved to.
    #[doc(hidden)]
    #[derive(Debug)]
    pub enum OneOrMore {
        One(option::IntoIter<SocketAddr>),
        More(vec::IntoIter<SocketAddr>),
    }

    impl Future for MaybeReady {
        type Output = io::Result<OneOrMore>;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            match &mut self.0 {
                State::Ready(addr) => Poll::Ready(Ok(OneOrMore::One(addr.take().into_iter()))),
                State::Blocking(handle) => {
                    // A lookup cancelled by runtime shutdown becomes an
                    // `io::Error`, as in tokio.
                    let addrs = ready!(Pin::new(handle).poll(cx))??;
                    Poll::Ready(Ok(OneOrMore::More(addrs)))
                }
            }
        }
    }

    impl Iterator for OneOrMore {
        type Item = SocketAddr;

        fn next(&mut self) -> Option<SocketAddr> {
            match self {
                OneOrMore::One(i) => i.next(),
                OneOrMore::More(i) => i.next(),
            }
        }

        fn size_hint(&self) -> (usize, Option<usize>) {
            match self {
                OneOrMore::One(i) => i.size_hint(),
                OneOrMore::More(i) => i.size_hint(),
            }
        }
    }
}
