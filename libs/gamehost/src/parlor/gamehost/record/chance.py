"""The chance steps of a game, drawn by the platform: rule engines draw nothing.

A game declares its chance as steps of its rules (OpenSpiel's chance nodes): after a state,
the step that follows it (``Chance``), if any, says how many things it orders (``size``),
under which name and number it is made once (``parlor:<name>-<number>``) and the command
that order makes (``Shuffle.command``). The pipeline draws the order here, from the
operating system's secure source, and makes the command (``Pipeline.follow_up``), so the
engine's events record the order and a replay decides the same.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


def shuffled(items: Iterable[T]) -> tuple[T, ...]:
    """``items`` in an order drawn from a secure source (every order equally likely)."""
    order = list(items)
    secrets.SystemRandom().shuffle(order)
    return tuple(order)


class Shuffle(Protocol):
    """A chance step a game's rules declare: an order of ``size`` things (0 to ``size - 1``)
    to draw, and the command it makes; made once under ``parlor:<name>-<number>``."""

    @property
    def name(self) -> str: ...

    @property
    def number(self) -> int: ...

    @property
    def size(self) -> int: ...

    def command(self, order: tuple[int, ...]) -> Any: ...


Chance = Callable[[Any], Shuffle | None]
"""A game's chance: (the engine's state) -> the chance step that follows it (None: none)."""


def drawn(step: Shuffle) -> Any:
    """The command of ``step`` with its order drawn here (``shuffled``)."""
    return step.command(shuffled(range(step.size)))
