"""Hand-built boards and states for the Upwords tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from parlor.rules.upwords import (
    UPWORDS,
    Board,
    Event,
    Play,
    UpwordsConfig,
    UpwordsState,
    words_formed,
)
from parlor.rules.upwords.board import EMPTY_BOARD, SIZE
from parlor.rules.upwords.notation import parse_play
from parlor.rules.upwords.state import Phase


def board(*plays: str, stacks: Mapping[tuple[int, int], Sequence[str]] | None = None) -> Board:
    """Lay plays written in notation (e.g. ``5E WORD``), then set whole stacks by hand."""
    b = EMPTY_BOARD
    for text in plays:
        b = b.placed((p.row, p.col, p.tile) for p in parse_play(text))
    if stacks:
        cells = list(b.stacks)
        for (row, col), stack in stacks.items():
            cells[row * SIZE + col] = tuple(stack)
        b = Board(tuple(cells))
    return b


def state(
    b: Board = EMPTY_BOARD,
    racks: Sequence[str | Sequence[str]] = ("ABCDEFG", "HIJKLMN"),
    bag: str | Sequence[str] = "EEEEE",
    to_move: int = 0,
    config: UpwordsConfig | None = None,
    scores: Sequence[int] | None = None,
) -> UpwordsState:
    """A game in progress with the given board, racks (one string per seat) and bag."""
    return UpwordsState(
        phase=Phase.PLAYING,
        config=config or UpwordsConfig(),
        seats=tuple(f"p{i}" for i in range(len(racks))),
        board=b,
        racks=tuple(tuple(r) for r in racks),
        bag=tuple(bag),
        scores=tuple(scores) if scores is not None else (0,) * len(racks),
        to_move=to_move,
    )


def play(seat: int, text: str, verdicts: Mapping[str, bool] | None = None) -> Play:
    return Play(seat, parse_play(text), dict(verdicts or {}))


def approved(s: UpwordsState, seat: int, text: str) -> Play:
    """A play whose words the dictionary all accepts."""
    bare = play(seat, text)
    return Play(seat, bare.placements, dict.fromkeys(words_formed(s, bare), True))


def run(s: UpwordsState, *commands: object) -> tuple[UpwordsState, list[Event]]:
    """Decide and evolve each command in turn; all the events."""
    events: list[Event] = []
    for command in commands:
        new = UPWORDS.decide(s, command)  # type: ignore[arg-type]
        for e in new:
            s = UPWORDS.evolve(s, e)
        events.extend(new)
    return s, events
