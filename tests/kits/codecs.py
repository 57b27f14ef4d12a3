"""Checks that a game's codec still maps events exactly as its hand-written codec did.

Stored events are in PostgreSQL: a codec may change how it is written, never what it
writes or reads. ``assert_same`` holds a new ``event_pb``/``event_of`` pair to the old one
(kept in the game's test file as the reference) on one event; ``instances`` gives
arbitrary instances of an event type from its type hints, for hypothesis.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

from google.protobuf.message import Message
from hypothesis import strategies as st

Encode = Callable[[Any], Message]
Decode = Callable[[Message], Any]


def assert_same(
    event: object, old: tuple[Encode, Decode], new: tuple[Encode, Decode], *, exact: bool = True
) -> None:
    """The new pair writes the bytes the old one wrote and reads them back as the old did;
    ``exact``: the event also survives the round trip (real events, whole or stripped)."""
    old_pb, old_of = old
    new_pb, new_of = new
    try:
        before = old_pb(event)
    except (TypeError, ValueError, KeyError) as refused:  # e.g. a negative uint32
        try:
            new_pb(event)
        except (TypeError, ValueError, KeyError):
            return
        raise AssertionError(f"the old codec refused {event!r}, the new did not") from refused
    after = new_pb(event)
    assert type(after) is type(before), event
    data = before.SerializeToString(deterministic=True)
    assert after.SerializeToString(deterministic=True) == data, event
    parsed = type(before).FromString(data)
    decoded = new_of(parsed)
    assert decoded == old_of(type(before).FromString(data)), event
    if exact:
        assert decoded == event


def _hint(hint: Any) -> Any:
    if typing.get_origin(hint) is typing.Annotated:
        return typing.get_args(hint)[0]
    return hint


INTS = st.integers(-2, 40) | st.integers(0, 2**31 - 1)
TEXT = st.text(alphabet="AEQuxz ", max_size=4)


def instances(hint: Any, overrides: dict[Any, st.SearchStrategy[Any]] | None = None) -> Any:
    """A strategy for values of ``hint`` (a dataclass, tuple, Optional, Enum, Literal, scalar);
    ``overrides`` replace the strategy of a type (e.g. a config a codec fills in)."""
    overrides = overrides or {}
    hint = _hint(hint)
    if hint in overrides:
        return overrides[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return st.one_of(*(instances(a, overrides) for a in args))
    if hint is type(None):
        return st.none()
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return st.lists(instances(args[0], overrides), max_size=4).map(tuple)
    if origin is tuple:
        return st.tuples(*(instances(a, overrides) for a in args))
    if origin is Literal:
        return st.sampled_from(args)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint))
    if hint is bool:
        return st.booleans()
    if hint is int:
        return INTS
    if hint is str:
        return TEXT
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint, include_extras=True)
        fields = {f.name: instances(hints[f.name], overrides) for f in dataclasses.fields(hint)}
        return st.builds(hint, **fields)
    raise TypeError(f"no strategy for {hint!r}")
