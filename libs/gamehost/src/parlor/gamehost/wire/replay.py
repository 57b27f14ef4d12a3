"""Game-agnostic pieces of replay: who may see what, the pace of a played-back game.

Entitlement (every game service applies the same rule): once a game has
finished, everyone entitled to replay it sees everything, hidden information
included; before that, a viewer sees exactly what the game's ``view`` shows
their seat (or a spectator, seat ``None``), and events pass through the
game's ``public_event`` for that viewer. Connect 4x4 hides nothing, so its
two cases look alike; Upwords and Take Four reveal racks only after the end.

A version a client says it has seen (``WatchGame``'s ``after_version``, the one before a
replay's or ``GetHistory``'s ``from_version``) is its claim: one the game does not have
is ``NOT_FOUND NO_SUCH_VERSION`` (``check_seen``), as ``GetGame`` answers for such a
version.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from parlor.core.errors import FailedPrecondition, InvalidArgument, NotFound
from parlor.gamehost.host.host import GameHost, Recorded
from parlor.gamehost.pipeline.games import GameType as GameType
from parlor.gamehost.pipeline.games import game_types as game_types
from parlor.gamehost.table.codec import EventCodec
from parlor.gamehost.table.seating import Table

S = TypeVar("S", bound=Table[Any])
C = TypeVar("C")
E = TypeVar("E")

MAX_PACE_MS = 10_000
"""The slowest replay pace: ten seconds between events."""


@dataclass(frozen=True, slots=True)
class Entitlement:
    """What one viewer may see of a game: everything, or what ``view(state, seat)`` shows."""

    seat: int | None
    everything: bool

    @property
    def viewer(self) -> int | None:
        """The seat to pass to ``view`` when not ``everything`` (None: a spectator)."""
        return self.seat


def entitlement(finished: bool, seat: int | None) -> Entitlement:
    """After the end: everything. Before: the viewer's own seat's view (None for spectators)."""
    return Entitlement(seat, everything=finished)


async def entitlement_of(
    host: GameHost[Any, Any, Any], game_id: str, player_id: str
) -> Entitlement:
    """What ``player_id`` may see of a seated game's history, as the game stands now."""
    state, _ = await host.load(game_id)
    mine = state.seats_of(player_id) if isinstance(state, Table) else ()
    return entitlement(host.decider.is_terminal(state), mine[0] if mine else None)


def check_pace(pace_ms: int) -> float:
    """Milliseconds between replayed events, 0 (as fast as possible) to ``MAX_PACE_MS``."""
    if not 0 <= pace_ms <= MAX_PACE_MS:
        raise InvalidArgument(f"pace_ms must be 0 to {MAX_PACE_MS}", reason="INVALID_PACE")
    return pace_ms / 1000


def check_seen(game_id: str, seen: int, last: int) -> None:
    """Refuse a version a client says it has seen (to watch after, or to resume a replay
    after) that the game does not have: its claim, checked against the stream's ``last``."""
    if seen > last:
        raise NotFound(f"game {game_id} has only {last} events", reason="NO_SUCH_VERSION")


async def play_back(
    host: GameHost[S, Any, E], game_id: str, pace_ms: int, from_version: int = 1
) -> AsyncIterator[tuple[Recorded[E], S]]:
    """A finished game's events with the state after each, ``pace_ms`` apart."""
    delay = check_pace(pace_ms)
    state, last = await host.load(game_id)
    check_seen(game_id, from_version - 1, last)
    if not host.decider.is_terminal(state):
        raise FailedPrecondition(
            "only finished games are replayed; watch a game in progress instead",
            reason="GAME_NOT_FINISHED",
        )
    # From the nearest kept state before ``from_version``, a page at a time (``replayed``):
    # a replay from late in a long game folds only what it sends, with the loop free.
    sent = 0
    async with contextlib.aclosing(host.replayed(game_id, from_version, last)) as records:
        async for recorded in records:
            if sent and delay:
                await asyncio.sleep(delay)
            sent += 1
            yield recorded, recorded.after


def decode_all(codec: EventCodec[E], records: Sequence[Any]) -> list[E]:
    return [codec.decode(r.type, r.data) for r in records]
