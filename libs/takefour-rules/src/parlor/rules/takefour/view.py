"""What each viewer may see: the one place that hides hands, grids and the bag."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar

from parlor.rules.takefour.crossword import Cell
from parlor.rules.takefour.events import (
    DealKind,
    DoneCalled,
    JokerSwapped,
    RoundScored,
    RoundStarted,
    TakeFourEvent,
    TileMoved,
    TilePlaced,
    TilesDealt,
    TileTakenBack,
)
from parlor.rules.takefour.state import (
    Phase,
    Placement,
    RoundResult,
    TakeFourConfig,
    TakeFourState,
    bag_counts_as_empty,
)

Viewer = int | None
"""A seat number, or ``None`` for a spectator."""
T = TypeVar("T")


@dataclass(frozen=True)
class SeatView:
    """One seat as a viewer sees it; ``hand`` and ``grid`` are None unless they may be seen."""

    seat: int
    player_id: str
    in_hand: int
    on_grid: int
    agrees_to_deal: bool
    calls: int
    total: int
    hand: tuple[int, ...] | None = None
    idle: bool = False
    forfeited: bool = False
    grid: Mapping[Cell, Placement] | None = None
    departure: str = ""
    """Why it forfeited (``Player.departure``: ``FORFEITED`` on time, ``LEFT``), or ""."""


@dataclass(frozen=True)
class TakeFourView:
    viewer: Viewer
    phase: Phase
    config: TakeFourConfig
    round: int
    bag_count: int
    unused_count: int
    seats: tuple[SeatView, ...]
    results: tuple[RoundResult, ...]

    @property
    def me(self) -> SeatView | None:
        return None if self.viewer is None else self.seats[self.viewer]

    @property
    def bag_empty(self) -> bool:
        """Whether the bag counts as empty (``TakeFourState.bag_empty``): Done time."""
        return bag_counts_as_empty(self.config, self.bag_count, len(self.seats))


def view(state: TakeFourState, viewer: Viewer, *, reveal: bool = False) -> TakeFourView:
    """The viewer's own hand and grid; of others only counts, calls and scores (all, once over).

    ``reveal`` shows every hand and grid at any point of a game that has since ended (a
    replay of a finished game shows each step with everything, as its history does).
    """
    if viewer is not None and (
        isinstance(viewer, bool) or not 0 <= viewer < len(state.players)
    ):  # not a seat of this table (True would equal seat 1): seen as a spectator sees it
        viewer = None
    over = reveal or state.phase is Phase.OVER
    seats = tuple(
        SeatView(
            seat=seat,
            player_id=state.seats[seat],
            in_hand=len(p.hand),
            on_grid=len(p.grid),
            agrees_to_deal=p.agrees_to_deal,
            calls=p.calls,
            total=p.total,
            hand=p.hand if over or seat == viewer else None,
            grid=dict(p.grid) if over or seat == viewer else None,
            idle=p.idle,
            forfeited=p.forfeited,
            departure=p.departure,
        )
        for seat, p in enumerate(state.players)
    )
    return TakeFourView(
        viewer=viewer,
        phase=state.phase,
        config=state.config,
        round=state.round,
        bag_count=len(state.bag),
        unused_count=len(state.unused),
        seats=seats,
        results=state.results,
    )


@dataclass(frozen=True)
class RoundStartedSeen:
    round: int
    bag_size: int


@dataclass(frozen=True)
class TilesDealtSeen:
    """A deal as one viewer sees it: everyone's counts, and the viewer's own new tiles in
    ``hands`` (each seat's share, empty but the viewer's; None for a spectator)."""

    # a positional pattern reads the viewer's own share, as it did before shares were per seat
    __match_args__ = ("round", "kind", "counts", "unused_count", "bag_left", "own")

    round: int
    kind: DealKind
    counts: tuple[int, ...]
    unused_count: int
    bag_left: int
    hands: tuple[tuple[int, ...], ...] | None

    @property
    def own(self) -> tuple[int, ...]:
        """The viewer's own new tiles (none for a spectator)."""
        return _own(self.hands)


Change = Literal["placed", "moved", "taken_back"]
"""What a grid change shows others: ``placed`` and ``taken_back`` move a tile between hand
and grid (the counts show as much); ``moved`` changes the grid and no count."""


@dataclass(frozen=True)
class GridChanged:
    """Another player changed their grid; only what the counts show is public (a joker swap
    is ``moved``: naming it would tell that a joker is now in the hand)."""

    seat: int
    change: Change


@dataclass(frozen=True)
class DoneCalledSeen:
    """Done was called; the round's accepted words (they spell every grid) stay hidden."""

    seat: int
    in_hand: int = 0


@dataclass(frozen=True)
class RoundScoredSeen:
    """A round's scores as one viewer sees them: the cells removed from the viewer's own
    grid in ``removed`` (each seat's share, empty but the viewer's; None for a spectator)."""

    # a positional pattern reads the viewer's own share, as it did before shares were per seat
    __match_args__ = ("round", "done_seat", "done_valid", "scores", "totals", "own_removed")

    round: int
    done_seat: int
    done_valid: bool
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    removed: tuple[tuple[Cell, ...], ...] | None

    @property
    def own_removed(self) -> tuple[Cell, ...]:
        """The cells removed from the viewer's own grid (none for a spectator)."""
        return _own(self.removed)


SeenEvent = (
    TakeFourEvent
    | RoundStartedSeen
    | TilesDealtSeen
    | GridChanged
    | DoneCalledSeen
    | RoundScoredSeen
)


def _own(shares: tuple[tuple[T, ...], ...] | None) -> tuple[T, ...]:
    """The viewer's share of a seen event's ``shares`` (the others' are empty)."""
    return tuple(item for share in shares or () for item in share)


def _shares(shares: tuple[tuple[T, ...], ...], viewer: Viewer) -> tuple[tuple[T, ...], ...] | None:
    """Each seat's share as ``viewer`` may see them: their own, none of the others'."""
    if viewer is None:
        return None
    return tuple(share if seat == viewer else () for seat, share in enumerate(shares))


_CHANGES: dict[type, Change] = {
    TilePlaced: "placed",
    TileMoved: "moved",
    TileTakenBack: "taken_back",
    JokerSwapped: "moved",  # a tile of the hand for one of the grid: no count changes
}


def public_event(event: TakeFourEvent, viewer: Viewer, *, reveal: bool = False) -> SeenEvent:
    """What ``viewer`` may see of ``event``; ``reveal`` (the game is over) shows everything."""
    if reveal:
        return event
    match event:
        case RoundStarted(round=number, bag=bag):
            return RoundStartedSeen(round=number, bag_size=len(bag))
        case TilesDealt():
            hands = _shares(event.hands, viewer)
            return TilesDealtSeen(
                event.round, event.kind, event.counts, len(event.unused), event.bag_left, hands
            )
        case TilePlaced() | TileMoved() | TileTakenBack() | JokerSwapped():
            if event.seat == viewer:
                return event
            return GridChanged(event.seat, _CHANGES[type(event)])
        case DoneCalled():
            return DoneCalledSeen(event.seat, event.in_hand)
        case RoundScored():
            removed = _shares(event.removed, viewer)
            return RoundScoredSeen(
                event.round, event.done_seat, event.done_valid, event.scores, event.totals, removed
            )
    return event


def draw_grid(grid: Mapping[Cell, Placement], jokers: frozenset[int] = frozenset()) -> str:
    """The grid as text rows; a joker's letter is shown in lower case."""
    if not grid:
        return "(empty grid)"
    xs = [x for x, _ in grid]
    ys = [y for _, y in grid]
    rows = []
    for y in range(min(ys), max(ys) + 1):
        row = ""
        for x in range(min(xs), max(xs) + 1):
            placed = grid.get((x, y))
            if placed is None:
                row += "."
            else:
                row += placed.letter.lower() if placed.tile in jokers else placed.letter
        rows.append(row)
    return f"origin ({min(xs)}, {min(ys)})\n" + "\n".join(rows)


def render(state: TakeFourState, viewer: Viewer, *, reveal: bool = False) -> str:
    """A text picture of what ``viewer`` sees (``reveal``: as ``view``), for logs and a CLI."""
    seen = view(state, viewer, reveal=reveal)
    tiles = state.config.tiles
    jokers = frozenset(t for t in range(tiles.size) if tiles.is_joker(t))
    lines = [
        f"Take Four: round {seen.round}, {seen.phase.value}, bag {seen.bag_count}, "
        f"unused {seen.unused_count}, checking {seen.config.checking}"
    ]
    for s in seen.seats:
        flags = " (agrees to deal)" if s.agrees_to_deal else ""
        lines.append(
            f"seat {s.seat} {s.player_id}: total {s.total}, hand {s.in_hand}, "
            f"grid {s.on_grid}, calls {s.calls}{flags}"
        )
        if s.hand is not None:
            lines.append("  hand: " + " ".join(tiles.face(t) for t in s.hand))
        if s.grid is not None:
            lines.extend("  " + row for row in draw_grid(s.grid, jokers).splitlines())
    return "\n".join(lines)
