"""``parlor verify`` on PostgreSQL: every stored game of each type, re-decided by today's rules,
its clocks by the times its events record, its acting seats by who its events say made them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from parlor.eventstore import PostgresEventStore
from parlor.gamehost.directory import game_directory
from parlor.gamehost.replay import GameType
from parlor.gamehost.timecheck import stamps_of
from parlor.gamehost.verify import Verdict, unreadable, verify_history


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
