"""The web client and its bridge as a Parlor component: ``parlor-web``, or part of the platform.

It serves no gRPC service of its own. Its one task runs the ASGI app (uvicorn) on
``PARLOR_WEB_PORT`` and calls the services over gRPC: by default this process's own
gRPC server (``127.0.0.1:PARLOR_GRPC_PORT``, which is what ``make run`` wants), or
``PARLOR_WEB_TARGET``, with ``PARLOR_WEB_ROUTES`` sending some packages or services
elsewhere (on Kubernetes, each to its own Service).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import re
import socket
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import grpc
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from parlor.kit.client import channel as client_channel
from parlor.kit.inprocess import own_target
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import Component, ServerSettings
from parlor.kit.settings import SettingsError, load, setting
from parlor.webgateway.app import create_app
from parlor.webgateway.catalog import catalog
from parlor.webgateway.signin import CALLBACK_PATH, SignInSettings

log = logging.getLogger("parlor.webgateway")

ASSETS = Path(__file__).resolve().parent / "static"


@dataclass(frozen=True)
class WebSettings:
    host: str = setting("PARLOR_WEB_HOST", "address the web client and its bridge bind", "0.0.0.0")
    port: int = setting("PARLOR_WEB_PORT", "HTTP port of the web client (0 picks a free one)", 8080)
    target: str = setting(
        "PARLOR_WEB_TARGET",
        "gRPC address the bridge calls (empty: this process's server, 127.0.0.1:PARLOR_GRPC_PORT)",
        "",
    )
    routes: tuple[str, ...] = setting(
        "PARLOR_WEB_ROUTES",
        "per package or service, where else to call: name=host:port, comma-separated",
        (),
    )
    assets: str = setting(
        "PARLOR_WEB_ASSETS", "folder of the built web client (empty: the packaged build)", ""
    )
    request_seconds: float = setting(
        "PARLOR_WEB_REQUEST_SECONDS",
        "longest a client may take to send a request's headers, and again its body (then the"
        " connection is closed, or 408 REQUEST_TIMEOUT); a stream's answer has no deadline",
        10.0,
    )
    allowed_hosts: tuple[str, ...] = setting(
        "PARLOR_WEB_ALLOWED_HOSTS",
        "host names the web client is served under, comma-separated (.example.com: it and"
        " every name under it; *: any); localhost, *.localhost and IP addresses always are."
        " A request for another host is refused 403 HOST_NOT_ALLOWED (DNS rebinding)",
        (),
    )
    sign_in_providers: tuple[str, ...] = setting(
        "PARLOR_WEB_SIGN_IN_PROVIDERS",
        "OpenID Connect providers the web client offers sign-in with, comma-separated: names"
        " of the identity service's PARLOR_OIDC_PROVIDERS (empty: guests only)",
        (),
    )
    sign_in_redirect_uri: str = setting(
        "PARLOR_WEB_SIGN_IN_REDIRECT_URI",
        "the bridge's sign-in callback as browsers reach it, https://<site>/auth/callback:"
        " registered with each provider and in PARLOR_OIDC_PROVIDERS' redirect_uris",
        "",
    )

    password_accounts: bool = setting(
        "PARLOR_WEB_PASSWORD_ACCOUNTS",
        "offer built-in accounts (a handle and a password, POST /auth/password): set it with"
        " the identity service's PARLOR_PASSWORD_ACCOUNTS",
        False,
    )

    def __post_init__(self) -> None:
        if self.sign_in_providers:
            uri = urlsplit(self.sign_in_redirect_uri)
            if uri.scheme not in ("http", "https") or not uri.netloc or uri.path != CALLBACK_PATH:
                raise SettingsError(
                    "PARLOR_WEB_SIGN_IN_REDIRECT_URI: with PARLOR_WEB_SIGN_IN_PROVIDERS set,"
                    f" the callback's URL, https://<site>{CALLBACK_PATH}; got"
                    f" {self.sign_in_redirect_uri!r}"
                )
        if not 0 < self.request_seconds < float("inf"):  # 0 would refuse every request
            raise SettingsError(
                f"PARLOR_WEB_REQUEST_SECONDS: must be a number of seconds above 0,"
                f" got {self.request_seconds!r}"
            )
        for entry in self.allowed_hosts:  # a URL or a port would never match a Host
            if not _HOST_NAME.fullmatch(entry):
                raise SettingsError(
                    f"PARLOR_WEB_ALLOWED_HOSTS: {entry!r} is not a host name (no scheme, no"
                    " port): e.g. play.example.com, .example.com or *"
                )


_HOST_NAME = re.compile(r"\*|\.?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?")


def parse_routes(routes: tuple[str, ...]) -> dict[str, str]:
    """``parlor.upwords.v1=upwords:50051`` pairs as a dict; a malformed pair is a SettingsError."""
    parsed: dict[str, str] = {}
    for pair in routes:
        name, sep, target = pair.partition("=")
        if not sep or not name.strip() or not target.strip():
            raise SettingsError(f"PARLOR_WEB_ROUTES: expected name=host:port, got {pair!r}")
        parsed[name.strip()] = target.strip()
    return parsed


class Channels:
    """A gRPC channel per target; a service goes to its longest matching route, or the default."""

    def __init__(self, default: str, routes: Mapping[str, str]) -> None:
        self.default = default
        self.routes = dict(routes)
        self._open: dict[str, grpc.aio.Channel] = {}

    def target(self, service: str) -> str:
        matches = [n for n in self.routes if service == n or service.startswith(n + ".")]
        return self.routes[max(matches, key=len)] if matches else self.default

    def __call__(self, service: str) -> grpc.aio.Channel:
        target = self.target(service)
        if target not in self._open:
            self._open[target] = client_channel(target)
        return self._open[target]

    async def close(self) -> None:
        for open_channel in self._open.values():
            await open_channel.close()
        self._open.clear()


class _Connection(H11Protocol):
    """uvicorn's HTTP/1.1 connection with a deadline for each request's headers.

    uvicorn waits for them without end (its keep-alive timer stops at the first byte), so a
    client sending nothing, or a header a minute, held a connection and a socket for ever.
    ``header_seconds`` after the connection opens or an answer ends, a connection with no
    request under way is closed; the body has the app's own deadline (``Bridge``)."""

    header_seconds = 10.0
    _headers_due: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._await_headers()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._headers_due is not None:
            self._headers_due.cancel()
        super().connection_lost(exc)

    def _await_headers(self) -> None:
        if self._headers_due is not None:
            self._headers_due.cancel()
        self._headers_due = self.loop.call_later(self.header_seconds, self._headers_late)

    def _headers_late(self) -> None:
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is under way: its headers came
        if not self.transport.is_closing():
            self.transport.close()


def connection_class(header_seconds: float) -> type[_Connection]:
    """The HTTP connection class uvicorn makes for each client, with that deadline."""
    return type("Connection", (_Connection,), {"header_seconds": header_seconds})


class _Server(uvicorn.Server):
    """uvicorn without its signal handling: the kit's server owns SIGTERM and SIGINT and
    stops this task on them (uvicorn's own handlers would replace the kit's)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, or a SettingsError saying which setting to change."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise SettingsError(
                f"PARLOR_WEB_PORT: port {port} is in use; choose another (0 picks a free one)"
            ) from exc
        raise
    sock.listen(128)
    sock.setblocking(False)
    return sock


def address(sock: socket.socket, host: str) -> str:
    port = sock.getsockname()[1]
    shown = "localhost" if host in ("0.0.0.0", "::", "127.0.0.1", "") else host
    return f"http://{shown}:{port}"


async def serve_http(
    sock: socket.socket,
    channels: Channels,
    assets: Path | None,
    settings: WebSettings | None = None,
) -> None:
    """Run the app on ``sock`` until cancelled, then finish in-flight requests briefly."""
    settings = settings or load(WebSettings)
    app = create_app(
        catalog(),
        channels,
        assets if assets is not None else ASSETS,
        proxies=load(RateLimitSettings),
        request_seconds=settings.request_seconds,
        # the name it binds, if it is one, is the one it prints: answer to it
        allowed_hosts=(*settings.allowed_hosts, settings.host),
        sign_in=SignInSettings(
            settings.sign_in_providers, settings.sign_in_redirect_uri, settings.password_accounts
        ),
    )
    config = uvicorn.Config(  # the bridge reads proxy headers itself, from trusted proxies only
        app,
        http=connection_class(settings.request_seconds),
        log_config=None,
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=3,
        proxy_headers=False,
    )
    server = _Server(config)
    serving = asyncio.ensure_future(server.serve(sockets=[sock]))
    try:
        await asyncio.shield(serving)
    except asyncio.CancelledError:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await serving
        raise
    finally:
        await channels.close()
        sock.close()


@contextlib.asynccontextmanager
async def component() -> AsyncIterator[Component]:
    settings = load(WebSettings)
    server = load(ServerSettings)
    target = settings.target or own_target(server.host, server.port)
    if not settings.target and server.port == 0:
        raise SettingsError("PARLOR_WEB_TARGET: needed when PARLOR_GRPC_PORT is 0")
    channels = Channels(target, parse_routes(settings.routes))
    sock = bind(settings.host, settings.port)
    url = address(sock, settings.host)
    print(f"parlor: web client on {url}", flush=True)
    log.info("web client", extra={"url": url, "target": target})

    async def run() -> None:
        assets = Path(settings.assets) if settings.assets else None
        await serve_http(sock, channels, assets, settings)

    try:
        yield Component(name="web", tasks=[run])
    finally:
        sock.close()


def main(argv: list[str] | None = None) -> int:
    """``parlor-web``: the web client and its bridge alone, with the kit's health and metrics."""
    import argparse

    from parlor.kit.main import run

    # no arguments, but `--help` answers (and anything else is refused) instead of serving
    argparse.ArgumentParser(
        prog="parlor-web",
        description="The web client and its HTTP/JSON bridge to the gRPC services, alone. "
        "Configured by environment: PARLOR_WEB_PORT, PARLOR_WEB_TARGET, PARLOR_WEB_ROUTES, "
        "PARLOR_WEB_ALLOWED_HOSTS and the rest in deploy/README.md.",
    ).parse_args(argv)
    return run("web", [component])
