"""Private games and findable players, over gRPC against a running platform.

A private game is listed only to its seats and read (GetGame, WatchGame, GetHistory,
ReplayGame, ExportGame) only by its seats and whoever holds its spectator invite; anyone
else hears NOT_FOUND GAME_NOT_FOUND, as for a game that does not exist. A private lobby's
game is private. ``ListGames`` by ``player_id`` finds a player's games only where they chose
to be found (``findable``), except for the player themself.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as pb
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as pb_grpc
from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import matchmaking_pb2 as mm
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc

pytestmark = pytest.mark.integration


def create(player: str, private: bool = False, findable: bool = False) -> pb.CreateGameRequest:
    return pb.CreateGameRequest(
        seats=[common_pb2.Seat(player_id=player), common_pb2.Seat(player_id="bot:random")],
        config=pb.Config(players=2, first_seat=0),
        private=private,
        findable=findable,
    )


async def refused_as_missing(call: Awaitable[Any]) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    assert reason_of(refused.value) == "GAME_NOT_FOUND"


async def first_watched(stub: Any, game_id: str, invite: str = "") -> Any:
    async for answer in stub.WatchGame(pb.WatchGameRequest(game_id=game_id, invite=invite)):
        return answer
    raise AssertionError("no event")


def reads(stub: Any, game_id: str, invite: str = "") -> list[Callable[[], Awaitable[Any]]]:
    return [
        lambda: stub.GetGame(pb.GetGameRequest(game_id=game_id, invite=invite)),
        lambda: stub.GetHistory(pb.GetHistoryRequest(game_id=game_id, invite=invite)),
        lambda: stub.ExportGame(pb.ExportGameRequest(game_id=game_id, invite=invite)),
        lambda: first_watched(stub, game_id, invite),
    ]


async def listed(stub: Any, player_id: str = "") -> set[str]:
    answer = await stub.ListGames(pb.ListGamesRequest(player_id=player_id, page_size=500))
    return {g.game_id for g in answer.games}


async def test_a_private_game_is_seen_only_by_its_seats_and_invitees(
    start_platform: Any,
) -> None:
    ada, bob, cy = (f"{n}-{secrets.token_hex(4)}" for n in ("ada", "bob", "cy"))
    async with (
        start_platform("connect4x4") as platform,
        platform.channel(ada) as a_ch,
        platform.channel(bob) as b_ch,
        platform.channel(cy) as c_ch,
    ):
        owner, outsider, invitee = (pb_grpc.Connect4x4ServiceStub(c) for c in (a_ch, b_ch, c_ch))
        made = await owner.CreateGame(create(ada, private=True))
        game_id, invite = made.game.game_id, made.spectator_invite
        assert len(invite) >= 40
        public = await owner.CreateGame(create(ada))
        assert public.spectator_invite == ""

        # Listed to its seat, not to others, not even by the owner's id.
        assert {game_id, public.game.game_id} <= await listed(owner, ada)
        mine = await owner.ListGames(pb.ListGamesRequest(player_id=ada))
        assert {g.game_id: g.private for g in mine.games}[game_id] is True
        assert game_id not in await listed(outsider)
        assert game_id not in await listed(outsider, ada)
        assert public.game.game_id in await listed(outsider)

        # An outsider reads nothing, with no invite or a wrong one, and cannot act on it.
        for wrong in ("", "x" * 43, invite[:-1]):
            for read in reads(outsider, game_id, wrong):
                await refused_as_missing(read())
        await refused_as_missing(outsider.PlayMove(pb.PlayMoveRequest(game_id=game_id, move="df")))
        # ... and the answer is word for word a missing game's.
        with pytest.raises(grpc.aio.AioRpcError) as hidden:
            await outsider.GetGame(pb.GetGameRequest(game_id=game_id))
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            await outsider.GetGame(pb.GetGameRequest(game_id=game_id[:-4] + "0000"))
        assert hidden.value.details() == (missing.value.details() or "").replace(
            game_id[:-4] + "0000", game_id
        )

        # The seat and the invitee read it; only the seat is given the invite.
        for read in reads(owner, game_id):
            await read()
        for read in reads(invitee, game_id, invite):
            await read()
        assert (await owner.GetGame(pb.GetGameRequest(game_id=game_id))).spectator_invite == invite
        seen = await invitee.GetGame(pb.GetGameRequest(game_id=game_id, invite=invite))
        assert seen.spectator_invite == ""
        assert game_id not in await listed(invitee)

        # Finished: replayed for the seat and the invitee, never for an outsider.
        await owner.Resign(pb.ResignRequest(game_id=game_id))
        async for _ in invitee.ReplayGame(pb.ReplayGameRequest(game_id=game_id, invite=invite)):
            break
        with pytest.raises(grpc.aio.AioRpcError) as replay:
            async for _ in outsider.ReplayGame(pb.ReplayGameRequest(game_id=game_id)):
                break
        assert replay.value.code() == grpc.StatusCode.NOT_FOUND


async def test_a_player_is_found_by_id_only_where_they_chose_to_be(start_platform: Any) -> None:
    ada, bob = (f"{n}-{secrets.token_hex(4)}" for n in ("ada", "bob"))
    async with (
        start_platform("connect4x4") as platform,
        platform.channel(ada) as a_ch,
        platform.channel(bob) as b_ch,
    ):
        owner, other = pb_grpc.Connect4x4ServiceStub(a_ch), pb_grpc.Connect4x4ServiceStub(b_ch)
        hidden = (await owner.CreateGame(create(ada))).game.game_id
        found = (await owner.CreateGame(create(ada, findable=True))).game.game_id
        assert await listed(owner, ada) >= {hidden, found}  # a player finds all their own
        assert await listed(other, ada) == {found}
        assert {hidden, found} <= await listed(other)  # both public: in everyone's listing


async def matched(tickets: Any, ticket_id: str) -> str:
    """The game id of the ticket's match, once matched."""
    for _ in range(300):
        ticket = (await tickets.GetTicket(mm.GetTicketRequest(ticket_id=ticket_id))).ticket
        if ticket.status == mm.TICKET_STATUS_MATCHED:
            return str(ticket.match_id)
        await asyncio.sleep(0.05)
    raise AssertionError(f"ticket {ticket_id} not matched")


async def made(seat: Any, game_id: str, seconds: float = 30.0) -> Any:
    """The matched game, once its service has made it from the match (consumed from NATS:
    a moment after the ticket says matched, longer on a loaded machine)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        try:
            return await seat.GetGame(pb.GetGameRequest(game_id=game_id))
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                raise
        assert asyncio.get_running_loop().time() < deadline, f"game {game_id} never made"
        await asyncio.sleep(0.05)


async def test_a_private_lobbys_game_is_private(start_platform: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "0")
    ada, bob, cy = (f"{n}-{secrets.token_hex(4)}" for n in ("ada", "bob", "cy"))
    async with (
        start_platform("matchmaking", "connect4x4") as platform,
        platform.channel(ada) as a_ch,
        platform.channel(bob) as b_ch,
        platform.channel(cy) as c_ch,
    ):
        host, guest = mm_grpc.MatchmakingServiceStub(a_ch), mm_grpc.MatchmakingServiceStub(b_ch)
        lobby = await host.CreateLobby(mm.CreateLobbyRequest(game_type="connect4x4"))
        await guest.JoinLobby(mm.JoinLobbyRequest(code=lobby.code, findable=True))
        game_id = await matched(host, lobby.ticket.ticket_id)
        seat = pb_grpc.Connect4x4ServiceStub(a_ch)
        outsider = pb_grpc.Connect4x4ServiceStub(c_ch)
        got = await made(seat, game_id)
        assert got.spectator_invite
        assert game_id in await listed(seat, ada)
        assert game_id not in await listed(outsider)
        for read in reads(outsider, game_id):
            await refused_as_missing(read())
        await outsider.GetGame(pb.GetGameRequest(game_id=game_id, invite=got.spectator_invite))
        # bob chose to be findable: his fellow seat finds the game by his id; ada did not, so
        # not even bob finds it by hers; an outsider by neither (the game is private).
        assert game_id in await listed(seat, bob)
        assert game_id not in await listed(pb_grpc.Connect4x4ServiceStub(b_ch), ada)
        assert game_id not in await listed(outsider, bob)


async def test_a_ticket_chooses_whether_its_player_is_findable_in_the_matchs_game(
    start_platform: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    monkeypatch.setenv("PARLOR_MATCHMAKING_ACCEPT_MINIMUM_SECONDS", "0")
    ada, cy = (f"{n}-{secrets.token_hex(4)}" for n in ("ada", "cy"))
    async with (
        start_platform("matchmaking", "connect4x4") as platform,
        platform.channel(ada) as a_ch,
        platform.channel(cy) as c_ch,
    ):
        tickets = mm_grpc.MatchmakingServiceStub(a_ch)
        outsider = pb_grpc.Connect4x4ServiceStub(c_ch)
        found = []
        for findable in (True, False):
            made = await tickets.CreateTicket(
                mm.CreateTicketRequest(game_type="connect4x4", bots_at_once=True, findable=findable)
            )
            game_id = await matched(tickets, made.ticket.ticket_id)
            for _ in range(600):  # the game service makes the match's game
                if game_id in await listed(pb_grpc.Connect4x4ServiceStub(a_ch), ada):
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError(f"the match's game {game_id} never listed")
            found.append(game_id)
        chose, did_not = found
        by_id = await listed(outsider, ada)
        assert chose in by_id
        assert did_not not in by_id
        assert {chose, did_not} <= await listed(outsider)  # public games, both


async def test_the_client_library_makes_shares_and_watches_a_private_game(
    start_platform: Any,
) -> None:
    from parlor.client import NotFound, ParlorClient

    ada, cy = (f"{n}-{secrets.token_hex(4)}" for n in ("ada", "cy"))
    async with start_platform("connect4x4") as platform:
        async with (
            ParlorClient(platform.target, platform.token(ada)) as owner,
            ParlorClient(platform.target, platform.token(cy)) as friend,
        ):
            game = await owner.connect4x4.create_game([ada, "bot:random"], private=True)
            invite = await owner.connect4x4.spectator_invite(game.game_id)
            assert invite
            with pytest.raises(NotFound):
                await friend.connect4x4.get_game(game.game_id)
            seen = await friend.connect4x4.get_game(game.game_id, invite=invite)
            assert seen.game_id == game.game_id
            assert len(await friend.connect4x4.history(game.game_id, invite=invite)) >= 2
            async for event, _ in friend.connect4x4.watch(game.game_id, invite=invite):
                assert event.info.version == 1
                break
            with pytest.raises(NotFound):  # only a seat is given the invite
                await friend.connect4x4.spectator_invite(game.game_id)


async def test_a_private_game_s_scoresheet_is_read_only_by_its_seats_and_invitees(
    start_platform: Any,
) -> None:
    """Scoring keeps a private game as the game service does: its scoresheet is NOT_FOUND
    (SCORESHEET_NOT_FOUND, the words of a game never scored) to an outsider, and read by a
    seat and by whoever holds the game's spectator invite."""
    from parlor.kit import client
    from parlor.scoring.v1 import scoring_pb2 as sc
    from parlor.scoring.v1 import scoring_pb2_grpc as sc_grpc

    ada, bob, cy = (f"{n}-{secrets.token_hex(4)}" for n in ("ada", "bob", "cy"))
    async with start_platform("scoring", "connect4x4") as platform:
        # As matchmaking seats two people who agreed to play: a game scoring records.
        service = client.channel(
            platform.target, platform.token("service:matchmaking", roles=("service",))
        )
        chans = {p: platform.channel(p) for p in (ada, bob, cy)}
        try:
            made = await pb_grpc.Connect4x4ServiceStub(service).CreateGame(
                pb.CreateGameRequest(
                    seats=[common_pb2.Seat(player_id=p) for p in (ada, bob)],
                    config=pb.Config(players=2, first_seat=0),
                    private=True,
                )
            )
            game_id = made.game.game_id
            seat = pb_grpc.Connect4x4ServiceStub(chans[ada])
            invite = (await seat.GetGame(pb.GetGameRequest(game_id=game_id))).spectator_invite
            assert invite
            await seat.Resign(pb.ResignRequest(game_id=game_id))

            def sheet(player: str, invite: str = "") -> Awaitable[Any]:
                return sc_grpc.ScoringServiceStub(chans[player]).GetScoresheet(
                    sc.GetScoresheetRequest(game_type="connect4x4", game_id=game_id, invite=invite)
                )

            deadline = asyncio.get_running_loop().time() + 30
            while True:  # until scoring has consumed the game's end
                try:
                    mine = (await sheet(ada)).scoresheet
                    break
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() == grpc.StatusCode.NOT_FOUND
                    assert asyncio.get_running_loop().time() < deadline, "never scored"
                    await asyncio.sleep(0.1)
            assert [r.seat.player_id for r in mine.results] == [ada, bob]
            assert (await sheet(bob)).scoresheet == mine
            assert (await sheet(cy, invite)).scoresheet == mine
            never = f"{game_id[:-4]}beef" if not game_id.endswith("beef") else f"{game_id[:-4]}cafe"
            for refused_call in (sheet(cy), sheet(cy, "x" * 43), sheet(cy, invite + "x")):
                with pytest.raises(grpc.aio.AioRpcError) as outsider:
                    await refused_call
                assert outsider.value.code() == grpc.StatusCode.NOT_FOUND
                assert reason_of(outsider.value) == "SCORESHEET_NOT_FOUND"
                with pytest.raises(grpc.aio.AioRpcError) as missing:
                    await sc_grpc.ScoringServiceStub(chans[cy]).GetScoresheet(
                        sc.GetScoresheetRequest(game_type="connect4x4", game_id=never)
                    )
                assert outsider.value.details() == missing.value.details().replace(never, game_id)
        finally:
            await service.close()
            for chan in chans.values():
                await chan.close()
