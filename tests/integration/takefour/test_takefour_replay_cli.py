"""The ``parlor`` CLI plays Take Four against an in-process platform (with its dictionary).

A whole game typed through stdin (every kind of command, some refused), then replay to a
version, play back, export in both formats (the text is the service's own export), the
list and ``parlor verify`` over every stored Take Four game, clean, then over a copy with
one deal falsified, reported at that deal. A second game against a bot shows the bot
playing on the server by itself while the player only looks.

The CLI is synchronous, so each invocation runs in a worker thread while the platform
serves on the test's event loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import uuid
from typing import Any

import pytest
from kits.takefour import tile_set
from sqlalchemy import text
from typer.testing import CliRunner, Result

from parlor.cli.main import app
from parlor.common.v1 import common_pb2
from parlor.eventstore import NO_STREAM, NewEvent, PostgresEventStore
from parlor.rules import takefour as tf
from parlor.services.takefour.game import Codec, tiles_pb
from parlor.takefour.v1 import takefour_pb2 as pb
from parlor.takefour.v1 import takefour_pb2_grpc as pb_grpc

pytestmark = pytest.mark.integration

TAKEFOUR = ["--game-type", "takefour"]


async def cli(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> Result:
    runner = CliRunner()
    return await asyncio.to_thread(
        runner.invoke, app, list(args), input=stdin, env=env, catch_exceptions=False
    )


def typed_game(hand: list[str]) -> list[str]:
    """Ada's commands for her start hand (faces E or ?), then the last deal, then Done.

    Twelve tiles, two players: the start deal leaves four in the bag; Ada's Take Four deals
    the last two each (E or joker, unknown here: both are typed, one of each pair refused).
    """

    def place(face: str, x: int, y: int = 0) -> str:
        return f"place {'?=e' if face == '?' else 'e'} {x},{y}"

    lines = ["agree", "withdraw", "jump", "place x 9,9"]  # the last two are not understood
    rest = sorted(hand, key=lambda face: face != "?")  # jokers first
    x = 0
    if "?" in rest and "E" in rest:
        lines += ["place ?=e 0,0", "swap 0,0"]  # a hand E takes the joker's cell
        rest.remove("E")  # the joker is back in the hand, after the other jokers
        x = 1
    for face in rest:
        lines.append(place(face, x))
        x += 1
    last = x - 1
    relettered = " =s" if rest[-1] == "?" else ""
    lines += [f"move {last},0 > {last},1{relettered}", f"take {last},1", place(rest[-1], last)]
    lines += ["look", "takefour"]
    for x in (0, 1):
        lines += [place("E", x, 1), place("?", x, 1)]
    return [*lines, "done"]


async def test_a_whole_game_typed_then_replay_export_list_and_verify(
    takefour: Any, database_url: str
) -> None:
    game_id = uuid.uuid4().hex
    where = ["--target", takefour.target, "--token", takefour.token("ada")]
    config = pb.Config(tiles=tiles_pb(tile_set("E8", jokers=4)), max_rounds=1)
    async with takefour.channel("ada") as channel:
        ada = pb_grpc.TakeFourServiceStub(channel)
        async with takefour.service_channel() as s_ch:  # ada and bob agreed elsewhere
            await pb_grpc.TakeFourServiceStub(s_ch).CreateGame(
                pb.CreateGameRequest(
                    game_id=game_id,
                    seats=[
                        common_pb2.Seat(player_id="ada", display_name="Ada"),
                        common_pb2.Seat(player_id="bob", display_name="Bob"),
                    ],
                    config=config,
                )
            )
        created = await ada.GetGame(pb.GetGameRequest(game_id=game_id))  # as ada sees it
        hand = [t.face for t in created.game.seats[0].hand]
        typed = "\n".join(typed_game(hand)) + "\n"
        played = await cli("play", "takefour", "--join", game_id, *where, stdin=typed)
        assert played.exit_code == 0, played.output
        out = played.output
        assert "Take Four, round 1: playing   bag 4" in out
        assert "your grid" in out
        assert "your hand:" in out
        assert "Bob's grid: 0 tiles, hand: 4 tiles (hidden)" in out
        assert "played: Ada agrees to a stalemate deal" in out
        assert "played: Ada withdraws their agreement" in out
        assert "unknown command 'jump'" in out
        assert "no X in your hand" in out
        assert "played: Ada calls Take Four!; deal (last): 2/2 tiles; bag 0 left" in out
        assert "played: Ada calls Done; round 1 scored:" in out
        assert "game over:" in out
        assert f"replay it: parlor replay {game_id} --game-type takefour" in out
        if "?" in hand and "E" in hand:
            assert "put " in out  # the swap: a hand E took the joker's cell
        exported_by_service = (await ada.ExportGame(pb.ExportGameRequest(game_id=game_id))).notation
        final = (await ada.GetGame(pb.GetGameRequest(game_id=game_id))).game
    assert final.phase == pb.PHASE_OVER
    last = final.version

    exported = await cli("export", game_id, *TAKEFOUR, *where)
    assert exported.exit_code == 0, exported.output
    events = [json.loads(line) for line in exported.output.splitlines()]
    assert [int(e["info"]["version"]) for e in events] == list(range(1, last + 1))
    assert "seats_taken" in events[0]
    assert "game_finished" in events[-1]
    bob_dealt = events[3]["tiles_dealt"]["secret"]["hands"][1]["tiles"]
    assert len(bob_dealt) == 4  # the game is over: everyone's deal is shown

    as_text = await cli("export", game_id, "--format", "text", *TAKEFOUR, *where)
    assert as_text.exit_code == 0, as_text.output
    assert as_text.output == exported_by_service
    assert re.search(r"^s0 place \d+\?=E @0,0$", as_text.output, re.M) or "?" not in hand

    at = await cli("replay", game_id, "--to", "4", *TAKEFOUR, *where)
    assert at.exit_code == 0, at.output
    assert f"{game_id} at version 4" in at.output
    assert "Bob's hand: " in at.output  # over: the past shows every hand
    assert "Bob's grid" in at.output

    stepped = await cli("replay", game_id, "--step", *TAKEFOUR, *where, stdin="\n" * last)
    assert stepped.exit_code == 0, stepped.output
    assert re.findall(r"v(\d+)/\d+:", stepped.output) == [str(v) for v in range(1, last + 1)]

    back = await cli("replay", game_id, "--pace", "0", *TAKEFOUR, *where)
    assert back.exit_code == 0, back.output
    assert re.findall(r"v(\d+):", back.output) == [str(v) for v in range(1, last + 1)]
    assert "Ada calls Take Four!" in back.output

    watched = await cli("watch", game_id, *TAKEFOUR, *where)
    assert watched.exit_code == 0, watched.output
    assert "game over:" in watched.output

    listed = await cli("games", "--finished", *TAKEFOUR, *where)
    assert listed.exit_code == 0, listed.output
    assert game_id in listed.output
    assert "ROUNDS_PLAYED" in listed.output

    # Every Take Four game this test session stored verifies clean...
    clean = await cli("verify", "--game-type", "takefour")
    assert clean.exit_code == 0, clean.output
    counted = re.search(r"verified (\d+) games .*: (\d+) ok, 0 diverge", clean.output)
    assert counted, clean.output
    assert int(counted.group(1)) >= 1

    # ...and a copy with the start deal falsified is reported at that deal.
    store = PostgresEventStore(database_url)
    codec = Codec()
    copy_id = f"{game_id}-corrupt-{uuid.uuid4().hex[:6]}"
    try:
        records = await store.read_stream(f"takefour-{game_id}")
        decoded = [codec.decode(r.type, r.data) for r in records]
        bad = next(i for i, e in enumerate(decoded) if isinstance(e, tf.TilesDealt))
        dealt = decoded[bad]
        assert isinstance(dealt, tf.TilesDealt)
        decoded[bad] = dataclasses.replace(dealt, hands=(dealt.hands[1], dealt.hands[0]))
        await store.append(
            f"takefour-{copy_id}",
            [NewEvent(*codec.encode(e)) for e in decoded],
            expected_version=NO_STREAM,
        )
        broken = await cli("verify", "--game-type", "takefour", "--game-id", copy_id)
        assert broken.exit_code == 1, broken.output
        assert f"takefour-{copy_id} at version {bad + 1}: EVENT_DIFFERS" in broken.output
    finally:
        # Leave only games the rules made: other tests verify every stored game.
        async with store.engine.begin() as conn:
            await conn.execute(
                text("DELETE FROM events WHERE stream_id = :s"), {"s": f"takefour-{copy_id}"}
            )
            if (await conn.execute(text("SELECT to_regclass('game_directory')"))).scalar():
                await conn.execute(
                    text("DELETE FROM game_directory WHERE stream_id = :s"),
                    {"s": f"takefour-{copy_id}"},
                )
        await store.close()


async def test_a_game_against_a_bot_that_plays_on_the_server_by_itself(takefour: Any) -> None:
    where = ["--target", takefour.target, "--token", takefour.token("ada")]
    played = await cli("play", "takefour", "--vs", "bot:easy", *where, stdin="look\nquit\n")
    assert played.exit_code == 0, played.output
    match = re.search(r"^game (\w+) \(takefour\)", played.output, re.M)
    assert match, played.output
    game_id = match.group(1)
    assert "bot:easy" in played.output
    assert "Take Four, round 1: playing   bag 92" in played.output
    assert "(empty: place a first tile anywhere, e.g. place A 0,0)" in played.output
    assert f"resume with: parlor play takefour --join {game_id}" in played.output

    async with takefour.channel("ada") as channel:
        ada = pb_grpc.TakeFourServiceStub(channel)
        for _ in range(100):  # the bot runner plays while Ada only looks
            game = (await ada.GetGame(pb.GetGameRequest(game_id=game_id))).game
            if game.version > 4:  # past the seats, creation and the start deal
                break
            await asyncio.sleep(0.1)
        assert game.version > 4  # the bot acted: placed tiles, or agreed to a deal when stuck
        bot = game.seats[1]
        assert not bot.visible
        assert not bot.grid  # and Ada sees only how far it got
        assert not bot.hand

    looked = await cli("play", "takefour", "--join", game_id, *where, stdin="look\nquit\n")
    assert looked.exit_code == 0, looked.output
    shown = r"bot:easy's grid: \d+ tiles?, hand: \d+ tiles? \(hidden\)"
    assert re.search(shown, looked.output), looked.output
