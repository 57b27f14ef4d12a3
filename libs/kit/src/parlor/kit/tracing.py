"""Tracing set up from the standard ``OTEL_*`` variables: off unless one says where to send spans.

``configure`` installs an OpenTelemetry SDK tracer provider in ``parlor.telemetry`` when

- ``OTEL_TRACES_EXPORTER`` names exporters (comma-separated): ``otlp`` (OTLP over gRPC, to
  ``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, default
  ``http://localhost:4317``) and/or ``console`` (one line per span on stdout: what
  ``make run`` uses to show traces with no collector); ``none`` is off; or
- ``OTEL_EXPORTER_OTLP_ENDPOINT`` or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` is set (then
  ``otlp``).

``OTEL_SDK_DISABLED=true`` turns it off whatever else is set. The SDK itself reads the rest:
``OTEL_SERVICE_NAME`` (default ``parlor-<service>``), ``OTEL_RESOURCE_ATTRIBUTES``,
``OTEL_TRACES_SAMPLER``/``OTEL_TRACES_SAMPLER_ARG`` (default: every trace, parent-based),
``OTEL_BSP_*`` (batching) and the OTLP exporter's ``OTEL_EXPORTER_OTLP_*`` (headers,
timeout, certificates). With tracing off nothing of the SDK is imported.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from parlor import telemetry

CONSOLE_FORMAT = "trace {trace} span {span} parent {parent} {ms:9.3f} ms  {name}{attrs}\n"


def exporters(environ: Mapping[str, str]) -> list[str]:
    """The span exporters the variables ask for (empty: tracing off)."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    named = environ.get("OTEL_TRACES_EXPORTER")
    if named is None:
        endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or environ.get(
            "OTEL_EXPORTER_OTLP_ENDPOINT"
        )
        return ["otlp"] if endpoint else []
    chosen = [n.strip().lower() for n in named.split(",") if n.strip()]
    unknown = sorted(set(chosen) - {"otlp", "console", "none"})
    if unknown:
        raise ValueError(
            f"OTEL_TRACES_EXPORTER={named!r}: unknown exporter(s) {unknown};"
            " Parlor ships otlp, console and none"
        )
    return [n for n in chosen if n != "none"]


def _console_line(span: Any) -> str:
    context = span.get_span_context()
    parent = span.parent
    attrs = {k: v for k, v in (span.attributes or {}).items() if k.startswith("parlor.")}
    return CONSOLE_FORMAT.format(
        trace=format(context.trace_id, "032x"),
        span=format(context.span_id, "016x"),
        parent=format(parent.span_id, "016x") if parent is not None else "-" * 16,
        ms=((span.end_time or 0) - (span.start_time or 0)) / 1e6,
        name=span.name,
        attrs="".join(f" {k[7:]}={v}" for k, v in attrs.items()),
    )


def configure(service: str, environ: Mapping[str, str] | None = None) -> bool:
    """Install a tracer provider if the variables ask for one; True if tracing is on."""
    environ = os.environ if environ is None else environ
    chosen = exporters(environ)
    if not chosen:
        return False
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SimpleSpanProcessor,
    )

    attributes = {} if environ.get("OTEL_SERVICE_NAME") else {SERVICE_NAME: f"parlor-{service}"}
    provider = TracerProvider(resource=Resource.create(attributes))
    for name in chosen:
        if name == "console":
            provider.add_span_processor(
                SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stdout, formatter=_console_line))
            )
        else:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    telemetry.install(provider)
    return True


def shutdown() -> None:
    """Flush and stop the installed provider's exporters (at exit)."""
    provider = telemetry.provider()
    stop = getattr(provider, "shutdown", None)
    if callable(stop):
        stop()


def server_interceptors() -> Sequence[Any]:
    """OpenTelemetry's grpc.aio server interceptor (a span per RPC), if tracing is on."""
    provider = telemetry.provider()
    if provider is None:
        return ()
    from opentelemetry.instrumentation.grpc import aio_server_interceptor

    return (aio_server_interceptor(tracer_provider=provider),)  # type: ignore[no-untyped-call]


def client_interceptors() -> Sequence[Any]:
    """OpenTelemetry's grpc.aio client interceptors (a span per call, context sent), if on."""
    provider = telemetry.provider()
    if provider is None:
        return ()
    from opentelemetry.instrumentation.grpc import aio_client_interceptors

    return tuple(aio_client_interceptors(tracer_provider=provider))  # type: ignore[no-untyped-call]
