"""The all-in-one platform's own settings: its port, where its services call each other, and
the NATS names that keep two platforms apart."""

from __future__ import annotations

import socket

import pytest

from parlor.kit.ratelimit import RateLimiter, RateLimitSettings, client_address
from parlor.kit.server import ServerSettings
from parlor.kit.settings import load
from parlor.platform import main as platform


@pytest.mark.parametrize(
    ("host", "target"),
    [
        ("0.0.0.0", "127.0.0.1:50052"),
        ("::", "127.0.0.1:50052"),
        ("127.0.0.2", "127.0.0.2:50052"),
        ("::1", "[::1]:50052"),
    ],
)
def test_services_in_the_process_call_its_own_port(host: str, target: str) -> None:
    settings = ServerSettings(host=host, port=50052)
    assert platform.own_target(settings) == target
    assert platform.in_process_targets(settings, ["dictionary", "upwords"]) == {
        "PARLOR_DICTIONARY_TARGET": target
    }


def test_a_dictionary_served_elsewhere_is_left_to_the_setting() -> None:
    assert platform.in_process_targets(ServerSettings(port=50052), ["upwords"]) == {}


def test_the_port_flag_wins_and_port_0_is_made_concrete_before_services_start() -> None:
    base = ServerSettings(port=50051, metrics_port=0)
    assert platform.platform_settings(base, 50060, {}).port == 50060
    assert platform.platform_settings(base, None, {}).port == 50051
    picked = platform.platform_settings(base, 0, {}).port
    assert picked != 0


def test_a_taken_default_metrics_port_is_turned_off_unless_set(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        base = ServerSettings(port=50051, metrics_port=port)
        assert platform.platform_settings(base, None, {}).metrics_port == 0
        assert f"metrics port {port} is taken" in capsys.readouterr().out
        # set explicitly: kept, and serving it fails loudly as before
        kept = platform.platform_settings(base, None, {"PARLOR_METRICS_PORT": str(port)})
        assert kept.metrics_port == port


def test_a_taken_metrics_port_of_a_later_worker_turns_metrics_off_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # worker i serves /metrics on the port + i: the second worker's port taken (9091 under
    # `make run` on two cores) would stop that worker, and with it the platform
    monkeypatch.setattr(platform, "_port_free", lambda host, port: port != 9091)
    base = ServerSettings(port=50051, metrics_port=9090)
    assert platform.platform_settings(base, None, {}, workers=1).metrics_port == 9090
    assert platform.platform_settings(base, None, {}, workers=2).metrics_port == 0
    assert "metrics port 9091 is taken" in capsys.readouterr().out
    # set explicitly: kept, and serving it fails loudly as before
    kept = platform.platform_settings(base, None, {"PARLOR_METRICS_PORT": "9090"}, workers=2)
    assert kept.metrics_port == 9090


def test_nats_names_come_from_the_database_unless_set() -> None:
    url = "postgresql://postgres@127.0.0.1:5432/parlor_two"
    assert platform.bus_names(url, {}) == {
        "PARLOR_NATS_STREAM": "PARLOR_PARLOR_TWO_EVENTS",
        "PARLOR_NATS_SUBJECT_PREFIX": "parlor-parlor_two.events",
    }
    other = platform.bus_names("postgresql://postgres@127.0.0.1:5432/parlor", {})
    assert other["PARLOR_NATS_STREAM"] != "PARLOR_PARLOR_TWO_EVENTS"
    assert platform.bus_names(url, {"PARLOR_NATS_STREAM": "MINE"}) == {
        "PARLOR_NATS_SUBJECT_PREFIX": "parlor-parlor_two.events"
    }


def test_nats_names_are_valid_whatever_the_database_is_called() -> None:
    names = platform.bus_names("postgresql://u@h/My.DB-1 x*", {})
    assert names["PARLOR_NATS_STREAM"] == "PARLOR_MY_DB_1_X__EVENTS"
    assert names["PARLOR_NATS_SUBJECT_PREFIX"] == "parlor-my_db-1_x_.events"
    embedded = platform.bus_names("postgresql://postgres@/postgres?host=/tmp/x", {})
    assert embedded["PARLOR_NATS_STREAM"] == "PARLOR_POSTGRES_EVENTS"


def test_the_web_bridge_served_here_names_each_browsers_address() -> None:
    """The bridge calls this process's port from loopback; the services believe the browser
    address it passes on, so every visitor has rate limits and stream caps of their own."""
    settings = load_rate_limits(platform.bridge_trust(["upwords", "web"], {}))
    bridge_call = [("x-forwarded-for", "203.0.113.7")]
    assert client_address("ipv4:127.0.0.1:40000", bridge_call, settings) == "203.0.113.7"
    assert client_address("ipv6:[::1]:40000", bridge_call, settings) == "203.0.113.7"
    # Anyone else naming an address is not believed: the peer is who calls.
    assert client_address("ipv4:198.51.100.9:40000", bridge_call, settings) == "198.51.100.9"


def test_the_bridge_trust_keeps_what_is_configured() -> None:
    environ = {"PARLOR_TRUSTED_PROXIES": "10.1.0.0/16", "PARLOR_CLIENT_ADDRESS_HEADER": "x-real-ip"}
    assert platform.bridge_trust(["web"], environ) == {
        "PARLOR_TRUSTED_PROXIES": "10.1.0.0/16,127.0.0.0/8,::1/128,::ffff:127.0.0.0/104"
    }
    # Applied twice (a worker's environment is its parent's), nothing is added again.
    again = {**environ, **platform.bridge_trust(["web"], environ)}
    assert platform.bridge_trust(["web"], again) == {
        "PARLOR_TRUSTED_PROXIES": again["PARLOR_TRUSTED_PROXIES"]
    }
    # No bridge here, or one that calls elsewhere: the settings as they are.
    assert platform.bridge_trust(["upwords"], {}) == {}
    assert platform.bridge_trust(["web"], {"PARLOR_WEB_TARGET": "parlor:50051"}) == {}


def load_rate_limits(environ: dict[str, str]) -> RateLimitSettings:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in environ.items():
            patch.setenv(name, value)
        return load(RateLimitSettings)


@pytest.mark.parametrize(
    ("host", "added"),
    [
        ("0.0.0.0", ""),
        ("::", ""),
        ("localhost", ""),
        ("192.0.2.5", ",192.0.2.5"),
        ("[::1]", ",::1"),
    ],
)
def test_a_server_bound_to_one_address_is_called_there(host: str, added: str) -> None:
    trusted = platform.bridge_trust(["web"], {}, host)["PARLOR_TRUSTED_PROXIES"]
    assert trusted == ",".join(platform.LOOPBACK) + added
    RateLimiter(load_rate_limits({"PARLOR_TRUSTED_PROXIES": trusted}))  # each one a network
