"""One mapping between a game's frozen dataclasses and its protobuf messages, by field name.

A game declares its events (dataclasses) and its ``GameEvent`` (whose ``body`` oneof names
the event messages); ``Messages`` pairs each event with the message of the same name and
maps them field by field, read from the type hints and the message descriptors:

- a field goes to the message field of its name; a field the message lacks goes to the
  same-named field of a sub-message no field of the dataclass claims (Take Four keeps
  secrets in a ``secret`` message), which is set when any of its fields is not None;
- ``tuple[T, ...]`` is a repeated field; a nested dataclass is a sub-message; a fixed
  tuple (``tuple[int, int]``) is a message of that many fields in order; a variadic tuple
  in a message of one repeated field is that field;
- an ``Enum`` member or a ``Literal`` string is the proto enum value of its name
  (``Side.FRONT`` is ``SIDE_FRONT``), or goes through a table the game declares;
- ``None`` (an optional field, a secret stripped) is the field left unset or empty;
  decoding gives None back for an unset optional field, an empty optional repeated or
  string field, or an absent secret message.

The shapes that really differ are declared: ``types`` (a type's own encode and decode
functions) and ``fields`` (one field's ``Custom`` mapping, or None where the caller fills
the message field itself). Each (dataclass, message) pair is planned once, on first use,
into a list of small functions, so encoding and decoding on the move path read no type hints.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types as pytypes
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, Union

from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from parlor.common.v1 import common_pb2
from parlor.gamehost.codec import Bodies, table_event_of, table_event_pb
from parlor.gamehost.seating import GameFinished, SeatsTaken

T = TypeVar("T")


@dataclass(frozen=True)
class Custom:
    """One field mapped by hand: ``encode`` gives the message field's value from the whole
    object (returning None leaves it unset), ``decode`` the dataclass field's value from
    the whole message.

    Keyed by a dataclass field's name: ``decode`` is needed, ``encode`` only if the message
    has a field of that name; by a name only the message has (a count the dataclass
    derives): ``encode`` only.
    """

    encode: Callable[[Any], Any] | None = None
    decode: Callable[[Any], Any] | None = None


def _unwrap(hint: Any) -> tuple[Any, bool]:
    """The type inside ``Annotated[...]`` and ``... | None``, and whether it may be None."""
    if typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    if typing.get_origin(hint) in (Union, pytypes.UnionType):
        rest = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(rest) == 1:
            return rest[0], True
    return hint, False


def _variadic(hint: Any) -> Any | None:
    """``T`` of ``tuple[T, ...]``, else None."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
        return args[0]
    return None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


class Messages:
    """A game's dataclasses to and from its protobuf messages (see the module's notes)."""

    def __init__(
        self,
        bodies: Bodies,
        events: object,
        game_type: str,
        *,
        enums: Mapping[Any, Mapping[Any, int]] | None = None,
        types: Mapping[type, tuple[Callable[[Any], Message], Callable[[Any], Any]]] | None = None,
        fields: Mapping[tuple[type, str], Custom | None] | None = None,
    ) -> None:
        """``events``: the game's event union (or the classes); ``game_type`` names the
        game in ``GameFinished``. ``enums`` are declared tables (a member missing from one
        encodes as the enum's 0); ``types`` and ``fields`` the hand-made mappings."""
        self.bodies = bodies
        self.enums = dict(enums or {})
        self.types = dict(types or {})
        self.fields = dict(fields or {})
        self._encoders: dict[tuple[type, type[Message]], Callable[[Any], Message]] = {}
        self._decoders: dict[tuple[type, type[Message]], Callable[[Any], Any]] = {}
        by_name = {cls.DESCRIPTOR.name: cls for cls in bodies.types.values()}
        classes = typing.get_args(events) or tuple(typing.cast(Iterable[type], events))
        self.event_types: dict[type, type[Message]] = {c: by_name[c.__name__] for c in classes}
        self._event_encoders: dict[type, Callable[[Any], Message]] = {
            c: self.encoder(c, m) for c, m in self.event_types.items()
        }
        self._event_decoders: dict[type[Message], Callable[[Any], Any]] = {
            m: self.decoder(c, m) for c, m in self.event_types.items()
        }

        def table_pb(event: Any) -> Message:
            out = table_event_pb(event, game_type)
            assert out is not None
            return out

        for common in (SeatsTaken, GameFinished):
            self._event_encoders[common] = table_pb
        for message in (common_pb2.SeatsTaken, common_pb2.GameFinished):
            self._event_decoders[message] = table_event_of

    # --- what a game's codec calls -------------------------------------------------------------

    def event_pb(self, event: object) -> Message:
        """The protobuf message an event is stored (or shown) as."""
        encode = self._event_encoders.get(type(event))
        if encode is None:
            raise TypeError(f"not a {self.bodies.game} event: {event!r}")
        return encode(event)

    def event_of(self, message: Message) -> Any:
        """The event a message holds."""
        decode = self._event_decoders.get(type(message))
        if decode is None:
            raise TypeError(f"not a {self.bodies.game} event message: {type(message).__name__}")
        return decode(message)

    def message(self, value: object, into: type[Message], **extra: Any) -> Any:
        """``value`` (a dataclass) as an ``into`` message, with ``extra`` fields set too."""
        return self.encoder(type(value), into)(value, **extra)

    def value(self, message: Message, cls: type[T]) -> T:
        """``message`` as a ``cls``."""
        out: T = self.decoder(cls, type(message))(message)
        return out

    # --- plans: one function per (type, message), written once --------------------------------
    #
    # Each plan is the source of one small function (as ``dataclasses`` writes ``__init__``):
    # ``into(seat=value.seat, dead=[_1(x) for x in value.dead])`` to encode,
    # ``cls(m.seat, tuple([_2(x) for x in m.dead]))`` to decode. Names it needs (nested
    # plans, enum tables, defaults) are bound in its namespace as ``_0``, ``_1``, ...

    def encoder(self, cls: Any, into: type[Message]) -> Callable[..., Message]:
        """The function making an ``into`` message of a ``cls`` (keyword args: more fields)."""
        found = self._encoders.get((cls, into))
        if found is None:
            custom = self.types.get(cls)
            found = custom[0] if custom is not None else self._plan_encoder(cls, into)
            self._encoders[cls, into] = found
        return found

    def decoder(self, cls: Any, of: type[Message]) -> Callable[[Any], Any]:
        """The function reading an ``of`` message as a ``cls``."""
        found = self._decoders.get((cls, of))
        if found is None:
            custom = self.types.get(cls)
            found = custom[1] if custom is not None else self._plan_decoder(cls, of)
            self._decoders[cls, of] = found
        return found

    def _plan_encoder(self, hint: Any, into: type[Message]) -> Callable[..., Message]:
        ns: dict[str, Any] = {"into": into}
        fields = into.DESCRIPTOR.fields
        args: list[str] = []
        if dataclasses.is_dataclass(hint):
            secrets: dict[Any, list[tuple[str, Any]]] = {}
            for name, (h, holder) in self._routes(hint, into).items():
                if holder is None:
                    field = into.DESCRIPTOR.fields_by_name[name]
                    args.append(f"{name}={self._encode(h, field, f'value.{name}', ns)}")
                else:
                    secrets.setdefault(holder, []).append((name, h))
            for holder, routed in secrets.items():
                sub = _bind(ns, GetMessageClass(holder.message_type))
                inner = holder.message_type.fields_by_name
                made = ", ".join(
                    f"{n}={self._encode(h, inner[n], f'value.{n}', ns)}" for n, h in routed
                )
                expr = f"{sub}({made})"
                if all(_unwrap(h)[1] for _, h in routed):  # set when any of them is not None
                    some = " or ".join(f"value.{n} is not None" for n, _ in routed)
                    expr = f"({expr} if {some} else None)"
                args.append(f"{holder.name}={expr}")
            for (owner, name), custom in self.fields.items():
                if owner is hint and custom is not None and custom.encode is not None:
                    args.append(f"{name}={_bind(ns, custom.encode)}(value)")
        elif _variadic(hint) is not None and len(fields) == 1:  # one repeated field wraps it
            args.append(f"{fields[0].name}={self._encode(hint, fields[0], 'value', ns)}")
        elif typing.get_origin(hint) is tuple and len(typing.get_args(hint)) == len(fields):
            for i, (h, field) in enumerate(zip(typing.get_args(hint), fields, strict=True)):
                args.append(f"{field.name}={self._encode(h, field, f'value[{i}]', ns)}")
        else:
            raise TypeError(f"no rule maps {hint} to {into.DESCRIPTOR.full_name}")
        return _compile("encode(value, **extra)", f"into({', '.join([*args, '**extra'])})", ns)

    def _plan_decoder(self, hint: Any, of: type[Message]) -> Callable[[Any], Any]:
        ns: dict[str, Any] = {"cls": hint}
        fields = of.DESCRIPTOR.fields
        if dataclasses.is_dataclass(hint):
            routes = self._routes(hint, of)
            args: list[str] = []
            for f in dataclasses.fields(hint):
                if (hint, f.name) in self.fields:
                    custom = self.fields[hint, f.name]
                    if custom is None or custom.decode is None:
                        raise TypeError(f"{hint.__name__}.{f.name} has no decoding")
                    args.append(f"{_bind(ns, custom.decode)}(m)")
                    continue
                h, holder = routes[f.name]
                default = _NO_DEFAULT if f.default is dataclasses.MISSING else f.default
                if holder is None:
                    args.append(
                        self._decode(h, of.DESCRIPTOR.fields_by_name[f.name], "m", ns, default)
                    )
                    continue
                field = holder.message_type.fields_by_name[f.name]
                expr = self._decode(h, field, f"m.{holder.name}", ns, _NO_DEFAULT, whole=False)
                if _unwrap(h)[1]:  # None when the message holding it is absent
                    expr = f"({expr} if m.HasField({holder.name!r}) else None)"
                args.append(expr)
            body = f"cls({', '.join(args)})"
        elif _variadic(hint) is not None and len(fields) == 1:
            body = self._decode(hint, fields[0], "m", ns, _NO_DEFAULT)
        else:
            parts = typing.get_args(hint)
            items = [
                self._decode(h, f, "m", ns, _NO_DEFAULT) for h, f in zip(parts, fields, strict=True)
            ]
            body = f"({', '.join(items)},)"
        return _compile("decode(m)", body, ns)

    def _routes(self, cls: Any, into: type[Message]) -> dict[str, tuple[Any, Any]]:
        """Each dataclass field (but the declared ones) with its hint and, for a field the
        message lacks, the sub-message field holding it (else None)."""
        hints = typing.get_type_hints(cls, include_extras=True)
        names = [f.name for f in dataclasses.fields(cls)]
        fields = into.DESCRIPTOR.fields_by_name
        spare = [
            f
            for f in into.DESCRIPTOR.fields
            if f.name not in names and f.message_type is not None and not f.is_repeated
        ]
        out: dict[str, tuple[Any, Any]] = {}
        for name in names:
            if (cls, name) in self.fields:
                continue
            if name in fields:
                out[name] = (hints[name], None)
                continue
            holder = next((s for s in spare if name in s.message_type.fields_by_name), None)
            if holder is None:
                raise TypeError(
                    f"{cls.__name__}.{name} has no field in {into.DESCRIPTOR.full_name}"
                )
            out[name] = (hints[name], holder)
        return out

    # --- one field: the expression of its value -----------------------------------------------

    def _encode(self, hint: Any, field: Any, src: str, ns: dict[str, Any]) -> str:
        """What ``field`` takes, from the value ``src`` of type ``hint``."""
        hint, optional = _unwrap(hint)
        if field.is_repeated:
            element = _variadic(hint)
            if element is None:
                raise TypeError(f"{field.full_name} is repeated, the dataclass holds {hint}")
            item = self._encode_one(element, field, "x", ns)
            expr = src if item == "x" else f"[{item} for x in {src}]"
        else:
            expr = self._encode_one(hint, field, src, ns)
        if optional and expr != src:  # None goes in as None: the field stays unset
            expr = f"(None if {src} is None else {expr})"
        return expr

    def _encode_one(self, hint: Any, field: Any, src: str, ns: dict[str, Any]) -> str:
        if field.enum_type is not None:
            table, declared = self._enum_table(hint, field.enum_type)
            return f"{_bind(ns, table)}.get({src}, 0)" if declared else f"{_bind(ns, table)}[{src}]"
        if field.message_type is None:
            return src
        return f"{_bind(ns, self.encoder(hint, GetMessageClass(field.message_type)))}({src})"

    def _decode(
        self, hint: Any, field: Any, src: str, ns: dict[str, Any], default: Any, whole: bool = True
    ) -> str:
        """The value of type ``hint`` of ``field`` of the message ``src``; ``whole``: the field
        stands alone (an empty optional field then reads as None)."""
        hint, optional = _unwrap(hint)
        get = f"{src}.{field.name}"
        if field.is_repeated:
            element = _variadic(hint)
            if element is None:
                raise TypeError(f"{field.full_name} is repeated, the dataclass holds {hint}")
            item = self._decode_one(element, field, "x", ns, _NO_DEFAULT)
            expr = f"tuple({get})" if item == "x" else f"tuple([{item} for x in {get}])"
            return f"({expr} if {get} else None)" if optional and whole else expr
        expr = self._decode_one(hint, field, get, ns, default)
        if field.has_presence and (optional or default is not _NO_DEFAULT):
            unset = _bind(ns, None if default is _NO_DEFAULT else default)
            return f"({expr} if {src}.HasField({field.name!r}) else {unset})"
        if optional and whole and field.message_type is None:
            return f"({expr} or None)"
        return expr

    def _decode_one(self, hint: Any, field: Any, src: str, ns: dict[str, Any], default: Any) -> str:
        if field.enum_type is not None:
            table = self._enum_table(hint, field.enum_type)[0]
            back = _bind(ns, {v: k for k, v in table.items()})
            if default is _NO_DEFAULT:
                return f"{back}[{src}]"
            return f"{back}.get({src}, {_bind(ns, default)})"
        if field.message_type is None:
            return src
        return f"{_bind(ns, self.decoder(hint, GetMessageClass(field.message_type)))}({src})"

    def _enum_table(self, hint: Any, enum_type: Any) -> tuple[Mapping[Any, int], bool]:
        """The enum's numbers of the members of ``hint``, and whether the game declared them."""
        declared = self.enums.get(hint)
        if declared is not None:
            return declared, True
        prefix = _snake(enum_type.name) + "_"
        numbers = {v.name: v.number for v in enum_type.values}
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            members: dict[Any, str] = {m: m.name for m in hint}
        elif typing.get_origin(hint) is Literal:
            members = {v: str(v) for v in typing.get_args(hint)}
        else:
            raise TypeError(f"{hint} is neither an Enum nor a Literal for {enum_type.full_name}")
        missing = [k for k, n in members.items() if prefix + n.upper() not in numbers]
        if missing:
            raise TypeError(f"{enum_type.full_name} has no value for {missing} (declare a table)")
        return {k: numbers[prefix + n.upper()] for k, n in members.items()}, False


_NO_DEFAULT: Any = object()


def _bind(ns: dict[str, Any], value: Any) -> str:
    """A name for ``value`` in a plan's namespace."""
    name = f"_{len(ns)}"
    ns[name] = value
    return name


def _compile(signature: str, body: str, ns: dict[str, Any]) -> Callable[..., Any]:
    exec(f"def {signature}:\n    return {body}\n", ns)  # the source is built above
    function: Callable[..., Any] = ns[signature.partition("(")[0]]
    return function
