import contextlib

import pytest

from parlor.core.errors import ResourceExhausted
from parlor.kit.ratelimit import RateLimiter, RateLimitSettings


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_player_over_the_limit_is_told_when_to_retry() -> None:
    clock = Clock()
    limiter = RateLimiter(RateLimitSettings(per_second=10, burst=3), clock)
    for _ in range(3):
        limiter.check("ada")
    with pytest.raises(ResourceExhausted) as caught:
        limiter.check("ada")
    assert caught.value.reason == "RATE_LIMITED"
    assert float(caught.value.metadata["retry_after_seconds"]) == pytest.approx(0.1)
    limiter.check("bob")  # others are not affected
    clock.now += 0.1
    limiter.check("ada")  # one token came back


def test_zero_rate_means_no_limit() -> None:
    limiter = RateLimiter(RateLimitSettings(per_second=0, burst=1), Clock())
    for _ in range(1000):
        limiter.check("ada")


def test_forgotten_callers_do_not_pile_up() -> None:
    limiter = RateLimiter(RateLimitSettings(per_second=1, burst=1), Clock(), max_keys=10)
    for i in range(100):
        limiter.check(f"player-{i}")
    assert len(limiter._buckets) == 10


def test_tokenless_calls_are_keyed_by_address_without_the_source_port() -> None:
    from parlor.kit.ratelimit import client_address, peer_address

    assert peer_address("ipv4:10.0.0.7:51234") == "10.0.0.7"
    assert peer_address("ipv6:[::1]:51234") == "::1"
    limiter = RateLimiter(RateLimitSettings(per_second=1, burst=2), Clock())
    settings = limiter.settings
    for port in (1000, 1001):
        limiter.check_anonymous(client_address(f"ipv4:10.0.0.7:{port}", (), settings))
    with pytest.raises(ResourceExhausted) as caught:  # a new connection is the same caller
        limiter.check_anonymous(client_address("ipv4:10.0.0.7:1002", (), settings))
    assert caught.value.reason == "RATE_LIMITED"


def test_the_proxy_header_is_believed_only_from_a_trusted_proxy() -> None:
    from parlor.kit.ratelimit import client_address

    settings = RateLimitSettings(
        client_address_header="X-Forwarded-For", trusted_proxies=("10.1.0.0/16",)
    )
    spoof = (("x-forwarded-for", "6.6.6.6, 203.0.113.9"),)
    assert client_address("ipv4:10.1.2.3:4000", spoof, settings) == "203.0.113.9"
    assert client_address("ipv4:198.51.100.1:4000", spoof, settings) == "198.51.100.1"
    chained = (("x-forwarded-for", "203.0.113.9, 10.1.9.9"),)
    assert client_address("ipv4:10.1.2.3:4000", chained, settings) == "203.0.113.9"
    assert client_address("ipv4:10.1.2.3:4000", (), settings) == "10.1.2.3"


def test_guest_creation_has_a_global_cap_over_every_address() -> None:
    limiter = RateLimiter(
        RateLimitSettings(per_second=1, burst=5, anonymous_per_second=1, anonymous_burst=3),
        Clock(),
    )
    for i in range(3):
        limiter.check_anonymous(f"10.0.0.{i}")
    with pytest.raises(ResourceExhausted) as caught:
        limiter.check_anonymous("10.0.0.99")
    assert caught.value.reason == "ANONYMOUS_LIMITED"


def test_open_streams_per_caller_are_capped() -> None:
    limiter = RateLimiter(RateLimitSettings(max_streams=2), Clock())
    with limiter.stream("ada"), limiter.stream("ada"):
        with pytest.raises(ResourceExhausted) as caught, limiter.stream("ada"):
            pass
        assert caught.value.reason == "TOO_MANY_STREAMS"
        with limiter.stream("bob"):
            pass
    with limiter.stream("ada"):  # closed streams are given back
        pass
    assert limiter._streams == {}


def test_many_tokens_from_one_address_share_its_stream_cap() -> None:
    limiter = RateLimiter(RateLimitSettings(max_streams=2, max_streams_per_address=3), Clock())
    with contextlib.ExitStack() as held:
        for guest in ("guest-1", "guest-2", "guest-3"):  # a fresh guest token per stream
            held.enter_context(limiter.stream(guest, "203.0.113.9"))
        with pytest.raises(ResourceExhausted) as caught, limiter.stream("guest-4", "203.0.113.9"):
            pass
        assert caught.value.reason == "TOO_MANY_STREAMS"
        assert caught.value.metadata["limit"] == "3"
        with limiter.stream("guest-5", "198.51.100.1"):  # another address is not affected
            pass
        assert limiter._streams["from:203.0.113.9"] == 3  # the refused stream took nothing
    assert limiter._streams == {}


def test_one_address_looping_on_guest_tokens_does_not_starve_another() -> None:
    clock = Clock()
    limiter = RateLimiter(
        RateLimitSettings(
            anonymous_per_second=20,
            anonymous_burst=100,
            guest_per_address_per_second=1,
            guest_per_address_burst=5,
        ),
        clock,
    )
    issued = refused = 0
    for step in range(320):  # 20 a second for 16 s from one address
        clock.now = step / 20
        try:
            limiter.check_anonymous("203.0.113.9")
            issued += 1
        except ResourceExhausted as refusal:
            assert refusal.reason == "RATE_LIMITED"
            refused += 1
    assert issued <= 5 + 16  # its burst, then one a second
    assert refused == 320 - issued
    for _ in range(5):  # someone else still gets guest tokens at once
        limiter.check_anonymous("198.51.100.1")


def test_streams_idle_for_a_minute_end_by_default() -> None:
    assert RateLimitSettings().stream_idle_seconds == 60.0


def test_an_ipv6_caller_is_keyed_by_its_64_so_its_other_addresses_buy_nothing() -> None:
    """One customer is usually given a /64: 2^64 addresses, each its own caller when keyed
    by the full address, so one client could mint guests and open streams without end."""
    from parlor.kit.ratelimit import client_address

    limiter = RateLimiter(
        RateLimitSettings(guest_per_address_per_second=1, guest_per_address_burst=5), Clock()
    )
    settings = limiter.settings
    for host in range(1, 6):  # five addresses of one /64, a new source port each
        limiter.check_anonymous(client_address(f"ipv6:[2001:db8:7:1::{host}]:{host}", (), settings))
    with pytest.raises(ResourceExhausted) as caught:
        limiter.check_anonymous(client_address("ipv6:[2001:db8:7:1:ffff::9]:9", (), settings))
    assert caught.value.reason == "RATE_LIMITED"
    limiter.check_anonymous(client_address("ipv6:[2001:db8:7:2::1]:1", (), settings))  # next /64

    streams = RateLimiter(RateLimitSettings(max_streams=1, max_streams_per_address=2), Clock())
    proxied = RateLimitSettings(
        client_address_header="x-forwarded-for",
        trusted_proxies=("10.1.0.0/16",),
        max_streams=1,
        max_streams_per_address=2,
    )

    def via_proxy(hop: str) -> str:
        return client_address("ipv4:10.1.2.3:4000", (("x-forwarded-for", hop),), proxied)

    with contextlib.ExitStack() as held:
        held.enter_context(streams.stream("guest-1", via_proxy("2001:db8:7:1::1")))
        held.enter_context(streams.stream("guest-2", via_proxy("2001:DB8:7:1:0:0:0:2")))
        with pytest.raises(ResourceExhausted) as refused:
            held.enter_context(streams.stream("guest-3", via_proxy("2001:db8:7:1:abcd::3")))
        assert refused.value.reason == "TOO_MANY_STREAMS"


@pytest.mark.parametrize(
    ("peer", "key"),
    [
        ("ipv6:[2001:db8:7:1:2:3:4:5]:443", "2001:db8:7:1::/64"),
        ("ipv6:[2001:0DB8:0007:0001::1]:443", "2001:db8:7:1::/64"),  # one spelling
        ("ipv6:[::ffff:203.0.113.7]:443", "203.0.113.7"),  # a dual-stack socket's IPv4 caller
        ("ipv4:203.0.113.7:443", "203.0.113.7"),
        ("ipv6:[::1]:443", "::/64"),
        ("unix:/run/parlor.sock", "unix:/run/parlor.sock"),
    ],
)
def test_what_per_address_limits_key_a_caller_by(peer: str, key: str) -> None:
    from parlor.kit.ratelimit import client_address

    assert client_address(peer, (), RateLimitSettings()) == key


def test_the_ipv6_network_is_a_setting_and_an_ipv4_mapped_proxy_is_trusted() -> None:
    from parlor.kit.ratelimit import client_address, limit_key
    from parlor.kit.settings import SettingsError, load

    assert limit_key("2001:db8:7:1:2:3:4:5", 56) == "2001:db8:7::/56"
    assert limit_key("2001:db8:7:1:2:3:4:5", 128) == "2001:db8:7:1:2:3:4:5/128"
    for bad in ("0", "47", "129"):
        with pytest.raises(SettingsError, match="PARLOR_RATE_LIMIT_IPV6_PREFIX"):
            load(RateLimitSettings, {"PARLOR_RATE_LIMIT_IPV6_PREFIX": bad})
    settings = RateLimitSettings(
        client_address_header="x-forwarded-for", trusted_proxies=("10.1.0.0/16",)
    )
    hop = (("x-forwarded-for", "203.0.113.9, ::ffff:10.1.9.9"),)
    assert client_address("ipv6:[::ffff:10.1.2.3]:4000", hop, settings) == "203.0.113.9"


@pytest.mark.parametrize(
    ("key", "wider"),
    [
        ("2001:db8:7:1::/64", ("2001:db8:7::/56", "2001:db8:7::/48")),
        ("2001:db8:7:1:2:3:4:5/128", ("2001:db8:7::/56", "2001:db8:7::/48")),
        ("2001:db8:7::/48", ("2001:db8:7::/48", "2001:db8:7::/48")),  # already a site
        ("203.0.113.7", ("203.0.113.0/24", "203.0.0.0/16")),
        ("unix:/run/parlor.sock", None),
        ("unknown", None),
    ],
)
def test_a_caller_key_lies_in_a_network_and_a_site(key: str, wider: tuple[str, str]) -> None:
    from parlor.kit.ratelimit import wider_keys

    assert wider_keys(key) == wider


def _issue(limiter: RateLimiter, address: str) -> str:
    from parlor.kit.ratelimit import client_address

    try:
        limiter.check_anonymous(client_address(f"ipv6:[{address}]:443", (), limiter.settings))
    except ResourceExhausted as refusal:
        return refusal.reason
    return "OK"


def _flood(limiter: RateLimiter, clock: Clock, addresses: list[str], calls: int) -> list[str]:
    """``calls`` guest tokens asked from each address in turn, 200 calls a second."""
    codes = []
    for _ in range(calls):
        for address in addresses:
            clock.now += 0.005
            codes.append(_issue(limiter, address))
    return codes


def test_one_56_flooding_from_its_128_64s_leaves_guest_tokens_for_everyone_else() -> None:
    """Issue 37.4: 128 /64s x 6 calls took 113 of the tokens, then 10 of 10 new visitors
    were refused. The /56 has a bucket of its own now, and the others are untouched."""
    clock = Clock()
    limiter = RateLimiter(RateLimitSettings(), clock)  # the defaults, as deployed
    flood = _flood(limiter, clock, [f"2001:db8:7:{n:x}::1" for n in range(128)], 6)
    seconds = clock.now
    issued = flood.count("OK")
    assert issued <= 10 + 2 * seconds + 1  # the network's burst, then 2 a second
    assert set(flood) == {"OK", "RATE_LIMITED"}  # refused as one network, not as everyone
    visitors = [f"2001:db8:{100 + n:x}::1" for n in range(10)]
    assert [_issue(limiter, v) for v in visitors] == ["OK"] * 10


def test_one_ipv4_24_flooding_from_every_address_leaves_guest_tokens_for_everyone_else() -> None:
    from parlor.kit.ratelimit import client_address

    clock = Clock()
    limiter = RateLimiter(RateLimitSettings(), clock)
    codes = []
    for _ in range(6):
        for host in range(128):
            clock.now += 0.005
            try:
                limiter.check_anonymous(
                    client_address(f"ipv4:198.51.100.{host}:443", (), limiter.settings)
                )
                codes.append("OK")
            except ResourceExhausted as refusal:
                codes.append(refusal.reason)
    assert codes.count("OK") <= 10 + 2 * clock.now + 1
    for n in range(10):  # one visitor in each of ten other networks
        limiter.check_anonymous(f"203.0.{n}.7")


def test_a_48_flooding_from_its_56s_is_held_by_the_sites_bucket() -> None:
    clock = Clock()
    limiter = RateLimiter(RateLimitSettings(), clock)
    flood = _flood(limiter, clock, [f"2001:db8:7:{n:x}00::1" for n in range(256)], 2)
    assert flood.count("OK") <= 25 + 5 * clock.now + 1  # the site's burst, then 5 a second
    assert [_issue(limiter, f"2001:db8:{8 + n:x}::1") for n in range(10)] == ["OK"] * 10


def test_many_flooding_sites_leave_the_ceilings_reserve_to_new_visitors() -> None:
    """However many sites flood, together they drain the shared bucket only down to its
    reserve, which callers whose site has been quiet are still served from. At the flood's
    start each site is a newcomer too, until it has asked more than one address may (5
    calls): after that, every new visitor is served."""
    clock = Clock()
    settings = RateLimitSettings(
        anonymous_per_second=20, anonymous_burst=100, anonymous_reserved_share=0.25
    )
    limiter = RateLimiter(settings, clock)
    sites = [f"2001:db8:{n:x}:{m:x}00::1" for n in range(40) for m in range(4)]  # 40 /48s
    flood: list[str] = []
    visitors: list[str] = []
    for step in range(2000):  # 200 calls a second for 10 s, a new visitor every 0.5 s
        clock.now += 0.005
        flood.append(_issue(limiter, sites[step % len(sites)]))
        if step % 100 == 99:
            visitors.append(_issue(limiter, f"2001:db8:{1000 + step:x}::1"))
    assert flood.count("ANONYMOUS_LIMITED") > 1000  # the flood was held by the ceiling
    assert visitors[4:] == ["OK"] * 16  # from 2.5 s on
    with pytest.raises(ResourceExhausted) as refused:
        limiter.check_anonymous("2001:db8:1:100::/64")  # a flooding site asks again
    assert refused.value.reason == "ANONYMOUS_LIMITED"
    assert "kept for networks that have made few" in str(refused.value)
    assert float(refused.value.metadata["retry_after_seconds"]) > 0


def test_a_call_refused_by_a_wide_bucket_takes_nothing_from_the_callers_own() -> None:
    clock = Clock()
    limiter = RateLimiter(
        RateLimitSettings(anonymous_per_second=1, anonymous_burst=2, anonymous_reserved_share=0),
        clock,
    )
    limiter.check_anonymous("203.0.113.1")
    limiter.check_anonymous("198.51.100.1")
    for _ in range(10):  # the ceiling is empty: refused, and its own bucket keeps its 5
        with pytest.raises(ResourceExhausted) as refused:
            limiter.check_anonymous("192.0.2.1")
        assert refused.value.reason == "ANONYMOUS_LIMITED"
        assert float(refused.value.metadata["retry_after_seconds"]) == pytest.approx(1.0)
    clock.now += 5  # the ceiling refilled (2): two calls from it pass, its own bucket held
    limiter.check_anonymous("192.0.2.1")
    limiter.check_anonymous("192.0.2.1")


def test_the_wait_told_is_the_longest_of_the_buckets_that_refused() -> None:
    clock = Clock()
    limiter = RateLimiter(
        RateLimitSettings(
            guest_per_address_per_second=1,
            guest_per_address_burst=1,
            anonymous_per_second=0.1,
            anonymous_burst=1,
            anonymous_reserved_share=0,
        ),
        clock,
    )
    limiter.check_anonymous("203.0.113.1")
    with pytest.raises(ResourceExhausted) as refused:
        limiter.check_anonymous("203.0.113.1")
    assert refused.value.reason == "RATE_LIMITED"  # the narrowest that refused says why
    assert float(refused.value.metadata["retry_after_seconds"]) == pytest.approx(10.0)


def test_the_reserved_share_is_bounded() -> None:
    from parlor.kit.settings import SettingsError, load

    for bad in ("-0.1", "0.95", "1"):
        with pytest.raises(SettingsError, match="PARLOR_ANONYMOUS_RESERVED_SHARE"):
            load(RateLimitSettings, {"PARLOR_ANONYMOUS_RESERVED_SHARE": bad})
