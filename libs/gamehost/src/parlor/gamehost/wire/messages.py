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

``public`` clears, in a stored event's payload, every field or sub-message holding a field
the event marks ``Secret`` (``parlor.core.game``): what anyone may see, the payload of the
event with those fields None (Upwords' racks and draws; Take Four keeps its secrets apart,
in a ``secret`` message).

The shapes that really differ are declared: ``types`` (a type's own encode and decode
functions), ``fields`` (one field's ``Custom`` mapping; a ``Wire``: another message field's
name, or what its zero reads as, for a config whose 0 means "the default"; or None where
the caller fills the message field itself) and ``unspecified`` (enum members no message
shows, written as the enum's 0). Each (dataclass, message) pair is planned once, on first use,
into a list of small functions, so encoding and decoding on the move path read no type hints
(``parlor.gamehost.wire.plans``: ``MessagePlans``).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

from google.protobuf.message import Message

from parlor.common.v1 import common_pb2
from parlor.core.game import secret_fields
from parlor.gamehost.table.codec import Bodies, ProtoCodec, table_event_of, table_event_pb
from parlor.gamehost.table.seating import TABLE_EVENTS
from parlor.gamehost.wire.plans import DEFAULT, Custom, MessagePlans, Wire

__all__ = ["DEFAULT", "Custom", "Messages", "Wire"]

T = TypeVar("T")
E = TypeVar("E")
M = TypeVar("M", bound=Message)


class Messages(MessagePlans, Generic[E]):
    """A game's dataclasses to and from its protobuf messages (see the module's notes);
    ``E`` is the game's ``Event`` (the engine's events and the table's)."""

    def __init__(
        self,
        bodies: Bodies,
        events: object,
        game_type: str,
        *,
        enums: Mapping[Any, Mapping[Any, int]] | None = None,
        types: Mapping[type, tuple[Callable[[Any], Message], Callable[[Any], Any]]] | None = None,
        fields: Mapping[tuple[type, str], Custom | Wire | None] | None = None,
        unspecified: Iterable[Any] = (),
    ) -> None:
        """``events``: the game's event union (or the classes); ``game_type`` names the
        game in ``GameFinished``. ``enums`` are declared tables (a member missing from one
        encodes as the enum's 0); ``types`` and ``fields`` the hand-made mappings;
        ``unspecified`` the members (of enums mapped by name) that are the enum's 0."""
        super().__init__(enums=enums, types=types, fields=fields, unspecified=unspecified)
        self.bodies = bodies
        self._secret: dict[type[Message], tuple[str, ...]] = {}
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

        for common in TABLE_EVENTS:
            self._event_encoders[common] = table_pb
            self._event_decoders[getattr(common_pb2, common.__name__)] = table_event_of

    # --- what a game's codec calls -------------------------------------------------------------

    def codec(self) -> ProtoCodec[E]:
        """The game's ``EventCodec``: the message's full name is the stored event's type."""
        return ProtoCodec(self.bodies, self.event_pb, self.event_of)

    def event_pb(self, event: E) -> Message:
        """The protobuf message an event is stored (or shown) as."""
        encode = self._event_encoders.get(type(event))
        if encode is None:
            raise TypeError(f"not a {self.bodies.game} event: {event!r}")
        return encode(event)

    def event_of(self, message: Message) -> E:
        """The event a message holds."""
        decode = self._event_decoders.get(type(message))
        if decode is None:
            raise TypeError(f"not a {self.bodies.game} event message: {type(message).__name__}")
        event: E = decode(message)
        return event

    def public(self, event_type: str, data: bytes) -> bytes:
        """The payload ``data`` of a stored event with every field holding a ``Secret``
        field of its event cleared, as the event with those None encodes (the same bytes if
        none is set)."""
        message = self.bodies.parse(event_type, data)
        holders = self._secret_holders(type(message))
        held = [field.name for field, _ in message.ListFields() if field.name in holders]
        if not held:
            return data
        for name in held:
            message.ClearField(name)
        return message.SerializeToString(deterministic=True)

    def published(self, event_type: str, data: bytes) -> tuple[str, bytes]:
        """What the relay publishes of a stored event (``GameType.public``) of a game whose
        secrets are fields of its events (Upwords' racks and draws): the event's own type
        (every event is shown to all as what it is), its payload ``public``."""
        return event_type, self.public(event_type, data)

    def published_as(
        self, seen: Callable[[E], Message]
    ) -> Callable[[str, bytes], tuple[str, bytes]]:
        """What the relay publishes of a stored event (``GameType.public``) of a game that
        shows a spectator another message in an event's place (``seen``: the message a
        spectator sees of the event during play; Take Four's joker swap, a move): the type
        and payload of that message. The platform's own events hide nothing: as stored."""
        table = frozenset(
            getattr(common_pb2, e.__name__).DESCRIPTOR.full_name for e in TABLE_EVENTS
        )

        def public(event_type: str, data: bytes) -> tuple[str, bytes]:
            if event_type in table:
                return event_type, data
            shown = seen(self.event_of(self.bodies.parse(event_type, data)))
            return shown.DESCRIPTOR.full_name, shown.SerializeToString(deterministic=True)

        return public

    def _secret_holders(self, of: type[Message]) -> tuple[str, ...]:
        """The fields of an event message holding its event's ``Secret`` fields (the field
        itself, or the sub-message it is routed to)."""
        found = self._secret.get(of)
        if found is None:
            cls = next((c for c, m in self.event_types.items() if m is of), None)
            names: dict[str, None] = {}
            if cls is not None:
                routes = self._routes(cls, of)
                for name in sorted(secret_fields(cls)):
                    holder = routes[name][1] if name in routes else None
                    names[holder.name if holder is not None else self._wire_name(cls, name)] = None
            fields = of.DESCRIPTOR.fields_by_name
            found = self._secret[of] = tuple(n for n in names if n in fields)
        return found

    def message(self, value: object, into: type[M], **extra: Any) -> M:
        """``value`` (a dataclass) as an ``into`` message, with ``extra`` fields set too."""
        if not extra:
            return typing.cast(M, self.encoder(type(value), into)(value))
        key = (type(value), into, True)
        found = self._encoders.get(key)
        if found is None:
            found = self._encoders[key] = self._plan_encoder(type(value), into, extra=True)
        return typing.cast(M, found(value, extra))

    def value(self, message: Message, cls: type[T]) -> T:
        """``message`` as a ``cls``."""
        out: T = self.decoder(cls, type(message))(message)
        return out

    def writer(self, cls: Any, into: type[M]) -> Callable[[Any], M]:
        """The function making an ``into`` message of a ``cls`` (any type a rule maps, such
        as ``tuple[int, ...]``), planned now."""
        return typing.cast(Callable[[Any], M], self.encoder(cls, into))

    def reader(self, of: type[Message], cls: type[T]) -> Callable[[Any], T]:
        """The function reading an ``of`` message as a ``cls`` (planned now)."""
        return self.decoder(cls, of)
