"""What tracing costs a move: Connect 4x4 moves with tracing off, on, and without the hooks.

Three ways through the game host on real PostgreSQL (scratch database), interleaved over
several rounds so the machine's noise falls on all of them alike:

- *before*: the host's ``execute`` and the store's ``append`` with their telemetry hooks
  taken off (``__wrapped__``): the code as it was before tracing existed;
- *tracing off*: as deployed with no ``OTEL_*`` variable (the hooks run, record nothing;
  the metrics the hooks keep are counted);
- *tracing on*: an SDK tracer provider with a batch processor and an exporter that drops
  spans (the cost of making spans and stamping trace context, not of a collector).

Then the same over gRPC (PlayMove), tracing off and on (the gRPC instrumentation's server
span included). Figures are medians over the rounds.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
import types
import uuid
from collections.abc import Sequence
from typing import Any

from connect4x4_service_bench import AUTH, over_grpc, pct
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from parlor import telemetry
from parlor.devinfra.backends import find_backends
from parlor.devinfra.scratch import scratch_settings
from parlor.eventstore import PostgresEventStore, migrate
from parlor.gamehost import GameHost
from parlor.gamehost.table.seating import OpenTable
from parlor.gametypes.seats import Seat
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import ServerSettings, running
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import SERVING as C4_SERVING
from parlor.services.connect4x4.game import Codec, rules

GAMES = int(os.environ.get("PARLOR_BENCH_GAMES", "20"))
ROUNDS = int(os.environ.get("PARLOR_BENCH_ROUNDS", "3"))


class Dropped(SpanExporter):
    """Takes every span and keeps none: the cost of tracing without a collector's."""

    def __init__(self) -> None:
        self.spans = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans += len(spans)
        return SpanExportResult.SUCCESS


def unhooked(host: GameHost[Any, Any, Any], store: PostgresEventStore) -> None:
    """Take the telemetry hooks off this host and store (as before they existed)."""
    host.execute = types.MethodType(GameHost.execute.__wrapped__, host)  # type: ignore[attr-defined,method-assign]
    store.append = types.MethodType(PostgresEventStore.append.__wrapped__, store)  # type: ignore[attr-defined,method-assign]


async def games(store: PostgresEventStore, hooks: bool, seed: int) -> tuple[list[float], float]:
    host = GameHost("connect4x4", rules(), Codec(), store)
    if not hooks:
        unhooked(host, store)
    latencies: list[float] = []

    async def game(rng: random.Random) -> None:
        game_id = uuid.uuid4().hex
        outcome = await host.create(
            game_id, OpenTable((Seat("a"), Seat("b")), c4.CreateGame(c4.Config()))
        )
        moves = 0
        while not c4.is_terminal(outcome.state.game):
            move = rng.choice(c4.legal_moves(outcome.state.game))
            t = time.perf_counter()
            outcome = await host.execute(game_id, move, command_id=f"m{moves}")
            latencies.append((time.perf_counter() - t) * 1000)
            moves += 1

    started = time.perf_counter()
    await asyncio.gather(*(game(random.Random(seed * 1000 + i)) for i in range(GAMES)))
    return latencies, len(latencies) / (time.perf_counter() - started)


def tracing_on() -> tuple[TracerProvider, Dropped]:
    exporter = Dropped()
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(exporter))
    telemetry.install(provider)
    return provider, exporter


async def host_figures(url: str) -> dict[str, list[tuple[float, float, float]]]:
    figures: dict[str, list[tuple[float, float, float]]] = {"before": [], "off": [], "on": []}
    spans = 0
    for round_ in range(ROUNDS):
        for mode in ("before", "off", "on"):
            provider = None
            if mode == "on":
                provider, exporter = tracing_on()
            try:
                async with PostgresEventStore(url) as store:
                    lat, rate = await games(store, hooks=mode != "before", seed=round_)
            finally:
                if provider is not None:
                    telemetry.uninstall()
                    provider.shutdown()
                    spans += exporter.spans
            figures[mode].append((rate, statistics.median(lat), pct(lat, 0.99)))
    assert spans > 0, "tracing on made no spans"
    return figures


async def grpc_figures() -> dict[str, list[tuple[float, float, float]]]:
    figures: dict[str, list[tuple[float, float, float]]] = {"off": [], "on": []}
    settings = ServerSettings(host="127.0.0.1", port=0, metrics_port=0)
    no_limit = RateLimitSettings(per_second=0, burst=1)
    for _ in range(ROUNDS):
        for mode in ("off", "on"):
            provider = tracing_on()[0] if mode == "on" else None
            try:
                async with running(settings, [C4_SERVING.component], AUTH, no_limit) as server:
                    lat, seconds, moves = await over_grpc(f"127.0.0.1:{server.port}")
            finally:
                if provider is not None:
                    telemetry.uninstall()
                    provider.shutdown()
            figures[mode].append((moves / seconds, statistics.median(lat), pct(lat, 0.99)))
    return figures


def row(label: str, samples: list[tuple[float, float, float]], base: float | None) -> str:
    rate, p50, p99 = (statistics.median(s[i] for s in samples) for i in range(3))
    vs = f"{(p50 / base - 1) * 100:+.1f}%" if base else ""
    return f"{label:<44}{rate:>10.0f}{p50:>10.3f}{p99:>10.3f}{vs:>12}"


async def main(database_url: str) -> None:
    await migrate(database_url)
    os.environ["PARLOR_DATABASE_URL"] = database_url
    host = await host_figures(database_url)
    grpc = await grpc_figures()
    base = statistics.median(s[1] for s in host["before"])
    print(f"{GAMES} Connect 4x4 games in parallel, medians of {ROUNDS} interleaved rounds")
    print(f"{'measure':<44}{'moves/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'p50 vs':>12}")
    print(row("GameHost.execute, hooks taken off (before)", host["before"], None))
    print(row("GameHost.execute, tracing off", host["off"], base))
    print(row("GameHost.execute, tracing on (spans dropped)", host["on"], base))
    grpc_base = statistics.median(s[1] for s in grpc["off"])
    print(row("PlayMove over gRPC, tracing off", grpc["off"], None))
    print(row("PlayMove over gRPC, tracing on (spans dropped)", grpc["on"], grpc_base))


if __name__ == "__main__":
    with find_backends() as backends:
        with scratch_settings(backends.database_url, backends.nats_url, "bench") as settings:
            os.environ.update(settings)
            asyncio.run(main(settings["PARLOR_DATABASE_URL"]))
