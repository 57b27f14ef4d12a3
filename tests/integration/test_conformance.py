"""One platform conformance run over every registered game (issue 39).

Each game registered under ``parlor.game_types``, and the tic-tac-toe example, is served on
real PostgreSQL and NATS and driven only through what the platform knows of any game: its
``GameType`` (name, seat range, bots, codec, rules, views, notation) and its service's
descriptors (``kits.conformance``). A new game gets this run by being registered.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats
import pytest
from kits.conformance import Served, game_type, registered_names, serving, stream, unary
from leakcheck import read_stream

from parlor.common.v1 import common_pb2
from parlor.core.game import secret_fields
from parlor.gamehost.export import export_parts
from parlor.gamehost.turns import Exports
from parlor.gamehost.verify import verify_history
from parlor.kit.auth import AuthSettings

pytestmark = pytest.mark.integration

BOTS_AT_ONCE = {
    "BOT_PAUSE_SECONDS": "0",
    "BOT_IDLE_SECONDS": "0.2",
    "BOT_HUMAN_PACE": "false",
    "BOT_ALONE_SECONDS": "3",
}
"""A bot runner's pace (``parlor.gamehost.botpace``, under the game's own env names): its
bots at once, and a table of bots ended by their leaving it after a few seconds, as the
platform ends every game of bots (docs/bounds.md, "Every game ends")."""


@pytest.fixture(params=registered_names())
async def served(
    request: pytest.FixtureRequest,
    migrated: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[Served]:
    auth = AuthSettings(private_key=os.environ["PARLOR_JWT_PRIVATE_KEY"])
    for variable, value in BOTS_AT_ONCE.items():  # a game whose bots a runner plays
        monkeypatch.setenv(f"PARLOR_{request.param.upper()}_{variable}", value)
    with game_type(request.param, tmp_path) as (game, factories):
        async with serving(game, factories, auth) as served:
            yield served


def seats(*players: str) -> list[common_pb2.Seat]:
    return [common_pb2.Seat(index=i, player_id=p) for i, p in enumerate(players)]


def body_bytes(item: Any) -> tuple[str, bytes]:
    """A watched event's (type, payload) as the spectator was shown it."""
    event = item.event
    body = getattr(event, event.WhichOneof("body"))
    return event.info.type, body.SerializeToString(deterministic=True)


def secrets_in(event: object) -> dict[str, object]:
    """The fields of an event the rules mark ``Secret`` that carry something (a spectator's
    copy of an event has them all empty)."""
    if not dataclasses.is_dataclass(event):
        return {}
    return {
        name: getattr(event, name)
        for name in secret_fields(type(event))
        if getattr(event, name) not in (None, (), "", 0, frozenset(), {})
    }


async def test_a_game_of_bots_is_played_watched_stored_published_and_exported(
    served: Served, database_url: str, nats_url: str, subject_prefix: str
) -> None:
    game, name = served.game, served.game.name
    game_id = f"conform-{uuid.uuid4().hex[:12]}"
    players = [f"bot:{game.bots[0]}"] * game.min_seats
    nc = await nats.connect(nats_url)
    sub = await nc.jetstream().subscribe(
        f"{subject_prefix}.{name}.{game_id}.*", ordered_consumer=True
    )
    try:
        async with (
            served.channel("service:tests", service=True) as host,
            served.channel("carol") as carol,
        ):
            create = served.request("CreateGame", game_id=game_id, seats=seats(*players))
            await unary(host, served.method("CreateGame"), create)
            watch = served.request("WatchGame", game_id=game_id)
            watched = await asyncio.wait_for(stream(carol, served.method("WatchGame"), watch), 60)
            final = await unary(
                carol, served.method("GetGame"), served.request("GetGame", game_id=game_id)
            )
            replay = served.request("ReplayGame", game_id=game_id)
            replayed = await stream(carol, served.method("ReplayGame"), replay)
            export = served.request("ExportGame", game_id=game_id)
            exported = await unary(carol, served.method("ExportGame"), export)
            listed = await unary(carol, served.method("ListGames"), served.request("ListGames"))
        stored = read_stream(database_url, f"{name}-{game_id}")
        published = [await sub.next_msg(timeout=10) for _ in stored]
        with pytest.raises(nats.errors.TimeoutError):
            await sub.next_msg(timeout=0.3)
    finally:
        await nc.close()

    # Watched: every version once, in order, ending finished; the last picture is the game's.
    versions = [w.event.info.version for w in watched]
    assert versions == list(range(1, len(stored) + 1))
    assert watched[-1].event.WhichOneof("body") == "game_finished"
    assert watched[-1].game == final.game
    # The store: as the rules decide it today (``parlor verify``'s check), and its replay
    # over gRPC gives every picture the watcher was shown, the live game's last.
    events = [game.codec.decode(r.type, r.data) for r in stored]
    verdict = verify_history(game.decider, game.command_of, events, create_of=game.create_of)
    assert verdict.ok, verdict.divergence
    assert game.decider.is_terminal(verdict.final)
    assert len(replayed) == len(stored)
    assert replayed[-1].game == final.game
    # Listed finished, at its last version, to anyone.
    (summary,) = [g for g in listed.games if g.game_id == game_id]
    assert summary.finish_reason
    assert summary.version == len(stored)
    # Exported in the game's notation: the seat tags, then its record of its own events (or
    # the whole text, for a game that writes its export itself).
    moves, seat_lines, finished = export_parts(events)
    if isinstance(game.hosting, Exports):
        expected = game.hosting.export(game_id, verdict.final.game, moves, seat_lines, finished)
        assert exported.text == expected
    else:
        assert game.notation is not None, f"{name} declares no notation"
        record = game.notation(moves)
        lines = [record] if isinstance(record, str) else list(record)
        assert exported.text == "\n".join([*seat_lines, *lines])
    # On NATS once each, in order, with nothing the rules keep from someone with no seat
    # (their ``Secret`` fields; a game that hides nothing passes as it is). The watcher saw
    # each event so, or whole once the game was over (the end reveals what was hidden).
    assert [int(m.headers["Parlor-Version"]) for m in published] == versions
    assert any(secrets_in(e) for e in events) == game.hides  # what the check looks for
    for event, seen, message in zip(events, watched, published, strict=True):
        carried = game.codec.decode(message.headers["Parlor-Event-Type"], message.data)
        assert not secrets_in(carried), f"NATS {message.subject}: {secrets_in(carried)}"
        shown = game.codec.decode(*body_bytes(seen))
        assert shown == event or not secrets_in(shown), f"watched v{seen.event.info.version}"
