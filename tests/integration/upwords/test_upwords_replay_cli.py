"""``parlor`` with Upwords against an in-process platform (and dictionary): games typed through
stdin against a bot, then replay to a version, step through, play back, watch, export in both
formats, list, and verify every stored Upwords game (clean, then a corrupted copy).

The CLI is synchronous, so each invocation runs in a worker thread while the platform serves
on the test's event loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import uuid
from typing import Any

import pytest
from sqlalchemy import text
from typer.testing import CliRunner, Result

from parlor.cli.main import app
from parlor.common.v1 import common_pb2
from parlor.eventstore import NO_STREAM, NewEvent, PostgresEventStore
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import UpwordsBot
from parlor.rules.upwords.notation import format_play
from parlor.services.upwords.game import Codec
from parlor.upwords.v1 import upwords_pb2 as pb
from parlor.upwords.v1 import upwords_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration


async def cli(*args: str, stdin: str = "") -> Result:
    runner = CliRunner()
    return await asyncio.to_thread(
        runner.invoke, app, list(args), input=stdin, catch_exceptions=False
    )


def board_of(game: pb.Game) -> uw.Board:
    return uw.Board(tuple(tuple(s.tiles) for s in game.board))


def spelled_out(move: str) -> str:
    """``5E WORD`` -> ``E5 across WORD``; ``E5 WORD`` -> ``E5 down WORD`` (the other form)."""
    coordinate, word = move.split()
    if coordinate[0].isdigit():
        return f"{coordinate[-1]}{coordinate[:-1]} across {word}"
    return f"{coordinate} down {word}"


class NoPlay(Exception):
    """The deal left a rack with no word the script needs: deal a new game."""


async def challenge_game(upwords: Any, bot: UpwordsBot, words: frozenset[str]) -> str:
    """``scripted_challenge_game``, dealt again (at most 8 times) when a rack has no play."""
    for _ in range(8):
        try:
            return await scripted_challenge_game(upwords, bot, words)
        except NoPlay:
            continue
    raise AssertionError("eight deals in a row left a rack without a play")


async def scripted_challenge_game(upwords: Any, bot: UpwordsBot, words: frozenset[str]) -> str:
    """Two people in challenge mode: a phony taken back, plays that stand by an exchange, a
    failed challenge and a pass (each closing the window of the play before), a resignation."""
    game_id = uuid.uuid4().hex
    async with upwords.channel("ada") as a, upwords.channel("bob") as b:
        stubs = [pb_grpc.UpwordsServiceStub(a), pb_grpc.UpwordsServiceStub(b)]
        async with upwords.service_channel() as s_ch:  # ada and bob agreed elsewhere
            created = await pb_grpc.UpwordsServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(
                    game_id=game_id,
                    seats=[common_pb2.Seat(player_id=p) for p in ("ada", "bob")],
                    config=pb.Config(word_checking=pb.WORD_CHECKING_CHALLENGE),
                )
            )
        mover = created.game.to_move
        other = 1 - mover

        async def best(seat: int) -> pb.PlayRequest:
            game = (await stubs[seat].GetGame(pb.GetGameRequest(game_id=game_id))).game
            play = bot.best_play(board_of(game), tuple(game.rack))
            if play is None:
                await stubs[seat].Resign(pb.ResignRequest(game_id=game_id))
                raise NoPlay
            return pb.PlayRequest(
                game_id=game_id, move=format_play(board_of(game), play.placements)
            )

        rack = (await stubs[mover].GetGame(pb.GetGameRequest(game_id=game_id))).game.rack
        phony = next((x, y) for x in rack for y in rack if (x + y).lower() not in words and x != y)
        await stubs[mover].Play(pb.PlayRequest(game_id=game_id, move=f"5E {phony[0]}{phony[1]}"))
        challenged = await stubs[other].Challenge(pb.ChallengeRequest(game_id=game_id))
        assert challenged.events[0].HasField("play_withdrawn")
        await stubs[mover].Play(await best(mover))
        tile = (await stubs[other].GetGame(pb.GetGameRequest(game_id=game_id))).game.rack[0]
        exchanged = await stubs[other].Exchange(pb.ExchangeRequest(game_id=game_id, tile=tile))
        assert [e.WhichOneof("body") for e in exchanged.events] == [
            "play_accepted",
            "tiles_drawn",
            "tile_exchanged",
        ]
        await stubs[mover].Play(await best(mover))
        failed = await stubs[other].Challenge(pb.ChallengeRequest(game_id=game_id))
        assert failed.events[0].HasField("challenge_failed")
        await stubs[other].Play(await best(other))
        passed = await stubs[mover].Pass(pb.PassRequest(game_id=game_id))
        assert [e.WhichOneof("body") for e in passed.events][::2] == ["play_accepted", "passed"]
        await stubs[other].Resign(pb.ResignRequest(game_id=game_id))
    return game_id


async def test_a_game_typed_against_a_bot_from_create_to_resignation(upwords: Any) -> None:
    where = ["--target", upwords.platform.target, "--token", upwords.platform.token("ada")]
    typed = ["hello there", "5e zq", "exchange 7", "pass", "resign"]
    played = await cli("play", "upwords", *where, stdin="\n".join(typed) + "\n")
    assert played.exit_code == 0, played.output
    match = re.search(r"^game (\w+) \(upwords\)", played.output, re.M)
    assert match, played.output
    assert "letter + stack height" in played.output
    assert re.search(r"^your rack: (\S+ ){6}\S+$", played.output, re.M)
    assert re.search(r"^  bot:best: \d+ points, 7 tiles$", played.output, re.M)  # the default bot
    assert "INVALID_ARGUMENT: cannot read move" in played.output  # refused, asked again
    assert "UNKNOWN" not in played.output
    assert "played: Ada passes; bot:best "  # the name in the token in played.output
    assert "game over:" in played.output
    assert f"replay it: parlor replay {match.group(1)}" in played.output


async def test_typed_plays_then_replay_export_list_and_verify(
    upwords: Any, helper_bot: UpwordsBot, words: frozenset[str], database_url: str
) -> None:
    game_id = uuid.uuid4().hex
    where = ["--target", upwords.platform.target, "--token", upwords.platform.token("ada")]
    async with upwords.channel("ada") as channel:
        ada = pb_grpc.UpwordsServiceStub(channel)
        await ada.CreateGame(
            pb.CreateGameRequest(
                game_id=game_id,
                seats=[
                    common_pb2.Seat(player_id="ada", display_name="Ada"),
                    common_pb2.Seat(player_id="bot:best", display_name="Bot"),
                ],
            )
        )
        # Each turn typed into its own `parlor play --join`, from the rack the test can see.
        for turn in range(5):
            game = (await ada.GetGame(pb.GetGameRequest(game_id=game_id))).game
            assert game.to_move == 0
            play = helper_bot.best_play(board_of(game), tuple(game.rack))
            if turn == 3:
                line, said = f"exchange {game.rack[0]}", f"Ada exchanges {game.rack[0]} for "
            elif play is None:
                line, said = "pass", "Ada passes"
            else:
                move = format_play(board_of(game), play.placements)
                line = spelled_out(move) if turn % 2 else move.lower()
                said = f"Ada {move} +{play.score} ("
            session = await cli(
                "play", "upwords", "--join", game_id, *where, stdin=f"{line}\nquit\n"
            )
            assert session.exit_code == 0, session.output
            assert f"played: {said}" in session.output, (line, session.output)
        resigned = await cli("play", "upwords", "--join", game_id, *where, stdin="resign\n")
        assert resigned.exit_code == 0, resigned.output
        assert "game over: Bot wins (RESIGNED)" in resigned.output
        history = list((await ada.GetHistory(pb.GetHistoryRequest(game_id=game_id))).events)
        record = (await ada.ExportGame(pb.ExportGameRequest(game_id=game_id))).text
    last = len(history)
    as_upwords = ["--game-type", "upwords", *where]

    first_play = next(e for e in history if e.HasField("word_played"))
    at = await cli("replay", game_id, "--to", str(first_play.info.version), *as_upwords)
    assert at.exit_code == 0, at.output
    assert f"{game_id} at version {first_play.info.version}" in at.output
    for p in first_play.word_played.placements:
        assert re.search(rf"^ *{p.row + 1} .*{p.tile}1", at.output, re.M), (p, at.output)

    back = await cli("replay", game_id, "--pace", "0", *as_upwords)
    assert back.exit_code == 0, back.output
    assert re.findall(r"v(\d+):", back.output) == [str(v) for v in range(1, last + 1)]
    assert "game ends (RESIGNED)" in back.output

    stepped = await cli("replay", game_id, "--step", *as_upwords, stdin="\n" * last)
    assert stepped.exit_code == 0, stepped.output
    assert re.findall(r"v(\d+)/\d+:", stepped.output) == [str(v) for v in range(1, last + 1)]

    watched = await cli("watch", game_id, *as_upwords)
    assert watched.exit_code == 0, watched.output
    assert "game over: Bot wins (RESIGNED)" in watched.output

    exported = await cli("export", game_id, *as_upwords)
    assert exported.exit_code == 0, exported.output
    events = [json.loads(line) for line in exported.output.splitlines()]
    assert [int(e["info"]["version"]) for e in events] == list(range(1, last + 1))
    assert "seats_taken" in events[0]
    assert "game_finished" in events[-1]
    assert [e["notation"] for e in events] == [e.notation for e in history]
    assert all(len(e["tiles_drawn"]["drawn"]) for e in events if "tiles_drawn" in e)  # revealed

    transcript = await cli("export", game_id, "--format", "text", *as_upwords)
    assert transcript.exit_code == 0, transcript.output
    assert transcript.output == record  # the service's own GCG-like record, line for line
    assert re.search(r"^>ada: [A-Z]+ -[A-Z]+ \+0 \d+$", record, re.M)  # the exchange

    listed = await cli("games", "--finished", *as_upwords)
    assert listed.exit_code == 0, listed.output
    assert game_id in listed.output

    # A challenge-mode game verifies: the verdicts recorded in its challenges go back in.
    challenged = await challenge_game(upwords, helper_bot, words)
    alone = await cli("verify", "--game-type", "upwords", "--game-id", challenged)
    assert alone.exit_code == 0, alone.output
    assert "verified 1 games" in alone.output

    # Every Upwords game this test session stored verifies clean...
    clean = await cli("verify", "--game-type", "upwords")
    assert clean.exit_code == 0, clean.output
    counted = re.search(r"verified (\d+) games .*: (\d+) ok, 0 diverge", clean.output)
    assert counted, clean.output
    assert int(counted.group(1)) >= 2

    # ...and a copy with one draw falsified is reported at exactly that version.
    store = PostgresEventStore(database_url)
    codec = Codec()
    copy_stream = f"upwords-{game_id}-corrupt-{uuid.uuid4().hex[:6]}"
    try:
        records = await store.read_stream(f"upwords-{game_id}")
        decoded = [codec.decode(r.type, r.data) for r in records]
        bad = next(
            i for i, e in enumerate(decoded) if isinstance(e, uw.TilesDrawn) and e.count and i > 4
        )
        drawn = decoded[bad]
        assert isinstance(drawn, uw.TilesDrawn)
        assert drawn.drawn
        other = next(t for t in uw.DISTRIBUTION if t != drawn.drawn[0])
        decoded[bad] = dataclasses.replace(drawn, drawn=(other, *drawn.drawn[1:]))
        await store.append(
            copy_stream, [NewEvent(*codec.encode(e)) for e in decoded], expected_version=NO_STREAM
        )
        copy_id = copy_stream.removeprefix("upwords-")
        broken = await cli("verify", "--game-type", "upwords", "--game-id", copy_id)
        assert broken.exit_code == 1, broken.output
        assert f"{copy_stream} at version {bad + 1}: EVENT_DIFFERS" in broken.output
        every = await cli("verify", "--game-type", "upwords")
        assert every.exit_code == 1
        assert re.search(r": \d+ ok, 1 diverge", every.output), every.output
    finally:
        # The copy would make later runs of `parlor verify` in this session diverge too.
        async with store.engine.begin() as conn:
            for table in ("events", "game_directory"):
                await conn.execute(
                    text(f"DELETE FROM {table} WHERE stream_id = :s"), {"s": copy_stream}
                )
        await store.close()
