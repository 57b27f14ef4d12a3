"""Servicers served in this process, for their callers in the same process.

A server registers the servicer of each service it serves (``GrpcService.servicer``) under
the addresses it listens at (``register``, once bound). A client in the same process whose
target is one of those addresses then calls that servicer directly (``served``) instead of
through a loopback channel: no serialisation, no HTTP/2, no second pass through the
interceptor, and, with several workers on one port, no hop to whichever worker the kernel
hands the connection to. It is what gRPC's in-process transport does in other languages;
a target this process does not serve at (another host, a port nothing here listens on) is
called over the network as before. The word games' dictionary is the one such client
(``parlor.gamehost.words.words``): in ``make run`` every worker hosts both.

Registration is per event loop; an address registered twice for one service is called
over the network: ``served`` never guesses which one was meant.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable

_ANY_IPV4 = {"", "0.0.0.0"}
_ANY = {"::", "[::]"}  # every address of both families
ANY_HOST = _ANY_IPV4 | _ANY
"""Bind addresses that take every interface."""
_IPV4_LOOPBACK = ("127.0.0.1", "localhost")
_IPV6_LOOPBACK = ("[::1]", "localhost")
_SCHEMES = ("dns:///", "dns:", "ipv4:", "ipv6:")

_SERVED: dict[tuple[asyncio.AbstractEventLoop, str, str], list[object]] = {}


def _bracketed(host: str) -> str:
    """An IPv6 address as a target writes it (``[::1]``)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def own_target(host: str, port: int) -> str:
    """host:port at which a caller on this machine reaches a server bound to ``host:port``
    (IPv4 loopback for a server on every interface)."""
    return f"{'127.0.0.1' if host in ANY_HOST else _bracketed(host)}:{port}"


def addresses(host: str, port: int) -> set[str]:
    """The targets that reach a server bound to ``host:port`` from its own machine."""
    host = _bracketed(host).lower()
    if host in _ANY:
        names = {*_IPV4_LOOPBACK, *_IPV6_LOOPBACK, "0.0.0.0", "[::]"}
    elif host in _ANY_IPV4:
        names = {*_IPV4_LOOPBACK, "0.0.0.0"}
    elif host in _IPV4_LOOPBACK:
        names = set(_IPV4_LOOPBACK)
    elif host == "[::1]":
        names = set(_IPV6_LOOPBACK)
    else:
        names = {host}
    return {f"{name}:{port}" for name in names}


@functools.lru_cache(maxsize=256)
def _normal(target: str) -> str:
    target = target.strip().lower()
    for scheme in _SCHEMES:
        if target.startswith(scheme):
            return target.removeprefix(scheme)
    return target


def register(service: str, servicer: object, at: Iterable[str]) -> Callable[[], None]:
    """``servicer`` answers ``service`` (its full name) at the targets ``at`` for this
    loop's callers, until the returned function is called."""
    loop = asyncio.get_running_loop()
    keys = [(loop, service, _normal(address)) for address in at]
    for key in keys:
        _SERVED.setdefault(key, []).append(servicer)

    def unregister() -> None:
        for key in keys:
            held = _SERVED.get(key, [])
            if servicer in held:
                held.remove(servicer)
            if not held:
                _SERVED.pop(key, None)

    return unregister


def served(service: str, target: str) -> object | None:
    """The one servicer of ``service`` this process serves at ``target``, or None (call
    it over the network)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    held = _SERVED.get((loop, service, _normal(target)))
    return held[0] if held is not None and len(held) == 1 else None
