"""``parlor tournament`` against the tournament component on PostgreSQL: a tournament created
from the terminal is listed, entered by a bot, exported, and an invitation-only one is joined
with its code."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from typing import Any

import pytest
from kits.callers import calling
from typer.testing import CliRunner, Result

from parlor.cli.main import app
from parlor.common.v1 import common_pb2

pytestmark = [pytest.mark.integration]


async def cli(*args: str) -> Result:
    return await asyncio.to_thread(CliRunner().invoke, app, list(args))


async def test_create_list_join_and_export_from_the_terminal(start_platform: Any) -> None:
    organiser, guest = f"org-{secrets.token_hex(4)}", f"guest-{secrets.token_hex(4)}"
    name = f"CLI Swiss {secrets.token_hex(3)}"
    async with start_platform("tournament") as platform:
        where = ["--target", platform.target]
        mine = [*where, "--token", platform.token(organiser)]
        made = await cli("tournament", "create", "connect4x4", "--rounds", "3", "-n", name, *mine)
        assert made.exit_code == 0, made.output
        found = re.search(r"tournament: ([0-9a-f]{32})", made.output)
        assert found is not None
        tid = found[1]
        listed = await cli("tournament", "list", "--status", "upcoming", *mine)
        assert listed.exit_code == 0, listed.output
        assert tid in listed.output
        assert name in listed.output
        bot = await cli("tournament", "join", tid, "--bot", "random", *mine)
        assert bot.exit_code == 0, bot.output
        assert "entered: bot:random#1" in bot.output
        exported = await cli("tournament", "export", tid, *mine)
        assert exported.exit_code == 0, exported.output
        assert "bot:random#1" in exported.output

        invited = await cli(
            "tournament", "create", "connect4x4", "--rounds", "2", "--invite", *mine
        )
        assert invited.exit_code == 0, invited.output
        code = re.search(r"invite code: (\S+)", invited.output)
        other = re.search(r"tournament: ([0-9a-f]{32})", invited.output)
        assert code is not None
        assert other is not None
        theirs = [*where, "--token", platform.token(guest)]
        refused = await cli("tournament", "join", other[1], *theirs)
        assert refused.exit_code != 0
        assert "PERMISSION_DENIED: this tournament is by invitation" in refused.output
        joined = await cli("tournament", "join", other[1], "--code", code[1], *theirs)
        assert joined.exit_code == 0, joined.output
        assert f"entered: {guest}" in joined.output


async def test_a_guest_with_no_login_lists_and_exports_open_tournaments(
    start_platform: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """Reading tournaments needs no account: with no --token, no PARLOR_TOKEN and no
    `parlor login` at the target, the CLI reads as a new guest (creating still asks for an
    account)."""
    monkeypatch.delenv("PARLOR_TOKEN", raising=False)
    monkeypatch.setenv("PARLOR_CONFIG_DIR", str(tmp_path))  # no stored login anywhere
    name = f"Open Swiss {secrets.token_hex(3)}"
    async with start_platform("tournament") as platform:
        where = ["--target", platform.target]
        mine = [*where, "--token", platform.token(f"org-{secrets.token_hex(4)}")]
        made = await cli("tournament", "create", "connect4x4", "--rounds", "2", "-n", name, *mine)
        assert made.exit_code == 0, made.output
        found = re.search(r"tournament: ([0-9a-f]{32})", made.output)
        assert found is not None
        listed = await cli("tournament", "list", *where)
        assert listed.exit_code == 0, listed.output
        assert found[1] in listed.output
        assert name in listed.output
        exported = await cli("tournament", "export", found[1], *where)
        assert exported.exit_code == 0, exported.output
        assert name in exported.output
        refused = await cli("tournament", "create", "connect4x4", "--rounds", "2", *where)
        assert refused.exit_code != 0
        assert "`parlor login` first" in refused.output


async def test_parlor_verify_re_decides_tournaments(tournament_url: str) -> None:
    """A Swiss played to its end verifies; one whose stored result was changed does not."""
    from test_tournament_servicer import Platform, create, swiss

    from parlor.eventstore import PostgresEventStore
    from parlor.eventstore.events import NewEvent
    from parlor.tournaments.v1 import tournaments_pb2 as pb

    store = PostgresEventStore(tournament_url)
    try:
        platform = Platform(store)
        organiser = f"org-{secrets.token_hex(4)}"
        tid = (await create(platform, organiser, swiss(4, 2))).tournament.tournament_id
        with calling(organiser):
            for _ in range(4):
                await platform.service.JoinTournament(
                    pb.JoinTournamentRequest(tournament_id=tid, bot_level="random"), None
                )
            await platform.service.StartTournament(
                pb.StartTournamentRequest(tournament_id=tid), None
            )
        for _ in range(2):
            await platform.driver.step()
            await platform.play_out(tid)
            await platform.driver.step()
        where = ["--database-url", tournament_url]
        good = await cli("verify", "--tournament", tid, *where)
        assert good.exit_code == 0, good.output
        assert "verified 1 tournaments: 1 ok, 0 diverge" in good.output
        # a game's own stream ends otherwise than the tournament scored it
        state, _ = await platform.tournaments.load(tid)
        game = next(iter(state.games.values()))
        stream = f"connect4x4-{game.game_id}"
        (finished,) = [e for e in await store.read_stream(stream) if "GameFinished" in e.type]
        message = common_pb2.GameFinished.FromString(finished.data)
        for result in message.results:
            result.rank = 3 - result.rank  # the winner lost
        await store.append(stream, [NewEvent(finished.type, message.SerializeToString())], -1)
        bad = await cli("verify", "--tournament", tid, *where)
        assert bad.exit_code == 1, bad.output
        said = " ".join(bad.output.split())  # the terminal's wrapping undone
        assert f"(GameScored): game {game.game_id} ended" in said
        assert "verified 1 tournaments: 0 ok, 1 diverge" in said
    finally:
        await store.close()


async def test_the_python_client_creates_enters_watches_and_exports(start_platform: Any) -> None:
    from parlor.client import ParlorClient
    from parlor.tournaments.v1 import tournaments_pb2 as pb

    organiser = f"org-{secrets.token_hex(4)}"
    async with (
        start_platform("tournament") as platform,
        ParlorClient(platform.target, platform.token(organiser)) as parlor,
    ):
        made = await parlor.tournaments.create(
            pb.Settings(
                name="From the client",
                format=pb.FORMAT_SWISS,
                game_type="connect4x4",
                max_players=4,
                rounds=2,
            )
        )
        tid = made.tournament.tournament_id
        entered = [await parlor.tournaments.join(tid, bot_level="random") for _ in range(2)]
        assert entered == ["bot:random#1", "bot:random#2"]
        listed = await parlor.tournaments.list(pb.STATUS_UPCOMING)
        assert tid in [t.tournament_id for t in listed]
        got = await parlor.tournaments.get(tid)
        assert [e.player_id for e in got.entrants] == entered
        watched = parlor.tournaments.watch(tid)
        first = await anext(watched)
        assert first.current.tournament_id == tid
        await parlor.tournaments.remove(tid, entered[1], "changed my mind")
        change = await anext(watched)
        assert [c.kind for c in change.changes] == [pb.CHANGE_KIND_REMOVED]
        assert change.position == first.position + 1
        await watched.aclose()
        exported = json.loads(await parlor.tournaments.export(tid))
        assert exported["standings"][0]["player"] == entered[0]
