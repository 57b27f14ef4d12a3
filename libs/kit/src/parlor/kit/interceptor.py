"""The server interceptor every Parlor service runs: errors, metrics, logs, call context.

It wraps each handler once. A ``ParlorError`` becomes its mapped status with
an ErrorInfo reason (see ``status.py``); an unexpected exception becomes
``INTERNAL`` with an incident id, and the traceback goes to the log only.

A token is verified for the component that serves the called method (its audience: one
server may serve many components, the platform all of them): a service token, with the
powers it holds, is taken only by the services it names (``parlor.kit.auth``).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import grpc

from parlor.core.errors import DeadlineExceeded, InvalidArgument, translated
from parlor.core.errors import Unauthenticated as ParlorUnauthenticated
from parlor.kit import auth, bounds, logs, metrics
from parlor.kit.fingerprint import bind_request
from parlor.kit.logs import call_context
from parlor.kit.ratelimit import RateLimiter, client_address
from parlor.kit.status import INCIDENT_MESSAGE, to_status
from parlor.telemetry import logcontext

log = logging.getLogger("parlor.kit.rpc")


def _split(method: str) -> tuple[str, str]:
    _, service, name = method.split("/", 2) if method.count("/") >= 2 else ("", "", method)
    return service, name


async def _abort(context: grpc.aio.ServicerContext[Any, Any], error: BaseException) -> None:
    known = translated(error)
    if known is not None:
        status = to_status(known)
        await context.abort(status.code, status.details, status.trailing_metadata)
    incident = logs.incident(log, "unexpected error in handler", error)
    await context.abort(grpc.StatusCode.INTERNAL, INCIDENT_MESSAGE.format(incident))


class _Method:
    """One method's labelled metrics, looked up once: ``labels()`` takes a lock and builds a
    key on every call, three times per RPC."""

    def __init__(self, method: str) -> None:
        self.service, self.method = _split(method)
        self.rpc = f"{self.service}/{self.method}"
        self.started = metrics.STARTED.labels(self.service, self.method)
        self.seconds = metrics.HANDLING_SECONDS.labels(self.service, self.method)
        self._handled: dict[grpc.StatusCode, Any] = {}

    def handled(self, code: grpc.StatusCode) -> Any:
        counter = self._handled.get(code)
        if counter is None:
            counter = self._handled[code] = metrics.HANDLED.labels(
                self.service, self.method, code.name
            )
        return counter


class _Call:
    """Bookkeeping for one RPC: metrics and the final status code."""

    def __init__(self, method: _Method) -> None:
        self.of = method
        self.started = time.perf_counter()
        self.code = grpc.StatusCode.OK
        method.started.inc()
        self.token = call_context.set({"rpc": method.rpc})

    def fail(self, error: BaseException) -> None:
        known = translated(error)
        if known is not None:
            self.code = grpc.StatusCode[known.code]
        elif isinstance(error, asyncio.CancelledError):
            self.code = grpc.StatusCode.CANCELLED
        elif not isinstance(error, grpc.aio.AbortError):
            self.code = grpc.StatusCode.INTERNAL

    def done(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        code = context.code() if isinstance(context.code(), grpc.StatusCode) else self.code
        if code is None:
            code = self.code
        elapsed = time.perf_counter() - self.started
        self.of.handled(code).inc()
        self.of.seconds.observe(elapsed)
        if code not in (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED):
            log.info("rpc failed", extra={"code": code.name, "ms": round(elapsed * 1000, 2)})
        try:
            call_context.reset(self.token)
        except ValueError:  # a cancelled stream is finalised in another context
            call_context.set(None)


Authenticate = Callable[[grpc.aio.ServicerContext[Any, Any]], "auth.Identity | None"]


class _Malformed:
    """Stands in for a request whose bytes are not a valid message of its type."""

    def __init__(
        self,
        problem: str,
        reason: str = "MALFORMED_REQUEST",
        refusal: InvalidArgument | None = None,
    ) -> None:
        self.problem = problem
        self.reason = reason
        self.refusal = refusal


def _nul_in(message: Any, path: str = "") -> str | None:
    """The first string field holding a NUL character, if any (by its dotted path).

    No id, name, word or notation holds one, and PostgreSQL refuses NUL in text, so a
    NUL is refused here, once for every service, before it can reach a query.
    """
    list_fields = getattr(message, "ListFields", None)
    if list_fields is None:
        return None
    for field, value in list_fields():
        name = f"{path}{field.name}"
        if field.type == field.TYPE_STRING:
            values = value if field.is_repeated else (value,)
            if any("\x00" in v for v in values):
                return name
        elif field.type == field.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                items = [v for kv in value.items() for v in kv]
                if any(isinstance(v, str) and "\x00" in v for v in items):
                    return name
                nested = [v for v in value.values() if not isinstance(v, str)]
            else:
                nested = list(value) if field.is_repeated else [value]
            for item in nested:
                found = _nul_in(item, f"{name}.")
                if found:
                    return found
    return None


def _tolerant(deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """gRPC answers undecodable requests with INTERNAL; we answer INVALID_ARGUMENT instead."""
    if deserialize is None:
        return None

    def parse(data: bytes) -> Any:
        try:
            message = deserialize(data)
        except Exception as exc:  # any decode failure is the client's
            return _Malformed(f"{type(exc).__name__}: {exc}")
        field = _nul_in(message)
        if field is not None:
            return _Malformed(f"{field} holds a NUL character", reason="NUL_CHARACTER")
        try:
            bounds.check(message)
        except InvalidArgument as refusal:  # out of the bounds its protos declare
            return _Malformed(refusal.message, refusal.reason, refusal)
        return message

    return parse


def _check_decoded(request: Any) -> None:
    if isinstance(request, _Malformed):
        if request.refusal is not None:
            raise request.refusal
        if request.reason == "NUL_CHARACTER":
            raise InvalidArgument(
                f"{request.problem}; no field of any request may", reason=request.reason
            )
        raise InvalidArgument(
            "the request is not a valid protobuf message of this method's type"
            f" ({request.problem})",
            reason=request.reason,
        )


def _wrap_unary(
    method: str, inner: Callable[..., Awaitable[Any]], authenticate: Authenticate
) -> Callable[..., Awaitable[Any]]:
    labelled = _Method(method)

    async def handler(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        call = _Call(labelled)
        try:
            _admit(method, request, context, authenticate)
            return await inner(request, context)
        except (grpc.aio.AbortError, asyncio.CancelledError):
            raise
        except Exception as error:
            call.fail(error)
            await _abort(context, error)
        finally:
            call.done(context)

    return handler


def _admit(
    method: str,
    request: Any,
    context: grpc.aio.ServicerContext[Any, Any],
    authenticate: Authenticate,
    *,
    decoded: bool = True,
) -> auth.Identity | None:
    """Who calls, bound for the call (token checked); a decoded request's bounds checked and
    its ids bound for logs and spans (``decoded``: one message, not a stream of them)."""
    identity = authenticate(context)
    auth.bind(identity)
    if decoded:
        _check_decoded(request)
        logcontext.bind_request(request)
        bind_request(method, request)
    return identity


async def _items(stream: AsyncIterator[Any], idle_seconds: float) -> AsyncIterator[Any]:
    """The stream's items; a stream that sends nothing for ``idle_seconds`` is ended."""
    iterator = aiter(stream)
    try:
        while True:
            try:
                async with asyncio.timeout(idle_seconds if idle_seconds > 0 else None):
                    item = await anext(iterator)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise DeadlineExceeded(
                    f"nothing to send for {idle_seconds:g} s: the stream is closed;"
                    " call again (from the last version you saw) to go on watching",
                    reason="STREAM_IDLE",
                ) from None
            yield item
    finally:
        closing = getattr(iterator, "aclose", None)
        if closing is not None:
            await closing()


def _wrap_stream(
    method: str,
    inner: Callable[..., Any],
    authenticate: Authenticate,
    limiter: RateLimiter | None,
    *,
    decoded: bool = True,
) -> Callable[..., Any]:
    """A streaming method's handler: the token checked, the caller's open streams capped.

    ``inner`` yields its items (Parlor's servicers, reflection) or writes them with
    ``context.write`` and returns (grpc_health's ``Watch``); the wrapper takes the same
    shape, since gRPC serves the two differently. ``decoded``: the request is one message
    (server streaming), checked as a unary call's; else an iterator of them.
    """
    labelled = _Method(method)

    def opening(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        """Who calls, checked, and the hold on one of their streams (None: uncapped)."""
        identity = _admit(method, request, context, authenticate, decoded=decoded)
        key = None if limiter is None else _stream_key(identity, context, limiter)
        return None if limiter is None or key is None else limiter.stream(*key)

    if not inspect.isasyncgenfunction(inner):

        async def writer(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            call = _Call(labelled)
            try:
                with opening(request, context) or contextlib.nullcontext():
                    return await inner(request, context)
            except (grpc.aio.AbortError, asyncio.CancelledError):
                raise
            except Exception as error:
                call.fail(error)
                await _abort(context, error)
            finally:
                call.done(context)

        return writer

    async def handler(
        request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        call = _Call(labelled)
        try:
            hold = opening(request, context)
            if hold is None:
                async for item in inner(request, context):
                    yield item
                return
            assert limiter is not None
            with hold:
                async for item in _items(inner(request, context), limiter.idle_seconds):
                    yield item
        except (grpc.aio.AbortError, asyncio.CancelledError):
            raise
        except Exception as error:
            call.fail(error)
            await _abort(context, error)
        finally:
            call.done(context)

    return handler


PUBLIC_PREFIXES = ("/grpc.health.v1.", "/grpc.reflection.")


def _stream_key(
    identity: auth.Identity | None,
    context: grpc.aio.ServicerContext[Any, Any],
    limiter: RateLimiter,
) -> tuple[str, str] | None:
    """Whose stream this is and from which address, for the caps on open streams.

    Trusted services (a service token meant for this component) are not capped.
    """
    if identity is not None and identity.is_service:
        return None
    address = client_address(context.peer(), context.invocation_metadata(), limiter.settings)
    return (f"address:{address}" if identity is None else identity.player_id), address


class ServerInterceptor(grpc.aio.ServerInterceptor):
    """Checks tokens, maps errors to statuses, counts and times every call, sets the log context."""

    def __init__(
        self,
        auth_settings: auth.AuthSettings,
        public_methods: frozenset[str] = frozenset(),
        limiter: RateLimiter | None = None,
        components: Mapping[str, str] | None = None,
    ) -> None:
        """``components``: the component serving each gRPC service (by its full name), the
        audience its methods' tokens are verified for; a service of none takes no service
        token."""
        self.auth_settings = auth_settings
        self.public_methods = public_methods
        self.limiter = limiter
        self.components = dict(components or {})
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    def audience(self, method: str) -> str | None:
        """Whom a token presented to ``method`` must be meant for: its service's component
        (None for the standard health and reflection services, "" for a service of none)."""
        if method.startswith(PUBLIC_PREFIXES):
            return None
        return self.components.get(_split(method)[0], "")

    def _authenticator(self, method: str) -> Authenticate:
        standard = method.startswith(PUBLIC_PREFIXES)  # probes and tooling: never limited
        public = standard or method in self.public_methods
        audience = self.audience(method)

        def authenticate(context: grpc.aio.ServicerContext[Any, Any]) -> auth.Identity | None:
            token = auth.token_from_metadata(context.invocation_metadata())
            if token is None:
                if public:
                    if self.limiter is not None and not standard:
                        metadata = context.invocation_metadata()
                        settings = self.limiter.settings
                        address = client_address(context.peer(), metadata, settings)
                        self.limiter.check_anonymous(address)
                    return None
                raise ParlorUnauthenticated(
                    "this call needs 'authorization: Bearer <token>' metadata",
                    reason="TOKEN_MISSING",
                )
            identity = auth.verify_token(self.auth_settings, token, audience)
            if self.limiter is not None and not identity.is_service and not standard:
                self.limiter.check(identity.player_id)
            return identity

        return authenticate

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method = handler_call_details.method  # type: ignore[attr-defined]
        # gRPC asks for every call: wrap each method's handler once, not once per call
        wrapped = self._wrapped.get(method)
        if wrapped is not None and wrapped[0] is handler:
            return wrapped[1]
        result = self._wrap(method, handler)
        self._wrapped[method] = (handler, result)
        return result

    def _wrap(self, method: str, handler: Any) -> Any:
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                _wrap_unary(method, handler.unary_unary, self._authenticator(method)),
                request_deserializer=_tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(
                _wrap_stream(
                    method, handler.unary_stream, self._authenticator(method), self.limiter
                ),
                request_deserializer=_tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        # Client and bidirectional streams (none in Parlor's APIs; reflection's is one):
        # the token checked and the open streams capped all the same.
        if handler.stream_stream:
            return grpc.stream_stream_rpc_method_handler(
                _wrap_stream(
                    method,
                    handler.stream_stream,
                    self._authenticator(method),
                    self.limiter,
                    decoded=False,
                ),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return grpc.stream_unary_rpc_method_handler(
            _wrap_stream(
                method,
                handler.stream_unary,
                self._authenticator(method),
                self.limiter,
                decoded=False,
            ),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
