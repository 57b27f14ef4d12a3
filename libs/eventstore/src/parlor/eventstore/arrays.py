"""The append's array parameters, dumped to PostgreSQL's binary array format in one go.

psycopg dumps a Python list element by element, finding a dumper for each, in
Python: for the thirteen arrays of one ``parlor_append`` call that took about
70-90 us, the largest part of an append's own CPU. Lists wrapped in these types
are dumped here instead, straight to the bytes ``array_recv`` reads: a header
(one dimension, a null flag, the element type, the length, lower bound 1), then
each element as a length (-1 for NULL) and its binary form.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, ClassVar

import psycopg
from psycopg import adapt, pq

_HEADER = struct.Struct("!iiiii")
_EMPTY = struct.Struct("!iii")
_LENGTH = struct.Struct("!i")
_NULL = _LENGTH.pack(-1)


class _Array(list[Any]):
    """A list sent as one PostgreSQL array of ``element_oid``."""

    __slots__ = ()
    array_oid: ClassVar[int]
    element_oid: ClassVar[int]


def _text(value: str) -> bytes:
    return value.encode()


def _bytea(value: bytes) -> bytes:
    return bytes(value)


def _int4(value: int) -> bytes:
    return struct.pack("!i", value)


def _int8(value: int) -> bytes:
    return struct.pack("!q", value)


def _jsonb(value: str) -> bytes:
    """A JSON text (already serialised) as jsonb's binary form: version 1, then the text."""
    return b"\x01" + value.encode()


class TextArray(_Array):
    __slots__ = ()
    array_oid = 1009
    element_oid = 25


class ByteaArray(_Array):
    __slots__ = ()
    array_oid = 1001
    element_oid = 17


class Int4Array(_Array):
    __slots__ = ()
    array_oid = 1007
    element_oid = 23


class Int8Array(_Array):
    __slots__ = ()
    array_oid = 1016
    element_oid = 20


class JsonbArray(_Array):
    """Elements are JSON texts (or None)."""

    __slots__ = ()
    array_oid = 3807
    element_oid = 3802


_ENCODERS: dict[type[_Array], Callable[[Any], bytes]] = {
    TextArray: _text,
    ByteaArray: _bytea,
    Int4Array: _int4,
    Int8Array: _int8,
    JsonbArray: _jsonb,
}


def dump_array(values: _Array) -> bytes:
    """``values`` in PostgreSQL's binary array format."""
    if not values:
        return _EMPTY.pack(0, 0, values.element_oid)
    encode, pack = _ENCODERS[type(values)], _LENGTH.pack
    parts: list[bytes] = []
    nulls = 0
    for value in values:
        if value is None:
            nulls = 1
            parts.append(_NULL)
        else:
            data = encode(value)
            parts.append(pack(len(data)))
            parts.append(data)
    return _HEADER.pack(1, nulls, values.element_oid, len(values), 1) + b"".join(parts)


def _dumper(cls: type[_Array]) -> type[adapt.Dumper]:
    class ArrayDumper(adapt.Dumper):
        format = pq.Format.BINARY
        oid = cls.array_oid

        def dump(self, obj: Any) -> bytes:
            return dump_array(obj)

    ArrayDumper.__name__ = f"{cls.__name__}Dumper"
    return ArrayDumper


ARRAYS: tuple[type[_Array], ...] = (TextArray, ByteaArray, Int4Array, Int8Array, JsonbArray)


def register(adapters: psycopg.adapt.AdaptersMap) -> None:
    """Teach ``adapters`` (a connection's, or psycopg's global map) these array types."""
    for cls in ARRAYS:
        adapters.register_dumper(cls, _dumper(cls))


register(psycopg.adapters)  # every connection made after import knows them
