"""The chance steps of a game, drawn by its service: rule engines draw nothing.

A shuffle (a bag's order) is drawn here from the operating system's secure source and
put into the command, so the engine's events record it and a replay decides the same.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")


def shuffled(items: Iterable[T]) -> tuple[T, ...]:
    """``items`` in an order drawn from a secure source (every order equally likely)."""
    order = list(items)
    secrets.SystemRandom().shuffle(order)
    return tuple(order)
