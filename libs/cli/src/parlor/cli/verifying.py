"""``parlor verify`` on PostgreSQL: every stored game of each type, re-decided by today's rules,
its clocks by the times its events record, its acting seats by who its events say made them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from parlor.directory.projection import game_directory
from parlor.eventstore import PostgresEventStore
from parlor.gamehost.verify.timecheck import stamps_of
from parlor.gamehost.verify.verify import Verdict, unreadable, verify_history
from parlor.gamehost.wire.replay import GameType


async def verify_stream(
    store: PostgresEventStore, game_type: GameType[Any, Any, Any], game_id: str
) -> Verdict[Any]:
    stream_id = f"{game_type.category}-{game_id}"
    records = await store.read_stream(stream_id)
    events = []
    for record in records:
        try:
            events.append(game_type.codec.decode(record.type, record.data))
        except Exception as exc:  # a payload today's code cannot read is a divergence too
            return unreadable(stream_id, record.version, exc)
    first = records[0].version if records else 1
    return verify_history(
        game_type.decider,
        game_type.command_of,
        events,
        stream_id=stream_id,
        first_version=first,
        create_of=game_type.create_of,
        stamps=stamps_of(record.metadata.extra for record in records),
        actors=[record.metadata.actor for record in records],
    )


async def verify_games(
    database_url: str,
    game_types: list[GameType[Any, Any, Any]],
    game_id: str | None = None,
    on_total: Callable[[int], None] | None = None,
) -> AsyncIterator[Verdict[Any]]:
    """Verdicts one game at a time; ``on_total`` hears how many games will be checked."""
    store = PostgresEventStore(database_url, pool_size=2)
    try:
        work: list[tuple[GameType[Any, Any, Any], str]] = []
        for game_type in game_types:
            if game_id is not None:
                work.append((game_type, game_id))
            else:
                ids = await game_directory(store.engine, game_type).all_ids()
                work += [(game_type, i) for i in ids]
        if on_total is not None:
            on_total(len(work))
        for game_type, gid in work:
            yield await verify_stream(store, game_type, gid)
    finally:
        await store.close()


TOURNAMENT_CATEGORY = "tournament"


async def game_places(
    store: PostgresEventStore,
    categories: dict[str, str],
    game_type: str,
    game_id: str,
    seats: tuple[str, ...],
) -> tuple[dict[str, int], frozenset[str]] | None:
    """A tournament game's places as its own stream ended it (None: not finished), each seat's
    rank in its ``GameFinished``, by the tournament's entrant in that seat; and the entrants
    whose seats went berserk there (``SeatBerserked``)."""
    from parlor.common.v1 import common_pb2

    finished = common_pb2.GameFinished.DESCRIPTOR.full_name
    berserked = common_pb2.SeatBerserked.DESCRIPTOR.full_name
    category = categories.get(game_type)
    if category is None:
        return None
    records = await store.read_stream(f"{category}-{game_id}")
    last = next((r for r in reversed(records) if r.type in (finished, "GameFinished")), None)
    if last is None:
        return None
    results = common_pb2.GameFinished.FromString(last.data).results
    places = {
        seats[r.seat.index if r.HasField("seat") else i]: r.rank or 1
        for i, r in enumerate(results)
        if (r.seat.index if r.HasField("seat") else i) < len(seats)
    }
    went = (
        common_pb2.SeatBerserked.FromString(r.data).seat for r in records if r.type == berserked
    )
    return places, frozenset(seats[s] for s in went if 0 <= s < len(seats))


async def verify_tournaments(
    database_url: str, tournament_id: str | None = None
) -> AsyncIterator[tuple[str, list[str]]]:
    """Each stored tournament's stream id and what ``parlor.tournamentrules.verify`` finds
    wrong with it, its games' places read from the games' own streams."""
    from parlor.accounts.codec import decode
    from parlor.gamehost.pipeline.games import games
    from parlor.tournamentrules import EVENT_TYPES, TablesPaired, TournamentCreated, verify

    categories = {name: g.category for name, g in games().items()}
    store = PostgresEventStore(database_url, pool_size=2)
    try:
        if tournament_id is not None:
            streams = [f"{TOURNAMENT_CATEGORY}-{tournament_id}"]
        else:
            head = await store.head_position()
            streams = await store.streams_touched(TOURNAMENT_CATEGORY, 0, head)
        for stream in streams:
            events: list[Any] = []
            problems: list[str] = []
            for record in await store.read_stream(stream):
                try:
                    events.append(decode(dict(EVENT_TYPES), record.type, record.data))
                except Exception as exc:  # a payload today's code cannot read
                    problems.append(f"event {record.version} ({record.type}): unreadable: {exc}")
                    break
            if not problems:
                created = next((e for e in events if isinstance(e, TournamentCreated)), None)
                results: dict[str, dict[str, int]] = {}
                berserks: dict[str, frozenset[str]] = {}
                if created is not None:
                    for event in events:
                        if isinstance(event, TablesPaired):
                            for game_id, seats in event.tables:
                                found = await game_places(
                                    store, categories, created.settings.game_type, game_id, seats
                                )
                                if found is not None:
                                    results[game_id], berserks[game_id] = found
                problems = verify(events, results, berserks)
            yield stream, problems
    finally:
        await store.close()
