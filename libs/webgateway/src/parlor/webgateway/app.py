"""The bridge as an ASGI app: JSON and Server-Sent Events in, gRPC out, for every RPC.

``POST /api/<package.Service>/<Method>`` with a JSON body (the proto3 JSON mapping of the
request) calls the method on the service's gRPC server with the caller's
``Authorization`` header as it came and the caller's address in ``x-forwarded-for`` (after
the hops a trusted proxy in front of the bridge named; see ``parlor.kit.ratelimit``), so the
services limit each browser by its own address, not the bridge's, and answers:

- unary methods: the response as JSON (200), or the error (see ``errors``);
- server-streaming methods: ``text/event-stream``; each response is a ``message`` event
  whose ``id`` is the stream version it is of, an ``end`` event when the stream is over,
  an ``error`` event carrying the error. A client that reconnects sends
  ``Last-Event-ID``, and the stream resumes after that version.

Nothing is decided here: every check stays with the services, and what a caller receives is
exactly what the gRPC API sends that caller. The bridge refuses only what it cannot carry
or was not asked for, among them a request for a host it is not (``AllowedHosts``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as Message_

from parlor.core.errors import InvalidArgument
from parlor.kit import bounds
from parlor.kit.auth import MAX_TOKEN_BYTES
from parlor.kit.bounds import JSON_SAFE
from parlor.kit.ratelimit import RateLimitSettings, forwarded_for, metadata_safe
from parlor.webgateway.catalog import RESUME_FIELDS, Method, version_of
from parlor.webgateway.errors import BridgeError, from_rpc_error
from parlor.webgateway.signin import SignIn, SignInSettings

log = logging.getLogger("parlor.webgateway")

UNARY_TIMEOUT_SECONDS = 30.0
KEEPALIVE_SECONDS = 15.0
# Headers passed to the services as gRPC metadata; nothing else a browser sends is.
FORWARDED_HEADERS = ("authorization",)
MAX_AUTHORIZATION_CHARS = len("Bearer ") + MAX_TOKEN_BYTES  # no token Parlor issues is longer
CLIENT_HEADER = "x-forwarded-for"  # set by the bridge itself, from the caller's address
JSON_ERROR_CHARS = 100  # a parse error may quote the body: never echo more than this
MAX_VERSION_DIGITS = len(str(JSON_SAFE))  # a stream version is at most JSON_SAFE
NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>Parlor</title>
<p>The web client is not built. Run <code>make install</code> (it needs Node.js and npm),
then start the platform again. The JSON API is served under <code>/api/</code>.</p>"""
# On every answer. The page loads nothing from elsewhere; no other site may frame it (a
# page acts on a click: drop a checker, resign) nor, through it, set its base URL or send
# its forms elsewhere (frame-ancestors, base-uri and form-action fall back to nothing, not
# to default-src); X-Frame-Options for browsers without frame-ancestors.
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none';"
        " base-uri 'none'; form-action 'self'"
    ),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
}
# On every answer under /api/ and /auth/ that does not say otherwise: it holds a token or
# what only its caller may see (a rack, a hand), so no cache keeps it.
API_CACHE_CONTROL = "no-store"
# Hosts always answered (beside any IP address): names only this machine resolves, which
# no other site's DNS can point at it (RFC 6761; browsers resolve *.localhost to loopback).
LOCAL_HOSTS = ("localhost", ".localhost")
# A Host header: a name or a bracketed IPv6 address, and a port (lower-cased first).
_HOST = re.compile(r"(?P<name>[a-z0-9_.-]+|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?")
SHOWN_HOST_CHARS = 100  # the refusal names the host: never more of it than this

Channels = Callable[[str], grpc.aio.Channel]


def to_json(message: Message) -> str:
    """The proto3 JSON mapping of a message, compact."""
    return json.dumps(json_format.MessageToDict(message), separators=(",", ":"))


def _metadata(request: Request, proxies: RateLimitSettings) -> tuple[tuple[str, str], ...]:
    """What the services are told: the caller's token as it came, and its address.

    gRPC metadata is printable ASCII, and a call given anything else never ends (it held the
    request, its connection and an uncounted stream until the bridge stopped): a token that
    is not, or longer than any token can be, is refused here as the services would.
    """
    passed = tuple((h, request.headers[h]) for h in FORWARDED_HEADERS if h in request.headers)
    for _, value in passed:
        if not metadata_safe(value) or len(value) > MAX_AUTHORIZATION_CHARS:
            raise BridgeError(
                401,
                "UNAUTHENTICATED",
                "TOKEN_INVALID",
                "the authorization header must be 'Bearer <token>', a token Parlor issued",
            )
    header = proxies.client_address_header.lower() or CLIENT_HEADER
    incoming = request.headers.get(header) if proxies.client_address_header else None
    client = forwarded_for(request.client.host if request.client else None, incoming, proxies)
    return (*passed, (header, client)) if client else passed


def _json_only(request: Request) -> None:
    """Take only a JSON call: a browser asks first (a CORS preflight, never granted here)
    before it sends one cross-site, but sends a form or text/plain from any site unasked,
    which would let every visitor of another site call the tokenless methods for it."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise BridgeError(
            415,
            "INVALID_ARGUMENT",
            "NOT_JSON",
            "send the request as JSON, with content-type: application/json",
        )


async def _read(request: Request, max_bytes: int, seconds: float) -> bytes:
    """The body, read no further than the limit and for no longer than ``seconds``."""
    body = bytearray()
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                body += chunk
                if len(body) > max_bytes:
                    raise BridgeError(
                        413, "INVALID_ARGUMENT", "REQUEST_TOO_LARGE", "the request is too large"
                    )
    except TimeoutError:
        raise BridgeError(
            408,
            "DEADLINE_EXCEEDED",
            "REQUEST_TIMEOUT",
            f"the request's body did not arrive within {seconds:g} s",
        ) from None
    return bytes(body)


async def _parse(
    request: Request, method: Method, max_bytes: int, seconds: float = 10.0
) -> Message:
    body = await _read(request, max_bytes, seconds)
    try:  # json_format builds the message in pure Python: nothing too long gets that far
        bounds.check_json(json.loads(body or b"{}"), method.request_type)
    except (ValueError, RecursionError):
        pass  # not JSON: json_format says why below
    except InvalidArgument as refusal:
        raise BridgeError(
            400, "INVALID_ARGUMENT", refusal.reason, refusal.message, refusal.metadata
        ) from refusal
    message = method.request()
    try:
        json_format.Parse(body or b"{}", message)
    except (json_format.ParseError, UnicodeDecodeError) as exc:
        problem = str(exc)
        if len(problem) > JSON_ERROR_CHARS:
            problem = problem[:JSON_ERROR_CHARS] + "..."
        raise BridgeError(
            400, "INVALID_ARGUMENT", "BAD_JSON", f"bad request JSON: {problem}"
        ) from exc
    return message


def _resume(request: Request, method: Method, message: Message) -> None:
    """Continue after the version in Last-Event-ID, when the method can be resumed."""
    last = request.headers.get("last-event-id", "").strip()
    if not last or method.resume_field is None:
        return
    # ASCII digits only ("²".isdigit() holds), and no more than a version can be: a number
    # too large for the field was a ValueError from protobuf, answered 500
    if not (last.isascii() and last.isdigit()) or len(last) > MAX_VERSION_DIGITS:
        raise BridgeError(400, "INVALID_ARGUMENT", "BAD_LAST_EVENT_ID", "Last-Event-ID: a version")
    resumed = int(last) + RESUME_FIELDS[method.resume_field]
    if resumed > JSON_SAFE:
        raise BridgeError(400, "INVALID_ARGUMENT", "BAD_LAST_EVENT_ID", "Last-Event-ID: a version")
    setattr(message, method.resume_field, resumed)


def _sse(event: str, data: str, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n".encode()


class Bridge:
    """Forwards calls for the methods of a catalog to the channel of each one's service."""

    def __init__(
        self,
        methods: Mapping[str, Method],
        channels: Channels,
        max_bytes: int,
        proxies: RateLimitSettings | None = None,
        request_seconds: float = 10.0,
    ) -> None:
        self.methods = methods
        self.channels = channels
        self.max_bytes = max_bytes
        self.proxies = proxies or RateLimitSettings()
        self.request_seconds = request_seconds

    def _method(self, request: Request) -> Method:
        key = f"{request.path_params['service']}/{request.path_params['method']}"
        method = self.methods.get(key)
        if method is None:
            raise BridgeError(404, "UNIMPLEMENTED", "UNKNOWN_METHOD", f"no method {key}")
        return method

    async def call(self, request: Request) -> Response:
        try:
            method = self._method(request)
            _json_only(request)
            message = await _parse(request, method, self.max_bytes, self.request_seconds)
            if method.server_streaming:
                _resume(request, method, message)
                return StreamingResponse(
                    self._stream(method, message, _metadata(request, self.proxies)),
                    media_type="text/event-stream",
                    headers={"cache-control": "no-store", "x-accel-buffering": "no"},
                )
            channel = self.channels(method.service)
            call = channel.unary_unary(
                method.path,
                request_serializer=method.request.SerializeToString,
                response_deserializer=method.response.FromString,
            )
            response = await call(
                message, metadata=_metadata(request, self.proxies), timeout=UNARY_TIMEOUT_SECONDS
            )
        except BridgeError as exc:
            return JSONResponse(exc.body(), status_code=exc.http_status)
        except grpc.RpcError as exc:
            error = from_rpc_error(exc)
            return JSONResponse(error.body(), status_code=error.http_status)
        return Response(to_json(response), media_type="application/json")

    async def _stream(
        self, method: Method, message: Message, metadata: tuple[tuple[str, str], ...]
    ) -> AsyncIterator[bytes]:
        channel = self.channels(method.service)
        call = channel.unary_stream(
            method.path,
            request_serializer=method.request.SerializeToString,
            response_deserializer=method.response.FromString,
        )(message, metadata=metadata)
        read: asyncio.Future[Any] | None = None
        try:
            yield b": stream open\n\n"  # headers and a first byte now, even for a quiet stream
            while True:
                read = asyncio.ensure_future(call.read())
                while not read.done():
                    done, _ = await asyncio.wait({read}, timeout=KEEPALIVE_SECONDS)
                    if not done:
                        yield b": keepalive\n\n"
                item = read.result()
                if item is grpc.aio.EOF:
                    yield _sse("end", "{}")
                    return
                assert isinstance(item, Message)
                yield _sse("message", to_json(item), version_of(item) if method.versioned else None)
        except grpc.RpcError as exc:
            yield _sse("error", json.dumps(from_rpc_error(exc).body()))
        finally:
            call.cancel()
            if read is not None and not read.done():
                read.cancel()


def _static(assets: Path | None) -> list[Route | Mount]:
    if assets is not None and (assets / "index.html").is_file():
        return [Mount("/", StaticFiles(directory=assets, html=True), name="assets")]

    async def not_built(request: Request) -> Response:
        return HTMLResponse(NOT_BUILT, status_code=503)

    return [Route("/", not_built)]


def create_app(
    methods: Mapping[str, Method],
    channels: Channels,
    assets: Path | None,
    max_bytes: int = 1024 * 1024,
    proxies: RateLimitSettings | None = None,
    request_seconds: float = 10.0,
    allowed_hosts: Sequence[str] = (),
    sign_in: SignInSettings | None = None,
) -> Starlette:
    """The ASGI app: the API under /api/, sign-in under /auth/ (``parlor.webgateway.signin``),
    /healthz, and the web client's assets at /.

    ``proxies`` says which proxies in front of the bridge are believed about the caller's
    address (``PARLOR_CLIENT_ADDRESS_HEADER``, ``PARLOR_TRUSTED_PROXIES``); by default none.
    ``request_seconds`` is how long a request's body may take to arrive. ``allowed_hosts``:
    the host names it answers as, beside localhost and IP addresses (``AllowedHosts``).
    """
    bridge = Bridge(methods, channels, max_bytes, proxies, request_seconds)
    accounts = SignIn(
        sign_in or SignInSettings(),
        channels,
        lambda request: _metadata(request, bridge.proxies),
        _json_only,
    )

    async def healthz(request: Request) -> Response:
        return Response("ok\n", media_type="text/plain")

    async def unknown(request: Request) -> Response:
        error = BridgeError(404, "UNIMPLEMENTED", "UNKNOWN_METHOD", "POST /api/<Service>/<Method>")
        return JSONResponse(error.body(), status_code=404)

    return Starlette(
        routes=[
            Route("/api/{service}/{method}", bridge.call, methods=["POST"]),
            Route("/api/{rest:path}", unknown, methods=["GET", "POST"]),
            *accounts.routes(),
            Route("/healthz", healthz),
            *_static(assets),
        ],
        # the refusal of a host gets the security headers too
        middleware=[Middleware(SecurityHeaders), Middleware(AllowedHosts, allowed_hosts)],
    )


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    """Whether a request's ``Host`` header names this server as it may be named: an IP
    address (a probe's pod IP, a LAN address), ``localhost`` or a name under it, or one of
    ``allowed``: a name, ``.example.com`` for it and every name under it, or ``*``."""
    match = _HOST.fullmatch(host.strip().lower())
    if match is None:
        return False
    name = match["name"]
    if name.startswith("["):
        try:
            ipaddress.IPv6Address(name[1:-1])
        except ValueError:
            return False
        return True
    try:
        ipaddress.IPv4Address(name)
        return True
    except ValueError:
        pass
    name = name.removesuffix(".")
    for entry in (*LOCAL_HOSTS, *allowed):
        entry = entry.lower().removesuffix(".")
        if entry == "*" or name == entry:
            return True
        if entry.startswith(".") and (name == entry[1:] or name.endswith(entry)):
            return True
    return False


class AllowedHosts:
    """Refuses a request whose ``Host`` is not one this server is (``host_allowed``).

    DNS rebinding: a page on ``attacker.example`` makes its name resolve to 127.0.0.1 (or a
    LAN address), and its scripts' requests then reach the bridge on the visitor's machine
    as same-origin: they mint guest tokens, create games and read the answers. Such a
    request still names ``attacker.example`` as its Host, which is refused here with 403
    ``HOST_NOT_ALLOWED`` (as Django's ALLOWED_HOSTS and Vite's allowedHosts do). An IP
    address is always taken: a rebound request never has one as its Host.
    """

    def __init__(self, app: ASGIApp, allowed: Sequence[str] = ()) -> None:
        self.app = app
        self.allowed = tuple(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            hosts = [v.decode("latin-1") for k, v in scope["headers"] if k == b"host"]
            refused = next((h for h in hosts if not host_allowed(h, self.allowed)), None)
            if refused is not None:  # (none at all: HTTP/1.0, no browser; nothing to rebind)
                log.info("host not allowed", extra={"host": refused[:SHOWN_HOST_CHARS]})
                error = BridgeError(
                    403,
                    "PERMISSION_DENIED",
                    "HOST_NOT_ALLOWED",
                    f"this server does not answer as host {refused[:SHOWN_HOST_CHARS]!r}: to"
                    " serve the web client under that name, add it to PARLOR_WEB_ALLOWED_HOSTS"
                    " (localhost and IP addresses are always answered)",
                )
                response = JSONResponse(error.body(), status_code=error.http_status)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class SecurityHeaders:
    """Adds SECURITY_HEADERS to every HTTP response, and API_CACHE_CONTROL to the API's."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message_) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                api = scope["path"].startswith(("/api/", "/auth/"))
                if api and not any(k.lower() == b"cache-control" for k, _ in headers):
                    headers.append((b"cache-control", API_CACHE_CONTROL.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
