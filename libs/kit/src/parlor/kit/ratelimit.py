"""Per-caller rate limits: a token bucket per player, so one client cannot starve the others.

Trusted services (tokens with the ``service`` role) are not limited. A caller
over the limit gets ``RESOURCE_EXHAUSTED`` with reason ``RATE_LIMITED`` and
the seconds to wait in the error's metadata.

Calls without a token (guest tokens) are keyed by the client's address without its source
port, so new connections do not get new buckets; behind a proxy (a Kubernetes ingress) the
address is read from the header the proxy sets, and only when the call comes from one of
the trusted proxies (``PARLOR_CLIENT_ADDRESS_HEADER``, ``PARLOR_TRUSTED_PROXIES``).

A tokenless call passes every bucket of a hierarchy, or takes from none of them:

- the caller's address, like a player (``PARLOR_RATE_LIMIT_PER_SECOND``), and its own small
  guest bucket (``PARLOR_GUEST_PER_ADDRESS_PER_SECOND``, ``PARLOR_GUEST_PER_ADDRESS_BURST``);
- its network, an IPv4 /24 or IPv6 /56 (``PARLOR_GUEST_PER_NETWORK_*``), and its site, an
  IPv4 /16 or IPv6 /48 (``PARLOR_GUEST_PER_SITE_*``): one customer is usually given a /56 or
  a /48, 256 or 65,536 /64s, and one cloud tenant a run of IPv4 addresses, so keyed by the
  address alone one customer could take every guest token there is;
- one global ceiling for all tokenless calls together (``PARLOR_ANONYMOUS_*``,
  ``ANONYMOUS_LIMITED``), so many networks cannot mint guests without end. Its last share
  (``PARLOR_ANONYMOUS_RESERVED_SHARE``) goes only to callers whose site has asked no more
  than one address may lately (a meter of every call, refused or not): sites that flood,
  however many, drain the ceiling only down to that reserve, and new visitors from anywhere
  else are still served from it. A flood's first calls from a new site look like a new
  visitor's, and many sites each asking like one visitor (a botnet) are many visitors: the
  ceiling bounds those.

A refused call takes no token from any bucket (a visitor refused by the ceiling keeps its
own), and is told the longest wait of the buckets that refused it.

An address is keyed as one customer holds it (``limit_key``): IPv4 by the address, IPv6 by
its /64 (``PARLOR_RATE_LIMIT_IPV6_PREFIX``), the network one customer is usually given, which
holds 2^64 addresses: keyed by the full address, each of them had its own buckets and
stream cap. An IPv4-mapped IPv6 address (``::ffff:203.0.113.7``, what a dual-stack socket
shows for an IPv4 caller) is its IPv4 address, for the keys and for the trusted proxies.

Each player (or address, for tokenless calls) may hold a bounded number of server streams
open at once (``TOO_MANY_STREAMS``); all the streams from one client address together,
whichever tokens they carry, are capped too (``PARLOR_MAX_STREAMS_PER_ADDRESS``), so
minting many guest tokens does not buy more streams. A stream that has sent nothing for
``PARLOR_STREAM_IDLE_SECONDS`` is ended (``DEADLINE_EXCEEDED``, ``STREAM_IDLE``).
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from parlor.core.errors import ResourceExhausted
from parlor.kit.settings import SettingsError, setting

Metadata = Iterable[Any] | None  # gRPC's invocation metadata: (key, value) pairs


@dataclass(frozen=True)
class RateLimitSettings:
    per_second: float = setting(
        "PARLOR_RATE_LIMIT_PER_SECOND", "calls per second each player may make (0: no limit)", 50.0
    )
    burst: int = setting("PARLOR_RATE_LIMIT_BURST", "calls a player may make at once", 100)
    anonymous_per_second: float = setting(
        "PARLOR_ANONYMOUS_PER_SECOND",
        "tokenless calls (guest tokens) per second from all clients together (0: no limit)",
        20.0,
    )
    anonymous_burst: int = setting(
        "PARLOR_ANONYMOUS_BURST", "tokenless calls all clients together may make at once", 100
    )
    guest_per_address_per_second: float = setting(
        "PARLOR_GUEST_PER_ADDRESS_PER_SECOND",
        "tokenless calls (guest tokens) per second from one client address (0: no limit)",
        1.0,
    )
    guest_per_address_burst: int = setting(
        "PARLOR_GUEST_PER_ADDRESS_BURST",
        "tokenless calls (guest tokens) one client address may make at once",
        5,
    )
    client_address_header: str = setting(
        "PARLOR_CLIENT_ADDRESS_HEADER",
        "header a trusted proxy puts the client's address in, e.g. x-forwarded-for (empty: none)",
        "",
    )
    trusted_proxies: tuple[str, ...] = setting(
        "PARLOR_TRUSTED_PROXIES",
        "comma-separated addresses or networks (CIDR) whose client address header is believed",
        (),
    )
    max_streams: int = setting(
        "PARLOR_MAX_STREAMS_PER_CALLER",
        "server streams (WatchGame...) one player or address may hold open at once (0: no cap)",
        16,
    )
    max_streams_per_address: int = setting(
        "PARLOR_MAX_STREAMS_PER_ADDRESS",
        "server streams all callers from one client address may hold open at once (0: no cap)",
        64,
    )
    stream_idle_seconds: float = setting(
        "PARLOR_STREAM_IDLE_SECONDS",
        "a server stream that sends nothing for this long is ended (0: never)",
        60.0,
    )
    guest_per_network_per_second: float = setting(
        "PARLOR_GUEST_PER_NETWORK_PER_SECOND",
        "tokenless calls (guest tokens) per second from one network, an IPv4 /24 or an IPv6 /56,"
        " all its addresses together (0: no limit)",
        2.0,
    )
    guest_per_network_burst: int = setting(
        "PARLOR_GUEST_PER_NETWORK_BURST",
        "tokenless calls one network (IPv4 /24, IPv6 /56) may make at once",
        10,
    )
    guest_per_site_per_second: float = setting(
        "PARLOR_GUEST_PER_SITE_PER_SECOND",
        "tokenless calls (guest tokens) per second from one site, an IPv4 /16 or an IPv6 /48,"
        " all its networks together (0: no limit)",
        5.0,
    )
    guest_per_site_burst: int = setting(
        "PARLOR_GUEST_PER_SITE_BURST",
        "tokenless calls one site (IPv4 /16, IPv6 /48) may make at once",
        25,
    )
    anonymous_reserved_share: float = setting(
        "PARLOR_ANONYMOUS_RESERVED_SHARE",
        "share of the global tokenless bucket (PARLOR_ANONYMOUS_BURST) kept for callers whose"
        " site has asked no more than one address may lately, so flooding networks cannot take"
        " it (0 to 0.9)",
        0.25,
    )
    ipv6_prefix: int = setting(
        "PARLOR_RATE_LIMIT_IPV6_PREFIX",
        "per-address limits count an IPv6 client by its network of this many bits (64: the"
        " network one customer is usually given; 128: each address alone)",
        64,
    )

    def __post_init__(self) -> None:
        # shorter than a /48 (a site's) would key a provider's customers together
        if not 48 <= self.ipv6_prefix <= 128:
            raise SettingsError(
                f"PARLOR_RATE_LIMIT_IPV6_PREFIX: must be 48 to 128 bits, got {self.ipv6_prefix}"
            )
        # all of it reserved would refuse every caller of a busy site, however long it waited
        if not 0 <= self.anonymous_reserved_share <= 0.9:
            raise SettingsError(
                "PARLOR_ANONYMOUS_RESERVED_SHARE: must be 0 to 0.9, got"
                f" {self.anonymous_reserved_share}"
            )


def _networks(
    entries: Sequence[str],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(e, strict=False) for e in entries)


def peer_address(peer: str) -> str:
    """The address of a gRPC peer string without its port: "ipv4:10.0.0.7:51234" -> "10.0.0.7"."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        host = rest.rsplit(":", 1)[0] if rest.startswith("[") else rest
        return host.strip("[]")
    return peer  # unix sockets and the like: one local caller


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``address`` parsed, an IPv4-mapped IPv6 address as the IPv4 one; None if not an IP."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def limit_key(address: str, ipv6_prefix: int = 64) -> str:
    """What per-address limits count ``address`` under: an IPv4 address itself, an IPv6 one
    its network of ``ipv6_prefix`` bits (``2001:db8:7:1::/64``), an IPv4-mapped one its IPv4
    address, each in one spelling; anything else (a unix socket, ``unknown``) as it is."""
    ip = _ip(address)
    if ip is None:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, ipv6_prefix), strict=False))
    return str(ip)


NETWORK_PREFIXES = (24, 56)
"""An IPv4 /24 and an IPv6 /56: a network, what one customer (a home, a small tenant) is often
given; its tokenless calls share a bucket (``PARLOR_GUEST_PER_NETWORK_*``)."""
SITE_PREFIXES = (16, 48)
"""An IPv4 /16 and an IPv6 /48: a site, the most one customer is usually given (an IPv6 /48
is 65,536 /64s); its networks share a bucket (``PARLOR_GUEST_PER_SITE_*``)."""


def wider_keys(key: str) -> tuple[str, str] | None:
    """The network and the site (``NETWORK_PREFIXES``, ``SITE_PREFIXES``) that hold a caller
    keyed by ``limit_key``, e.g. ``("2001:db8:7::/56", "2001:db8:7::/48")``; a key already
    wider (a /48 per-address key) is its own network. None for a caller that is no IP address
    (a unix socket, ``unknown``): it has no neighbours to share with."""
    try:
        network = ipaddress.ip_network(key, strict=False)
    except ValueError:
        return None
    v6 = network.version == 6
    network_key, site_key = (
        str(network.supernet(new_prefix=min(network.prefixlen, prefixes[v6])))
        for prefixes in (NETWORK_PREFIXES, SITE_PREFIXES)
    )
    return network_key, site_key


def _within(
    address: str, networks: Sequence[ipaddress.IPv4Network | ipaddress.IPv6Network]
) -> bool:
    ip = _ip(address)
    return ip is not None and any(ip in network for network in networks)


def client_address(peer: str, metadata: Metadata, settings: RateLimitSettings) -> str:
    """Who is calling, as per-address limits key it (``limit_key``): the peer's address, or
    the one a trusted proxy names in its header.

    The header is believed only when the peer itself is a trusted proxy; in a
    comma-separated list (x-forwarded-for) the client is the rightmost entry that is not a
    trusted proxy, since a client can write anything on the left.
    """
    return limit_key(_caller(peer, metadata, settings), settings.ipv6_prefix)


def _caller(peer: str, metadata: Metadata, settings: RateLimitSettings) -> str:
    address = peer_address(peer)
    header = settings.client_address_header.lower()
    if not header or not settings.trusted_proxies:
        return address
    trusted = _trusted(settings.trusted_proxies)
    if not _within(address, trusted):
        return address
    values = [v for k, v in metadata or () if k.lower() == header and isinstance(v, str)]
    if not values:
        return address
    hops = [h.strip() for h in ",".join(values).split(",") if h.strip()]
    for hop in reversed(hops):
        if not _within(hop, trusted):
            return hop[:64]
    return address


def forwarded_for(client: str | None, incoming: str | None, settings: RateLimitSettings) -> str:
    """The x-forwarded-for a bridge passes on: the hops it was told of, then its own client.

    The incoming hops are kept only when the bridge's client is itself a trusted proxy (and
    then only the last few, each clipped); otherwise the client wrote them and they are
    dropped. The services take the rightmost address that is not a trusted proxy. A hop that
    gRPC metadata cannot carry (anything but printable ASCII: a call given it never ends) is
    passed on as ``unknown``, in its place.
    """
    hops: list[str] = []
    if incoming and client and _within(client, _trusted(settings.trusted_proxies)):
        hops = [h.strip()[:64] for h in incoming.split(",") if h.strip()][-8:]
    if client:
        hops.append(client[:64])
    return ", ".join(h if metadata_safe(h) else "unknown" for h in hops)


def metadata_safe(value: str) -> bool:
    """Whether gRPC can carry ``value`` in (text) metadata: printable ASCII only."""
    return all(" " <= c <= "~" for c in value)


_TRUSTED: dict[tuple[str, ...], tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]] = {}


def _trusted(
    entries: tuple[str, ...],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    if entries not in _TRUSTED:
        _TRUSTED[entries] = _networks(entries)
    return _TRUSTED[entries]


@dataclass(frozen=True)
class _Bucket:
    """One token bucket a call must take from: refilled at ``rate`` a second up to ``burst``."""

    key: str
    rate: float
    burst: float
    what: str
    reason: str = "RATE_LIMITED"
    keep: float = 0.0
    """Tokens this caller may not take: the global bucket's reserve, for a caller whose site
    floods."""


class RateLimiter:
    """Token buckets keyed by caller; the least recently seen are forgotten beyond ``max_keys``."""

    def __init__(
        self,
        settings: RateLimitSettings,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        self.settings = settings
        self.rate = settings.per_second
        self.burst = float(settings.burst)
        self.clock = clock
        self.max_keys = max_keys
        self.idle_seconds = settings.stream_idle_seconds
        _trusted(settings.trusted_proxies)  # a malformed network fails at start-up
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._streams: dict[str, int] = {}

    def check(self, key: str) -> None:
        """Take one token for ``key`` or raise ResourceExhausted."""
        self._take([_Bucket(key, self.rate, self.burst, "too many calls")])

    def check_anonymous(self, address: str) -> None:
        """A tokenless call from ``address`` (a ``limit_key``): a token from each of its
        buckets, the address's, its network's, its site's and the global one, or from none.

        The global bucket's reserve is left to callers whose site has asked no more than
        one address may lately, so that sites that flood, however many of their networks
        they use, drain the ceiling only down to the reserve, which new visitors elsewhere
        are served from.
        """
        s = self.settings
        buckets = [
            _Bucket(f"address:{address}", self.rate, self.burst, "too many calls"),
            _Bucket(
                f"guest:{address}",
                s.guest_per_address_per_second,
                float(s.guest_per_address_burst),
                "too many calls without a token from this address",
            ),
        ]
        wider = wider_keys(address)
        if wider is not None:
            network, site = wider
            buckets += [
                _Bucket(
                    f"guest-network:{network}",
                    s.guest_per_network_per_second,
                    float(s.guest_per_network_burst),
                    f"too many calls without a token from the network {network}",
                ),
                _Bucket(
                    f"guest-site:{site}",
                    s.guest_per_site_per_second,
                    float(s.guest_per_site_burst),
                    f"too many calls without a token from the network {site}",
                ),
            ]
        what = "too many calls without a token from all clients together"
        reserve = 0.0
        if not self._quiet(address if wider is None else wider[1]):
            reserve = s.anonymous_reserved_share * s.anonymous_burst
            what += "; the rest is kept for networks that have made few such calls lately"
        buckets.append(
            _Bucket(
                "anonymous:*",
                s.anonymous_per_second,
                float(s.anonymous_burst),
                what,
                reason="ANONYMOUS_LIMITED",
                keep=reserve,
            )
        )
        self._take(buckets)

    def _quiet(self, where: str) -> bool:
        """Whether ``where`` (a caller's site, or its address if it is no IP) has asked for
        no more than one address may lately (``PARLOR_GUEST_PER_ADDRESS_*``), this call
        counted: a caller so quiet may take the global bucket's reserve.

        What is asked is metered apart from what is taken (a bucket of its own, ``asked:``,
        emptied by every call, refused or not): a site whose calls the global bucket
        refuses takes nothing from its own buckets, and would look quiet again at once.
        """
        s = self.settings
        if s.guest_per_address_per_second <= 0:
            return True
        asked = _Bucket(
            f"asked:{where}", s.guest_per_address_per_second, float(s.guest_per_address_burst), ""
        )
        now = self.clock()
        level = self._level(asked, now)
        self._store(asked.key, max(0.0, level - 1), now)
        return level >= 1

    def _store(self, key: str, tokens: float, now: float) -> None:
        """A bucket's level, as the most recently used; the least recently used forgotten."""
        self._buckets.pop(key, None)
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)

    def _level(self, bucket: _Bucket, now: float) -> float:
        tokens, last = self._buckets.get(bucket.key, (bucket.burst, now))
        return min(bucket.burst, tokens + (now - last) * bucket.rate)

    def _take(self, buckets: Sequence[_Bucket]) -> None:
        """One token from every bucket, or, if any of them is short (below 1 plus what it
        keeps for others), none: a caller refused by a wide bucket keeps its own tokens. The
        refusal names the narrowest bucket that refused and the longest wait among them."""
        now = self.clock()
        levels: list[tuple[_Bucket, float]] = []
        refusing: _Bucket | None = None
        wait = 0.0
        for bucket in buckets:
            if bucket.rate <= 0:
                continue
            tokens = self._level(bucket, now)
            levels.append((bucket, tokens))
            if tokens < 1 + bucket.keep:
                wait = max(wait, (1 + bucket.keep - tokens) / bucket.rate)
                refusing = refusing or bucket
        taken = 0 if refusing else 1
        for bucket, tokens in levels:
            self._store(bucket.key, tokens - taken, now)
        if refusing is not None:
            wait = math.ceil(wait * 1000) / 1000  # never "retry in 0": a bucket just short
            raise ResourceExhausted(
                f"{refusing.what}: at most {refusing.rate:g} per second; retry in {wait:.2f} s",
                reason=refusing.reason,
                metadata={"retry_after_seconds": f"{wait:.3f}"},
            )

    @contextlib.contextmanager
    def stream(self, key: str, address: str | None = None) -> Iterator[None]:
        """Hold one of ``key``'s open streams while the block runs, or raise ResourceExhausted.

        With ``address`` (the client's), the stream also counts against that address's cap,
        whoever's token it carries.
        """
        holds = [(key, self.settings.max_streams, "")]
        if address is not None:
            holds.append(
                (f"from:{address}", self.settings.max_streams_per_address, " from this address")
            )
        for held_key, cap, where in holds:
            if cap > 0 and self._streams.get(held_key, 0) >= cap:
                raise ResourceExhausted(
                    f"too many open streams{where}: at most {cap} at once; close one first",
                    reason="TOO_MANY_STREAMS",
                    metadata={"limit": str(cap)},
                )
        for held_key, _, _ in holds:
            self._streams[held_key] = self._streams.get(held_key, 0) + 1
        try:
            yield
        finally:
            for held_key, _, _ in holds:
                left = self._streams[held_key] - 1
                if left:
                    self._streams[held_key] = left
                else:
                    del self._streams[held_key]
