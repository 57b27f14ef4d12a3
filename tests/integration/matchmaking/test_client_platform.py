"""parlor-client against a real platform: guest tokens, a lobby matched, a game played.

What a client writer does first, through the client only: sign in as a guest, refresh the
token, meet a friend in a private lobby (both tickets matched into one game), then create
a game against a bot, see a refusal as an exception with its reason, play and watch.
"""

from __future__ import annotations

import asyncio

import pytest

from parlor.client import FailedPrecondition, NotFound, ParlorClient, PermissionDenied
from parlor.matchmaking.v1 import matchmaking_pb2 as mm

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("quiet_pool")]


async def test_a_client_writers_first_hour(start_platform, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "0")
    monkeypatch.setenv("PARLOR_ABORT_WINDOW_SECONDS", "0")
    async with start_platform("matchmaking", "connect4x4") as platform:
        async with ParlorClient(platform.target) as ada, ParlorClient(platform.target) as bob:
            me = await ada.sign_in_as_guest("Ada")
            assert me.startswith("guest-")
            refreshed = await ada.identity.refresh_token()
            assert refreshed.token
            assert ada.token == refreshed.token  # every call from now on carries the new one
            assert refreshed.expires_at.seconds > 0
            await bob.sign_in_as_guest("Bob")
            offered = {t.name: t for t in await ada.matchmaking.list_game_types()}
            assert "bot:random" in [f"bot:{b}" for b in offered["connect4x4"].bot_levels]
            assert offered["connect4x4"].service == "parlor.connect4x4.v1.Connect4x4Service"

            code, hosting = await ada.matchmaking.create_lobby("connect4x4", 2, 2)
            assert hosting.status == mm.TICKET_STATUS_WAITING
            with pytest.raises(NotFound) as wrong:
                await bob.matchmaking.join_lobby("ZZZZZZZZ")
            assert wrong.value.reason == "LOBBY_NOT_FOUND"
            joined = await bob.matchmaking.join_lobby(code)
            ada_match, bob_match = await asyncio.wait_for(
                asyncio.gather(
                    ada.matchmaking.wait_for_match(hosting.ticket_id),
                    bob.matchmaking.wait_for_match(joined.ticket_id),
                ),
                30,
            )
            assert ada_match.status == bob_match.status == mm.TICKET_STATUS_MATCHED
            assert ada_match.match_id == bob_match.match_id
            assert {s.player_id for s in ada_match.seats} == {me, bob_match.player_id}
            # Nobody has moved yet: with a window of 0 the first seat, to move, is late at
            # once; the other seat aborts the lobby's game, unrated; then it is over.
            await ada.connect4x4.get_game(ada_match.match_id)  # made by its service by now
            second, first = (ada, bob) if ada_match.seat == 1 else (bob, ada)
            with pytest.raises(FailedPrecondition) as own:
                await first.connect4x4.abort(ada_match.match_id)
            assert own.value.reason == "ABORT_OWN_FIRST_MOVE"
            aborted = await second.connect4x4.abort(ada_match.match_id)
            assert aborted.game.aborted
            with pytest.raises(FailedPrecondition) as over:
                await first.connect4x4.abort(ada_match.match_id)
            assert over.value.reason == "GAME_OVER"

            games = ada.connect4x4
            with pytest.raises(PermissionDenied) as refused:
                await games.create_game(["bot:random", "bot:greedy"])
            assert refused.value.reason == "NOT_SEATED"
            game = await games.create_game([(me, "Ada"), "bot:random"])
            played = await games.command("PlayMove", game_id=game.game_id, move="df")
            assert played.game.version > game.version  # her move, and the bot's answer
            seen = []
            async for event, _ in games.watch(game.game_id):
                seen.append(event.info.version)
                if event.info.version == played.game.version:
                    break
            assert seen == list(range(1, played.game.version + 1))
            assert (await games.get_game(game.game_id)).version >= played.game.version
