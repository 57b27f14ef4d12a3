"""The record of a finished game as text, after GCG (the crossword-game record format).

::

    #game upwords
    #lexicon enable1
    #word-checking challenge
    #plural-rule on
    #player1 0 p0
    #player2 1 p1
    #first-draw 0:A 1:B
    >p0: CATSXYZ 5E CAT +6 6
    #challenge p1 lost
    >p1: OEEDGMH - +0 0
    >p0: SXYZAAA -Z +0 6
    >p1: OEEDGMH - +0 0
    >p0: SXYAAAA - +0 6
    >p0: (SXYAAAA) -35 -29
    >p1: (OEEDGMH) -35 -35
    #end ALL_PASSED winners p0

Each turn line: ``>name: rack-before-the-turn move +score running-total``,
moves in ``parlor.rules.upwords.notation`` (``-`` pass, ``-X`` exchange);
``--`` is a play taken back after a challenge (its score undone, GCG style);
``#challenge`` notes a failed challenge; ``(RACK) -N`` lines are the
end-of-game penalties. Racks appear because the game is over.
"""

from __future__ import annotations

from collections.abc import Sequence

from parlor.core.errors import FailedPrecondition
from parlor.rules.upwords.board import Board
from parlor.rules.upwords.events import (
    ChallengeFailed,
    Event,
    GameCreated,
    GameEnded,
    Passed,
    PlayerResigned,
    PlayerTimedOut,
    PlayWithdrawn,
    TileExchanged,
    WordPlayed,
)
from parlor.rules.upwords.game import UPWORDS
from parlor.rules.upwords.notation import PASS, format_exchange, format_play


def _rack(rack: Sequence[str]) -> str:
    return "".join(t.upper() for t in rack)


def export_game(events: Sequence[Event]) -> str:
    """The whole record of a finished game (needs the full, unstripped events)."""
    if not events or not isinstance(events[-1], GameEnded):
        raise FailedPrecondition("only a finished game can be exported", reason="GAME_NOT_OVER")
    state = UPWORDS.initial_state()
    lines: list[str] = []
    for event in events:
        name = state.seats[getattr(event, "seat", 0)] if state.seats else ""
        rack = _rack(state.racks[event.seat]) if hasattr(event, "seat") and state.racks else ""
        if isinstance(event, GameCreated):
            lines += ["#game upwords", f"#lexicon {event.config.lexicon}"]
            lines.append(f"#word-checking {event.config.word_checking.value}")
            lines.append(f"#plural-rule {'on' if event.config.plural_rule else 'off'}")
            lines += [f"#player{i + 1} {i} {seat}" for i, seat in enumerate(event.seats)]
            for draw in event.first_draw:
                lines.append("#first-draw " + " ".join(f"{s}:{t.upper()}" for s, t in draw.draws))
        elif isinstance(event, WordPlayed):
            move = format_play(state.board, event.placements)
            total = state.scores[event.seat] + event.score
            lines.append(f">{name}: {rack} {move} +{event.score} {total}")
        elif isinstance(event, Passed):
            lines.append(f">{name}: {rack} {PASS} +0 {state.scores[event.seat]}")
        elif isinstance(event, TileExchanged):
            move = format_exchange(event.returned or "?")
            lines.append(f">{name}: {rack} {move} +0 {state.scores[event.seat]}")
        elif isinstance(event, PlayWithdrawn):
            total = state.scores[event.seat] - event.score
            rack += _rack([p.tile for p in event.placements])
            lines.append(f">{name}: {rack} -- -{event.score} {total}")
            lines.append(f"#challenge {state.seats[event.challenger]} won")
        elif isinstance(event, ChallengeFailed):
            lines.append(f"#challenge {state.seats[event.challenger]} lost")
        elif isinstance(event, PlayerResigned):
            lines.append(f"#resigned {name}")
        elif isinstance(event, PlayerTimedOut):
            lines.append(f"#timeout {name}")
        elif isinstance(event, GameEnded):
            for seat, (left, penalty) in enumerate(
                zip(event.racks_left, event.penalties, strict=True)
            ):
                if penalty:
                    line = f">{state.seats[seat]}: ({_rack(left)}) -{penalty}"
                    lines.append(f"{line} {event.final_scores[seat]}")
            winners = " ".join(state.seats[s] for s in event.winners)
            lines.append(f"#end {event.reason} winners {winners}")
        state = UPWORDS.evolve(state, event)
    return "\n".join(lines) + "\n"


def move_notation(event: object, board_before: Board) -> str:
    """The move of a play, pass or exchange in notation (``-?``: an exchange not shown), on
    the board it was made on; "" for any other event."""
    if isinstance(event, WordPlayed):
        return format_play(board_before, event.placements)
    if isinstance(event, Passed):
        return PASS
    if isinstance(event, TileExchanged):
        return format_exchange(event.returned) if event.returned else "-?"
    return ""


def boards_before(events: Sequence[object], board_after: Board) -> list[Board]:
    """The board before each of consecutive ``events``, walking back from the board after
    the last: a play's tiles are lifted off, a withdrawn play's tiles put back."""
    boards: list[Board] = []
    board = board_after
    for event in reversed(events):
        if isinstance(event, WordPlayed):
            board = board.lifted((p.row, p.col) for p in event.placements)
        elif isinstance(event, PlayWithdrawn):
            board = board.placed((p.row, p.col, p.tile) for p in event.placements)
        boards.append(board)
    return boards[::-1]
