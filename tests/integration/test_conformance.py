"""One platform conformance run over every registered game (issue 39).

Each game registered under ``parlor.game_types``, and the tic-tac-toe example, is served on
real PostgreSQL and NATS and driven only through what the platform knows of any game: its
``GameType`` (name, seat range, bots, codec, rules, views, notation) and its service's
descriptors (``kits.conformance``). A new game gets this run by being registered.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import nats
import pytest
from google.protobuf.message_factory import GetMessageClass
from kits.conformance import (
    Served,
    game_type,
    hidden_from,
    leaks,
    registered_names,
    serving,
    stream,
    unary,
)
from leakcheck import fold, read_stream

from parlor.common.v1 import common_pb2
from parlor.core.game import secret_fields
from parlor.gamehost.pipeline.turns import Exports
from parlor.gamehost.verify.verify import verify_history
from parlor.gamehost.wire.export import export_parts
from parlor.kit.auth import AuthSettings
from parlor.kit.status import reason_of

pytestmark = pytest.mark.integration

BOTS_AT_ONCE = {
    "BOT_PAUSE_SECONDS": "0",
    "BOT_IDLE_SECONDS": "0.2",
    "BOT_HUMAN_PACE": "false",
    "BOT_ALONE_SECONDS": "3",
}
"""A bot runner's pace (``parlor.gamehost.bots.botpace``, under the game's own env names): its
bots at once, and a table of bots ended by their leaving it after a few seconds, as the
platform ends every game of bots (docs/bounds.md, "Every game ends")."""


@pytest.fixture(scope="module", params=registered_names())
async def served(
    request: pytest.FixtureRequest, migrated: None, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Served]:
    """The game's service on a platform of its own, for every test of the game."""
    name = request.param
    auth = AuthSettings(private_key=os.environ["PARLOR_JWT_PRIVATE_KEY"])
    with pytest.MonkeyPatch.context() as patch:
        for variable, value in BOTS_AT_ONCE.items():  # a game whose bots a runner plays
            patch.setenv(f"PARLOR_{name.upper()}_{variable}", value)
        with game_type(name, tmp_path_factory.mktemp(f"{name}-generated")) as (game, factories):
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
            watched = await asyncio.wait_for(stream(carol, served.method("WatchGame"), watch), 120)
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
    assert verdict.final is not None
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
    final_state = verdict.final
    assert final_state is not None
    if isinstance(game.hosting, Exports):
        expected = game.hosting.export(game_id, final_state.game, moves, seat_lines, finished)
        assert exported.text == expected
    else:
        assert game.notation is not None, f"{name} declares no notation"
        record = game.notation(moves)
        lines = [record] if isinstance(record, str) else list(record)
        assert exported.text == "\n".join([*seat_lines, *lines])
    # On NATS once each, in order, with nothing the rules keep from someone with no seat
    # (their ``Secret`` fields; a game that hides nothing passes as it is). The watcher saw
    # each event so, or whole once the game was over (the end reveals what was hidden).
    headers = [m.headers or {} for m in published]
    assert [int(h["Parlor-Version"]) for h in headers] == versions
    assert any(secrets_in(e) for e in events) == game.hides  # what the check looks for
    for event, seen, message, header in zip(events, watched, published, headers, strict=True):
        carried = game.codec.decode(header["Parlor-Event-Type"], message.data)
        assert not secrets_in(carried), f"NATS {message.subject}: {secrets_in(carried)}"
        shown = game.codec.decode(*body_bytes(seen))
        assert shown == event or not secrets_in(shown), f"watched v{seen.event.info.version}"


KNOWN_GAPS: dict[tuple[str, str], str] = {}
"""Where a registered game does not conform yet (its service's owners fix it; the check
then fails until its entry here is taken out)."""

PEOPLE = ("ada", "bob", "cyd", "dan", "eli", "fay", "gus", "hal")


def with_text(message: Any, text: str) -> Any:
    """``message`` with every text field of the move itself (not the game or command id) set
    to ``text``; None if the move has no text (a resignation)."""
    fields = [
        f
        for f in message.DESCRIPTOR.fields
        if f.type == f.TYPE_STRING and f.name not in ("game_id", "command_id")
    ]
    for field in fields:
        if field.is_repeated:
            getattr(message, field.name).append(text)
        else:
            setattr(message, field.name, text)
    return message if fields else None


async def refusal(channel: Any, method: Any, request: Any) -> tuple[Any, str]:
    """The code and reason a call is refused with (it must be refused)."""
    try:
        await unary(channel, method, request)
    except grpc.RpcError as error:
        return error.code(), reason_of(error) or ""  # type: ignore[attr-defined,arg-type]
    raise AssertionError(f"{method.name} {request} was accepted")


@dataclass
class Table:
    """A game of people between seats, as created and as a spectator first saw it."""

    game_id: str
    players: tuple[str, ...]
    version: int


async def opening(channel: Any, served: Served, watch: Any, last: int) -> list[Any]:
    """A live game's WatchGame items up to version ``last`` (the stream left open after)."""
    reply = GetMessageClass(served.method("WatchGame").output_type)
    call = channel.unary_stream(
        f"/{served.service.full_name}/WatchGame",
        request_serializer=type(watch).SerializeToString,
        response_deserializer=reply.FromString,
    )(watch, timeout=30)
    seen = []
    async for item in call:
        seen.append(item)
        if item.event.info.version == last:
            break
    call.cancel()
    return seen


async def first(channel: Any, served: Served, watch: Any) -> Any:
    (item,) = await opening(channel, served, watch, watch.after_version + 1)
    return item


async def people(
    served: Served, host: Any, carol: Any, database_url: str, *, private: bool = False
) -> Table:
    """A new game of the type between people (``PEOPLE``), its opening watched live by carol,
    who has no seat: none of the rules' ``Secret`` fields in an event she is shown, and
    nothing in her pictures that a seat's view of the game shows and no seat's does not
    (the rules' ``view``); the seat to move is shown its own (the search finds what hides)."""
    game = served.game
    game_id = f"conform-{uuid.uuid4().hex[:12]}"
    players = PEOPLE[: game.min_seats]
    create = served.request("CreateGame", game_id=game_id, seats=seats(*players), private=private)
    created = await unary(host, served.method("CreateGame"), create)
    table = Table(game_id, players, created.game.version)
    if private:
        return table
    watch = served.request("WatchGame", game_id=game_id)
    seen = await opening(carol, served, watch, table.version)
    assert [s.event.info.version for s in seen] == list(range(1, table.version + 1))
    truth = fold(database_url, game.name, game_id, game.codec, game.decider)
    hidden: set[object] = set()
    for item in seen:
        shown = game.codec.decode(*body_bytes(item))
        assert not secrets_in(shown), f"carol was shown {secrets_in(shown)}"
        state = truth.states[item.event.info.version]
        hidden = hidden_from(game.engine, state.game, len(players))
        found = leaks(item.game, hidden) | leaks(item.event, hidden)
        assert not found, f"carol's picture of v{item.event.info.version} shows {found}"
    async with served.channel(players[0]) as ada:
        after = served.request("WatchGame", game_id=game_id, after_version=table.version - 1)
        own = await first(ada, served, after)
    assert bool(leaks(own.game, hidden)) == game.hides, "the search finds nothing a seat sees"
    return table


async def test_refusals_store_nothing_and_say_why(served: Served, database_url: str) -> None:
    """A stranger's move is PERMISSION_DENIED, a move on a finished game FAILED_PRECONDITION,
    a private game NOT_FOUND to a stranger as a missing one is; each with a reason, and
    nothing stored. A request a game refuses at its edge, whoever sends it (an Upwords play
    of no tiles), is refused so to a seat of a game in progress too."""
    game, name = served.game, served.game.name
    moves = served.moves()
    assert moves, f"{name}'s service declares no move RPC"
    async with (
        served.channel("service:tests", service=True) as host,
        served.channel("carol") as carol,
        served.channel(PEOPLE[0]) as ada,
        served.channel("eve") as eve,
    ):
        table = await people(served, host, carol, database_url)
        stored = len(read_stream(database_url, f"{name}-{table.game_id}"))
        assert stored == table.version

        async def at_the_edge(method: Any, request: Any, code: Any, reason: str) -> None:
            """A refusal other than the one looked for: the request's own fault, as a seat
            of the game in progress is told."""
            request.game_id, request.command_id = table.game_id, f"ada-{method.name}"
            assert (code, reason) == await refusal(ada, method, request), method.name
            assert code == grpc.StatusCode.INVALID_ARGUMENT, (method.name, code, reason)

        # a stranger's move
        denied = 0
        for method in moves:
            request = served.request(method.name, game_id=table.game_id, command_id="eve")
            code, reason = await refusal(eve, method, request)
            assert reason, f"{method.name} refused eve without a reason"
            if code == grpc.StatusCode.PERMISSION_DENIED:
                denied += 1
            else:
                await at_the_edge(method, request, code, reason)
        assert denied, f"no move of {name} was refused to a stranger as such"
        assert len(read_stream(database_url, f"{name}-{table.game_id}")) == stored

        # a move on a finished game, by the holder of its seat (a game of bots, ended)
        bot = f"bot:{game.bots[0]}"
        game_id = f"conform-{uuid.uuid4().hex[:12]}"
        create = served.request("CreateGame", game_id=game_id, seats=seats(*[bot] * game.min_seats))
        await unary(host, served.method("CreateGame"), create)
        watch = served.request("WatchGame", game_id=game_id)
        ended = await asyncio.wait_for(stream(carol, served.method("WatchGame"), watch), 120)
        assert ended[-1].event.WhichOneof("body") == "game_finished"
        over = len(read_stream(database_url, f"{name}-{game_id}"))
        # a move as the game writes one (its events' notation), where its moves are text
        written = [getattr(w.event, "notation", "") for w in ended]
        notation = next((n for n in reversed(written) if n), "")
        refused_over = 0
        async with served.channel(bot) as holder:
            for method in moves:
                request = served.request(method.name, game_id=game_id, command_id="late", seat=0)
                if notation:
                    request = with_text(request, notation) or request
                code, reason = await refusal(holder, method, request)
                assert reason, f"{method.name} on a finished game refused without a reason"
                if code == grpc.StatusCode.FAILED_PRECONDITION:
                    refused_over += 1
                else:
                    await at_the_edge(method, request, code, reason)
        assert refused_over, f"no move on a finished {name} game was FAILED_PRECONDITION"
        assert len(read_stream(database_url, f"{name}-{game_id}")) == over

        # a private game, to a stranger, is a game that does not exist
        create_fields = served.method("CreateGame").input_type.fields_by_name
        if "private" in create_fields:
            hidden = await people(served, host, carol, database_url, private=True)
            missing = f"conform-missing-{uuid.uuid4().hex[:8]}"
            for rpc in ("GetGame", "GetHistory", "ExportGame"):
                method = served.method(rpc)
                answer = await refusal(eve, method, served.request(rpc, game_id=hidden.game_id))
                nothing = await refusal(eve, method, served.request(rpc, game_id=missing))
                assert answer == nothing, rpc
                assert answer[0] == grpc.StatusCode.NOT_FOUND, (rpc, answer)
                assert answer[1], rpc
            listed = await unary(eve, served.method("ListGames"), served.request("ListGames"))
            assert hidden.game_id not in {g.game_id for g in listed.games}


@dataclass
class Seated:
    """Channels to a game of people just opened: the platform's, a spectator's, seat 0's."""

    host: Any
    carol: Any
    ada: Any
    table: Table


@contextlib.asynccontextmanager
async def at_a_table(served: Served, database_url: str) -> AsyncIterator[Seated]:
    async with (
        served.channel("service:tests", service=True) as host,
        served.channel("carol") as carol,
        served.channel(PEOPLE[0]) as ada,
    ):
        yield Seated(host, carol, ada, await people(served, host, carol, database_url))


def conforms_or_known_gap(name: str, check: str, conforms: bool, detail: object) -> None:
    """Pass if the game conforms; a known gap (``KNOWN_GAPS``) fails once it conforms."""
    gap = KNOWN_GAPS.get((name, check))
    if gap is not None:
        assert not conforms, f"{name} conforms now: take its gap out of KNOWN_GAPS"
        pytest.xfail(f"{gap}: {detail}")
    assert conforms, detail


async def test_a_game_in_play_is_read_by_a_seat_and_a_spectator(
    served: Served, database_url: str
) -> None:
    """GetGame of a game in play, as its seat to move and as a spectator: the game at its
    version, its seats as WatchGame showed them (the clocks are as of the call)."""
    failed: list[str] = []
    async with at_a_table(served, database_url) as at:
        table = at.table
        watch = served.request("WatchGame", game_id=table.game_id, after_version=table.version - 1)
        read = served.request("GetGame", game_id=table.game_id)
        for channel in (at.ada, at.carol):
            watched = await first(channel, served, watch)
            try:
                got = await unary(channel, served.method("GetGame"), read)
            except grpc.RpcError as error:
                failed.append(f"{error.code().name} {error.details()}")  # type: ignore[attr-defined]
                continue
            assert got.game.version == table.version
            assert list(got.game.seats) == list(watched.game.seats)
    conforms_or_known_gap(served.game.name, "get-game-in-play", not failed, failed)


async def test_a_malformed_move_is_invalid_argument(served: Served, database_url: str) -> None:
    """Every move whose request carries text (a move in notation, a word, a letter), sent by
    the seat to move with text no game reads as a move, is INVALID_ARGUMENT with a reason, and
    nothing is stored."""
    name = served.game.name
    checked = []
    async with at_a_table(served, database_url) as at:
        for method in served.moves():
            request = served.request(method.name, game_id=at.table.game_id, command_id=method.name)
            malformed = with_text(request, "?!")
            if malformed is None:
                continue
            code, reason = await refusal(at.ada, method, malformed)
            checked.append((method.name, code.name, reason))
        assert checked, f"no move of {name} takes text"
        assert len(read_stream(database_url, f"{name}-{at.table.game_id}")) == at.table.version
    conforms = all(code == "INVALID_ARGUMENT" and reason for _, code, reason in checked)
    conforms_or_known_gap(name, "malformed", conforms, checked)
