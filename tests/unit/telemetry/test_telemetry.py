"""The tracing switch, the trace context through store and bus, the log context, the config."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from prometheus_client import REGISTRY

from parlor import telemetry
from parlor.core.errors import Conflict
from parlor.eventstore import InMemoryBus, InMemoryEventStore, Metadata, NewEvent
from parlor.eventstore.bus import EXTRA, decode_event
from parlor.kit import tracing
from parlor.kit.logs import JsonFormatter
from parlor.telemetry import logcontext
from parlor.telemetry.logcontext import LogContext


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.install(provider)
    try:
        yield exporter
    finally:
        telemetry.uninstall()


async def test_with_tracing_off_nothing_is_stamped_sent_or_recorded() -> None:
    assert not telemetry.enabled()
    assert telemetry.carrier() == {}
    with telemetry.span("nothing") as span:
        assert span is None
    store, bus = InMemoryEventStore(), InMemoryBus()
    await store.append("connect4x4-off", [NewEvent("GameCreated", b"")], 0)
    (event,) = await store.read_stream("connect4x4-off")
    assert event.metadata.extra == {}
    await bus.publish_event(event)
    assert "traceparent" not in bus.messages[0].headers


async def test_an_append_stamps_its_trace_and_the_publish_continues_it(
    spans: InMemorySpanExporter,
) -> None:
    store, bus = InMemoryEventStore(), InMemoryBus()
    with telemetry.span("a move"):
        await store.append(
            "connect4x4-on",
            [NewEvent("GameCreated", b"", metadata=Metadata(extra={"kept": "yes"}))],
            0,
        )
    (event,) = await store.read_stream("connect4x4-on")
    finished = {s.name: s for s in spans.get_finished_spans()}
    append = finished["append connect4x4"]
    assert append.parent is not None
    assert append.parent.span_id == finished["a move"].context.span_id
    assert append.kind == SpanKind.CLIENT
    trace_id = format(append.context.trace_id, "032x")
    span_id = format(append.context.span_id, "016x")
    assert event.metadata.extra["traceparent"].startswith(f"00-{trace_id}-{span_id}-")
    assert event.metadata.extra["kept"] == "yes"

    await bus.publish_event(event)
    headers = bus.messages[0].headers
    publish = next(s for s in spans.get_finished_spans() if s.name == "publish GameCreated")
    assert publish.kind == SpanKind.PRODUCER
    assert publish.parent is not None
    assert publish.parent.span_id == append.context.span_id
    assert headers["traceparent"].startswith(f"00-{trace_id}-{publish.context.span_id:016x}-")
    assert json.loads(headers[EXTRA]) == {"kept": "yes"}  # the trace has its own headers
    decoded = decode_event(headers, bus.messages[0].data)
    assert decoded is not None
    assert decoded.metadata.extra == {"kept": "yes", "traceparent": headers["traceparent"]}


async def test_a_refused_expected_version_counts_as_a_conflict() -> None:
    def conflicts() -> float:
        value = REGISTRY.get_sample_value("parlor_append_conflicts_total", {"category": "takefour"})
        return value or 0.0

    store = InMemoryEventStore()
    before = conflicts()
    await store.append("takefour-c", [NewEvent("GameCreated", b"")], 0)
    with pytest.raises(Conflict):
        await store.append("takefour-c", [NewEvent("GameCreated", b"")], 0)
    assert conflicts() == before + 1


def test_log_lines_carry_the_span_and_the_bound_ids(spans: InMemorySpanExporter) -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(LogContext())
    handler.setFormatter(JsonFormatter("test"))
    logger = logging.getLogger("parlor.test.logcontext")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("outside")
        with logcontext.bound(game_id="g1", command_id="c1"), telemetry.span("inside") as span:
            logger.warning("inside")
        logger.warning("after")
    finally:
        logger.removeHandler(handler)
    outside, inside, after = (json.loads(line) for line in out.getvalue().splitlines())
    assert "trace_id" not in outside
    assert "game_id" not in outside
    assert span is not None
    assert inside["trace_id"] == format(span.get_span_context().trace_id, "032x")
    assert inside["span_id"] == format(span.get_span_context().span_id, "016x")
    assert (inside["game_id"], inside["command_id"]) == ("g1", "c1")
    assert "game_id" not in after


@pytest.mark.parametrize(
    ("environ", "chosen"),
    [
        ({}, []),
        ({"OTEL_TRACES_EXPORTER": "none"}, []),
        ({"OTEL_TRACES_EXPORTER": "console"}, ["console"]),
        ({"OTEL_TRACES_EXPORTER": "otlp, console"}, ["otlp", "console"]),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317"}, ["otlp"]),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4317"}, ["otlp"]),
        ({"OTEL_TRACES_EXPORTER": "console", "OTEL_SDK_DISABLED": "true"}, []),
    ],
)
def test_tracing_is_off_unless_the_standard_variables_ask_for_it(
    environ: dict[str, str], chosen: list[str]
) -> None:
    assert tracing.exporters(environ) == chosen


def test_an_unknown_exporter_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="zipkin"):
        tracing.exporters({"OTEL_TRACES_EXPORTER": "zipkin"})


def test_the_console_exporter_prints_one_line_per_span(
    capsys: pytest.CaptureFixture[str],
) -> None:
    try:
        assert tracing.configure("test", {"OTEL_TRACES_EXPORTER": "console"})
        assert telemetry.enabled()
        assert tracing.server_interceptors()
        assert tracing.client_interceptors()
        with telemetry.span("outer"), telemetry.span("inner", attributes={"parlor.game_id": "g"}):
            pass
    finally:
        tracing.shutdown()
        telemetry.uninstall()
    inner, outer = capsys.readouterr().out.splitlines()
    assert inner.endswith("inner game_id=g")
    assert outer.endswith("outer")
    assert inner.split()[1] == outer.split()[1]  # one trace
    assert inner.split()[5] == outer.split()[3]  # inner's parent is outer
    assert not tracing.server_interceptors()


async def test_a_requests_game_and_command_ids_are_bound_for_its_log_lines() -> None:
    from parlor.connect4x4.v1 import connect4x4_pb2 as c4

    async def call(request: object) -> dict[str, str]:
        logcontext.bind_request(request)  # what the server interceptor does for every call
        return dict(logcontext.fields())

    # each call runs in its own task, as gRPC runs each RPC
    move = await asyncio.create_task(
        call(c4.PlayMoveRequest(game_id="g7", move="af", command_id="c7"))
    )
    listing = await asyncio.create_task(call(c4.ListGamesRequest()))
    assert move == {"game_id": "g7", "command_id": "c7"}
    assert listing == {}  # no ids, nothing bound; and the first call's did not leak
