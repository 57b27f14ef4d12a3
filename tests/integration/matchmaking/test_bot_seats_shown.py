"""A seat held by a bot account is shown as a bot in every API: the game's view, ListGames,
GetPlayers; the fact comes from what the platform issued (the bot's token, its record),
recorded in the match and the game's SeatsTaken, never from a client's request."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from kits.bots import register_bot
from kits.scoring import eventually

from parlor.challenges.v1 import challenges_pb2 as ch
from parlor.challenges.v1 import challenges_pb2_grpc as ch_grpc
from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.eventstore import PostgresEventStore
from parlor.identity.v1 import identity_pb2 as ipb
from parlor.identity.v1 import identity_pb2_grpc as ipb_grpc
from parlor.kit import client
from parlor.matchmaking.v1 import events_pb2

pytestmark = [pytest.mark.integration]


@pytest.fixture
async def platform(start_platform: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    for scope in ("ADDRESS", "NETWORK", "SITE"):
        monkeypatch.setenv(f"PARLOR_GUEST_PER_{scope}_PER_SECOND", "0")
    async with start_platform("matchmaking", "connect4x4") as running:
        yield running


def kinds(seats: Any) -> dict[str, bool]:
    return {s.player_id: s.bot for s in seats}


async def test_a_bot_accounts_seat_is_a_bot_in_views_listings_and_players(
    platform: Any, database_url: str
) -> None:
    bot = await register_bot(platform)
    ann = "guest-" + secrets.token_hex(8)
    async with platform.channel(ann) as ann_c, client.channel(platform.target, bot.token) as b:
        made = await ch_grpc.ChallengeServiceStub(ann_c).CreateChallenge(
            ch.CreateChallengeRequest(
                game_type="connect4x4", invitees=[bot.handle], seat_choice=ch.SEAT_CHOICE_FIRST
            )
        )
        accepted = await ch_grpc.ChallengeServiceStub(b).AcceptChallenge(
            ch.AcceptChallengeRequest(challenge_id=made.challenge.challenge_id)
        )
        game_id = accepted.challenge.match_id
        assert game_id
        games = c4_grpc.Connect4x4ServiceStub(ann_c)
        game = (await eventually(lambda: games.GetGame(c4.GetGameRequest(game_id=game_id)))).game
        assert kinds(game.seats) == {ann: False, bot.bot_id: True}
        # the bot's own view says so too
        seen = await c4_grpc.Connect4x4ServiceStub(b).GetGame(c4.GetGameRequest(game_id=game_id))
        assert kinds(seen.game.seats) == {ann: False, bot.bot_id: True}

        async def listed() -> Any:
            found = await games.ListGames(c4.ListGamesRequest(player_id=ann))
            return next((g for g in found.games if g.game_id == game_id), None)

        assert kinds((await eventually(listed)).seats) == {ann: False, bot.bot_id: True}

        players = await ipb_grpc.IdentityServiceStub(ann_c).GetPlayers(
            ipb.GetPlayersRequest(player_ids=[bot.bot_id, ann])
        )
        assert [(p.player_id, p.handle, p.bot) for p in players.players] == [
            (bot.bot_id, bot.handle, True),
            (ann, "", False),
        ]

    # recorded in the match and in the game's first event (replays and the directory read it)
    store = PostgresEventStore(database_url)
    try:
        (match,) = await store.read_stream(f"matchmaking-{game_id}", 1, 1)
        (taken,) = await store.read_stream(f"connect4x4-{game_id}", 1, 1)
    finally:
        await store.close()
    assert kinds(events_pb2.MatchFormed.FromString(match.data).seats) == {
        ann: False,
        bot.bot_id: True,
    }
    assert kinds(common_pb2.SeatsTaken.FromString(taken.data).seats) == {
        ann: False,
        bot.bot_id: True,
    }


async def test_a_clients_bot_flag_is_not_taken(platform: Any) -> None:
    """A person saying their own seat is a bot's is shown as what they are; Parlor's own
    bots are bots whatever the request says."""
    bea = "guest-" + secrets.token_hex(8)
    async with platform.channel(bea) as bea_c:
        created = await c4_grpc.Connect4x4ServiceStub(bea_c).CreateGame(
            c4.CreateGameRequest(
                seats=[
                    common_pb2.Seat(index=0, player_id=bea, bot=True),
                    common_pb2.Seat(index=1, player_id="bot:random", bot=False),
                ]
            )
        )
    assert kinds(created.game.seats) == {bea: False, "bot:random": True}
