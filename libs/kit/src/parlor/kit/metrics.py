"""Prometheus metrics, in the names the go-grpc-prometheus convention made standard."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import grpc
from prometheus_client import Counter, Histogram, start_http_server

from parlor.telemetry.metrics import LATENCY_BUCKETS

STARTED = Counter(
    "grpc_server_started_total", "RPCs started on the server.", ["grpc_service", "grpc_method"]
)
HANDLED = Counter(
    "grpc_server_handled_total",
    "RPCs completed on the server, whatever their status.",
    ["grpc_service", "grpc_method", "grpc_code"],
)
HANDLING_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Time from the start of an RPC to its end on the server.",
    ["grpc_service", "grpc_method"],
    buckets=LATENCY_BUCKETS,
)

CLIENT_HANDLED = Counter(
    "grpc_client_handled_total",
    "Unary RPCs completed by this process as a client (the dictionary, say), by status.",
    ["grpc_service", "grpc_method", "grpc_code"],
)
CLIENT_HANDLING_SECONDS = Histogram(
    "grpc_client_handling_seconds",
    "Time from the start of a unary client RPC to its status (the dictionary's latency as "
    "the word games see it).",
    ["grpc_service", "grpc_method"],
    buckets=LATENCY_BUCKETS,
)


class _ClientMetrics(grpc.aio.UnaryUnaryClientInterceptor):
    """Counts and times every unary call a client channel makes."""

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        started = time.perf_counter()
        call = await continuation(details, request)
        code = await call.code()
        method = details.method.decode() if isinstance(details.method, bytes) else details.method
        _, service, name = method.split("/", 2) if method.count("/") >= 2 else ("", "", method)
        CLIENT_HANDLED.labels(service, name, code.name).inc()
        CLIENT_HANDLING_SECONDS.labels(service, name).observe(time.perf_counter() - started)
        return call


def client_interceptors() -> Sequence[grpc.aio.ClientInterceptor]:
    return (_ClientMetrics(),)


def serve_metrics(host: str, port: int) -> int:
    """Expose /metrics over HTTP; port 0 turns the endpoint off. Returns the port."""
    if port == 0:
        return 0
    server, _thread = start_http_server(port, addr=host)
    return int(server.server_port)
