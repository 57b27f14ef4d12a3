"""Scoring's writes: each GameFinished from JetStream once, and the rebuild from history."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from parlor.accounts import GUEST_CLAIM_CATEGORY, GUEST_EVENT_TYPES, GuestIdClaimed, decode
from parlor.core.errors import InvalidArgument
from parlor.eventstore import Delivery, PostgresEventStore, RecordedEvent, SetAside
from parlor.eventstore.bus import is_id_of
from parlor.services.scoring.ratings import fold, recorded
from parlor.services.scoring.sheet import (
    GAME_FINISHED,
    SEATS_TAKEN,
    FinishedGame,
    Moves,
    counted_as,
    finished_game,
    is_type,
    seats_agreed,
    seats_of,
)
from parlor.services.scoring.tables import (
    aliases_of,
    apply_claim,
    has_game,
    insert_aliases,
    insert_games,
    lock,
    record_game,
    write_folded,
)

log = logging.getLogger("parlor.services.scoring")

READ_BATCH = 2000


def is_guest_claim(event: RecordedEvent) -> bool:
    """A guest id's claim as the identity service records it (its first and only event)."""
    return (
        event.stream_id.startswith(f"{GUEST_CLAIM_CATEGORY}-")
        and event.type == GuestIdClaimed.__name__
        and event.version == 1
    )


def guest_claim(event: RecordedEvent) -> GuestIdClaimed | None:
    """The claim, if it is well formed (of its own stream's guest id); else None."""
    if not is_guest_claim(event):
        return None
    try:
        claimed = decode(GUEST_EVENT_TYPES, event.type, event.data)
    except (InvalidArgument, TypeError, ValueError):
        return None
    if event.stream_id != f"{GUEST_CLAIM_CATEGORY}-{claimed.guest_id}":
        return None
    return claimed


@dataclass(frozen=True)
class Rebuilt:
    games: int
    head_position: int


class Scorer:
    def __init__(self, store: PostgresEventStore, period: timedelta) -> None:
        self.store = store
        self.period = period

    async def on_game_finished(self, conn: AsyncConnection, delivery: Delivery) -> None:
        """The inbox's handler: runs in its transaction, so a game is scored exactly once."""
        try:
            claim = delivery.event()
        except InvalidArgument as exc:
            raise SetAside("MALFORMED_EVENT", exc.message) from None
        if claim is None or not is_type(claim, GAME_FINISHED):
            raise SetAside("NOT_GAME_FINISHED", "not a GameFinished event")
        event = await self.confirmed(claim)
        if event is None:
            # Forged, or not of this platform's store (another deployment on the same NATS):
            # the message is only a claim, and the store does not back it. Set aside, so
            # that the id it came under (its publisher's choice) is not kept by the inbox.
            raise SetAside(
                "NOT_IN_STORE",
                f"no GameFinished at {claim.stream_id} version {claim.version}, "
                f"position {claim.position} in the event store",
            )
        if not is_id_of(delivery.message_id, event):
            # A real event under another's id: the inbox would keep that id, and skip the
            # event that really has it. (Its own id, or the id the relay publishes it under
            # when a forgery took its own: ``redelivery_id``, which no other event has.)
            raise SetAside("MESSAGE_ID_MISMATCH", f"{event.message_id} sent under another id")
        # The whole game before its end: who sat where (its first event) and how many moves
        # each seat made (a game is at most the platform's cap on a game's length).
        first = await self.store.read_stream(event.stream_id, 1, event.version - 1)
        if not first or not is_type(first[0], SEATS_TAKEN):
            log.warning(
                "GameFinished without seats in the store", extra={"stream": event.stream_id}
            )
            return
        if not await seats_agreed(self.store, first[0]):
            log.warning(
                "a game not every player agreed to: not rated", extra={"stream": event.stream_id}
            )
            return
        moves = Moves()
        for before in first[1:]:
            moves.add(before)
        game = finished_game(event, seats_of(first[0]), moves)
        if not recorded(game):
            return  # aborted: scoring neither rates nor records it (no scoresheet either)
        await lock(conn)
        if await has_game(conn, game.stream_id):
            return  # the rebuild (or another replica) already scored it
        aliases = await aliases_of(conn, [r.player_id for r in game.results])
        await record_game(conn, counted_as(game, aliases), self.period)

    async def on_guest_claimed(self, conn: AsyncConnection, delivery: Delivery) -> None:
        """The claims inbox's handler: an account claimed a guest id (``GuestIdClaimed``).
        The message is only a claim: the stored event is what counts."""
        try:
            message = delivery.event()
        except InvalidArgument as exc:
            raise SetAside("MALFORMED_EVENT", exc.message) from None
        if message is None or message.type != GuestIdClaimed.__name__:
            raise SetAside("NOT_GUEST_CLAIMED", "not a GuestIdClaimed event")
        try:
            stored = await self.store.read_stream(message.stream_id, 1, 1)
        except InvalidArgument:
            stored = []
        event = stored[0] if stored else None
        claimed = None if event is None else guest_claim(event)
        if event is None or claimed is None or event.position != message.position:
            raise SetAside(
                "NOT_IN_STORE", f"no GuestIdClaimed first in {message.stream_id} in the store"
            )
        if not is_id_of(delivery.message_id, event):
            raise SetAside("MESSAGE_ID_MISMATCH", f"{event.message_id} sent under another id")
        await lock(conn)
        await apply_claim(conn, claimed.guest_id, claimed.player_id, event.position, self.period)

    async def confirmed(self, claim: RecordedEvent) -> RecordedEvent | None:
        """The stored event a message names (stream, version, position), if it is that event.

        Scoring uses the stored event, never the message's payload or times.
        """
        try:
            stored = await self.store.read_stream(claim.stream_id, claim.version, claim.version)
        except InvalidArgument:
            return None  # a stream id or version no store could hold
        if not stored or not is_type(stored[0], GAME_FINISHED):
            return None
        return stored[0] if stored[0].position == claim.position else None

    async def rebuild(self) -> Rebuilt:
        """Wipe scoring's tables and rebuild them from the event store's global order.

        Holds scoring's lock throughout, so live scoring waits; games finished during the
        read are scored by their own deliveries afterwards, in order.
        """
        async with self.store.engine.begin() as conn:
            await lock(conn)
            seats: dict[str, tuple[tuple[str, str], ...]] = {}
            claims: dict[str, tuple[str, int]] = {}
            moves: dict[str, Moves] = {}
            games: list[FinishedGame] = []
            position = head = 0
            while True:
                batch = await self.store.read_all(position, READ_BATCH)
                for event in batch:
                    stream = event.stream_id
                    if is_type(event, SEATS_TAKEN) and await seats_agreed(self.store, event):
                        seats[stream] = seats_of(event)
                        moves[stream] = Moves()
                    elif is_type(event, GAME_FINISHED) and stream in seats:
                        game = finished_game(event, seats.pop(stream), moves.pop(stream))
                        if recorded(game):
                            games.append(game)
                    elif stream in moves:
                        moves[stream].add(event)
                    elif (claimed := guest_claim(event)) is not None:
                        claims.setdefault(claimed.guest_id, (claimed.player_id, event.position))
                    head = event.position
                if len(batch) < READ_BATCH:
                    break
                position = batch[-1].position + 1
            # A claimed guest's games count under the account, whenever it claimed them.
            aliases = {guest: account for guest, (account, _) in claims.items()}
            games = [counted_as(game, aliases) for game in games]
            folded = fold(games, self.period)
            await conn.execute(
                text(
                    "TRUNCATE scoring_results, scoring_games, scoring_ratings, scoring_pairs,"
                    " scoring_aliases"
                )
            )
            await insert_aliases(conn, [(g, p, pos) for g, (p, pos) in sorted(claims.items())])
            await insert_games(conn, games)
            await write_folded(conn, folded)
        return Rebuilt(len(games), head)
