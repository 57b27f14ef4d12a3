"""The bridge's parts that need no server: what it finds in the descriptors, where it sends
each service, and how a gRPC status becomes HTTP."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from parlor.kit.settings import SettingsError
from parlor.webgateway.catalog import catalog, proto_modules, version_of
from parlor.webgateway.component import Channels, parse_routes
from parlor.webgateway.errors import HTTP_STATUS, from_rpc_error

WRONG = "x"  # a password no account has (kept out of a JSON literal: the trust scan)


def test_every_rpc_of_every_service_is_found_from_the_descriptors() -> None:
    methods = catalog()
    declared = {
        f"{service.full_name}/{method.name}"
        for module in proto_modules()
        for service in module.DESCRIPTOR.services_by_name.values()
        for method in service.methods
        if not method.client_streaming
    }
    assert set(methods) == declared
    # only Parlor's own APIs: never health, reflection or anything else a server answers
    assert {key.split(".")[0] for key in methods} == {"parlor"}
    assert "parlor.connect4x4.v1.Connect4x4Service/PlayMove" in methods
    assert "parlor.identity.v1.IdentityService/IssueGuestToken" in methods
    watch = methods["parlor.upwords.v1.UpwordsService/WatchGame"]
    assert watch.server_streaming
    assert watch.resume_field == "after_version"
    assert watch.versioned
    assert watch.path == "/parlor.upwords.v1.UpwordsService/WatchGame"
    replay = methods["parlor.takefour.v1.TakeFourService/ReplayGame"]
    assert replay.resume_field == "from_version"
    ticket = methods["parlor.matchmaking.v1.MatchmakingService/WatchTicket"]
    assert ticket.server_streaming
    assert ticket.resume_field is None
    assert not ticket.versioned
    assert not methods["parlor.connect4x4.v1.Connect4x4Service/PlayMove"].server_streaming


def test_the_version_of_a_streamed_item() -> None:
    watch = catalog()["parlor.connect4x4.v1.Connect4x4Service/WatchGame"]
    item = watch.response()
    assert version_of(item) is None
    item.event.info.version = 7  # type: ignore[attr-defined]
    assert version_of(item) == 7


@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "inf"])
def test_a_request_deadline_that_would_refuse_every_request_stops_the_start(seconds: str) -> None:
    from parlor.kit.settings import load
    from parlor.webgateway.component import WebSettings

    with pytest.raises(SettingsError, match="PARLOR_WEB_REQUEST_SECONDS"):
        load(WebSettings, {"PARLOR_WEB_REQUEST_SECONDS": seconds})
    assert load(WebSettings, {"PARLOR_WEB_REQUEST_SECONDS": "2.5"}).request_seconds == 2.5


@pytest.mark.parametrize(
    "uri",
    ["", "play.example.com/auth/callback", "https://play.example.com/", "ftp://x/auth/callback"],
)
def test_sign_in_offered_without_the_bridges_callback_url_stops_the_start(uri: str) -> None:
    from parlor.kit.settings import load
    from parlor.webgateway.component import WebSettings

    offered = {"PARLOR_WEB_SIGN_IN_PROVIDERS": "keycloak"}
    with pytest.raises(SettingsError, match="PARLOR_WEB_SIGN_IN_REDIRECT_URI"):
        load(WebSettings, {**offered, "PARLOR_WEB_SIGN_IN_REDIRECT_URI": uri})
    good = "https://play.example.com/auth/callback"
    settings = load(WebSettings, {**offered, "PARLOR_WEB_SIGN_IN_REDIRECT_URI": good})
    assert settings.sign_in_providers == ("keycloak",)
    assert load(WebSettings, {}).sign_in_providers == ()  # guests only: nothing needed


def test_routes_send_a_package_or_service_elsewhere() -> None:
    routes = parse_routes(
        ("parlor.upwords.v1=upwords:50051", " parlor.identity.v1.IdentityService = mm:50051 ")
    )
    channels = Channels("default:50051", routes)
    assert channels.target("parlor.upwords.v1.UpwordsService") == "upwords:50051"
    assert channels.target("parlor.identity.v1.IdentityService") == "mm:50051"
    assert channels.target("parlor.upwords.v10.UpwordsService") == "default:50051"
    assert channels.target("parlor.connect4x4.v1.Connect4x4Service") == "default:50051"
    with pytest.raises(SettingsError, match="PARLOR_WEB_ROUTES"):
        parse_routes(("upwords:50051",))


class _Failed(grpc.RpcError):
    def __init__(self, status: grpc.Status) -> None:
        self.status = status

    def code(self) -> grpc.StatusCode:
        return self.status.code

    def details(self) -> str:
        return self.status.details

    def trailing_metadata(self) -> tuple[tuple[str, bytes | str], ...]:
        return tuple(self.status.trailing_metadata)


def test_a_status_with_error_info_becomes_http() -> None:
    info = error_details_pb2.ErrorInfo(
        reason="INVALID_WORDS", domain="parlor.dev", metadata={"words": "XQ"}
    )
    detail = any_pb2.Any()
    detail.Pack(info)
    proto = status_pb2.Status(code=9, message="XQ is not a word", details=[detail])
    error = from_rpc_error(_Failed(rpc_status.to_status(proto)))
    assert error.http_status == 400
    body = error.body()
    assert body["code"] == 9
    assert body["status"] == "FAILED_PRECONDITION"
    assert body["message"] == "XQ is not a word"
    assert body["reason"] == "INVALID_WORDS"
    assert body["metadata"] == {"words": "XQ"}
    assert body["details"][0]["@type"].endswith("google.rpc.ErrorInfo")


def test_an_error_no_parlor_service_sent_says_nothing_of_the_inside() -> None:
    """An error without Parlor's ErrorInfo was made by gRPC (the bridge's channel, or gRPC's
    own refusals) or is a service's unforeseen failure: its words are the bridge's, with a
    reason; an incident id is kept, so a player can quote it."""
    said = "failed to connect to all addresses; last error: UNKNOWN: ipv4:10.2.0.7:50051"
    down = from_rpc_error(_Failed(_status(grpc.StatusCode.UNAVAILABLE, said)))
    assert down.http_status == 503
    assert down.body()["status"] == "UNAVAILABLE"
    assert down.body()["reason"] == "SERVICE_UNAVAILABLE"
    assert "10.2.0.7" not in json.dumps(down.body())
    slow = from_rpc_error(_Failed(_status(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")))
    assert (slow.http_status, slow.reason) == (504, "SERVICE_TIMEOUT")
    large = "Received message larger than max (5000000 vs. 4194304)"
    too_large = from_rpc_error(_Failed(_status(grpc.StatusCode.RESOURCE_EXHAUSTED, large)))
    assert too_large.reason == "MESSAGE_TOO_LARGE"
    assert "4194304" not in too_large.message
    failed = from_rpc_error(
        _Failed(_status(grpc.StatusCode.INTERNAL, "internal error (incident 0123456789ab)"))
    )
    assert failed.http_status == 500
    assert failed.reason == "INTERNAL_ERROR"
    assert failed.metadata == {"incident": "0123456789ab"}
    assert "0123456789ab" in failed.message
    leaked = from_rpc_error(_Failed(_status(grpc.StatusCode.UNKNOWN, "Unexpected <class 'psycopg")))
    assert "psycopg" not in json.dumps(leaked.body())


def _status(code: grpc.StatusCode, details: str) -> grpc.Status:
    return rpc_status.to_status(status_pb2.Status(code=code.value[0], message=details))


def test_every_grpc_code_has_an_http_status() -> None:
    assert set(HTTP_STATUS) == set(grpc.StatusCode)
    assert HTTP_STATUS[grpc.StatusCode.UNAUTHENTICATED] == 401
    assert HTTP_STATUS[grpc.StatusCode.PERMISSION_DENIED] == 403
    assert HTTP_STATUS[grpc.StatusCode.UNAVAILABLE] == 503


def _request(headers: dict[str, str], client: str | None, body: bytes = b"") -> Any:
    from starlette.requests import Request

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/x/y",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": (client, 40000) if client else None,
    }
    return Request(scope, receive)


def test_the_bridge_tells_the_services_who_its_caller_is() -> None:
    from parlor.kit.ratelimit import RateLimitSettings, client_address
    from parlor.webgateway.app import _metadata

    alone = RateLimitSettings()  # nothing in front of the bridge is trusted
    forged = {"authorization": "Bearer t", "x-forwarded-for": "6.6.6.6"}
    assert _metadata(_request(forged, "203.0.113.9"), alone) == (
        ("authorization", "Bearer t"),
        ("x-forwarded-for", "203.0.113.9"),  # the browser's claim is dropped
    )
    behind = RateLimitSettings(
        client_address_header="x-forwarded-for", trusted_proxies=("10.1.0.0/16",)
    )
    via_gateway = _metadata(_request({"x-forwarded-for": "203.0.113.9"}, "10.1.0.5"), behind)
    assert via_gateway == (("x-forwarded-for", "203.0.113.9, 10.1.0.5"),)
    # a service that trusts the gateway's and the web pods' network finds the browser
    services = RateLimitSettings(
        client_address_header="x-forwarded-for", trusted_proxies=("10.1.0.0/16", "10.2.0.0/16")
    )
    assert client_address("ipv4:10.2.0.7:5000", via_gateway, services) == "203.0.113.9"
    direct = _metadata(_request({"x-forwarded-for": "6.6.6.6"}, "198.51.100.4"), behind)
    assert client_address("ipv4:10.2.0.7:5000", direct, services) == "198.51.100.4"
    assert _metadata(_request({}, None), alone) == ()  # no address known: nothing claimed


def test_the_services_key_the_bridges_ipv6_callers_by_their_64() -> None:
    """The bridge passes each browser's address on as it came; the services key it as every
    per-address limit does: IPv6 by its /64 (one customer's), a dual-stack socket's
    IPv4-mapped address (the bridge bound to ::) as the IPv4 one, which a trusted gateway's
    is believed as."""
    from parlor.kit.ratelimit import RateLimitSettings, client_address
    from parlor.webgateway.app import _metadata

    services = RateLimitSettings(
        client_address_header="x-forwarded-for", trusted_proxies=("10.1.0.0/16", "10.2.0.0/16")
    )
    keys = {
        client_address("ipv4:10.2.0.7:5000", _metadata(_request({}, browser), services), services)
        for browser in ("2001:db8:7:1::1", "2001:db8:7:1:ffff:ffff:ffff:ffff")
    }
    assert keys == {"2001:db8:7:1::/64"}
    via_gateway = _metadata(
        _request({"x-forwarded-for": "203.0.113.9"}, "::ffff:10.1.0.5"), services
    )
    assert client_address("ipv4:10.2.0.7:5000", via_gateway, services) == "203.0.113.9"
    mapped = _metadata(_request({}, "::ffff:198.51.100.4"), services)
    assert client_address("ipv4:10.2.0.7:5000", mapped, services) == "198.51.100.4"


def test_what_the_bridge_passes_on_is_what_grpc_metadata_can_carry() -> None:
    """A metadata value gRPC refuses (anything but printable ASCII) makes a call that never
    ends: a trusted proxy's hops are passed on only as printable ASCII, and a token that is
    not is refused (an HTTP header may hold tabs and bytes over 0x7E)."""
    from parlor.kit.ratelimit import RateLimitSettings, client_address
    from parlor.webgateway.app import _metadata
    from parlor.webgateway.errors import BridgeError

    behind = RateLimitSettings(
        client_address_header="x-forwarded-for", trusted_proxies=("10.1.0.0/16",)
    )
    hops = {"x-forwarded-for": "6.6\t.6.6, caf\u00e9, 203.0.113.9"}
    passed = dict(_metadata(_request(hops, "10.1.0.5"), behind))["x-forwarded-for"]
    assert all(" " <= c <= "~" for c in passed), passed
    assert passed.endswith("203.0.113.9, 10.1.0.5")
    assert (
        client_address("ipv4:10.1.0.9:5000", [("x-forwarded-for", passed)], behind) == "203.0.113.9"
    )
    for token in ("Bearer a\tb", "Bearer t\u00e9", "Bearer " + "t" * 9000):
        with pytest.raises(BridgeError) as caught:
            _metadata(_request({"authorization": token}, "203.0.113.9"), behind)
        assert caught.value.http_status == 401
        assert caught.value.body()["reason"] == "TOKEN_INVALID"


@pytest.mark.parametrize(
    "body",
    [
        b'{"' + b"A" * 100_000 + b'": 1}',
        b'{"displayName":' + b"[" * 200_000 + b"]" * 200_000 + b"}",  # past json's recursion
        b'{"displayName":' + b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"}",
        b"null",
        b'{"displayName": "\\ud800"}',
    ],
)
def test_bad_json_is_answered_without_echoing_much_of_the_body(body: bytes) -> None:
    import asyncio

    from parlor.webgateway.app import _parse
    from parlor.webgateway.errors import BridgeError

    method = catalog()["parlor.identity.v1.IdentityService/IssueGuestToken"]
    with pytest.raises(BridgeError) as caught:
        asyncio.run(_parse(_request({}, "203.0.113.9", body), method, 1024 * 1024))
    assert caught.value.http_status == 400
    assert caught.value.body()["reason"] == "BAD_JSON"
    assert len(caught.value.body()["message"]) < 200


@pytest.mark.parametrize(
    ("method", "body", "field", "reason"),
    [
        (
            "connect4x4.v1.Connect4x4Service/CreateGame",
            {"seats": [{}] * 200_000},
            "seats",
            "TOO_MANY_ITEMS",
        ),
        (
            "dictionary.v1.DictionaryService/CheckWords",
            {"words": ["a"] * 200_000},
            "words",
            "BATCH_TOO_LARGE",
        ),
        (
            "connect4x4.v1.Connect4x4Service/GetGame",
            {"gameId": "g" * 900_000},
            "game_id",
            "INVALID_GAME_ID",
        ),
        (
            "connect4x4.v1.Connect4x4Service/CreateGame",
            {"seats": [{"display_name": "n" * 900_000}]},
            "seats[0].display_name",
            "FIELD_TOO_LONG",
        ),
        (
            "dictionary.v1.DictionaryService/FindAnagrams",
            {"tiles": ["a"] * 100_000},
            "tiles",
            "TOO_MANY_TILES",
        ),
    ],
)
def test_a_body_past_its_fields_bounds_is_refused_before_it_is_parsed(
    method: str, body: dict[str, Any], field: str, reason: str
) -> None:
    """json_format builds a message in pure Python, some microseconds an item: under the
    1 MiB limit, 300,000 empty seats held the event loop, every browser's calls and
    streams with it, for seconds before the service refused them. The bridge refuses a
    list, map or string past its field's declared bounds (docs/bounds.md) first, as the
    service would, without building the message."""
    import asyncio
    import time

    from parlor.webgateway.app import _parse
    from parlor.webgateway.errors import BridgeError

    found = catalog()[f"parlor.{method}"]
    started = time.perf_counter()
    with pytest.raises(BridgeError) as caught:
        request = _request({}, "203.0.113.9", json.dumps(body).encode())
        asyncio.run(_parse(request, found, 1024 * 1024))
    assert time.perf_counter() - started < 1.0
    refusal = caught.value.body()
    assert caught.value.http_status == 400
    assert refusal["status"] == "INVALID_ARGUMENT"
    assert refusal["reason"] == reason  # the service's own reason for that field
    assert refusal["metadata"]["field"] == field


@pytest.mark.parametrize("last", ["99999999999999999999999999", "18446744073709551615"])
def test_a_last_event_id_beyond_any_version_is_a_bad_request_not_a_crash(last: str) -> None:
    """A version too large for the request's field was a 500 (a ValueError from protobuf)."""
    from parlor.webgateway.app import _resume
    from parlor.webgateway.errors import BridgeError

    method = catalog()["parlor.connect4x4.v1.Connect4x4Service/WatchGame"]
    with pytest.raises(BridgeError) as caught:
        _resume(_request({"last-event-id": last}, "203.0.113.9"), method, method.request())
    assert caught.value.http_status == 400
    assert caught.value.body()["reason"] == "BAD_LAST_EVENT_ID"


def test_no_page_may_frame_the_client_and_no_api_answer_is_stored(tmp_path: Any) -> None:
    """The client's pages act on a click (drop a checker, resign): another site must not
    frame them under a decoy (CSP frame-ancestors, which default-src does not cover, and
    X-Frame-Options for browsers without it), nor set the page's base URL or send its forms
    elsewhere. An API answer holds a token or a player's own tiles: never kept by a cache."""
    import asyncio

    import httpx

    from parlor.webgateway.app import create_app

    (tmp_path / "index.html").write_text("<!doctype html><title>Parlor</title>")
    app = create_app(catalog(), lambda service: None, tmp_path)  # type: ignore[arg-type,return-value]
    c4 = "/api/parlor.connect4x4.v1.Connect4x4Service"

    async def answers() -> tuple[list[httpx.Response], list[httpx.Response]]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            pages = [await client.get(p) for p in ("/", "/index.html", "/nothing", "/healthz")]
            api = [
                await client.post(f"{c4}/GetGame", content=b"{not json"),
                await client.post(f"{c4}/NoSuchMethod", json={}),
                await client.get("/api/anything"),
                # sign-in's answers, each refused before any call (none is made here)
                await client.get("/auth/providers"),
                await client.get("/auth/sign-in", params={"provider": "none"}),
                await client.get("/auth/callback", params={"state": "s", "code": "c"}),
                await client.post("/auth/session", json={}),
                await client.post("/auth/sign-out", content=b"{}"),
            ]
        return pages, api

    pages, api = asyncio.run(answers())
    for response in pages + api:
        directives = response.headers["content-security-policy"].split(";")
        policy = {d.split()[0]: " ".join(d.split()[1:]) for d in directives}
        assert policy["frame-ancestors"] == "'none'", response.url
        assert policy["base-uri"] == "'none'"
        assert policy["form-action"] == "'self'"
        assert policy["default-src"] == "'self'"
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cross-origin-opener-policy"] == "same-origin"
    for response in api:
        assert response.headers["cache-control"] == "no-store", response.url


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
def test_a_call_that_is_not_json_by_its_content_type_is_refused(content_type: str | None) -> None:
    """Any site a player visits can make the browser POST to the bridge cross-site without
    asking first (a "simple" request: a form, or fetch with text/plain) and without reading
    the answer: IssueGuestToken needs no token, so every visitor of a busy page minted guests
    from their own address and drained the bucket all tokenless calls share. A JSON call
    needs a preflight the bridge never grants (it answers no CORS), so only JSON is taken."""
    import asyncio

    import httpx

    from parlor.webgateway.app import create_app

    app = create_app(catalog(), lambda service: None, None)  # type: ignore[arg-type,return-value]
    guest = "/api/parlor.identity.v1.IdentityService/IssueGuestToken"

    async def post(kind: str | None) -> httpx.Response:
        headers = {"origin": "https://elsewhere.example"}
        if kind is not None:
            headers["content-type"] = kind
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            return await client.post(guest, content=b"{not json", headers=headers)

    refused = asyncio.run(post(content_type))
    assert refused.status_code == 415
    assert refused.json()["status"] == "INVALID_ARGUMENT"
    assert refused.json()["reason"] == "NOT_JSON"
    assert "application/json" in refused.json()["message"]
    for kind in ("application/json", "Application/JSON; charset=utf-8"):
        assert asyncio.run(post(kind)).json()["reason"] == "BAD_JSON"  # past the check


NOT_HOSTS = ("[::1", "[fe80::zz]:80", "localhost:8080@attacker.example", "")


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("localhost:8080", True),  # make run
        ("LOCALHOST.:8080", True),
        ("parlor.localhost", True),  # *.localhost resolves to loopback, never by DNS
        ("127.0.0.1:8080", True),
        ("[::1]:8080", True),
        ("10.244.3.17:8080", True),  # a kubelet's probe: the pod's IP
        ("192.168.1.20:8080", True),  # the developer's machine from their phone
        ("play.parlor.example.com", True),  # PARLOR_WEB_ALLOWED_HOSTS below
        ("Play.Parlor.Example.Com.:443", True),
        ("example.org", True),
        ("tables.example.org", True),
        ("rebind.attacker.example:8080", False),  # resolved to 127.0.0.1 by its owner
        ("localhost.attacker.example", False),
        ("parlor.example.com", False),
        ("example.org.attacker.example", False),
        ("notexample.org", False),
        *((host, False) for host in NOT_HOSTS),
    ],
)
def test_only_hosts_this_server_is_are_answered(host: str, allowed: bool) -> None:
    from parlor.webgateway.app import host_allowed

    assert host_allowed(host, ("play.parlor.example.com", ".example.org")) is allowed
    # "*": any host at all, but never one that is not a host
    assert host_allowed(host, ("*",)) is (host not in NOT_HOSTS)


def test_a_request_for_another_host_is_refused_dns_rebinding() -> None:
    """A page on attacker.example resolves its own name to 127.0.0.1: its scripts then call
    the bridge of a developer's `make run` as same-origin (mint guest tokens, play, read the
    answers). Their requests name attacker.example as the Host, and are refused, with the
    setting to change; the page, /healthz and the API alike."""
    import asyncio

    import httpx

    from parlor.webgateway.app import create_app

    app = create_app(catalog(), lambda service: None, None)  # type: ignore[arg-type,return-value]
    guest = "/api/parlor.identity.v1.IdentityService/IssueGuestToken"

    async def ask(host: str) -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=f"http://{host}") as client:
            return [
                await client.post(guest, content=b"{not json", headers={"content-type": "x"}),
                await client.get("/"),
                await client.get("/healthz"),
            ]

    for refused in asyncio.run(ask("rebind.attacker.example:8080")):
        assert refused.status_code == 403
        assert refused.json()["status"] == "PERMISSION_DENIED"
        assert refused.json()["reason"] == "HOST_NOT_ALLOWED"
        assert "PARLOR_WEB_ALLOWED_HOSTS" in refused.json()["message"]
        assert "rebind.attacker.example" in refused.json()["message"]
        assert refused.headers["x-frame-options"] == "DENY"
    for host in ("localhost:8080", "127.0.0.1:8080", "[::1]:8080"):
        call, page, health = asyncio.run(ask(host))
        assert call.json()["reason"] == "NOT_JSON"  # past the check
        assert page.status_code == 503  # the page: not built here
        assert health.text == "ok\n"


@pytest.mark.parametrize("entry", ["https://play.example.com", "play.example.com:443", "a b"])
def test_an_allowed_host_that_could_never_match_stops_the_start(entry: str) -> None:
    from parlor.kit.settings import SettingsError, load
    from parlor.webgateway.component import WebSettings

    with pytest.raises(SettingsError, match="PARLOR_WEB_ALLOWED_HOSTS"):
        load(WebSettings, {"PARLOR_WEB_ALLOWED_HOSTS": entry})
    assert load(WebSettings, {"PARLOR_WEB_ALLOWED_HOSTS": "play.example.com, .example.org, *"})


def test_sign_in_refuses_what_it_can_without_calling_the_identity_service() -> None:
    """Before any call: a sign-in begun by another site's page, a provider not offered, a
    callback this browser never began, and the session routes without their cookie or JSON."""
    import asyncio

    import httpx

    from parlor.webgateway.app import create_app
    from parlor.webgateway.signin import SignInSettings

    offered = SignInSettings(("keycloak",), "https://play.example.com/auth/callback")

    def no_calls(service: str) -> Any:
        raise AssertionError(f"called {service}")

    app = create_app(catalog(), no_calls, None, sign_in=offered)

    async def ask() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            begin = "/auth/sign-in?provider=keycloak"
            return [
                await client.get(begin, headers={"sec-fetch-site": "cross-site"}),
                await client.get("/auth/sign-in?provider=github"),
                await client.get("/auth/callback?state=s&code=c"),
                await client.get(
                    "/auth/callback?state=s&code=c", headers={"cookie": "parlor-sign-in=t"}
                ),
                await client.get("/auth/callback?error=access_denied&error_description=no"),
                await client.post("/auth/session", json={}),
                await client.post("/auth/session", content=b"{}"),
                await client.post("/auth/sign-out", json={}),
                await client.get("/auth/providers"),
                # built-in accounts, not offered here: refused before the service is asked
                await client.post("/auth/password", json={"handle": "ada", "password": WRONG}),
            ]

    (elsewhere, unknown, not_begun, mismatch, denied, no_session, form, out, offer, password) = (
        asyncio.run(ask())
    )
    reasons = [
        r.text.split('data-reason="')[1].split('"')[0]
        for r in (elsewhere, unknown, not_begun, mismatch, denied)
    ]
    assert reasons == [
        "SIGN_IN_FROM_ELSEWHERE",
        "UNKNOWN_PROVIDER",
        "SIGN_IN_NOT_STARTED",
        "STATE_MISMATCH",
        "PROVIDER_REFUSED",
    ]
    assert [elsewhere.status_code, unknown.status_code, not_begun.status_code] == [403, 404, 401]
    assert "max-age=0" in mismatch.headers["set-cookie"].lower()  # the state is spent
    assert (no_session.status_code, no_session.json()["reason"]) == (401, "NOT_SIGNED_IN")
    assert (form.status_code, form.json()["reason"]) == (415, "NOT_JSON")
    assert out.status_code == 200  # nothing to end: the cookie is cleared all the same
    assert offer.json() == {"providers": ["keycloak"], "passwords": False}
    assert (password.status_code, password.json()["reason"]) == (412, "PASSWORD_ACCOUNTS_DISABLED")
