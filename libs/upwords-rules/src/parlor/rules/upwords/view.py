"""What each viewer may see: the one place that hides racks and the bag."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from parlor.core.game import secret_fields as secret_fields_of
from parlor.rules.upwords.board import Board
from parlor.rules.upwords.config import UpwordsConfig
from parlor.rules.upwords.events import Event, GameCreated
from parlor.rules.upwords.state import PendingPlay, Phase, UpwordsState

E = TypeVar("E", bound=Event)


@dataclass(frozen=True)
class PlayerView:
    """A seat's view (``viewer`` = seat) or a spectator's (``viewer`` = None).

    ``rack`` is the viewer's own rack; ``racks`` (every rack) and ``bag`` are
    filled only once the game has ended.
    """

    viewer: int | None
    phase: Phase
    config: UpwordsConfig
    seats: tuple[str, ...]
    board: Board
    scores: tuple[int, ...]
    rack_sizes: tuple[int, ...]
    bag_count: int
    to_move: int
    passes: int
    pending: PendingPlay | None
    retry: bool
    rack: tuple[str, ...] | None
    racks: tuple[tuple[str, ...], ...] | None
    bag: tuple[str, ...] | None
    end_reason: str
    winners: tuple[int, ...]


def view(state: UpwordsState, viewer: int | None) -> PlayerView:
    """The state as ``viewer`` may see it: own rack only, counts for the rest."""
    ended = state.phase is Phase.ENDED
    own = viewer is not None and 0 <= viewer < len(state.racks)
    return PlayerView(
        viewer=viewer,
        phase=state.phase,
        config=state.config,
        seats=state.seats,
        board=state.board,
        scores=state.scores,
        rack_sizes=tuple(len(r) for r in state.racks),
        bag_count=len(state.bag),
        to_move=state.to_move,
        passes=state.passes,
        pending=state.pending,
        retry=state.retry,
        rack=state.racks[viewer] if own and viewer is not None else None,
        racks=state.racks if ended else None,
        bag=state.bag if ended else None,
        end_reason=state.end_reason,
        winners=state.winners,
    )


def secret_fields(event: Event) -> tuple[str, ...]:
    """The names of an event's fields marked secret (racks, draws, the bag)."""
    secret = secret_fields_of(type(event))
    return tuple(f.name for f in dataclasses.fields(event) if f.name in secret)


def public_event(event: E) -> E:
    """The event with every secret field set to None: safe for anyone to see."""
    names = secret_fields(event)
    if not names:
        return event
    stripped: Any = dataclasses.replace(cast(Any, event), **dict.fromkeys(names))
    return cast(E, stripped)


def event_for(event: E, viewer: int | None) -> E:
    """The event as ``viewer`` may see it: their own secrets kept, everyone else's removed."""
    seat = getattr(event, "seat", None)
    if isinstance(event, GameCreated):
        if event.racks is None or viewer is None or not 0 <= viewer < len(event.racks):
            return public_event(event)
        racks = tuple(r if i == viewer else None for i, r in enumerate(event.racks))
        return dataclasses.replace(event, racks=racks, bag=None)  # type: ignore[return-value]
    if seat is not None and seat == viewer:
        return event
    return public_event(event)
