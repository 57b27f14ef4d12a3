"""A tournament's record for people and programs: standings and pairings, as JSON and text."""

from __future__ import annotations

import dataclasses
from typing import Any

from parlor.tournamentrules.standings import standings
from parlor.tournamentrules.state import Round, Tournament


def pairings(state: Tournament) -> tuple[Round, ...]:
    """Every pairing so far (a Swiss round or an arena's wave): tables and byes."""
    return state.rounds


def export_json(state: Tournament) -> dict[str, Any]:
    """Settings, standings, and each round's tables (with results) and byes: everything a
    checker needs to recompute the standings (JSON types only)."""
    settings = state.rules
    rounds = []
    for number in state.rounds:
        tables = []
        for game_id, seats in number.tables:
            game = state.games[game_id]
            result = (
                [
                    {
                        "player": player,
                        "place": place,
                        "points": points,
                        "doubled": doubled,
                        "berserk_bonus": bonus,
                        "berserk": player in game.berserk,
                    }
                    for player, place, points, doubled, bonus in game.scores
                ]
                if game.scored
                else None
            )
            tables.append(
                {"game_id": game_id, "seats": list(seats), "result": result, "moves": game.moves}
            )
        rounds.append(
            {
                "round": number.number,
                "at_ms": number.at_ms,
                "seed": number.seed,
                "tables": tables,
                "byes": [{"player": p, "points": points} for p, points in number.byes],
            }
        )
    return {
        "settings": {
            k: list(v) if isinstance(v, tuple) else v
            for k, v in dataclasses.asdict(settings).items()
        },
        "organiser": state.organiser,
        "phase": state.phase,
        "created_at_ms": state.created_at_ms,
        "started_at_ms": state.started_at_ms,
        "finished_at_ms": state.finished_at_ms,
        "standings": [
            {
                "rank": s.rank,
                "player": s.player,
                "points": s.points,
                "tie_breaks": dict(s.tie_breaks),
                "games": s.games,
                "wins": s.wins,
                "byes": s.byes,
                "is_bot": s.is_bot,
                "withdrawn": s.withdrawn,
                "status": s.status,
            }
            for s in standings(state)
        ],
        "rounds": rounds,
    }


def export_text(state: Tournament) -> str:
    """A plain-text record: a heading, the standings table, then each round's pairings."""
    settings = state.rules
    title = settings.name or f"{settings.game_type} {settings.format.lower()}"
    lines = [
        f"{title} ({settings.format}, {settings.game_type}, tables of {settings.table_size}, "
        f"{state.phase.lower()})",
        "",
        "Standings",
    ]
    table = standings(state)
    names = [name for name, _ in table[0].tie_breaks] if table else []
    head = f"{'#':>4}  {'player':<24} {'points':>6} {'games':>5}" + "".join(
        f" {name:>16}" for name in names
    )
    lines.append(head)
    for s in table:
        flags = (" (bot)" if s.is_bot else "") + (f" ({s.status.lower()})" if s.withdrawn else "")
        lines.append(
            f"{s.rank:>4}  {s.player + flags:<24} {s.points:>6} {s.games:>5}"
            + "".join(f" {_number(value):>16}" for _, value in s.tie_breaks)
        )
    for number in state.rounds:
        lines += ["", f"Round {number.number}"]
        for game_id, seats in number.tables:
            game = state.games[game_id]
            if game.scored:
                outcome = ", ".join(
                    f"{player} {place}. +{points}" for player, place, points, _, _ in game.scores
                )
            else:
                outcome = "in play"
            lines.append(f"  {game_id}: {' - '.join(seats)}  [{outcome}]")
        for player, points in number.byes:
            lines.append(f"  bye: {player} +{points}")
    return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    """A tie-break as people read it: whole numbers without decimals, others to 4 places."""
    return str(int(value)) if value.is_integer() else f"{value:.4f}"
