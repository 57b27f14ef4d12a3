"""Scoring's tables: scoresheets and ratings, written inside the caller's transaction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from parlor.rating import Rating, Record
from parlor.services.scoring.ratings import (
    Folded,
    Pair,
    PairHistory,
    PlayerScore,
    fold,
    humans,
    pairs_of,
    score_game,
)
from parlor.services.scoring.sheet import FinishedGame, SeatResult

SCORING_LOCK = 0x7061726C_6F72_53  # "parlor" + "S": one writer of scoring's tables at a time

RATING_COLUMNS = (
    "player_id, rating, rd, volatility, rated, games, wins, draws, losses, total_score,"
    " last_played, game_type, opponents"
)


def player_score(row: Sequence[Any]) -> PlayerScore:
    player, rating, rd, volatility, rated, games, wins, draws, losses, total, last = row[:11]
    return PlayerScore(
        player,
        Rating(rating, rd, volatility),
        rated,
        Record(games, wins, draws, losses),
        total,
        last,
        row[12],
    )


async def lock(conn: AsyncConnection) -> None:
    await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": SCORING_LOCK})


async def has_game(conn: AsyncConnection, stream_id: str) -> bool:
    found = await conn.execute(
        text("SELECT 1 FROM scoring_games WHERE stream_id = :s"), {"s": stream_id}
    )
    return found.first() is not None


async def insert_games(conn: AsyncConnection, games: Sequence[FinishedGame]) -> None:
    if not games:
        return
    await conn.execute(
        text(
            "INSERT INTO scoring_games (stream_id, game_type, game_id, position, finished_at,"
            " reason) SELECT * FROM unnest(CAST(:s AS text[]), CAST(:t AS text[]),"
            " CAST(:g AS text[]), CAST(:p AS bigint[]), CAST(:f AS timestamptz[]),"
            " CAST(:r AS text[]))"
        ),
        {
            "s": [g.stream_id for g in games],
            "t": [g.game_type for g in games],
            "g": [g.game_id for g in games],
            "p": [g.position for g in games],
            "f": [g.finished_at for g in games],
            "r": [g.reason for g in games],
        },
    )
    rows = [(g.stream_id, r) for g in games for r in g.results]
    if rows:
        await conn.execute(
            text(
                "INSERT INTO scoring_results (stream_id, seat, player_id, display_name, rank,"
                " score, timed_out, departure, moves) SELECT * FROM unnest(CAST(:s AS text[]),"
                " CAST(:seat AS int[]), CAST(:p AS text[]), CAST(:n AS text[]),"
                " CAST(:r AS int[]), CAST(:sc AS bigint[]), CAST(:to AS bool[]),"
                " CAST(:d AS text[]), CAST(:m AS int[]))"
            ),
            {
                "s": [s for s, _ in rows],
                "seat": [r.seat for _, r in rows],
                "p": [r.player_id for _, r in rows],
                "n": [r.display_name for _, r in rows],
                "r": [r.rank for _, r in rows],
                "sc": [r.score for _, r in rows],
                "to": [r.timed_out for _, r in rows],
                "d": [r.departure for _, r in rows],
                "m": [r.moves for _, r in rows],
            },
        )


async def upsert_scores(conn: AsyncConnection, scores: Iterable[tuple[str, PlayerScore]]) -> None:
    rows = list(scores)
    if not rows:
        return
    await conn.execute(
        text(
            "INSERT INTO scoring_ratings (game_type, player_id, rating, rd, volatility,"
            " conservative, rated, games, wins, draws, losses, total_score, last_played,"
            " opponents, provisional)"
            " SELECT * FROM unnest(CAST(:t AS text[]), CAST(:p AS text[]),"
            " CAST(:rating AS float8[]), CAST(:rd AS float8[]), CAST(:vol AS float8[]),"
            " CAST(:cons AS float8[]), CAST(:rated AS bool[]), CAST(:games AS int[]),"
            " CAST(:wins AS int[]), CAST(:draws AS int[]), CAST(:losses AS int[]),"
            " CAST(:total AS bigint[]), CAST(:last AS timestamptz[]),"
            " CAST(:opponents AS int[]), CAST(:provisional AS bool[]))"
            " ON CONFLICT (game_type, player_id) DO UPDATE SET rating = EXCLUDED.rating,"
            " rd = EXCLUDED.rd, volatility = EXCLUDED.volatility,"
            " conservative = EXCLUDED.conservative, rated = EXCLUDED.rated,"
            " games = EXCLUDED.games, wins = EXCLUDED.wins, draws = EXCLUDED.draws,"
            " losses = EXCLUDED.losses, total_score = EXCLUDED.total_score,"
            " last_played = EXCLUDED.last_played, opponents = EXCLUDED.opponents,"
            " provisional = EXCLUDED.provisional"
        ),
        {
            "t": [t for t, _ in rows],
            "p": [s.player_id for _, s in rows],
            "rating": [s.rating.rating for _, s in rows],
            "rd": [s.rating.rd for _, s in rows],
            "vol": [s.rating.volatility for _, s in rows],
            "cons": [s.rating.conservative for _, s in rows],
            "rated": [s.rated for _, s in rows],
            "games": [s.record.games for _, s in rows],
            "wins": [s.record.wins for _, s in rows],
            "draws": [s.record.draws for _, s in rows],
            "losses": [s.record.losses for _, s in rows],
            "total": [s.total_score for _, s in rows],
            "last": [s.last_played for _, s in rows],
            "opponents": [s.opponents for _, s in rows],
            "provisional": [s.provisional for _, s in rows],
        },
    )


async def upsert_pairs(
    conn: AsyncConnection, pairs: Iterable[tuple[str, Pair, PairHistory]]
) -> None:
    """Write pairs' histories (game type, (a, b) with a < b, history)."""
    rows = list(pairs)
    if not rows:
        return
    # One parameter set a row (executemany): arrays of arrays of unequal lengths cannot unnest.
    await conn.execute(
        text(
            "INSERT INTO scoring_pairs (game_type, player_a, player_b, games, recent)"
            " VALUES (:t, :a, :b, :games, CAST(:recent AS timestamptz[]))"
            " ON CONFLICT (game_type, player_a, player_b) DO UPDATE SET"
            " games = EXCLUDED.games, recent = EXCLUDED.recent"
        ),
        [
            {"t": t, "a": a, "b": b, "games": h.games, "recent": list(h.recent)}
            for t, (a, b), h in rows
        ],
    )


async def pairs_of_players(
    conn: AsyncConnection, game_type: str, pairs: Sequence[Pair]
) -> dict[Pair, PairHistory]:
    if not pairs:
        return {}
    rows = await conn.execute(
        text(
            "SELECT player_a, player_b, games, recent FROM scoring_pairs WHERE game_type = :t"
            " AND (player_a, player_b) IN (SELECT * FROM unnest(CAST(:a AS text[]),"
            " CAST(:b AS text[])))"
        ),
        {"t": game_type, "a": [a for a, _ in pairs], "b": [b for _, b in pairs]},
    )
    return {(a, b): PairHistory(games, tuple(recent)) for a, b, games, recent in rows}


async def scores_of(
    conn: AsyncConnection, game_type: str, players: Sequence[str]
) -> dict[str, PlayerScore]:
    rows = await conn.execute(
        text(
            f"SELECT {RATING_COLUMNS} FROM scoring_ratings"
            " WHERE game_type = :t AND player_id = ANY(:p)"
        ),
        {"t": game_type, "p": list(players)},
    )
    return {row[0]: player_score(row) for row in rows}


async def games_of_type(conn: AsyncConnection, game_type: str) -> list[FinishedGame]:
    rows = await conn.execute(
        text(
            "SELECT g.stream_id, g.game_id, g.position, g.finished_at, g.reason,"
            " r.seat, r.player_id, r.display_name, r.rank, r.score, r.timed_out, r.departure,"
            " r.moves"
            " FROM scoring_games g JOIN scoring_results r USING (stream_id)"
            " WHERE g.game_type = :t ORDER BY g.position, r.seat"
        ),
        {"t": game_type},
    )
    games: dict[str, FinishedGame] = {}
    results: dict[str, list[SeatResult]] = {}
    for row in rows:
        stream, game_id, position, finished, reason, seat, player, name, rank, score = row[:10]
        if stream not in games:
            games[stream] = FinishedGame(stream, game_type, game_id, position, finished, reason, ())
            results[stream] = []
        results[stream].append(
            SeatResult(seat, player, name, rank, score, row[10], row[11], row[12])
        )
    return [
        FinishedGame(
            g.stream_id, g.game_type, g.game_id, g.position, g.finished_at, g.reason, tuple(rs)
        )
        for g, rs in ((games[s], results[s]) for s in games)
    ]


async def record_game(conn: AsyncConnection, game: FinishedGame, period: timedelta) -> None:
    """Add one game (caller holds the lock, checked it is new): in order, or refold its type."""
    latest = (
        await conn.execute(
            text("SELECT max(position) FROM scoring_games WHERE game_type = :t"),
            {"t": game.game_type},
        )
    ).scalar()
    await insert_games(conn, [game])
    kind = game.game_type
    if latest is None or game.position > latest:
        before = await scores_of(conn, kind, list(humans(game)))
        known = await pairs_of_players(conn, kind, pairs_of(game))
        after, met = score_game(before, game, period, known)
        await upsert_scores(conn, [(kind, s) for s in after.values()])
        await upsert_pairs(conn, [(kind, p, h) for p, h in sorted(met.items())])
        return
    # A game older than one already applied (a redelivery after a failure): refold the type.
    for table in ("scoring_ratings", "scoring_pairs"):
        await conn.execute(text(f"DELETE FROM {table} WHERE game_type = :t"), {"t": kind})
    await write_folded(conn, fold(await games_of_type(conn, kind), period))


async def aliases_of(conn: AsyncConnection, players: Sequence[str]) -> dict[str, str]:
    """The claimed guest ids among ``players``, each with the account it counts under."""
    rows = await conn.execute(
        text("SELECT guest_id, player_id FROM scoring_aliases WHERE guest_id = ANY(:p)"),
        {"p": list(players)},
    )
    return {guest: account for guest, account in rows}


async def insert_aliases(conn: AsyncConnection, claims: Sequence[tuple[str, str, int]]) -> None:
    """(guest id, account, position) rows, the first claim of a guest id kept."""
    if claims:
        await conn.execute(
            text(
                "INSERT INTO scoring_aliases (guest_id, player_id, position)"
                " VALUES (:g, :p, :pos) ON CONFLICT (guest_id) DO NOTHING"
            ),
            [{"g": g, "p": p, "pos": pos} for g, p, pos in claims],
        )


async def apply_claim(
    conn: AsyncConnection, guest_id: str, player_id: str, position: int, period: timedelta
) -> bool:
    """An account claimed a guest id (caller holds the lock): the guest's results become
    the account's and each game type they played is refolded, as the rebuild folds it
    (merging two ids changes what others met too: who is one person is an input of every
    weight). False if the guest id was claimed already (a redelivery)."""
    added = await conn.execute(
        text(
            "INSERT INTO scoring_aliases (guest_id, player_id, position) VALUES (:g, :p, :pos)"
            " ON CONFLICT (guest_id) DO NOTHING RETURNING 1"
        ),
        {"g": guest_id, "p": player_id, "pos": position},
    )
    if added.first() is None:
        return False
    kinds = await conn.execute(
        text(
            "UPDATE scoring_results r SET player_id = :p FROM scoring_games g"
            " WHERE r.player_id = :g AND g.stream_id = r.stream_id RETURNING g.game_type"
        ),
        {"g": guest_id, "p": player_id},
    )
    for kind in sorted({row[0] for row in kinds}):
        for table in ("scoring_ratings", "scoring_pairs"):
            await conn.execute(text(f"DELETE FROM {table} WHERE game_type = :t"), {"t": kind})
        await write_folded(conn, fold(await games_of_type(conn, kind), period))
    return True


async def write_folded(conn: AsyncConnection, folded: Folded) -> None:
    """A fold's scores and pairs (into tables emptied of what it covers)."""
    await upsert_scores(conn, [(t, s) for (t, _), s in sorted(folded.scores.items())])
    await upsert_pairs(conn, [(t, (a, b), h) for (t, a, b), h in sorted(folded.pairs.items())])
