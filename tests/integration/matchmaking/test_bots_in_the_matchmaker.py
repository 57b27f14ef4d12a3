"""Bot accounts in the matchmaker (SeekBot): a person asking for a bot opponent is given a
game against an available bot that accepts it, within the rating window; a bot at its
max_games is offered no more; bots' rated pool is apart from people's unless an operator
joins them; bot-against-bot games spend the owner's budget, refused past it with a reason;
a bot that stops answering times out in its game and is marked unavailable until it
declares again. Over gRPC, on PostgreSQL and NATS."""

from __future__ import annotations

import secrets
from typing import Any

import grpc
import pytest
from kits.bots import Registered, leave_pool, register_bot
from kits.scoring import eventually

from parlor.bots.v1 import bots_pb2 as bpb
from parlor.bots.v1 import bots_pb2_grpc as bpb_grpc
from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.client.errors import error_from
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.kit import client
from parlor.kit.status import reason_of

pytestmark = [pytest.mark.integration]

CASUAL = bpb.SeekBotRequest(game_type="connect4x4")


@pytest.fixture
async def platform(start_platform: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    monkeypatch.setenv("PARLOR_BOTS_GAMES_PER_OWNER_PER_HOUR", "2")
    monkeypatch.setenv("PARLOR_CLOCK_SWEEP_SECONDS", "0.2")
    async with start_platform("matchmaking", "connect4x4") as running:
        yield running


async def seek(platform: Any, token: str, request: Any = CASUAL) -> Any:
    async with client.channel(platform.target, token) as channel:
        return await bpb_grpc.BotServiceStub(channel).SeekBot(request)


async def refused(platform: Any, token: str, request: Any = CASUAL) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await seek(platform, token, request)
    return error.value


async def bot_now(platform: Any, bot: Registered) -> Any:
    async with client.channel(platform.target, bot.token) as channel:
        found = await bpb_grpc.BotServiceStub(channel).GetBots(
            bpb.GetBotsRequest(bot_ids=[bot.bot_id])
        )
    return found.bots[0]


async def test_a_person_is_matched_with_an_available_bot_until_it_is_full(platform: Any) -> None:
    ann = platform.token("guest-" + secrets.token_hex(8))
    bot = await register_bot(platform, max_games=1, matchmaking=True)
    # other tests' bots leave the pool when done (leave_pool); one left there by a test
    # that failed is taken first only while it has room
    for _ in range(20):
        made = await seek(platform, ann)
        assert made.challenge.status == ch.CHALLENGE_STATUS_MATCHED
        if made.bot.bot_id == bot.bot_id:
            break
    assert made.bot.bot_id == bot.bot_id
    game_id = made.challenge.match_id
    assert {s.player_id: s.bot for s in made.challenge.seats}[bot.bot_id] is True

    async with client.channel(platform.target, bot.token) as as_bot:
        game = await eventually(
            lambda: c4_grpc.Connect4x4ServiceStub(as_bot).GetGame(
                c4.GetGameRequest(game_id=game_id)
            )
        )
    assert game.game.status == c4.STATUS_IN_PROGRESS
    assert game.game.clocks.time_control.kind != common_pb2.TimeControl.KIND_NONE  # it runs

    # at its max_games (the directories' count is at most a second old): never chosen again
    async def full() -> bool:
        try:
            again = await seek(platform, ann)
        except grpc.aio.AioRpcError as exc:
            return reason_of(exc) == "NO_BOT_AVAILABLE"
        assert again.bot.bot_id != bot.bot_id, "a full bot was offered a game"
        return False

    await eventually(full, 10)

    # a person's rated game against a bot: the pools are apart
    rated = await refused(platform, ann, bpb.SeekBotRequest(game_type="connect4x4", rated=True))
    assert (rated.code(), reason_of(rated)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "BOTS_RATED_APART",
    )
    # a window no bot is in
    window = bpb.SeekBotRequest(game_type="connect4x4", min_rating=3000, max_rating=3100)
    assert reason_of(await refused(platform, ann, window)) == "NO_BOT_AVAILABLE"
    # a bad window
    bad = bpb.SeekBotRequest(game_type="connect4x4", min_rating=1600, max_rating=1400)
    assert reason_of(await refused(platform, ann, bad)) == "BAD_RATING_WINDOW"
    await leave_pool(platform, bot)


async def test_bot_against_bot_games_spend_the_owners_budget(platform: Any) -> None:
    host = await register_bot(platform, max_games=64, matchmaking=True)
    seeker = await register_bot(platform, max_games=64)  # not offered: it only asks
    sibling = await register_bot(platform, owner=seeker.owner, max_games=64)
    assert (await seek(platform, seeker.token)).challenge.status == ch.CHALLENGE_STATUS_MATCHED
    assert (await seek(platform, sibling.token)).challenge.status == ch.CHALLENGE_STATUS_MATCHED
    # the owner's third in the hour, whichever of their bots asks: refused, with when
    error = await refused(platform, seeker.token)
    assert (error.code(), reason_of(error)) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "BOT_GAMES_BUDGET",
    )
    assert int(error_from(error).metadata["retry_after_seconds"]) > 3500
    # another owner's bot is not held back by it
    other = await register_bot(platform, max_games=64)
    assert (await seek(platform, other.token)).challenge.status == ch.CHALLENGE_STATUS_MATCHED
    await leave_pool(platform, host)


async def test_a_bot_that_stops_answering_times_out_and_is_marked_unavailable(
    platform: Any,
) -> None:
    bot = await register_bot(platform, max_games=8, matchmaking=True)
    ann = "guest-" + secrets.token_hex(8)
    async with platform.service_channel() as service:
        created = await c4_grpc.Connect4x4ServiceStub(service).CreateGame(
            c4.CreateGameRequest(
                seats=[
                    common_pb2.Seat(player_id=bot.bot_id),
                    common_pb2.Seat(player_id=ann),
                ],
                time_control=common_pb2.TimeControl(
                    kind=common_pb2.TimeControl.KIND_PER_MOVE, move_seconds=1
                ),
            )
        )
    assert [s.bot for s in created.game.seats] == [True, False]
    assert not (await bot_now(platform, bot)).unavailable

    async def marked() -> Any:
        found = await bot_now(platform, bot)
        return found if found.unavailable else None

    # the bot never moves: its clock runs out like anyone's, and the matchmaker drops it
    found = await eventually(marked, 20)
    assert found.unavailable_since_game == f"connect4x4-{created.game.game_id}"
    async with platform.channel(ann) as ann_c:
        over = await c4_grpc.Connect4x4ServiceStub(ann_c).GetGame(
            c4.GetGameRequest(game_id=created.game.game_id)
        )
    assert over.game.status == c4.STATUS_WON

    # declaring again (as a bot does when it reconnects) makes it available again
    async with client.channel(platform.target, bot.token) as as_bot:
        again = await bpb_grpc.BotServiceStub(as_bot).DeclareAccepts(
            bpb.DeclareAcceptsRequest(
                accepts=bpb.Accepts(game_types=["connect4x4"], max_games=8, matchmaking=True)
            )
        )
    assert not again.bot.unavailable
    await leave_pool(platform, bot)
