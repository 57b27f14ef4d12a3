"""Events as the store keeps them: a type name and a JSON object of the dataclass's fields."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, TypeVar

from parlor.core.errors import InvalidArgument

T = TypeVar("T")


def encode(event: Any) -> tuple[str, bytes]:
    """The event's type name and its fields as compact, key-sorted JSON."""
    data = json.dumps(dataclasses.asdict(event), sort_keys=True, separators=(",", ":"))
    return type(event).__name__, data.encode()


def decode(types: dict[str, type[T]], type_name: str, data: bytes) -> T:
    """The event of ``type_name`` (one of ``types``) from its JSON fields."""
    cls = types.get(type_name)
    if cls is None:
        raise InvalidArgument(f"unknown account event type {type_name!r}")
    fields: dict[str, Any] = json.loads(data)
    return cls(**fields)
