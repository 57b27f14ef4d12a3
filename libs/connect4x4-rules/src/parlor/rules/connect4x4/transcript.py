"""A game written in move notation: played from its creation (how the CLI and tests read
games), and recorded from its events (the export)."""

from __future__ import annotations

from collections.abc import Iterable

from parlor.core.errors import RuleViolation
from parlor.rules.connect4x4.commands import Config, CreateGame
from parlor.rules.connect4x4.events import (
    BlockerDropped,
    CheckerDropped,
    Event,
    GameTied,
    GameWon,
    PlayerResigned,
    PlayerTimedOut,
)
from parlor.rules.connect4x4.game import GAME_OVER, decide, evolve, initial_state
from parlor.rules.connect4x4.notation import event_notation, parse_move
from parlor.rules.connect4x4.state import State


def play(moves: str | Iterable[str], config: Config | None = None) -> tuple[State, list[Event]]:
    """Create a game and play ``moves`` (like ``"df gb cx"``), each by the seat on turn."""
    written = moves.split() if isinstance(moves, str) else list(moves)
    events: list[Event] = list(decide(initial_state(), CreateGame(config or Config())))
    state = initial_state()
    for event in events:
        state = evolve(state, event)
    for text in written:
        if state.over:
            raise RuleViolation(GAME_OVER, f"the game is over before {text!r}")
        new = decide(state, parse_move(text, state.turn))
        for event in new:
            state = evolve(state, event)
        events.extend(new)
    return state, events


def record(events: Iterable[object]) -> list[str]:
    """A game's record, one line per move: ``<seat> <notation>``, ``<seat> resign`` or, for
    a seat that ran out of time, ``<seat> timeout`` (two ways of leaving, told apart); then,
    once it is over, how it ended: ``# won <seat> <reason>`` or ``# tied <reason>``."""
    lines: list[str] = []
    for event in events:
        match event:
            case CheckerDropped(seat) | BlockerDropped(seat):
                lines.append(f"{seat} {event_notation(event)}")
            case PlayerResigned(seat):
                lines.append(f"{seat} resign")
            case PlayerTimedOut(seat):
                lines.append(f"{seat} timeout")
            case GameWon(seat, _, reason):
                lines.append(f"# won {seat} {reason}")
            case GameTied(reason):
                lines.append(f"# tied {reason}")
    return lines
