#!/usr/bin/env python3
"""Runs a test binary that connects to public hosts, without the network.

    unshare --user --map-root-user --net --mount \\
        python3 offline_hosts.py HOST[,HOST...] PORT[,PORT...] -- EXE [ARGS...]

Some of tokio's tests connect to a public host (rt_unstable_metrics.rs:
`TcpStream::connect("google.com:80")`) to get a socket the runtime
registers. CI and the development machines have no network (and tests
should not depend on one), so run.py runs such a file in namespaces of its
own, under this script: a network namespace whose loopback is brought up,
where these HOSTs resolve to 127.0.0.1 (a private /etc/hosts, bind-mounted
in the mount namespace) and a listener waits on each PORT, so a connect
completes in the kernel as it would against the real host. Nothing is
accepted or sent; the tests that do this only count the connect's
registration and readiness.
"""
import ctypes
import fcntl
import os
import socket
import struct
import subprocess
import sys
import tempfile

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
MS_BIND = 4096


def loopback_up() -> None:
    """`ip link set lo up`, without needing iproute2."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifreq = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, ifreq))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def private_hosts(hosts: list[str]) -> None:
    """Bind-mounts an /etc/hosts that maps `hosts` (and localhost) to the
    loopback; only this mount namespace sees it."""
    fd, path = tempfile.mkstemp(prefix="offline-hosts-")
    with os.fdopen(fd, "w") as f:
        f.write("127.0.0.1 localhost\n::1 localhost\n")
        for host in hosts:
            f.write(f"127.0.0.1 {host}\n")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(path.encode(), b"/etc/hosts", None, MS_BIND, None) != 0:
        err = ctypes.get_errno()
        sys.exit(f"offline_hosts: bind-mounting /etc/hosts: {os.strerror(err)}")
    # The mount holds the file; the name is not needed any more.
    os.unlink(path)


def main() -> int:
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit(__doc__)
    hosts = sys.argv[1].split(",")
    ports = [int(p) for p in sys.argv[2].split(",")]
    loopback_up()
    private_hosts(hosts)
    listeners = []
    for port in ports:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", port))
        listener.listen(128)
        listeners.append(listener)
    # The listeners stay open (in this process) while the binary runs.
    return subprocess.run(sys.argv[4:]).returncode


if __name__ == "__main__":
    sys.exit(main())
