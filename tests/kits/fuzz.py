"""Stateful fuzzing of the rule engines: commands legal and not, from states random play reached.

An engine must refuse a command it cannot take with the project's own errors
(``parlor.core.errors.ParlorError``); any other exception is a defect. A refused command
changes nothing; an accepted one's events evolve, and the whole event list folds from
the initial state to the very state the game reached.

The committed tests run a few examples, derandomized and without Hypothesis' example
database, so CI is deterministic; ``PARLOR_FUZZ_EXAMPLES`` raises the count to explore
locally (``PARLOR_FUZZ_EXAMPLES=2000 pytest tests/unit/upwords/test_upwords_fuzz.py``), and
``PARLOR_FUZZ_SEED`` set to anything explores at random instead of derandomized.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from hypothesis import HealthCheck, Phase, settings

from parlor.core.decider import Decider, replay
from parlor.core.errors import ParlorError

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")

EXAMPLES = int(os.environ.get("PARLOR_FUZZ_EXAMPLES", "0"))
"""Examples per test when set (exploring); each test's own small count when not."""


def fuzz_settings(examples: int, steps: int) -> settings:
    """``examples`` runs of up to ``steps`` rules each (``PARLOR_FUZZ_EXAMPLES`` overrides)."""
    return settings(
        max_examples=EXAMPLES or examples,
        stateful_step_count=steps,
        deadline=None,
        derandomize="PARLOR_FUZZ_SEED" not in os.environ,
        database=None,
        print_blob=False,
        phases=[p for p in Phase if p is not Phase.explain],
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.filter_too_much,
            HealthCheck.data_too_large,
        ],
    )


class Game(Generic[S, C, E]):
    """One game under fuzzing: its state and every event accepted so far."""

    def __init__(self, decider: Decider[S, C, E]) -> None:
        self.decider = decider
        self.state: S = decider.initial_state()
        self.events: list[E] = []
        self.accepted = 0
        self.refused = 0

    def apply(self, command: C) -> Sequence[E] | None:
        """The command's events once applied, or None if the engine refused it.

        Only ``ParlorError`` may refuse: anything else propagates and fails the test.
        """
        before = self.state
        try:
            events = self.decider.decide(before, command)
        except ParlorError:
            self.refused += 1
            assert self.state is before
            return None
        state = before
        for event in events:
            state = self.decider.evolve(state, event)
        self.state = state
        self.events.extend(events)
        self.accepted += 1
        return events

    def check_replay(self) -> None:
        replayed: Any = replay(self.decider, self.events)
        assert replayed == self.state, "folding the events did not give the game's state"
