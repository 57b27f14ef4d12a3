"""The plans ``Messages`` (``parlor.gamehost.wire.messages``) maps a game's dataclasses to and
from its protobuf messages with: one function per (type, message) pair, written once as
source (as ``dataclasses`` writes ``__init__``) from the type hints, the message
descriptors and the declared shapes (``Custom``, ``Wire``, ``types``, ``enums``,
``unspecified``), so encoding and decoding on the move path read no type hints. The rules
they follow are ``messages``' notes; ``messages`` gives ``Custom``, ``Wire`` and ``DEFAULT``
too.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types as pytypes
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union

from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass


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


DEFAULT: Any = object()
"""``Wire(zero=DEFAULT)``: the message field's zero reads as the dataclass field's default."""
_NO_DEFAULT: Any = object()


@dataclass(frozen=True)
class Wire:
    """One dataclass field mapped by the rules (``messages``' notes), but for its name or its
    zero: ``name`` is the message field it goes to (None: the field of its own name); ``zero``
    is what that field's zero value on the wire (0, "", an enum's 0) reads as (``DEFAULT``:
    the dataclass field's default), where a message cannot tell "not given" from zero.
    Scalars only.
    """

    name: str | None = None
    zero: Any = _NO_DEFAULT


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


def _is_dataclass(hint: Any) -> bool:
    return dataclasses.is_dataclass(hint) and isinstance(hint, type)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


class MessagePlans:
    """The declared shapes and the plans made of them, each planned on first use."""

    def __init__(
        self,
        *,
        enums: Mapping[Any, Mapping[Any, int]] | None = None,
        types: Mapping[type, tuple[Callable[[Any], Message], Callable[[Any], Any]]] | None = None,
        fields: Mapping[tuple[type, str], Custom | Wire | None] | None = None,
        unspecified: Iterable[Any] = (),
    ) -> None:
        """``enums`` are declared tables (a member missing from one encodes as the enum's 0);
        ``types`` and ``fields`` the hand-made mappings; ``unspecified`` the members (of
        enums mapped by name) that are the enum's 0."""
        self.enums = dict(enums or {})
        self.types = dict(types or {})
        given = dict(fields or {})
        self.wires = {k: v for k, v in given.items() if isinstance(v, Wire)}
        self.fields = {k: v for k, v in given.items() if not isinstance(v, Wire)}
        self.unspecified = frozenset(unspecified)
        self._encoders: dict[tuple[Any, ...], Callable[..., Message]] = {}
        self._decoders: dict[tuple[type, type[Message]], Callable[[Any], Any]] = {}

    # --- plans: one function per (type, message), written once --------------------------------
    #
    # A plan is the source of one function (as ``dataclasses`` writes ``__init__``), nested
    # messages written out in it: ``_1(seat=value.seat, dead=[_2(column=x1.column, ...) for
    # x1 in value.dead])`` to encode, ``_1(m.seat, tuple([_2(x1.column, ...) for x1 in
    # m.dead]))`` to decode. What it needs (classes, plans of declared types, enum tables,
    # defaults) is bound in its namespace as ``_0``, ``_1``, ...

    def encoder(self, cls: Any, into: type[Message]) -> Callable[[Any], Message]:
        """The function making an ``into`` message of a ``cls``."""
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

    def _plan_encoder(
        self, hint: Any, into: type[Message], *, extra: bool = False
    ) -> Callable[..., Message]:
        """``extra``: the function takes more fields (a dict) after the value."""
        ns: dict[str, Any] = {}
        if extra:
            made = self._construct(hint, into, "value", ns, 0, ["**extra"])
            return _compile("encode(value, extra)", made, ns)
        return _compile("encode(value)", self._construct(hint, into, "value", ns, 0), ns)

    def _plan_decoder(self, hint: Any, of: type[Message]) -> Callable[[Any], Any]:
        ns: dict[str, Any] = {}
        return _compile("decode(m)", self._read(hint, of, "m", ns, 0), ns)

    def _construct(
        self,
        hint: Any,
        into: type[Message],
        src: str,
        ns: dict[str, Any],
        depth: int,
        more: Sequence[str] = (),
    ) -> str:
        """The expression making an ``into`` message of ``src``, a value of type ``hint``."""
        fields: Any = into.DESCRIPTOR.fields
        args: list[str] = []
        if _is_dataclass(hint):
            secrets: dict[Any, list[tuple[str, Any]]] = {}
            for name, (h, holder) in self._routes(hint, into).items():
                if holder is None:
                    wire = self._wire_name(hint, name)
                    one = into.DESCRIPTOR.fields_by_name[wire]
                    args.append(f"{wire}={self._encode(h, one, f'{src}.{name}', ns, depth)}")
                else:
                    secrets.setdefault(holder, []).append((name, h))
            for holder, routed in secrets.items():
                inner = holder.message_type.fields_by_name
                made = ", ".join(
                    f"{n}={self._encode(h, inner[n], f'{src}.{n}', ns, depth)}" for n, h in routed
                )
                expr = f"{_bind(ns, GetMessageClass(holder.message_type))}({made})"
                if all(_unwrap(h)[1] for _, h in routed):  # set when any of them is not None
                    some = " or ".join(f"{src}.{n} is not None" for n, _ in routed)
                    expr = f"({expr} if {some} else None)"
                args.append(f"{holder.name}={expr}")
            for (owner, name), custom in self.fields.items():
                if owner is hint and custom is not None and custom.encode is not None:
                    args.append(f"{name}={_bind(ns, custom.encode)}({src})")
        elif _variadic(hint) is not None and len(fields) == 1:  # one repeated field wraps it
            args.append(f"{fields[0].name}={self._encode(hint, fields[0], src, ns, depth)}")
        elif typing.get_origin(hint) is tuple and len(typing.get_args(hint)) == len(fields):
            for i, (h, one) in enumerate(zip(typing.get_args(hint), fields, strict=True)):
                args.append(f"{one.name}={self._encode(h, one, f'{src}[{i}]', ns, depth)}")
        else:
            raise TypeError(f"no rule maps {hint} to {into.DESCRIPTOR.full_name}")
        return f"{_bind(ns, into)}({', '.join([*args, *more])})"

    def _read(self, hint: Any, of: type[Message], src: str, ns: dict[str, Any], depth: int) -> str:
        """The expression reading ``src``, an ``of`` message, as a value of type ``hint``."""
        fields: Any = of.DESCRIPTOR.fields
        if _variadic(hint) is not None and len(fields) == 1:
            return self._decode(hint, fields[0], src, ns, _NO_DEFAULT, depth)
        if not _is_dataclass(hint):
            parts = typing.get_args(hint)
            items = [
                self._decode(h, f, src, ns, _NO_DEFAULT, depth)
                for h, f in zip(parts, fields, strict=True)
            ]
            return f"({', '.join(items)},)"
        routes = self._routes(hint, of)
        args: list[str] = []
        for f in dataclasses.fields(hint):
            if (hint, f.name) in self.fields:
                custom = self.fields[hint, f.name]
                if custom is None or custom.decode is None:
                    raise TypeError(f"{hint.__name__}.{f.name} has no decoding")
                args.append(f"{_bind(ns, custom.decode)}({src})")
                continue
            h, holder = routes[f.name]
            if holder is None:
                default = _NO_DEFAULT if f.default is dataclasses.MISSING else f.default
                field = of.DESCRIPTOR.fields_by_name[self._wire_name(hint, f.name)]
                expr = self._decode(h, field, src, ns, default, depth)
                args.append(self._zero(hint, f.name, field, src, expr, default, ns))
                continue
            field = holder.message_type.fields_by_name[f.name]
            inner = f"{src}.{holder.name}"
            expr = self._decode(h, field, inner, ns, _NO_DEFAULT, depth, whole=False)
            if _unwrap(h)[1]:  # None when the message holding it is absent
                expr = f"({expr} if {src}.HasField({holder.name!r}) else None)"
            args.append(expr)
        return f"{_bind(ns, hint)}({', '.join(args)})"

    def _wire_name(self, cls: Any, name: str) -> str:
        """The message field a dataclass field goes to: its own name, or its ``Wire``'s."""
        wire = self.wires.get((cls, name))
        return wire.name if wire is not None and wire.name is not None else name

    def _zero(
        self, cls: Any, name: str, field: Any, src: str, expr: str, default: Any, ns: dict[str, Any]
    ) -> str:
        """``expr`` (the value read of ``field``), or what its zero reads as (``Wire.zero``)."""
        wire = self.wires.get((cls, name))
        if wire is None or wire.zero is _NO_DEFAULT:
            return expr
        zero = default if wire.zero is DEFAULT else wire.zero
        if field.is_repeated or field.message_type is not None or zero is _NO_DEFAULT:
            raise TypeError(f"{cls.__name__}.{name}: a zero is read as a default of a scalar")
        return f"({expr} if {src}.{field.name} else {_bind(ns, zero)})"

    def _routes(self, cls: Any, into: type[Message]) -> dict[str, tuple[Any, Any]]:
        """Each dataclass field (but the declared ones) with its hint and, for a field the
        message lacks, the sub-message field holding it (else None)."""
        hints = typing.get_type_hints(cls, include_extras=True)
        names = [f.name for f in dataclasses.fields(cls)]
        claimed = {self._wire_name(cls, n) for n in names}
        fields = into.DESCRIPTOR.fields_by_name
        spare: list[Any] = [
            f
            for f in into.DESCRIPTOR.fields
            if f.name not in claimed and f.message_type is not None and not f.is_repeated
        ]
        out: dict[str, tuple[Any, Any]] = {}
        for name in names:
            if (cls, name) in self.fields:
                continue
            if self._wire_name(cls, name) in fields:
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

    def _encode(self, hint: Any, field: Any, src: str, ns: dict[str, Any], depth: int) -> str:
        """What ``field`` takes, from ``src``, a value of type ``hint``."""
        hint, optional = _unwrap(hint)
        if field.is_repeated:
            element = _variadic(hint)
            if element is None:
                raise TypeError(f"{field.full_name} is repeated, the dataclass holds {hint}")
            x = f"x{depth + 1}"
            item = self._encode_one(element, field, x, ns, depth + 1)
            expr = src if item == x else f"[{item} for {x} in {src}]"
        else:
            expr = self._encode_one(hint, field, src, ns, depth)
        if optional and expr != src:  # None goes in as None: the field stays unset
            expr = f"(None if {src} is None else {expr})"
        return expr

    def _encode_one(self, hint: Any, field: Any, src: str, ns: dict[str, Any], depth: int) -> str:
        if field.enum_type is not None:
            table, declared = self._enum_table(hint, field.enum_type)
            return f"{_bind(ns, table)}.get({src}, 0)" if declared else f"{_bind(ns, table)}[{src}]"
        if field.message_type is None:
            return src
        sub = GetMessageClass(field.message_type)
        if hint in self.types or depth > _INLINE:
            return f"{_bind(ns, self.encoder(hint, sub))}({src})"
        return self._construct(hint, sub, src, ns, depth + 1)

    def _decode(
        self,
        hint: Any,
        field: Any,
        src: str,
        ns: dict[str, Any],
        default: Any,
        depth: int,
        whole: bool = True,
    ) -> str:
        """The value of type ``hint`` of ``field`` of the message ``src``; ``whole``: the field
        stands alone (an empty optional field then reads as None)."""
        hint, optional = _unwrap(hint)
        get = f"{src}.{field.name}"
        if field.is_repeated:
            element = _variadic(hint)
            if element is None:
                raise TypeError(f"{field.full_name} is repeated, the dataclass holds {hint}")
            x = f"x{depth + 1}"
            item = self._decode_one(element, field, x, ns, _NO_DEFAULT, depth + 1)
            expr = f"tuple({get})" if item == x else f"tuple([{item} for {x} in {get}])"
            return f"({expr} if {get} else None)" if optional and whole else expr
        expr = self._decode_one(hint, field, get, ns, default, depth)
        if field.has_presence and (optional or default is not _NO_DEFAULT):
            unset = _bind(ns, None if default is _NO_DEFAULT else default)
            return f"({expr} if {src}.HasField({field.name!r}) else {unset})"
        if optional and whole and field.message_type is None:
            return f"({expr} or None)"
        return expr

    def _decode_one(
        self, hint: Any, field: Any, src: str, ns: dict[str, Any], default: Any, depth: int
    ) -> str:
        if field.enum_type is not None:
            table = self._enum_table(hint, field.enum_type)[0]
            back = _bind(ns, {v: k for k, v in table.items()})
            if default is _NO_DEFAULT:
                return f"{back}[{src}]"
            return f"{back}.get({src}, {_bind(ns, default)})"
        if field.message_type is None:
            return src
        sub = GetMessageClass(field.message_type)
        if hint in self.types or depth > _INLINE:
            return f"{_bind(ns, self.decoder(hint, sub))}({src})"
        return self._read(hint, sub, src, ns, depth + 1)

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
        zero = {k: 0 for k in members if k in self.unspecified}
        missing = [
            k for k, n in members.items() if prefix + n.upper() not in numbers and k not in zero
        ]
        if missing:
            raise TypeError(f"{enum_type.full_name} has no value for {missing} (declare a table)")
        named = {k: numbers[prefix + n.upper()] for k, n in members.items() if k not in zero}
        return {**zero, **named}, False


_INLINE = 4
"""How deep nested messages are written out in one plan; deeper ones are calls."""


def _bind(ns: dict[str, Any], value: Any) -> str:
    """A name for ``value`` in a plan's namespace."""
    name = f"_{len(ns)}"
    ns[name] = value
    return name


def _compile(signature: str, body: str, ns: dict[str, Any]) -> Callable[..., Any]:
    exec(f"def {signature}:\n    return {body}\n", ns)  # the source is built above
    function: Callable[..., Any] = ns[signature.partition("(")[0]]
    return function
