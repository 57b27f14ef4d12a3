"""What moves tournaments on without a caller: pairings, ends and results.

- **The driver** (one per replica; two are safe): every ``driver_interval`` it asks each
  running tournament what is due (``parlor.tournamentrules.due``) and pairs or finishes it.
  Every decision is appended at the version it was made on, so of two replicas deciding the
  same pairing one appends and the other, finding the stream moved, decides again on the new
  state (where nothing is due any more).
- **Results**: each ``GameFinished`` on the bus is only a claim: the game's own stream in the
  store is read, the game is a tournament's only if its match (``matchmaking-<game id>``,
  written by this service) names the tournament, and the result is recorded once
  (``RecordResult``: a game already scored is refused by the rules and the message is acked),
  after the berserks its stream records (``SeatBerserked``: ``PlayerBerserked``, once each).
  The driver also reads, for every game in play, whether its stream has finished: a result
  whose message was lost (NATS away, the service restarted) is recorded all the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from parlor.core.errors import ParlorError, Unavailable
from parlor.eventstore import Delivery, DurableConsumer, EventStore
from parlor.eventstore.tracing import consuming
from parlor.gametypes.catalogue import CataloguedGame
from parlor.services.tournament.games import Result, match_appends, result_of
from parlor.services.tournament.tournaments import Tournaments, new_id
from parlor.tournamentrules import (
    Berserk,
    Finish,
    Pair,
    RecordResult,
    due,
    games_in_play,
    tables_needed,
)
from parlor.tournamentrules.state import FINISHED, NEW

log = logging.getLogger("parlor.services.tournament")

DRIVER = "tournament"
"""The actor of the decisions the driver and the results make."""
CONSUMER = "tournament-results"
SWEEP_SECONDS = 5.0
"""How often the driver reads the games in play from the store: results the bus lost."""


class Driver:
    def __init__(
        self,
        tournaments: Tournaments,
        types: Mapping[str, CataloguedGame],
        clock: Callable[[], int],
    ) -> None:
        self.tournaments = tournaments
        self.types = dict(types)
        self.clock = clock
        self.wake = asyncio.Event()

    @property
    def store(self) -> EventStore:
        return self.tournaments.store

    async def run(self, interval: float) -> None:
        """Forever: a step every ``interval`` (sooner when woken), reading the games in play
        from the store every ``SWEEP_SECONDS`` (the bus brings their results sooner)."""
        swept = 0.0
        while True:
            sweep = time.monotonic() - swept >= SWEEP_SECONDS
            if sweep:
                swept = time.monotonic()
            try:
                await self.step(sweep)
            except Exception:
                log.exception("tournament driver step failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), interval)
            self.wake.clear()

    async def step(self, sweep: bool = True) -> None:
        """Every unfinished tournament: (``sweep``) results the store holds, then what is due."""
        for tournament_id, (state, _) in (await self.tournaments.catalogue()).items():
            if state.phase in (NEW, FINISHED):
                continue
            if sweep:
                for game in games_in_play(state):
                    await self.collect(tournament_id, game.game_id, state.rules.game_type)
            await self.advance(tournament_id)

    async def advance(self, tournament_id: str) -> None:
        """Pair or finish while something is due."""
        for _ in range(8):
            made = await self.tournaments.execute(
                tournament_id, self._due, DRIVER, also=self._matches(tournament_id)
            )
            if not made:
                return

    def _due(self, state: Any) -> Any:
        now = self.clock()
        what = due(state, now)
        if what == "pair":
            ids = tuple(new_id() for _ in range(max(1, tables_needed(state))))
            return Pair(now, ids, secrets.randbits(31))
        if what == "finish":
            return Finish(now)
        return None

    def _matches(self, tournament_id: str) -> Callable[[Any, Any], Any]:
        def also(state: Any, events: Any) -> Any:
            return match_appends(tournament_id, state.rules, events, time.time())

        return also

    async def collect(self, tournament_id: str, game_id: str, game_type: str) -> None:
        """Record the game's result if its stream in the store has finished."""
        game = self.types.get(game_type)
        if game is None:
            return
        result = await result_of(self.store, self.types, f"{game.category}-{game_id}")
        if result is not None and result.tournament_id == tournament_id:
            await self.record(result)

    async def record(self, result: Result) -> bool:
        """Score ``result`` once (False: already scored, or no longer in play): first each
        seat the game's stream records going berserk (``PlayerBerserked``, once), then the
        result, which scores the berserk win's extra point."""
        for seat in result.berserk:

            def berserk(state: Any, seat: int = seat) -> Any:
                game = state.games.get(result.game_id)
                if (
                    game is None
                    or game.scored
                    or not state.rules.berserk
                    or not state.rules.is_arena
                ):
                    return None
                if not 0 <= seat < len(game.seats) or game.seats[seat] in game.berserk:
                    return None
                return Berserk(game.seats[seat], result.game_id, self.clock())

            await self.tournaments.execute(result.tournament_id, berserk, DRIVER)

        def command(state: Any) -> Any:
            game = state.games.get(result.game_id)
            if game is None or game.scored:
                return None
            seats = game.seats
            places = tuple(
                (seats[seat], place) for seat, place in result.places if seat < len(seats)
            )
            return RecordResult(result.game_id, places, result.moves, self.clock())

        made = await self.tournaments.execute(result.tournament_id, command, DRIVER)
        if made:
            self.wake.set()  # a free player may be paired at once
        return bool(made)

    async def consume(self, consumer: DurableConsumer) -> None:
        """Forever: every ``GameFinished`` on the bus that is a tournament game's."""
        try:
            while True:
                for delivery in await consumer.fetch(batch=50, max_wait=1.0):
                    await self._finished(delivery, consumer.durable)
        finally:
            await consumer.close()

    async def _finished(self, delivery: Delivery, consumer: str) -> None:
        try:
            with consuming(delivery, consumer):
                claim = delivery.event()
                if claim is not None:
                    # the message names a stream; the store says what it holds
                    result = await result_of(self.store, self.types, claim.stream_id)
                    if result is not None:
                        await self.record(result)
        except Unavailable:
            with contextlib.suppress(Exception):
                await delivery.nak(delay=1.0)
            return
        except ParlorError as exc:
            log.warning("tournament result not recorded", extra={"reason": exc.reason})
        with contextlib.suppress(Exception):
            await delivery.ack()
