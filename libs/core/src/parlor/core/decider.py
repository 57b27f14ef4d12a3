"""The decider shape every rule engine follows.

A game is pure: ``decide`` turns a command into events (or raises a
``RuleViolation``), ``evolve`` applies one event, and replaying a stream is a
fold. Randomness (draws) is chosen by the service and arrives inside commands,
so ``decide`` and ``evolve`` are deterministic functions of their inputs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

S = TypeVar("S")
C = TypeVar("C")
C_contra = TypeVar("C_contra", contravariant=True)
E = TypeVar("E")


class Decider(Protocol[S, C_contra, E]):
    """What every rule engine offers; one module-level instance per game."""

    def initial_state(self) -> S:
        """The state before the game's first event (nothing decided yet)."""
        ...

    def decide(self, state: S, command: C_contra) -> Sequence[E]:
        """The events a command produces; raises ``RuleViolation`` if refused."""
        ...

    def evolve(self, state: S, event: E) -> S:
        """The state after one event; never refuses (events are facts)."""
        ...

    def is_terminal(self, state: S) -> bool: ...


def replay(decider: Decider[S, C, E], events: Iterable[E], state: S | None = None) -> S:
    """Fold events over the initial (or a given) state."""
    current = decider.initial_state() if state is None else state
    for event in events:
        current = decider.evolve(current, event)
    return current


def execute(decider: Decider[S, C, E], state: S, command: C) -> tuple[S, Sequence[E]]:
    """Decide and evolve in one step: the new state and the events that made it."""
    events = decider.decide(state, command)
    return replay(decider, events, state), events
