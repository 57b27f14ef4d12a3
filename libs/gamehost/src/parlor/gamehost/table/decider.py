"""What the game host asks of the rules it runs, as a typed protocol.

The host decides, folds, stamps and schedules a game through its rules (``Seated``: an
engine with its seats and clocks). It used to find out what those rules could do by
looking their attributes up by name (``evolve_at``, an answer's ``stamps`` ...), so
neither a reader nor mypy could tell what a game must offer. ``SeatedDecider``
says it, once, and ``Seated`` implements it by name; ``Decided`` is the answer it gives
to a command.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol, TypeVar

from parlor.common.v1 import common_pb2
from parlor.gamehost.table.clocks import Stamp, Timing

S = TypeVar("S")
C_contra = TypeVar("C_contra", contravariant=True)
E_contra = TypeVar("E_contra", contravariant=True)


class Decided(list[Any]):
    """A command's events as ``Seated`` decided them: first the ``fired`` timeouts that were
    due, then the command's own. Each was folded once, as it was decided: ``stamps`` are
    what the host records with each (None: an untimed game; the acting seat on the first
    of the command's own, ``Stamp.first``), ``states`` the table after each."""

    def __init__(
        self,
        events: Sequence[Any],
        fired: int,
        stamps: Sequence[Stamp | None],
        states: Sequence[Any],
    ) -> None:
        super().__init__(events)
        self.fired = fired
        self.stamps = tuple(stamps)
        self.states = tuple(states)


class SeatedDecider(Protocol[S, C_contra, E_contra]):
    """The rules a ``GameHost`` runs: a decider over the table of seats and clocks.

    ``decide`` answers with each event already folded and stamped (``Decided``), so the
    host appends without folding again; ``evolve_at`` folds a stored event with the time
    it records; ``next_deadline`` is when the clock next needs the game; ``timing`` whose
    clock runs (None: the game has no clocks)."""

    timing: Timing[Any] | None

    def initial_state(self) -> S: ...

    def decide(self, state: S, command: C_contra) -> Decided: ...

    def evolve(self, state: S, event: E_contra) -> S: ...

    def evolve_at(self, state: S, event: E_contra, stamp: Stamp | None) -> S: ...

    def is_terminal(self, state: S) -> bool: ...

    def next_deadline(self, state: S) -> datetime | None: ...

    def clocks(self, state: S, as_of: datetime | None = None) -> common_pb2.Clocks: ...
