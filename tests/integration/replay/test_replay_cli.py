"""The ``parlor`` CLI against an in-process platform: a whole game typed through stdin, then
replay to a move, step through, play back, export, list and verify (clean and corrupted);
a game left unfinished, listed among the games in progress until it is resigned.

The CLI is synchronous (it runs its own event loop for ``verify``), so each invocation runs in
a worker thread while the platform serves on the test's event loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import uuid
from itertools import cycle, islice

import pytest
from typer.testing import CliRunner, Result

from parlor.cli.main import app
from parlor.eventstore import NO_STREAM, NewEvent, PostgresEventStore
from parlor.rules import connect4x4 as c4
from parlor.services.connect4x4.game import Codec

pytestmark = pytest.mark.integration

CHECKER_MOVES = [f"{col}{side}" for col in "abcdefg" for side in "fb"]
BLOCKER_MOVES = [f"{col}x" for col in "abcdefg"]


async def cli(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> Result:
    runner = CliRunner()
    return await asyncio.to_thread(
        runner.invoke, app, list(args), input=stdin, env=env, catch_exceptions=False
    )


async def test_a_whole_game_against_a_bot_then_replay_export_and_verify(
    start_platform, own_database: str
) -> None:
    async with start_platform("connect4x4") as platform:
        where = ["--target", platform.target, "--token", platform.token("ada")]
        # Typed moves: every checker drop in turn, many times over; illegal ones (a full
        # column side) are refused with the rule's name and the next line is read.
        # Once its checkers are gone a player may still hold blockers: those come next, and a
        # resignation ends any game still running.
        lines = [*islice(cycle(CHECKER_MOVES), 200), *BLOCKER_MOVES * 3, "resign"]
        typed = "\n".join(lines) + "\n"
        played = await cli("play", "connect4x4", "--vs", "bot:random", *where, stdin=typed)
        assert played.exit_code == 0, played.output
        assert "game over:" in played.output
        assert "FRONT" in played.output
        assert "BACK" in played.output
        assert "legal: af ab" in played.output
        match = re.search(r"^game (\w+) \(connect4x4\)", played.output, re.M)
        assert match, played.output
        game_id = match.group(1)

        exported = await cli("export", game_id, *where)
        assert exported.exit_code == 0, exported.output
        events = [json.loads(line) for line in exported.output.splitlines()]
        last = len(events)
        assert [int(e["info"]["version"]) for e in events] == list(range(1, last + 1))
        assert "seats_taken" in events[0]
        assert "game_finished" in events[-1]
        moves = [e["notation"] for e in events if e.get("notation")]
        ada = [
            e["notation"]
            for e in events
            if "checker_dropped" in e and e["checker_dropped"]["seat"] == 0  # zeros are written
        ]
        assert ada
        assert set(ada) <= set(CHECKER_MOVES)

        text = await cli("export", game_id, "--format", "text", *where)
        assert text.exit_code == 0, text.output
        assert f'[Game "connect4x4-{game_id}"]' in text.output
        numbered = re.findall(r"^\d+\. [RY] (\w\w)$", text.output, re.M)
        assert numbered == moves

        at = await cli("replay", game_id, "--to", "4", *where)
        assert at.exit_code == 0, at.output
        assert f"{game_id} at version 4" in at.output
        assert "move 3:" in at.output  # creation is versions 1-2, then two drops

        stepped = await cli("replay", game_id, "--step", *where, stdin="\n" * last)
        assert stepped.exit_code == 0, stepped.output
        assert re.findall(r"v(\d+)/\d+:", stepped.output) == [str(v) for v in range(1, last + 1)]

        stopped = await cli("replay", game_id, "--step", *where, stdin="\nq\n")
        assert re.findall(r"v(\d+)/\d+:", stopped.output) == ["1", "2"]

        back = await cli("replay", game_id, "--pace", "0", *where)
        assert back.exit_code == 0, back.output
        assert re.findall(r"v(\d+):", back.output) == [str(v) for v in range(1, last + 1)]

        listed = await cli("games", "--finished", *where)
        assert listed.exit_code == 0, listed.output
        assert game_id in listed.output

        # Every Connect 4x4 game this test stored verifies clean...
        clean = await cli("verify", "--game-type", "connect4x4")
        assert clean.exit_code == 0, clean.output
        counted = re.search(r"verified (\d+) games .*: (\d+) ok, 0 diverge", clean.output)
        assert counted, clean.output
        assert int(counted.group(1)) >= 1

        # ...and a copy with one drop's row falsified is reported at that version.
        store = PostgresEventStore(own_database)
        codec = Codec()
        try:
            records = await store.read_stream(f"connect4x4-{game_id}")
            decoded = [codec.decode(r.type, r.data) for r in records]
            bad = next(
                i for i, e in enumerate(decoded) if isinstance(e, c4.CheckerDropped) and i > 4
            )
            wrong = decoded[bad]
            assert isinstance(wrong, c4.CheckerDropped)
            decoded[bad] = dataclasses.replace(wrong, row=(wrong.row + 1) % c4.ROWS)
            copy_id = f"{game_id}-corrupt-{uuid.uuid4().hex[:6]}"
            await store.append(
                f"connect4x4-{copy_id}",
                [NewEvent(*codec.encode(e)) for e in decoded],
                expected_version=NO_STREAM,
            )
        finally:
            await store.close()
        broken = await cli("verify", "--game-type", "connect4x4", "--game-id", copy_id)
        assert broken.exit_code == 1, broken.output
        assert f"connect4x4-{copy_id} at version {bad + 1}: EVENT_DIFFERS" in broken.output
        everything = await cli("verify")
        assert everything.exit_code == 1
        assert re.search(r": \d+ ok, 1 diverge", everything.output), everything.output


async def test_games_in_progress_are_listed_alone_until_resigned(start_platform) -> None:
    """A game left with ``quit`` is among the player's games in progress, to resume (or
    resign) with ``--join``; once resigned it is among the finished ones instead."""
    player = f"ida{uuid.uuid4().hex[:6]}"
    async with start_platform("connect4x4") as platform:
        where = ["--target", platform.target, "--token", platform.token(player)]
        left = await cli("play", "connect4x4", "--vs", "bot:random", *where, stdin="quit\n")
        assert left.exit_code == 0, left.output
        match = re.search(r"resume with: parlor play connect4x4 --join (\w+)", left.output)
        assert match, left.output
        game_id = match.group(1)

        going = await cli("games", "--in-progress", *where)
        assert going.exit_code == 0, going.output
        assert game_id in going.output
        assert game_id not in (await cli("games", "--finished", *where)).output
        both = await cli("games", "--finished", "--in-progress", *where)
        assert both.exit_code == 2
        assert "exclude each other" in both.output

        resigned = await cli("play", "connect4x4", "--join", game_id, *where, stdin="resign\n")
        assert resigned.exit_code == 0, resigned.output
        assert game_id not in (await cli("games", "--in-progress", *where)).output
        assert game_id in (await cli("games", "--finished", *where)).output


async def test_an_unknown_game_is_reported_not_crashed(start_platform) -> None:
    async with start_platform("connect4x4") as platform:
        where = ["--target", platform.target, "--token", platform.token("ada")]
        missing = await cli("replay", "nosuchgame", "--to", "1", *where)
        assert missing.exit_code == 1
        assert "NOT_FOUND" in missing.output or "NOT_FOUND" in (missing.stderr or "")
