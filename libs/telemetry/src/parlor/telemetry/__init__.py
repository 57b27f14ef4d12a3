"""Parlor's tracing switch, and the W3C trace context that events and messages carry.

Libraries trace through OpenTelemetry's API only. Nothing records until a tracer provider
is installed here (``parlor.kit.tracing.configure`` does it from the ``OTEL_*`` variables);
until then every helper costs one check and creates nothing, and no trace context is
stamped on events or sent on NATS. Tests install a provider with an in-memory exporter
and uninstall it again, which OpenTelemetry's own global provider (settable once per
process) would not allow.

A trace context travels as the two W3C Trace Context fields, ``traceparent`` and
``tracestate``: in an event's metadata (``Metadata.extra``, stored with the event) and in
NATS message headers, so a consumer in another service, replica or language continues the
trace of whatever appended the event.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, Span, SpanKind, Tracer, TracerProvider
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

__all__ = [
    "TRACEPARENT",
    "TRACESTATE",
    "SpanKind",
    "carrier",
    "context_of",
    "enabled",
    "install",
    "provider",
    "span",
    "traced",
    "uninstall",
]

TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"
FIELDS = (TRACEPARENT, TRACESTATE)

_PROPAGATOR = TraceContextTextMapPropagator()
_provider: TracerProvider | None = None
_tracers: dict[str, Tracer] = {}

P = ParamSpec("P")
R = TypeVar("R")


def install(tracer_provider: TracerProvider) -> None:
    """Start tracing: every span from now on goes to ``tracer_provider``."""
    global _provider
    _provider = tracer_provider
    _tracers.clear()


def uninstall() -> None:
    """Stop tracing (tests; a process normally keeps its provider for life)."""
    global _provider
    _provider = None
    _tracers.clear()


def enabled() -> bool:
    return _provider is not None


def provider() -> TracerProvider | None:
    return _provider


def _tracer(name: str) -> Tracer:
    tracer = _tracers.get(name)
    if tracer is None:
        assert _provider is not None
        tracer = _tracers[name] = _provider.get_tracer(name)
    return tracer


def carrier() -> dict[str, str]:
    """The current span's trace context as W3C fields; empty when nothing is recording."""
    if _provider is None:
        return {}
    fields: dict[str, str] = {}
    _PROPAGATOR.inject(fields)
    return fields


def context_of(fields: Mapping[str, str]) -> otel_context.Context | None:
    """The trace context carried in ``fields`` (metadata or headers), or None."""
    if _provider is None or TRACEPARENT not in fields:
        return None
    return _PROPAGATOR.extract({k: fields[k] for k in FIELDS if k in fields})


@contextlib.contextmanager
def span(
    name: str,
    *,
    tracer: str = "parlor",
    kind: SpanKind = SpanKind.INTERNAL,
    parent: Mapping[str, str] | None = None,
    link_current: bool = False,
    attributes: Mapping[str, str | int | bool] | None = None,
) -> Iterator[Span | None]:
    """A span, current inside the block; None (and nothing recorded) when tracing is off.

    ``parent`` continues the trace carried in those W3C fields instead of the current one;
    ``link_current`` then links the span to the one it interrupts, so both traces lead to
    each other (a player's call joining the game's trace, say).
    """
    if _provider is None:
        yield None
        return
    context = context_of(parent) if parent else None
    links: Sequence[Link] = ()
    if context is not None and link_current:
        current = trace.get_current_span().get_span_context()
        if current.is_valid:
            links = (Link(current),)
    with _tracer(tracer).start_as_current_span(
        name, context=context, kind=kind, links=links, attributes=attributes
    ) as current_span:
        yield current_span


def traced(
    name: str, *, tracer: str = "parlor", kind: SpanKind = SpanKind.INTERNAL
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Decorate a coroutine function: its calls are spans named ``name`` when tracing is on."""

    def decorate(function: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(function)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            if _provider is None:
                return await function(*args, **kwargs)
            with span(name, tracer=tracer, kind=kind):
                return await function(*args, **kwargs)

        return wrapper

    return decorate


def set_attributes(**attributes: Any) -> None:
    """Add attributes to the current span (nothing when tracing is off)."""
    if _provider is None:
        return
    current = trace.get_current_span()
    for key, value in attributes.items():
        if value is not None:
            current.set_attribute(key, value)
