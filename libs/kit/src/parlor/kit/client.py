"""Client channels for calling Parlor services: the caller's token on every call, and retries.

Used by services calling each other (a game service asking the dictionary), by the web
bridge, and by tests and benchmarks. Transient ``UNAVAILABLE`` failures are retried by
gRPC itself (service config), so a restarting dependency is ridden out; keepalive pings
(``parlor.kit.keepalive``) end the calls to a peer that died without closing the
connection, which nothing else would.

Calls are balanced per call over every address the target resolves to (``round_robin``):
gRPC keeps one HTTP/2 connection open, so with its default (``pick_first``) a client sends
every call to the one server its connection reached. A target naming every server (a
headless Service, ``dns:///dictionary-pods:50051``) then spreads the calls over all of them;
a target with one address (a ClusterIP Service, ``make run``'s own port) is one connection,
as before. New servers are found when the target is resolved again, which a connection's
end brings about: a server with ``PARLOR_GRPC_MAX_CONNECTION_AGE_SECONDS`` ends its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import grpc

from parlor.kit import metrics, tracing
from parlor.kit.keepalive import KeepaliveSettings
from parlor.kit.settings import load

SERVICE_CONFIG = {
    # every address of the target, a call each in turn (gRPC's default, pick_first, sends
    # every call to the first address that answers)
    "loadBalancingConfig": [{"round_robin": {}}],
    "methodConfig": [
        {
            "name": [{}],
            "retryPolicy": {
                "maxAttempts": 5,
                "initialBackoff": "0.1s",
                "maxBackoff": "2s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        }
    ],
}


def _with_token(details: Any, token: str) -> Any:
    metadata: Any = [*(details.metadata or ()), ("authorization", f"Bearer {token}")]
    return grpc.aio.ClientCallDetails(
        details.method, details.timeout, metadata, details.credentials, details.wait_for_ready
    )


# grpc.aio files an interceptor under the first kind it is, so one class per kind.
class _UnaryToken(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, token: Callable[[], str]) -> None:
        self.token = token

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_token(details, self.token()), request)


class _StreamToken(grpc.aio.UnaryStreamClientInterceptor):
    def __init__(self, token: Callable[[], str]) -> None:
        self.token = token

    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_token(details, self.token()), request)


def channel(
    target: str,
    token: str | Callable[[], str] | None = None,
    keepalive: KeepaliveSettings | None = None,
) -> grpc.aio.Channel:
    """An insecure aio channel to ``target`` that sends ``token`` (a value or a getter).

    ``keepalive``: how its connections are pinged (default: ``PARLOR_GRPC_KEEPALIVE_*``).
    """
    keepalive = keepalive or load(KeepaliveSettings)
    interceptors: list[Any] = [*tracing.client_interceptors(), *metrics.client_interceptors()]
    if token is not None:
        getter = token if callable(token) else (lambda: token)
        interceptors += [_UnaryToken(getter), _StreamToken(getter)]
    return grpc.aio.insecure_channel(
        target,
        interceptors=interceptors,
        options=[
            ("grpc.service_config", json.dumps(SERVICE_CONFIG)),
            ("grpc.enable_retries", 1),
            # a connection of its own (round_robin: one per address): channels of one process
            # to a server run by several workers are spread over them (a shared one would pin
            # them all to one worker)
            ("grpc.use_local_subchannel_pool", 1),
            *keepalive.channel_options(),
        ],
    )
