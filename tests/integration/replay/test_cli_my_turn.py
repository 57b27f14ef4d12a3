"""Twenty correspondence games for one player: the server's `ListGames` with `my_turn_first`
orders them (hers by deadline, then the others newest first, paged), `parlor games
--my-turn` lists those waiting for her by deadline from it, `parlor next` names the
soonest, and a move there jumps to the next."""

from __future__ import annotations

import asyncio
import random
import re
import uuid

import grpc
import pytest
from typer.testing import CliRunner, Result

from parlor.cli.main import app
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.kit.status import reason_of

pytestmark = pytest.mark.integration
DAY = 86_400


async def cli(*args: str) -> Result:
    return await asyncio.to_thread(CliRunner().invoke, app, list(args), catch_exceptions=False)


async def test_twenty_correspondence_games_in_deadline_order(start_platform) -> None:  # type: ignore[no-untyped-def]
    ada, bob = f"ada-{uuid.uuid4().hex[:8]}", f"bob-{uuid.uuid4().hex[:8]}"
    days = random.Random(41).sample([d for d in range(1, 15)] * 2, 20)
    async with start_platform("connect4x4") as platform:
        async with platform.service_channel() as channel:
            service = pb_grpc.Connect4x4ServiceStub(channel)
            made: list[tuple[str, int, bool]] = []
            for n, d in enumerate(days):
                # all against bob: 14 with her move first, 6 with his
                hers = n % 10 < 7
                seats = [(ada, "Ada"), (bob, "Bob")] if hers else [(bob, "Bob"), (ada, "Ada")]
                game = await service.CreateGame(
                    pb.CreateGameRequest(
                        seats=[common_pb2.Seat(player_id=p, display_name=m) for p, m in seats],
                        time_control=common_pb2.TimeControl(
                            kind=common_pb2.TimeControl.KIND_CORRESPONDENCE, move_seconds=d * DAY
                        ),
                    )
                )
                made.append((game.game.game_id, d, hers))
        # The server's order, a page of 6 at a time: hers by deadline, then bob's newest first.
        expected = [g for g, _, hers in sorted(made, key=lambda m: m[1]) if hers]
        theirs = [g for g, _, hers in reversed(made) if not hers]
        async with platform.channel(ada) as mine:
            games = pb_grpc.Connect4x4ServiceStub(mine)
            pages: list[pb.GameSummary] = []
            token = ""
            while True:
                page = await games.ListGames(
                    pb.ListGamesRequest(my_turn_first=True, page_size=6, page_token=token)
                )
                pages += page.games
                token = page.next_page_token
                if not token:
                    break
            assert [g.game_id for g in pages] == expected + theirs
            assert [g.to_move for g in pages] == [True] * 14 + [False] * 6
            deadlines = [g.deadline.ToDatetime() for g in pages[:14]]
            assert deadlines == sorted(deadlines)
            assert not any(g.HasField("deadline") for g in pages[14:])
            for bad, reason in (
                (pb.ListGamesRequest(my_turn_first=True, player_id=bob), "MY_TURN_OWN_GAMES"),
                (
                    pb.ListGamesRequest(my_turn_first=True, finished_only=True),
                    "CONFLICTING_FILTERS",
                ),
                (pb.ListGamesRequest(my_turn_first=True, page_token="x|y"), "INVALID_PAGE_TOKEN"),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await games.ListGames(bad)
                assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert reason_of(refused.value) == reason
        target = ["--target", platform.target, "--token", platform.token(ada)]
        listed = await cli("games", "--my-turn", *target)
        assert listed.exit_code == 0, listed.output
        shown = re.findall(r"[0-9a-f]{32}", listed.output)
        # hers only, by deadline: the fewest days first, then the earlier created
        assert len(expected) == 14
        assert shown == expected, listed.output
        first = await cli("next", *target)
        assert first.exit_code == 0, first.output
        assert f"--join {expected[0]}" in first.output
        async with platform.channel(ada) as mine:
            await pb_grpc.Connect4x4ServiceStub(mine).PlayMove(
                pb.PlayMoveRequest(game_id=expected[0], move="af")
            )
        # bob's turn there now: the next game waiting for her is the one after it
        after = await cli("next", *target)
        assert f"--join {expected[1]}" in after.output, after.output
