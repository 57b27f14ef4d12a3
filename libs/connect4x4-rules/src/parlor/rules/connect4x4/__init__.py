"""Connect 4x4 rules: a pure decider for the double-sided grid with weaving lines and blockers."""

from parlor.rules.connect4x4.board import COLUMNS, ROWS, Cell, Position, Side
from parlor.rules.connect4x4.commands import (
    BLOCKERS_PER_PLAYER,
    CHECKERS_PER_PLAYER,
    Command,
    Config,
    CreateGame,
    DropBlocker,
    DropChecker,
    Move,
    Resign,
)
from parlor.rules.connect4x4.events import (
    BlockerDropped,
    CheckerDropped,
    Event,
    GameCreated,
    GameTied,
    GameWon,
    PlayerResigned,
    PlayerSkipped,
)
from parlor.rules.connect4x4.game import (
    Connect4x4Rules,
    Outcome,
    decide,
    decider,
    evolve,
    initial_state,
    is_terminal,
    legal_moves,
    result,
)
from parlor.rules.connect4x4.notation import format_move, parse_move
from parlor.rules.connect4x4.state import State, Status
from parlor.rules.connect4x4.transcript import play
from parlor.rules.connect4x4.view import Content, GameView, Hole, render, view

__all__ = [
    "BLOCKERS_PER_PLAYER",
    "CHECKERS_PER_PLAYER",
    "COLUMNS",
    "ROWS",
    "BlockerDropped",
    "Cell",
    "CheckerDropped",
    "Command",
    "Config",
    "Connect4x4Rules",
    "Content",
    "CreateGame",
    "DropBlocker",
    "DropChecker",
    "Event",
    "GameCreated",
    "GameTied",
    "GameView",
    "GameWon",
    "Hole",
    "Move",
    "Outcome",
    "PlayerResigned",
    "PlayerSkipped",
    "Position",
    "Resign",
    "Side",
    "State",
    "Status",
    "decide",
    "decider",
    "evolve",
    "format_move",
    "initial_state",
    "is_terminal",
    "legal_moves",
    "parse_move",
    "play",
    "render",
    "result",
    "view",
]
