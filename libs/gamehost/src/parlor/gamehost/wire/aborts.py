"""Aborting a game that has not started: the window, and the limit on players who abort often.

A seat that makes no first move within the game type's abort window lets the others abort
the game: a seat's ``AbortGame`` ends a timed game, unrated and with no result, when some
other seat has not made its first move and that seat's clock has been running for
``PARLOR_ABORT_WINDOW_SECONDS`` (the rules: ``Seated._abort_by``; each game service reads
its own, so the window is its game type's). A player may abort at most
``PARLOR_ABORTS_PER_DAY`` games in any 24 hours, of every game type together; one more is
``RESOURCE_EXHAUSTED TOO_MANY_ABORTS`` (ErrorInfo metadata ``per_day``): that game is
played or resigned.

The aborts are counted in the event store, in the player's own stream
``playeraborts-<player id>`` (never relayed to NATS): ``AbortCounted`` (game type, game
id, time) is appended at the version the count was read at, before the abort is decided,
so two replicas (or two calls) cannot both pass the limit; a concurrent append makes the
count read again. An abort the rules then refuse (the other seat moved in between) records
``AbortWithdrawn`` for its game, which the count leaves out. A game is counted once,
however often its abort is retried.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from parlor.core.errors import Conflict, ParlorError, ResourceExhausted
from parlor.eventstore import ANY_VERSION, NO_STREAM, EventStore, Metadata, NewEvent
from parlor.gamehost.table.clocks import ABORTED, Abort, Preempted, Timed
from parlor.kit.settings import setting

AbortBody = Callable[[Any, int], Abort]
"""(the game, the seat) -> the seat's ``Abort``."""

DAY = 86_400.0
COUNTED = "AbortCounted"
WITHDRAWN = "AbortWithdrawn"
RETRIES = 8


@dataclass(frozen=True)
class AbortSettings:
    window_seconds: int = setting(
        "PARLOR_ABORT_WINDOW_SECONDS",
        "the game type's abort window: seconds a seat's clock runs without its first move"
        " before the other seats may abort the game (AbortGame; sooner: ABORT_NOT_YET)",
        60,
    )
    per_day: int = setting(
        "PARLOR_ABORTS_PER_DAY",
        "games one player may abort in any 24 hours, of every game type together"
        " (one more: RESOURCE_EXHAUSTED TOO_MANY_ABORTS; 0: no limit)",
        5,
    )


def aborts_stream(player_id: str) -> str:
    return f"playeraborts-{player_id}"


@dataclass(frozen=True)
class Counted:
    """A player's aborts as their stream holds them: the games counted in the last day (by
    game type and id) and the version they were read at."""

    recent: frozenset[tuple[str, str]]
    version: int


class AbortLedger:
    """Counts each player's aborts in the event store (in memory for tests, PostgreSQL in a
    service: the same code over either ``EventStore``)."""

    def __init__(
        self, store: EventStore, per_day: int, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.per_day = per_day
        self.clock = clock

    async def counted(self, player_id: str, now: float) -> Counted:
        """The games ``player_id`` aborted in the 24 hours before ``now`` (withdrawn ones
        left out), and the stream's version."""
        recent: dict[tuple[str, str], bool] = {}
        version = NO_STREAM
        for recorded in await self.store.read_stream(aborts_stream(player_id)):
            version = recorded.version
            fields = json.loads(recorded.data)
            game = (str(fields["game_type"]), str(fields["game_id"]))
            if recorded.type == COUNTED and float(fields["at"]) > now - DAY:
                recent[game] = True
            elif recorded.type == WITHDRAWN:
                recent.pop(game, None)
        return Counted(frozenset(recent), version)

    @contextlib.asynccontextmanager
    async def counting(self, player_id: str, game_type: str, game_id: str) -> AsyncIterator[None]:
        """Count this abort (refused ``TOO_MANY_ABORTS`` past the limit), then run the body
        (the abort decided); an abort the body refuses (a ``ParlorError``) is withdrawn from
        the count; one cut short otherwise (a cancelled call) may have been made: it stays."""
        if not self.per_day:
            yield
            return
        game = (game_type, game_id)
        new = await self._count(player_id, game)
        try:
            yield
        except ParlorError:  # refused: not aborted (anything else may have aborted it: kept)
            if new:
                await self._append(player_id, WITHDRAWN, game, ANY_VERSION)
            raise

    async def _count(self, player_id: str, game: tuple[str, str]) -> bool:
        """Record ``game``'s abort within the limit; False if it is counted already (a retry)."""
        for _ in range(RETRIES):
            now = self.clock()
            counted = await self.counted(player_id, now)
            if game in counted.recent:
                return False
            if len(counted.recent) >= self.per_day:
                raise ResourceExhausted(
                    f"you have aborted {len(counted.recent)} games in the last 24 hours, the"
                    f" most one player may ({self.per_day}): play this one or resign it",
                    reason="TOO_MANY_ABORTS",
                    metadata={"per_day": str(self.per_day)},
                )
            try:
                await self._append(player_id, COUNTED, game, counted.version, now)
            except Conflict:
                continue  # another abort of theirs was counted meanwhile: count again
            return True
        raise Conflict("your aborts kept changing under this call; retry", reason="CONFLICT")

    async def _append(
        self,
        player_id: str,
        kind: str,
        game: tuple[str, str],
        expected: int,
        now: float | None = None,
    ) -> None:
        fields: dict[str, object] = {"game_type": game[0], "game_id": game[1]}
        if now is not None:
            fields["at"] = now
        data = json.dumps(fields, sort_keys=True).encode()
        await self.store.append(
            aborts_stream(player_id),
            [NewEvent(kind, data, metadata=Metadata(actor=player_id))],
            expected,
        )


ENDED_STATUSES = ("STATUS_ABORTED", "STATUS_ENDED", "PHASE_OVER")
"""A game's own enum value for an aborted game, the first its ``status``/``phase`` has."""


def show_aborted(game: Message) -> None:
    """Mark a game's ``Game`` message aborted, whatever the game (by field name): ``aborted``
    set, no seat to move and no legal move, every departure ``ABORTED``, the end reason, and
    its status or phase the game's value for it (Connect 4x4's ``STATUS_ABORTED``, Upwords'
    ``STATUS_ENDED``, Take Four's ``PHASE_OVER``). The rules' own state never knows: the
    abort is the table's (``Table.aborted``)."""
    fields = game.DESCRIPTOR.fields_by_name
    if "aborted" in fields:
        game.aborted = True  # type: ignore[attr-defined]
    for name in ("seats_to_move", "legal_moves", "departures"):
        if name in fields:
            game.ClearField(name)
    if "departures" in fields:
        game.departures.extend([ABORTED] * len(game.seats))  # type: ignore[attr-defined]
    if "end_reason" in fields:
        game.end_reason = ABORTED  # type: ignore[attr-defined]
    for name in ("status", "phase"):
        field = fields.get(name)
        if field is None or field.enum_type is None:
            continue
        for value in ENDED_STATUSES:
            if value in field.enum_type.values_by_name:
                setattr(game, name, field.enum_type.values_by_name[value].number)
                break


async def abort_counts(
    host: Any, game_id: str, player_id: str, requested: int | None, body: AbortBody
) -> bool:
    """Whether the caller's abort of the game, as ``host`` (a ``GameHost``) knows it, would
    be allowed by the rules, and so is counted against their limit before it is decided
    (``AbortLedger.counting``): not when they hold no seat, the game is over, or the
    timeouts due first overtake it (``Preempted``: they are recorded, the abort refused).
    An abort the rules refuse otherwise is refused here, as they say, counting nothing."""
    table, _ = await host.latest(game_id)
    if not table.seats_of(player_id) or host.decider.is_terminal(table):
        return False
    seat = table.seat_of(player_id, requested)
    try:
        host.decider.decide(table, Timed(body(table, seat), host.now()))
    except Preempted:
        return False
    return True
