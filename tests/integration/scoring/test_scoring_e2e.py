"""From "find me a game" to the leaderboard, over gRPC on real PostgreSQL and NATS.

Four players ask matchmaking for Connect 4x4 games; two matches form; the games are
played to the end through the Connect 4x4 API; scoring shows the results (records, not
ratings: the four are new to scoring, see "Ratings that mean something"); then
scoring's tables are wiped and rebuilt from the event history to identical values.
"""

from __future__ import annotations

import uuid

import grpc
import psycopg
import pytest
from kits.scoring import eventually, snapshot

from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.connect4x4.v1 import connect4x4_pb2_grpc as c4_grpc
from parlor.kit import client
from parlor.kit.status import reason_of
from parlor.matchmaking.v1 import matchmaking_pb2 as mm
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from parlor.rating import Rating
from parlor.scoring.v1 import scoring_pb2 as sc
from parlor.scoring.v1 import scoring_pb2_grpc as sc_grpc

pytestmark = pytest.mark.integration

# Seat 0 builds a vertical line in column a (front) while seat 1 stacks column b.
WINNING_LINE = ["af", "bf", "af", "bf", "af", "bf", "af"]


async def test_four_players_matched_play_and_land_on_a_rebuildable_leaderboard(
    start_platform, monkeypatch, own_database: str
) -> None:
    # a database of its own: Rebuild counts every finished game stored, and games other tests
    # left in the shared one may finish by timeout meanwhile (27 scored, 29 rebuilt)
    database_url = own_database
    monkeypatch.setenv("PARLOR_MATCHMAKING_ROUND_SECONDS", "0.05")
    with psycopg.connect(database_url, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('mm_tickets')").fetchone() != (None,):
            conn.execute("UPDATE mm_tickets SET status = 'cancelled' WHERE status = 'waiting'")
    tag = uuid.uuid4().hex[:6]
    players = [f"{name}-{tag}" for name in ("ann", "ben", "cat", "dan")]
    async with start_platform("matchmaking", "scoring", "connect4x4") as platform:
        chans = {p: platform.channel(p) for p in players}
        try:
            matchmaking = {p: mm_grpc.MatchmakingServiceStub(c) for p, c in chans.items()}
            games = {p: c4_grpc.Connect4x4ServiceStub(c) for p, c in chans.items()}
            scoring = sc_grpc.ScoringServiceStub(chans[players[0]])

            tickets = [
                (
                    await matchmaking[p].CreateTicket(
                        mm.CreateTicketRequest(game_type="connect4x4", min_players=2, max_players=2)
                    )
                ).ticket
                for p in players
            ]
            matched = []
            for p, t in zip(players, tickets, strict=True):
                async for update in matchmaking[p].WatchTicket(
                    mm.WatchTicketRequest(ticket_id=t.ticket_id), timeout=20
                ):
                    last = update.ticket
                assert last.status == mm.TICKET_STATUS_MATCHED
                assert last.seats[last.seat].player_id == p
                matched.append(last)
            matches = {t.match_id: [s.player_id for s in t.seats] for t in matched}
            assert len(matches) == 2
            assert sorted(p for seats in matches.values() for p in seats) == sorted(players)

            # The Connect 4x4 service created each game from MatchFormed; play them out.
            winners, losers = [], []
            for match_id, seats in matches.items():
                # (60 s: the game service first works through matches earlier tests left.)
                game = await eventually(
                    lambda m=match_id, s=seats: games[s[0]].GetGame(c4.GetGameRequest(game_id=m)),
                    seconds=60,
                )
                assert game.game.status == c4.STATUS_IN_PROGRESS
                for i, move in enumerate(WINNING_LINE):
                    played = await games[seats[i % 2]].PlayMove(
                        c4.PlayMoveRequest(game_id=match_id, move=move, command_id=f"m{i}")
                    )
                assert played.game.status == c4.STATUS_WON
                assert played.game.winner == 0
                winners.append(seats[0])
                losers.append(seats[1])

            # Scoring consumed both GameFinished events from JetStream.
            for p in players:
                await eventually(
                    lambda p=p: _games_of(scoring, p),
                )
            # Each game: two identities new to scoring, one beat the other. The records count;
            # the ratings learn nothing from someone nobody has met (scoring's README,
            # "Ratings that mean something"), so neither is rated, both are provisional,
            # and neither is on the leaderboard, which lists established players only.
            for w, lo in zip(winners, losers, strict=True):
                won = (
                    await scoring.GetRating(
                        sc.GetRatingRequest(game_type="connect4x4", player_id=w)
                    )
                ).rating
                lost = (
                    await scoring.GetRating(
                        sc.GetRatingRequest(game_type="connect4x4", player_id=lo)
                    )
                ).rating
                newcomer = Rating()
                for rating in (won, lost):
                    assert (rating.rating, rating.rd) == (newcomer.rating, newcomer.rd)
                    assert (rating.rated, rating.provisional, rating.opponents) == (False, True, 1)
                assert (won.games, won.wins, won.losses) == (1, 1, 0)
                assert (lost.games, lost.wins, lost.losses) == (1, 0, 1)

            board = await scoring.GetLeaderboard(
                sc.GetLeaderboardRequest(game_type="connect4x4", limit=100)
            )
            assert not [e for e in board.entries if e.rating.player_id in players]
            assert all(not e.rating.provisional for e in board.entries)
            places = [e.place for e in board.entries]
            assert places == list(range(1, len(places) + 1))

            for match_id, seats in matches.items():
                sheet = (
                    await scoring.GetScoresheet(
                        sc.GetScoresheetRequest(game_type="connect4x4", game_id=match_id)
                    )
                ).scoresheet
                assert [(r.seat.player_id, r.rank) for r in sheet.results] == [
                    (seats[0], 1),
                    (seats[1], 2),
                ]
                assert sheet.reason == "FOUR_IN_A_LINE"

            stats = await scoring.GetPlayerStats(sc.GetPlayerStatsRequest(player_id=winners[0]))
            assert [(r.game_type, r.wins) for r in stats.ratings] == [("connect4x4", 1)]

            # Only an admin may rebuild.
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await scoring.Rebuild(sc.RebuildRequest())
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert reason_of(refused.value) == "ADMIN_ONLY"

            # Wipe scoring's tables, rebuild from history: the very same rows, bit for bit.
            before = snapshot(database_url)
            with psycopg.connect(database_url, autocommit=True) as conn:
                conn.execute(
                    "TRUNCATE scoring_results, scoring_games, scoring_ratings, scoring_pairs"
                )
            wiped = await scoring.GetRating(
                sc.GetRatingRequest(game_type="connect4x4", player_id=winners[0])
            )
            assert wiped.rating.games == 0
            admin = client.channel(platform.target, platform.token("root", roles=("admin",)))
            async with admin:
                rebuilt = await sc_grpc.ScoringServiceStub(admin).Rebuild(sc.RebuildRequest())
            assert rebuilt.games == len(before["scoring_games"])
            assert snapshot(database_url) == before
            again = await scoring.GetLeaderboard(
                sc.GetLeaderboardRequest(game_type="connect4x4", limit=100)
            )
            assert again == board
        finally:
            for c in chans.values():
                await c.close()


async def _games_of(scoring: sc_grpc.ScoringServiceStub, player: str) -> bool:
    got = await scoring.GetRating(sc.GetRatingRequest(game_type="connect4x4", player_id=player))
    return got.rating.games == 1
