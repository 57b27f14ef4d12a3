"""Ports for servers a test stops and starts again on the same number.

``free_port`` asks the kernel for a port (bind to 0), which it takes from the ephemeral range
(``ip_local_port_range``), the range every outgoing connection on the machine takes its local
port from too, and every other test's ``free_port``. While a test's server is down (killed,
stopped, its store wiped, or not started yet) its port is free: another run's connection or
server may take it, and the server cannot come back on it (``EADDRINUSE``), or (a gRPC server
binds with ``SO_REUSEPORT``) comes back beside a stranger that answers half the calls. A port
below the ephemeral range is never handed out by the kernel: only a test that names it takes
it, and these are chosen at random among the free ones.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_SPAN = 12000
"""How many ports under the ephemeral range to choose from."""


def _ephemeral_start() -> int:
    try:
        return int(_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def restartable_ports(count: int = 1, host: str = "127.0.0.1") -> list[int]:
    """``count`` different free ports below the ephemeral range, for servers that will be
    stopped and started again on the same one (see the module's docstring)."""
    top = _ephemeral_start()
    choices = random.SystemRandom()
    found: list[int] = []
    for _ in range(200):
        port = choices.randrange(max(1024, top - _SPAN), top)
        if port in found:
            continue
        with socket.socket() as sock:
            try:
                sock.bind((host, port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    raise AssertionError(f"no {count} free ports under {top} in 200 tries")


def restartable_port(host: str = "127.0.0.1") -> int:
    """One port of ``restartable_ports``."""
    return restartable_ports(1, host)[0]
