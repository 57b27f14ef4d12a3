"""The conformance kit: random playouts that every rule engine must survive.

Each engine's tests give a ``choose`` function (a random legal command, or
``None`` when the game cannot go on) and an invariant check; the kit plays
games to the end and checks that replaying the recorded events gives the very
state the live game reached.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from parlor.core.decider import Decider, execute, replay

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")


@dataclass(frozen=True)
class Playout(Generic[S, E]):
    final_state: S
    events: tuple[E, ...]
    steps: int


def random_playout(
    decider: Decider[S, C, E],
    setup: Sequence[C],
    choose: Callable[[S, random.Random], C | None],
    check_invariants: Callable[[S], None],
    rng: random.Random,
    max_steps: int = 10_000,
) -> Playout[S, E]:
    """Play one game with random commands; every step is checked, then the replay."""
    state = decider.initial_state()
    events: list[E] = []
    for command in setup:
        state, new = execute(decider, state, command)
        events.extend(new)
    check_invariants(state)
    steps = 0
    while not decider.is_terminal(state) and steps < max_steps:
        chosen = choose(state, rng)
        if chosen is None:
            break
        state, new = execute(decider, state, chosen)
        events.extend(new)
        check_invariants(state)
        steps += 1
    replayed = replay(decider, events)
    if replayed != state:
        raise AssertionError("replaying the recorded events did not give the live state")
    return Playout(final_state=state, events=tuple(events), steps=steps)
