"""What the game host shows of itself: a game's trace, its logs' fields and its metrics.

**One trace per game.** A game's trace is the trace its creation ran in: for a matchmade
game, the match's (matchmaking's append, its relay's publish, the game service's consumer).
Every later command joins that trace: its span's parent is the trace context stored with
the game's first event, and it links to the span of the call that brought it (a player's
RPC, in the player's own trace), so both lead to each other. The events a command appends
carry the command's context in their metadata, so the relay's publish of ``GameFinished``
and scoring's handling of it continue the same trace: match, creation, moves, result and
rating change are one trace, across services and replicas.

**Logs** inside a command carry its game id and command id (and the span's ids).

**Metrics** count commands by outcome, time them, and count games started and finished
and watch streams open, by game type.
"""

from __future__ import annotations

import functools
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Generic, Protocol, TypeVar, cast

from parlor import telemetry
from parlor.core.errors import ParlorError
from parlor.eventstore import EventStore
from parlor.gamehost.record.recorded import Outcome
from parlor.gamehost.table.decider import Decided, SeatedDecider
from parlor.gamehost.table.seating import GameFinished
from parlor.telemetry import logcontext
from parlor.telemetry.metrics import (
    GAME_COMMAND_SECONDS,
    GAME_COMMANDS,
    GAMES_FINISHED,
    GAMES_STARTED,
    WATCHERS,
    labelled,
)


class Observed(Protocol):
    """What the traces, logs and metrics read of the game host (``GameHost`` is one): its
    game type, its store and a game's stream; the host imports this module, not the other
    way round."""

    @property
    def category(self) -> str: ...

    @property
    def store(self) -> EventStore: ...

    def stream_id(self, game_id: str) -> str: ...


S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")
F = TypeVar("F", bound=Callable[..., Any])

TRACER = "parlor.gamehost"
TRACE_CACHE_SIZE = 8192

_game_traces: OrderedDict[tuple[str, str], Mapping[str, str]] = OrderedDict()


def _remember_trace(key: tuple[str, str], fields: Mapping[str, str]) -> None:
    _game_traces[key] = fields
    _game_traces.move_to_end(key)
    while len(_game_traces) > TRACE_CACHE_SIZE:
        _game_traces.popitem(last=False)


async def game_trace(host: Observed, game_id: str) -> Mapping[str, str]:
    """The trace context stored with a game's first event (empty if it was not traced)."""
    key = (host.category, game_id)
    found = _game_traces.get(key)
    if found is None:
        try:
            first = await host.store.read_stream(host.stream_id(game_id), 1, 1)
        except ParlorError:
            return {}  # a bad id: the command itself will say so
        extra = first[0].metadata.extra if first else {}
        found = {k: extra[k] for k in telemetry.FIELDS if k in extra}
        if first:
            _remember_trace(key, found)
    return found


class TracedDecider(Generic[S, C, E]):
    """A decider whose ``decide`` is a span; replay (``evolve``) runs the engine's own."""

    def __init__(self, decider: SeatedDecider[S, C, E], category: str) -> None:
        self.inner = decider
        self.category = category
        self.timing = decider.timing
        self.initial_state = decider.initial_state
        self.evolve = decider.evolve
        self.evolve_at = decider.evolve_at
        self.is_terminal = decider.is_terminal
        self.next_deadline = decider.next_deadline
        self.clocks = decider.clocks

    def decide(self, state: S, command: C) -> Decided:
        with telemetry.span(
            f"{self.category} decide",
            tracer=TRACER,
            attributes={"parlor.command": type(command).__name__},
        ) as span:
            decided = self.inner.decide(state, command)
            if span is not None:
                span.set_attribute("parlor.events", len(decided))
            return decided


def traced_decider(decider: SeatedDecider[S, C, E], category: str) -> SeatedDecider[S, C, E]:
    """``decider`` itself while tracing is off (so replay and decide cost nothing more)."""
    if not telemetry.enabled():
        return decider
    return TracedDecider(decider, category)


def observed_decide(execute: F) -> F:
    """Decorate ``GameHost.decide``: the command's span in the game's trace, logs, metrics."""

    @functools.wraps(execute)
    async def wrapper(
        host: Observed, game_id: str, command: Any, **options: Any
    ) -> Outcome[Any, Any]:
        game_type = host.category
        command_id: str | None = command.command_id
        actor: str | None = command.actor
        create: bool = options.get("create", False)
        started = time.perf_counter()
        label = "refused"
        run: Callable[[], Awaitable[Outcome[Any, Any]]] = lambda: execute(
            host, game_id, command, **options
        )
        try:
            with logcontext.bound(game_id=game_id, command_id=command_id):
                if telemetry.enabled():
                    outcome = await _traced(host, game_id, command_id, actor, create, run)
                else:
                    outcome = await run()
            if outcome.duplicate:
                label = "repeated"
            elif outcome.events:
                label = "applied"
                if create:
                    labelled(GAMES_STARTED, game_type).inc()
                if any(isinstance(e, GameFinished) for e in outcome.events):
                    labelled(GAMES_FINISHED, game_type).inc()
            else:
                label = "unchanged"
            return outcome
        finally:
            labelled(GAME_COMMANDS, game_type, label).inc()
            labelled(GAME_COMMAND_SECONDS, game_type).observe(time.perf_counter() - started)

    return cast(F, wrapper)


async def _traced(
    host: Observed,
    game_id: str,
    command_id: str | None,
    actor: str | None,
    create: bool,
    run: Callable[[], Awaitable[Outcome[Any, Any]]],
) -> Outcome[Any, Any]:
    parent = None if create else await game_trace(host, game_id)
    with telemetry.span(
        f"{host.category} {'create' if create else 'command'}",
        tracer=TRACER,
        parent=parent or None,
        link_current=True,
        attributes={
            "parlor.game_type": host.category,
            "parlor.game_id": game_id,
            "parlor.command_id": command_id or "",
            "parlor.actor": actor or "",
        },
    ) as span:
        outcome = await run()
        if create and outcome.events and not outcome.duplicate:
            _remember_trace((host.category, game_id), telemetry.carrier())
        if span is not None:
            span.set_attribute("parlor.version", outcome.version)
            span.set_attribute("parlor.events", len(outcome.events))
            span.set_attribute("parlor.duplicate", outcome.duplicate)
        return outcome


def watched(watch: F) -> F:
    """Decorate the game host's following of a game (``GameFollowing._after``, behind ``watch``
    and ``opening``): the open watch streams, by game type."""

    @functools.wraps(watch)
    async def wrapper(host: Observed, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        gauge = WATCHERS.labels(host.category)
        gauge.inc()
        try:
            async for item in watch(host, *args, **kwargs):
                yield item
        finally:
            gauge.dec()

    return cast(F, wrapper)
