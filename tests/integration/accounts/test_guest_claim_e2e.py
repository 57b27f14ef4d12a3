"""A guest keeps what they played (issue 40): a guest plays rated games, signs up through a
real OpenID Connect provider, and claims the guest id with the guest's own token. The
account's game list, rating, record, leaderboard place and scoresheets are then the
guest's, exactly; the rebuild from the event history gives every row back; a guest id is
claimed once."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from kits.scoring import eventually, snapshot
from oidc_provider import refusal, sign_in

from parlor.common.v1 import common_pb2
from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc
from parlor.kit import client
from parlor.scoring.v1 import scoring_pb2 as sc
from parlor.scoring.v1 import scoring_pb2_grpc as sc_grpc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PEOPLE = 12
ROUNDS = 2
"""A double round robin of 12 people: the last of them (the guest) ends established (RD
under 110, met 11 people), so it has a place on the leaderboard to keep."""


def _rating_fields(rating: sc.PlayerRating) -> tuple[Any, ...]:
    """Everything of a rating but whose it is."""
    shown = sc.PlayerRating()
    shown.CopyFrom(rating)
    shown.player_id = ""
    return (shown.SerializeToString(deterministic=True),)


async def test_a_guest_signs_up_claims_its_games_and_the_rebuild_agrees(
    accounts_platform: Any, database_url: str, unique: str
) -> None:
    async with accounts_platform("matchmaking", "scoring", "connect4x4") as platform:
        anonymous = client.channel(platform.target, None)
        identity = pb_grpc.IdentityServiceStub(anonymous)
        issued = await identity.IssueGuestToken(pb.IssueGuestTokenRequest(display_name="Gus"))
        guest, guest_token = issued.player_id, issued.token
        people = [f"p{i:02d}-{unique}" for i in range(PEOPLE - 1)] + [guest]
        chans = {p: platform.channel(p) for p in people[:-1]}
        chans[guest] = client.channel(platform.target, guest_token)
        seater = client.channel(
            platform.target, platform.token("service:matchmaking", roles=("service",))
        )
        try:
            games = {p: c4_grpc.Connect4x4ServiceStub(c) for p, c in chans.items()}
            scoring = sc_grpc.ScoringServiceStub(chans[people[0]])

            async def play(winner: str, loser: str) -> str:
                created = await c4_grpc.Connect4x4ServiceStub(seater).CreateGame(
                    c4.CreateGameRequest(
                        seats=[common_pb2.Seat(player_id=p) for p in (winner, loser)]
                    )
                )
                game_id = created.game.game_id
                for n, move in enumerate(("af", "bf", "cf", "df")):
                    await games[(winner, loser)[n % 2]].PlayMove(
                        c4.PlayMoveRequest(game_id=game_id, move=move)
                    )
                await games[loser].Resign(c4.ResignRequest(game_id=game_id))
                return game_id

            played: list[str] = []
            for r in range(ROUNDS):
                for i, a in enumerate(people):
                    for j, b in enumerate(people[i + 1 :], i + 1):
                        first, second = (a, b) if (r + i + j) % 3 else (b, a)
                        game_id = await play(first, second)
                        if guest in (a, b):
                            played.append(game_id)
            games_each = ROUNDS * (PEOPLE - 1)
            # and one the guest has not finished: its turn comes again after the claim
            unfinished = await c4_grpc.Connect4x4ServiceStub(seater).CreateGame(
                c4.CreateGameRequest(
                    seats=[common_pb2.Seat(player_id=p) for p in (guest, people[0])]
                )
            )
            open_id = unfinished.game.game_id
            await games[guest].PlayMove(c4.PlayMoveRequest(game_id=open_id, move="af"))
            await games[people[0]].PlayMove(c4.PlayMoveRequest(game_id=open_id, move="bf"))

            async def rating(player: str) -> sc.PlayerRating:
                got = await scoring.GetRating(
                    sc.GetRatingRequest(game_type="connect4x4", player_id=player)
                )
                return got.rating

            async def all_scored() -> bool:
                return all([(await rating(p)).games == games_each for p in people])

            await eventually(all_scored, seconds=120)

            async def board() -> list[str]:
                got = await scoring.GetLeaderboard(
                    sc.GetLeaderboardRequest(game_type="connect4x4", limit=100)
                )
                return [e.rating.player_id for e in got.entries]

            as_guest = await rating(guest)
            assert not as_guest.provisional, as_guest  # established: on the leaderboard
            guest_board = await board()
            place = guest_board.index(guest)
            sheets = {
                g: await scoring.GetScoresheet(
                    sc.GetScoresheetRequest(game_type="connect4x4", game_id=g)
                )
                for g in played
            }
            others = {p: await rating(p) for p in people[:-1]}

            async def game_list(channel: Any, player: str) -> list[str]:
                got = await c4_grpc.Connect4x4ServiceStub(channel).ListGames(
                    c4.ListGamesRequest(player_id=player, page_size=100)
                )
                return [g.game_id for g in got.games]

            guest_list = await game_list(chans[guest], guest)
            assert sorted(guest_list) == sorted([*played, open_id])

            # Sign up through the provider; the account has played nothing.
            done, _, _ = await sign_in(identity, f"claim-{unique}")
            account = done.account.player_id
            assert (await rating(account)).games == 0
            mine = client.channel(platform.target, done.access_token)
            try:
                me = pb_grpc.IdentityServiceStub(mine)
                # a guest's token is the proof: a made-up or an account's token proves nothing
                assert await refusal(
                    me.ClaimGuest, pb.ClaimGuestRequest(guest_token=guest_token[:-4] + "AAAA")
                ) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
                assert await refusal(
                    me.ClaimGuest, pb.ClaimGuestRequest(guest_token=done.access_token)
                ) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_A_GUEST")
                # a guest cannot claim (it has no account)
                assert await refusal(
                    pb_grpc.IdentityServiceStub(chans[guest]).ClaimGuest,
                    pb.ClaimGuestRequest(guest_token=guest_token),
                ) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_AN_ACCOUNT")

                claimed = await me.ClaimGuest(pb.ClaimGuestRequest(guest_token=guest_token))
                assert claimed.guest_id == guest
                assert list(claimed.account.guest_ids) == [guest]
                assert list((await me.GetAccount(pb.GetAccountRequest())).account.guest_ids) == [
                    guest
                ]
                # the account acts in the guest's unfinished game with a token it is given for
                # the guest it claimed (the seat names the guest id); no one else is given one
                given = await me.IssueClaimedGuestToken(
                    pb.IssueClaimedGuestTokenRequest(guest_id=guest)
                )
                async with client.channel(platform.target, given.token) as as_guest_now:
                    moved = await c4_grpc.Connect4x4ServiceStub(as_guest_now).PlayMove(
                        c4.PlayMoveRequest(game_id=open_id, move="cf")
                    )
                assert moved.game.game_id == open_id
                # once: not again, and not by anyone else
                assert await refusal(
                    me.ClaimGuest, pb.ClaimGuestRequest(guest_token=guest_token)
                ) == (grpc.StatusCode.ALREADY_EXISTS, "GUEST_CLAIMED")
                other, _, _ = await sign_in(identity, f"claim2-{unique}")
                async with client.channel(platform.target, other.access_token) as theirs:
                    assert await refusal(
                        pb_grpc.IdentityServiceStub(theirs).ClaimGuest,
                        pb.ClaimGuestRequest(guest_token=guest_token),
                    ) == (grpc.StatusCode.ALREADY_EXISTS, "GUEST_CLAIMED")
                    assert await refusal(
                        pb_grpc.IdentityServiceStub(theirs).IssueClaimedGuestToken,
                        pb.IssueClaimedGuestTokenRequest(guest_id=guest),
                    ) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_GUEST")
                # the account's game list is the guest's, newest first, read through the claim
                assert await game_list(mine, account) == guest_list
            finally:
                await mine.close()

            # Scoring learns of the claim from the bus: the guest's numbers are the account's.
            async def moved() -> sc.PlayerRating | None:
                got = await rating(account)
                return got if got.games == games_each else None

            as_account = await eventually(moved, seconds=60)
            assert _rating_fields(as_account) == _rating_fields(as_guest)
            assert (await rating(guest)).games == 0
            account_board = await board()
            assert account_board.index(account) == place
            assert [p for p in account_board if p != account] == [
                p for p in guest_board if p != guest
            ]
            for game_id, sheet in sheets.items():
                now = await scoring.GetScoresheet(
                    sc.GetScoresheetRequest(game_type="connect4x4", game_id=game_id)
                )
                before = [(s.seat.player_id, s.rank, s.score) for s in sheet.scoresheet.results]
                after = [
                    (guest if s.seat.player_id == account else s.seat.player_id, s.rank, s.score)
                    for s in now.scoresheet.results
                ]
                assert account in [s.seat.player_id for s in now.scoresheet.results]
                assert after == before
            for p, was in others.items():  # nobody else's numbers moved
                assert await rating(p) == was

            # The rebuild from the event history: every row, floats exactly, the claim too.
            live = snapshot(database_url)
            assert any(row[0] == guest for row in live["scoring_aliases"])
            admin = client.channel(platform.target, platform.token("root", roles=("admin",)))
            async with admin:
                await sc_grpc.ScoringServiceStub(admin).Rebuild(sc.RebuildRequest())
            assert snapshot(database_url) == live
        finally:
            await anonymous.close()
            await seater.close()
            for chan in chans.values():
                await chan.close()
