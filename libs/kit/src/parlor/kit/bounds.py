"""The bounds of every request field, read from the protos' descriptors, checked at the edge.

Each field may declare ``(parlor.options.v1.bounds)`` (protos/parlor/options/v1/bounds.proto);
a field without it gets the defaults documented there. ``check`` walks a decoded request
(nested messages and map fields included) and raises ``InvalidArgument`` for the first field
out of bounds, with a reason, the field's dotted path and the limit in the metadata, and
never the value itself. The server interceptor calls it for every request of every service,
so a handler only ever sees requests within bounds.

``bounds_of`` is the one reading of a field's bounds: the validator, the generated table in
docs/bounds.md and the fuzzer all use it.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from parlor.core.errors import InvalidArgument
from parlor.options.v1 import bounds_pb2

MAX_STRING = 128
MAX_BYTES = 1024
MAX_ITEMS = 64
JSON_SAFE = 2**53 - 1

_T = FieldDescriptor
_RANGES: dict[int, tuple[int, int]] = {
    _T.TYPE_INT32: (-(2**31), 2**31 - 1),
    _T.TYPE_SINT32: (-(2**31), 2**31 - 1),
    _T.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    _T.TYPE_UINT32: (0, 2**32 - 1),
    _T.TYPE_FIXED32: (0, 2**32 - 1),
    _T.TYPE_INT64: (-JSON_SAFE, JSON_SAFE),
    _T.TYPE_SINT64: (-JSON_SAFE, JSON_SAFE),
    _T.TYPE_SFIXED64: (-JSON_SAFE, JSON_SAFE),
    _T.TYPE_UINT64: (0, JSON_SAFE),
    _T.TYPE_FIXED64: (0, JSON_SAFE),
}
INTEGER_TYPES = frozenset(_RANGES)
FLOAT_TYPES = frozenset({_T.TYPE_DOUBLE, _T.TYPE_FLOAT})

# Characters a display name may not hold besides controls (Cc) and format characters (Cf,
# which include the bidirectional overrides and isolates U+202A-U+202E, U+2066-U+2069):
# unassigned code points, private use, surrogates, line and paragraph separators.
_UNPRINTABLE_CATEGORIES = frozenset({"Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp"})
RESERVED_NAME_PREFIXES = ("bot:", "bot-", "bot/", "bot ")


@dataclass(frozen=True)
class Bounds:
    """What one field accepts; ``None`` where the bound does not apply to its type."""

    max_len: int | None = None
    max_items: int | None = None
    min: int | None = None
    max: int | None = None
    display_name: bool = False
    reason: str = ""
    declared: bool = False

    def why(self, default: str) -> str:
        return self.reason or default


def wire_range(field: FieldDescriptor) -> tuple[int, int]:
    """The integers an integer field's type can carry on the wire."""
    bits = 32 if _RANGES[field.type][1] < 2**32 else 64
    if _RANGES[field.type][0] < 0:
        return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return 0, 2**bits - 1


@cache
def bounds_of(field: FieldDescriptor) -> Bounds:
    """The field's declared bounds, with the defaults for what it does not declare."""
    options = field.GetOptions()
    declared = options.HasExtension(bounds_pb2.bounds)
    spec = options.Extensions[bounds_pb2.bounds]
    max_items = None
    if field.is_repeated:
        max_items = spec.max_items if spec.HasField("max_items") else MAX_ITEMS
    max_len = low = high = None
    if _is_map(field):
        pass
    elif field.type == _T.TYPE_STRING:
        max_len = spec.max_len if spec.HasField("max_len") else MAX_STRING
    elif field.type == _T.TYPE_BYTES:
        max_len = spec.max_len if spec.HasField("max_len") else MAX_BYTES
    elif field.type in _RANGES:
        type_low, type_high = _RANGES[field.type]
        low = max(type_low, spec.min) if spec.HasField("min") else type_low
        high = min(type_high, spec.max) if spec.HasField("max") else type_high
    return Bounds(max_len, max_items, low, high, spec.display_name, spec.reason, declared)


def _message_type(field: FieldDescriptor) -> Descriptor:
    found = field.message_type
    assert found is not None, field.full_name
    return found


def _enum_type(field: FieldDescriptor) -> EnumDescriptor:
    found = field.enum_type
    assert found is not None, field.full_name
    return found


def _is_map(field: FieldDescriptor) -> bool:
    return field.type == _T.TYPE_MESSAGE and bool(_message_type(field).GetOptions().map_entry)


def _refuse(path: str, what: str, reason: str, limit: object = None) -> InvalidArgument:
    metadata = {"field": path}
    if limit is not None:
        metadata["limit"] = str(limit)
    return InvalidArgument(f"{path} {what}", reason=reason, metadata=metadata)


def display_name_problem(name: str, own_id: str = "") -> tuple[str, str] | None:
    """Why ``name`` may not be shown to other players, as (what, reason), or None.

    A bot's form is reserved for bots: only a bot's seat (its player id ``bot:<level>``)
    may carry it, so no person can pass for a bot.
    """
    for char in name:
        if unicodedata.category(char) in _UNPRINTABLE_CATEGORIES:
            return f"holds an unprintable character U+{ord(char):04X}", "NAME_NOT_PRINTABLE"
    if name != name.strip():
        return "starts or ends with spaces", "NAME_NOT_PRINTABLE"
    folded = name.casefold()
    is_bot_seat = own_id.startswith("bot:")
    if (folded.startswith(RESERVED_NAME_PREFIXES) or folded == "bot") and not is_bot_seat:
        return "has a bot's form, which only bots may have", "NAME_RESERVED"
    return None


def check_display_name(name: str, path: str = "display_name", own_id: str = "") -> None:
    """Raise InvalidArgument if ``name`` may not be shown to other players."""
    problem = display_name_problem(name, own_id)
    if problem is not None:
        raise _refuse(path, problem[0], problem[1])


MAX_DISPLAY_NAME = 64


def shown_name(name: str, player_id: str) -> str:
    """``name`` if it may be shown to other players, else ``player_id``.

    For names that come from somewhere other than a request field (a token's ``name``
    claim): what no request may set is never shown either.
    """
    if not name or len(name) > MAX_DISPLAY_NAME or display_name_problem(name, player_id):
        return player_id
    return name


def _scalar(
    field: FieldDescriptor, bounds: Bounds, value: Any, path: str, own_id: str = ""
) -> None:
    t = field.type
    if t in (_T.TYPE_STRING, _T.TYPE_BYTES):
        assert bounds.max_len is not None
        if len(value) > bounds.max_len:
            unit = "characters" if t == _T.TYPE_STRING else "bytes"
            raise _refuse(
                path,
                f"is {len(value)} {unit} long; at most {bounds.max_len} are allowed",
                bounds.why("FIELD_TOO_LONG"),
                bounds.max_len,
            )
        if bounds.display_name and value:
            check_display_name(value, path, own_id)
    elif t == _T.TYPE_ENUM:
        if value not in _enum_type(field).values_by_number:
            raise _refuse(
                path,
                f"is not a value of {_enum_type(field).full_name}",
                "UNKNOWN_ENUM_VALUE",
            )
    elif t in INTEGER_TYPES:
        assert bounds.min is not None
        assert bounds.max is not None
        if not bounds.min <= value <= bounds.max:
            raise _refuse(
                path,
                f"must be between {bounds.min} and {bounds.max}",
                bounds.why("NUMBER_OUT_OF_RANGE"),
                f"{bounds.min}..{bounds.max}",
            )
    elif t in FLOAT_TYPES and not math.isfinite(value):
        raise _refuse(path, "must be a finite number", "NUMBER_OUT_OF_RANGE")


def _count(bounds: Bounds, items: int, path: str) -> None:
    """Refuse a repeated or map field of ``items`` items past its bound."""
    assert bounds.max_items is not None
    if items > bounds.max_items:
        raise _refuse(
            path,
            f"has {items} items; at most {bounds.max_items} are allowed",
            bounds.why("TOO_MANY_ITEMS"),
            bounds.max_items,
        )


def check(message: Message, path: str = "") -> None:
    """Raise InvalidArgument for the first field of ``message`` out of its bounds."""
    if not isinstance(message, Message):
        return  # a method served without protobuf messages (raw bytes): nothing declared
    for field, value in message.ListFields():
        name = f"{path}{field.name}"
        bounds = bounds_of(field)
        if field.is_repeated:
            _count(bounds, len(value), name)
            if _is_map(field):
                key_field, value_field = (
                    _message_type(field).fields_by_name["key"],
                    (_message_type(field).fields_by_name["value"]),
                )
                for key, item in value.items():
                    _scalar(key_field, bounds_of(key_field), key, f"{name}.key")
                    _item(value_field, item, f"{name}.value")
                continue
            for index, item in enumerate(value):
                _item(field, item, f"{name}[{index}]")
        elif field.type == _T.TYPE_MESSAGE:
            check(value, f"{name}.")
        else:
            _scalar(field, bounds, value, name, _own_id(message, bounds))


MAX_JSON_DEPTH = 100  # json_format's own limit on nested messages


def check_json(value: Any, descriptor: Descriptor, path: str = "", depth: int = 0) -> None:
    """Raise InvalidArgument for the first list, map or string of a request's JSON (the
    proto3 mapping, before it is parsed) longer than its field's bounds, as ``check`` would.

    For the web bridge: ``json_format`` builds a message in pure Python, some microseconds an
    item, so what is too long must be refused before it is built. Anything that is not the
    shape its field wants is left for ``json_format`` to refuse.
    """
    if not isinstance(value, dict) or depth > MAX_JSON_DEPTH:
        return
    fields = _json_fields(descriptor)
    for key, item in value.items():
        field = fields.get(key)
        if field is None or item is None:
            continue
        name = f"{path}{field.name}"
        bounds = bounds_of(field)
        if not field.is_repeated:
            _json_item(field, item, name, depth)
            continue
        if not isinstance(item, list | dict):
            continue
        _count(bounds, len(item), name)
        if _is_map(field):
            entry = _message_type(field)
            if isinstance(item, dict):
                for key_text, entry_value in item.items():
                    _json_item(entry.fields_by_name["key"], key_text, f"{name}.key", depth)
                    _json_item(entry.fields_by_name["value"], entry_value, f"{name}.value", depth)
        elif isinstance(item, list):
            for index, element in enumerate(item):
                _json_item(field, element, f"{name}[{index}]", depth)


@cache
def _json_fields(descriptor: Descriptor) -> dict[str, FieldDescriptor]:
    """A message's fields by the names its JSON may use: the lowerCamelCase and the proto one."""
    return {**{f.name: f for f in descriptor.fields}, **{f.json_name: f for f in descriptor.fields}}


def _json_item(field: FieldDescriptor, value: Any, path: str, depth: int) -> None:
    if field.type == _T.TYPE_MESSAGE:
        check_json(value, _message_type(field), f"{path}.", depth + 1)
        return
    bounds = bounds_of(field)
    if bounds.max_len is None or not isinstance(value, str):
        return
    if field.type == _T.TYPE_STRING and len(value) > bounds.max_len:
        _scalar(field, bounds, value, path)  # the refusal the parsed string gets
    elif field.type == _T.TYPE_BYTES and len(value) > 4 * ((bounds.max_len + 2) // 3):
        raise _refuse(  # base64: 4 characters carry 3 bytes
            path,
            f"is over {bounds.max_len} bytes long; at most {bounds.max_len} are allowed",
            bounds.why("FIELD_TOO_LONG"),
            bounds.max_len,
        )


def _own_id(message: Any, bounds: Bounds) -> str:
    """The player id beside a display name in the same message (a seat's), if any."""
    if not bounds.display_name or "player_id" not in message.DESCRIPTOR.fields_by_name:
        return ""
    return str(message.player_id)


def _item(field: FieldDescriptor, value: Any, path: str) -> None:
    if field.type == _T.TYPE_MESSAGE:
        check(value, f"{path}.")
    else:
        _scalar(field, bounds_of(field), value, path)


def request_fields(descriptor: Descriptor, path: str = "") -> list[tuple[str, FieldDescriptor]]:
    """Every field reachable from a request message, by dotted path (recursion cut once)."""
    found: list[tuple[str, FieldDescriptor]] = []
    _collect(descriptor, path, found, (descriptor.full_name,))
    return found


def _collect(
    descriptor: Descriptor,
    path: str,
    found: list[tuple[str, FieldDescriptor]],
    seen: tuple[str, ...],
) -> None:
    for field in descriptor.fields:
        name = f"{path}{field.name}"
        found.append((name, field))
        if field.type != _T.TYPE_MESSAGE:
            continue
        inner = _message_type(field)
        if inner.GetOptions().map_entry:
            for part in ("key", "value"):
                sub = inner.fields_by_name[part]
                found.append((f"{name}.{part}", sub))
                if sub.type == _T.TYPE_MESSAGE and _message_type(sub).full_name not in seen:
                    _collect(_message_type(sub), f"{name}.{part}.", found, (*seen, inner.full_name))
        elif inner.full_name not in seen:
            _collect(inner, f"{name}.", found, (*seen, inner.full_name))


def describe(field: FieldDescriptor) -> str:
    """A field's bounds in words, for the generated table (docs/bounds.md)."""
    b = bounds_of(field)
    parts: list[str] = []
    if b.max_items is not None:
        parts.append(f"at most {b.max_items} items")
    if b.max_len is not None:
        unit = "bytes" if field.type == _T.TYPE_BYTES else "characters"
        parts.append(f"at most {b.max_len} {unit}")
    if b.min is not None and b.max is not None:
        parts.append(f"{b.min} to {b.max}")
    if field.type == _T.TYPE_ENUM:
        parts.append(f"a value of {_enum_type(field).name}")
    if field.type in FLOAT_TYPES:
        parts.append("finite")
    if field.type == _T.TYPE_BOOL and not field.is_repeated:
        parts.append("true or false")
    if b.display_name:
        parts.append("printable, not a bot's form")
    if b.reason:
        parts.append(f"reason {b.reason}")
    if not b.declared and parts:
        parts.append("(default)")
    return ", ".join(parts)


def table(services: list[Any]) -> str:
    """The markdown table of every request field of ``services`` (ServiceDescriptors)."""
    lines = [
        "| Request | Field | Bound |",
        "|---|---|---|",
    ]
    seen: set[str] = set()
    for service in services:
        for method in service.methods:
            request = method.input_type
            if request.full_name in seen:
                continue
            seen.add(request.full_name)
            for path, field in request_fields(request):
                if field.type == _T.TYPE_MESSAGE and not field.is_repeated:
                    continue  # its fields have rows of their own
                lines.append(f"| `{request.full_name}` | `{path}` | {describe(field)} |")
    return "\n".join(lines) + "\n"
