"""The gRPC face of scoring: ratings, leaderboards, statistics, scoresheets, rebuild."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from parlor.admission.privacy import Privacy
from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument, NotFound, PermissionDenied
from parlor.kit import auth
from parlor.rating import Rating
from parlor.scoring.v1 import scoring_pb2 as pb
from parlor.scoring.v1 import scoring_pb2_grpc as pb_grpc
from parlor.services.scoring.ratings import PlayerScore
from parlor.services.scoring.scorer import Scorer
from parlor.services.scoring.tables import RATING_COLUMNS, player_score
from parlor.takefour.v1 import takefour_pb2

MAX_LIMIT = 100
DEFAULT_LIMIT = 10


def rating_pb(game_type: str, score: PlayerScore | None, player_id: str) -> pb.PlayerRating:
    if score is None:
        rating = Rating()
        return pb.PlayerRating(
            game_type=game_type,
            player_id=player_id,
            rating=rating.rating,
            rd=rating.rd,
            volatility=rating.volatility,
            conservative=rating.conservative,
            rated=False,
            provisional=True,
        )
    rating, record = score.rating, score.record
    out = pb.PlayerRating(
        game_type=game_type,
        player_id=score.player_id,
        rating=rating.rating,
        rd=rating.rd,
        volatility=rating.volatility,
        conservative=rating.conservative,
        games=record.games,
        wins=record.wins,
        draws=record.draws,
        losses=record.losses,
        total_score=score.total_score,
        rated=score.rated,
        provisional=score.provisional,
        opponents=score.opponents,
    )
    out.last_played.FromDatetime(score.last_played)
    return out


ROUND_SCORED = takefour_pb2.RoundScored.DESCRIPTOR.full_name


class ScoringServicer(pb_grpc.ScoringServiceServicer):
    def __init__(self, engine: AsyncEngine, scorer: Scorer, game_types: tuple[str, ...]) -> None:
        self.engine = engine
        self.scorer = scorer
        self.game_types = game_types

    def _game_type(self, name: str) -> str:
        if name not in self.game_types:
            raise InvalidArgument(
                f"unknown game type {name!r}; known: {', '.join(sorted(self.game_types))}",
                reason="UNKNOWN_GAME_TYPE",
            )
        return name

    async def GetRating(self, request: pb.GetRatingRequest, context: Any) -> pb.GetRatingResponse:
        game_type = self._game_type(request.game_type)
        if not request.player_id:
            raise InvalidArgument("player_id is required", reason="BAD_PLAYER")
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    text(
                        f"SELECT {RATING_COLUMNS} FROM scoring_ratings"
                        " WHERE game_type = :t AND player_id = :p"
                    ),
                    {"t": game_type, "p": request.player_id},
                )
            ).first()
        score = None if row is None else player_score(row)
        return pb.GetRatingResponse(rating=rating_pb(game_type, score, request.player_id))

    async def GetLeaderboard(
        self, request: pb.GetLeaderboardRequest, context: Any
    ) -> pb.GetLeaderboardResponse:
        game_type = self._game_type(request.game_type)
        limit = request.limit or DEFAULT_LIMIT
        if limit > MAX_LIMIT:
            raise InvalidArgument(f"a leaderboard lists at most {MAX_LIMIT}", reason="BAD_LIMIT")
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                text(
                    f"SELECT {RATING_COLUMNS} FROM scoring_ratings WHERE game_type = :t AND rated"
                    " AND NOT provisional ORDER BY conservative DESC, player_id LIMIT :n"
                ),
                {"t": game_type, "n": limit},
            )
            entries = [
                pb.LeaderboardEntry(place=i, rating=rating_pb(game_type, player_score(row), ""))
                for i, row in enumerate(rows, start=1)
            ]
        return pb.GetLeaderboardResponse(entries=entries)

    async def GetPlayerStats(
        self, request: pb.GetPlayerStatsRequest, context: Any
    ) -> pb.GetPlayerStatsResponse:
        if not request.player_id:
            raise InvalidArgument("player_id is required", reason="BAD_PLAYER")
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                text(
                    f"SELECT {RATING_COLUMNS} FROM scoring_ratings WHERE player_id = :p"
                    " ORDER BY game_type"
                ),
                {"p": request.player_id},
            )
            ratings = [rating_pb(row[11], player_score(row), "") for row in rows]
        return pb.GetPlayerStatsResponse(ratings=ratings)

    async def GetScoresheet(
        self, request: pb.GetScoresheetRequest, context: Any
    ) -> pb.GetScoresheetResponse:
        game_type = self._game_type(request.game_type)
        stream_id = f"{game_type}-{request.game_id}"
        async with self.engine.connect() as conn:
            game = (
                await conn.execute(
                    text(
                        "SELECT game_id, reason, finished_at, position FROM scoring_games"
                        " WHERE stream_id = :s"
                    ),
                    {"s": stream_id},
                )
            ).first()
            if game is None:
                raise _no_scoresheet(game_type, request.game_id)
            seats = await conn.execute(
                text(
                    "SELECT seat, player_id, display_name, rank, score, timed_out, departure"
                    " FROM scoring_results WHERE stream_id = :s ORDER BY seat"
                ),
                {"s": stream_id},
            )
            results = [
                common_pb2.SeatResult(
                    seat=common_pb2.Seat(index=seat, player_id=player, display_name=name),
                    rank=rank,
                    score=score,
                    timed_out=timed_out,
                    departure=departure,
                )
                for seat, player, name, rank, score, timed_out, departure in seats
            ]
        await self._admit(game_type, request, [r.seat.player_id for r in results])
        sheet = pb.Scoresheet(
            game_type=game_type,
            game_id=game[0],
            reason=game[1],
            results=results,
            position=game[3],
        )
        sheet.finished_at.FromDatetime(game[2])
        sheet.rounds.extend(await self._rounds(stream_id))
        return pb.GetScoresheetResponse(scoresheet=sheet)

    async def _admit(
        self, game_type: str, request: pb.GetScoresheetRequest, players: list[str]
    ) -> None:
        """Refuse a private game's scoresheet to a caller who may not read the game, as a
        game never scored is refused: its existence is not revealed (``parlor.admission.privacy``;
        the choice is in the metadata of the game's first event, which only the store holds)."""
        stream_id = f"{game_type}-{request.game_id}"
        first = await self.scorer.store.read_stream(stream_id, 1, 1)
        privacy = Privacy.of(first[0].metadata.extra if first else None)
        if not privacy.admits(auth.caller(), players, request.invite):
            raise _no_scoresheet(game_type, request.game_id)

    async def _rounds(self, stream_id: str) -> list[pb.RoundResult]:
        """Per-round results, read from the game's own stream (public fields only)."""
        rounds = []
        for event in await self.scorer.store.read_stream(stream_id):
            if event.type == ROUND_SCORED:
                scored = takefour_pb2.RoundScored.FromString(event.data)
                rounds.append(
                    pb.RoundResult(
                        round=scored.round,
                        done_seat=scored.done_seat,
                        done_valid=scored.done_valid,
                        scores=scored.scores,
                        totals=scored.totals,
                    )
                )
        return rounds

    async def Rebuild(self, request: pb.RebuildRequest, context: Any) -> pb.RebuildResponse:
        if "admin" not in auth.caller().roles:
            raise PermissionDenied("only an admin may rebuild scoring", reason="ADMIN_ONLY")
        rebuilt = await self.scorer.rebuild()
        return pb.RebuildResponse(games=rebuilt.games, head_position=rebuilt.head_position)


def _no_scoresheet(game_type: str, game_id: str) -> NotFound:
    return NotFound(f"no finished {game_type} game {game_id!r}", reason="SCORESHEET_NOT_FOUND")
