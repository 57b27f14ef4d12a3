"""The conformance kit: random playouts that every rule engine must survive.

Each engine's tests give a ``choose`` function (a random legal command, or
``None`` when the game cannot go on) and an invariant check; the kit plays
games to the end and checks that replaying the recorded events gives the very
state the live game reached. ``check_contract`` plays a game through the game contract
(``parlor.core.game``) alone and checks that its answers agree with each other.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from parlor.core.decider import Decider, execute, replay
from parlor.core.errors import ParlorError
from parlor.core.game import GameContract, problems, secret_fields

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


# --- the game contract ------------------------------------------------------------------------


def check_contract(
    engine: GameContract[S, C, E],
    setup: Sequence[C],
    rng: random.Random,
    *,
    chance: Callable[[S, random.Random], C | None] | None = None,
    prepare: Callable[[S, C], C] | None = None,
    check_invariants: Callable[[S], None] = lambda state: None,
    max_steps: int = 2_000,
) -> Playout[S, E]:
    """Play one game through the contract alone and check that its answers agree.

    A seat in ``to_move`` plays one of its ``legal_moves`` (``prepare`` fills in what the
    service adds, such as a dictionary's verdicts); when no seat is to move, ``chance``
    gives the service's step (a deal). At every step: seats not to move have no moves,
    ``view`` answers every viewer, ``result`` is given exactly when the game is over, and
    every event is one of the game's, each ``Secret`` field of it hidden from every viewer
    but its own seat. The replay must give the live state.
    """
    missing = problems(engine)
    if missing:
        raise AssertionError(f"{engine!r} does not conform: {', '.join(missing)}")
    decider = engine.decider

    def choose(state: S, rng: random.Random) -> C | None:
        seats = list(engine.to_move(state))
        if not seats:
            return chance(state, rng) if chance is not None else None
        rng.shuffle(seats)
        for seat in seats:
            moves = list(engine.legal_moves(state, seat))
            rng.shuffle(moves)
            for move in moves[:20]:
                command = prepare(state, move) if prepare is not None else move
                try:
                    decider.decide(state, command)
                except ParlorError:
                    continue  # a sampled move the engine refuses (an invalid grid, say)
                return command
        return None

    def check(state: S) -> None:
        check_invariants(state)
        if not isinstance(state, engine.State):
            raise AssertionError(f"{type(state).__name__} is not {engine.name}'s State")
        waiting = set(engine.to_move(state))
        seats = _seats(state, engine.max_seats)
        for seat in range(seats):
            if seat not in waiting and engine.legal_moves(state, seat):
                raise AssertionError(f"seat {seat} has moves but is not to move")
        if not waiting <= set(range(seats)):
            raise AssertionError(f"to_move {sorted(waiting)} names no seat of {seats}")
        for viewer in (None, *range(seats)):
            engine.view(state, viewer)
        outcome = engine.result(state)
        if (outcome is not None) != engine.is_terminal(state):
            raise AssertionError("result() must be given exactly when the game is over")
        if outcome is not None and not set(outcome.winners) <= set(range(seats)):
            raise AssertionError(f"winners {outcome.winners} are not seats")

    played = random_playout(decider, setup, choose, check, rng, max_steps)
    seats = _seats(played.final_state, engine.max_seats)
    for event in played.events:
        if not isinstance(event, engine.Event):
            raise AssertionError(f"{type(event).__name__} is not one of {engine.name}'s events")
        check_secrets(engine, event, seats)
    return played


def check_secrets(engine: GameContract[Any, Any, E], event: E, seats: int) -> None:
    """Every ``Secret`` field of ``event`` is hidden by ``public_event`` from all but its seat.

    A field holding one share per seat (a tuple as long as the seats, e.g. each seat's dealt
    hand) is each seat's own: a viewer may be shown theirs, and no other seat's."""
    owner = getattr(event, "seat", None)
    for name in secret_fields(type(event)):
        value = getattr(event, name)
        if value in (None, (), "", {}):
            continue
        for viewer in (None, *range(seats)):
            if viewer is not None and viewer == owner:
                continue
            seen = getattr(engine.public_event(event, viewer), name, None)
            if isinstance(seen, tuple) and _per_seat(value, seats) and _per_seat(seen, seats):
                leaked = any(
                    s != viewer and value[s] not in (None, (), "", {}) and seen[s] == value[s]
                    for s in range(seats)
                )
            else:
                leaked = seen == value
            if leaked:
                raise AssertionError(
                    f"{type(event).__name__}.{name} reaches viewer {viewer} of {engine.name}"
                )


def _per_seat(value: object, seats: int) -> bool:
    return isinstance(value, tuple) and len(value) == seats


def _seats(state: object, fixed: int) -> int:
    """How many seats the game has: ``seats`` or ``players`` (a count or the seats' records),
    else ``fixed`` (a game for a fixed number of players need not record it)."""
    for name in ("seats", "players"):
        value = getattr(state, name, None)
        if isinstance(value, int):
            return value
        if isinstance(value, tuple) and value:
            return len(value)
    return fixed
