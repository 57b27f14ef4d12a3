"""Prometheus metrics, in the names the go-grpc-prometheus convention made standard."""

from __future__ import annotations

from prometheus_client import Counter, Histogram, start_http_server

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
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)


def serve_metrics(host: str, port: int) -> int:
    """Expose /metrics over HTTP; port 0 turns the endpoint off. Returns the port."""
    if port == 0:
        return 0
    server, _thread = start_http_server(port, addr=host)
    return int(server.server_port)
