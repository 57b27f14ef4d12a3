"""The generic mapping between dataclasses and protobuf messages
(``parlor.gamehost.wire.messages``).

The messages are built here from a descriptor of their own, so each rule is shown on the
smallest shape that has it; the games' codecs are held to their old bytes elsewhere
(``test_*_codec_unchanged.py``).
"""

from __future__ import annotations

import enum
import typing
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Annotated, Any, Literal

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, text_format
from google.protobuf.message_factory import GetMessageClass

from parlor.common.v1 import common_pb2
from parlor.core.game import Secret
from parlor.gamehost.table.codec import Bodies
from parlor.gamehost.table.seating import GameFinished, SeatsTaken, Standing
from parlor.gamehost.wire.messages import DEFAULT, Custom, Messages, Wire
from parlor.gametypes.seats import Seat

PROTO = """
name: "tv1/messages.proto" package: "tv1" syntax: "proto3"
enum_type {
  name: "Colour"
  value { name: "COLOUR_UNSPECIFIED" number: 0 }
  value { name: "COLOUR_RED" number: 1 }
  value { name: "COLOUR_DEEP_BLUE" number: 2 }
}
enum_type {
  name: "Speed"
  value { name: "SPEED_UNSPECIFIED" number: 0 }
  value { name: "SPEED_SLOW" number: 1 }
  value { name: "SPEED_FAST" number: 2 }
}
message_type {
  name: "Point"
  field { name: "x" number: 1 type: TYPE_SINT32 }
  field { name: "y" number: 2 type: TYPE_SINT32 }
}
message_type {
  name: "Hand"
  field { name: "tiles" number: 1 type: TYPE_STRING label: LABEL_REPEATED }
}
message_type {
  name: "MovedSecret"
  field { name: "hand" number: 1 type: TYPE_STRING label: LABEL_REPEATED }
  field { name: "drawn" number: 2 type: TYPE_UINT32 }
}
message_type {
  name: "Moved"
  field { name: "seat" number: 1 type: TYPE_UINT32 }
  field { name: "colour" number: 2 type: TYPE_ENUM type_name: ".tv1.Colour" }
  field { name: "path" number: 3 type: TYPE_MESSAGE type_name: ".tv1.Point" label: LABEL_REPEATED }
  field { name: "position" number: 4 type: TYPE_UINT32 proto3_optional: true oneof_index: 0 }
  field { name: "note" number: 5 type: TYPE_STRING }
  field { name: "speed" number: 6 type: TYPE_ENUM type_name: ".tv1.Speed" }
  field { name: "hands" number: 7 type: TYPE_MESSAGE type_name: ".tv1.Hand" label: LABEL_REPEATED }
  field { name: "start" number: 8 type: TYPE_MESSAGE type_name: ".tv1.Point" }
  field { name: "secret" number: 9 type: TYPE_MESSAGE type_name: ".tv1.MovedSecret" }
  field { name: "hand_size" number: 10 type: TYPE_UINT32 }
  field { name: "words" number: 11 type: TYPE_STRING label: LABEL_REPEATED }
  oneof_decl { name: "_position" }
}
message_type {
  name: "Peeked"
  field { name: "seat" number: 1 type: TYPE_UINT32 }
  field { name: "secret" number: 2 type: TYPE_MESSAGE type_name: ".tv1.MovedSecret" }
}
message_type {
  name: "Setup"
  field { name: "size" number: 1 type: TYPE_UINT32 }
  field { name: "version_number" number: 2 type: TYPE_UINT32 }
  field { name: "colour" number: 3 type: TYPE_ENUM type_name: ".tv1.Colour" }
  field { name: "name" number: 4 type: TYPE_STRING }
  field { name: "start" number: 5 type: TYPE_MESSAGE type_name: ".tv1.Point" }
}
message_type {
  name: "Dealt"
  field { name: "count" number: 1 type: TYPE_UINT32 }
  field { name: "hand" number: 2 type: TYPE_STRING label: LABEL_REPEATED }
  field { name: "tile" number: 3 type: TYPE_STRING }
}
message_type {
  name: "DealEvent"
  field { name: "dealt" number: 10 type: TYPE_MESSAGE type_name: ".tv1.Dealt" oneof_index: 0 }
  oneof_decl { name: "body" }
}
message_type {
  name: "GameEvent"
  field { name: "moved" number: 10 type: TYPE_MESSAGE type_name: ".tv1.Moved" oneof_index: 0 }
  field { name: "peeked" number: 11 type: TYPE_MESSAGE type_name: ".tv1.Peeked" oneof_index: 0 }
  oneof_decl { name: "body" }
}
"""

POOL = descriptor_pool.DescriptorPool()
POOL.Add(text_format.Parse(PROTO, descriptor_pb2.FileDescriptorProto()))
pb = SimpleNamespace(
    **{
        name: GetMessageClass(POOL.FindMessageTypeByName(f"tv1.{name}"))
        for name in (
            "Point",
            "Hand",
            "MovedSecret",
            "Moved",
            "Peeked",
            "Setup",
            "Dealt",
            "DealEvent",
            "GameEvent",
        )
    }
)


class Colour(enum.Enum):
    RED = "red"
    DEEP_BLUE = "deep blue"


@dataclass(frozen=True)
class Step:
    x: int
    y: int


@dataclass(frozen=True)
class Moved:
    seat: int
    colour: Colour
    path: tuple[Step, ...]
    position: int | None
    note: str | None
    speed: Literal["slow", "fast"]
    hands: tuple[tuple[str, ...], ...]
    start: tuple[int, int] | None
    hand: Annotated[tuple[str, ...] | None, Secret]
    drawn: Annotated[int | None, Secret]
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Peeked:
    seat: int
    hand: Annotated[tuple[str, ...], Secret]
    drawn: Annotated[int, Secret]


@dataclass(frozen=True)
class View:
    seat: int
    path: tuple[Step, ...]
    board: object  # no rule maps it: declared as filled by the caller


@dataclass(frozen=True)
class Lost:
    seat: int
    mood: str  # Moved has no such field, nor does any message in it


class Shade(enum.Enum):
    RED = 1
    GREEN = 2


@dataclass(frozen=True)
class Painted:
    colour: Shade


BODIES = Bodies(pb.GameEvent, "Test")
MESSAGES = Messages(
    BODIES,
    Moved | Peeked,
    "test",
    fields={(Moved, "hand_size"): Custom(lambda e: len(e.hand or ()))},
)
FULL = Moved(
    seat=2,
    colour=Colour.DEEP_BLUE,
    path=(Step(1, -2), Step(0, 3)),
    position=0,
    note="hi",
    speed="fast",
    hands=(("A", "B"), ()),
    start=(4, -5),
    hand=("Q", "u"),
    drawn=0,
    words=("AB",),
)
STRIPPED = Moved(2, Colour.RED, (), None, None, "slow", (), None, None, None)


def test_fields_go_by_name_nested_tuples_enums_and_secrets_included() -> None:
    message = MESSAGES.event_pb(FULL)
    assert message == pb.Moved(
        seat=2,
        colour=2,
        path=[pb.Point(x=1, y=-2), pb.Point(x=0, y=3)],
        position=0,  # set, though 0: the field has presence
        note="hi",
        speed=2,
        hands=[pb.Hand(tiles=["A", "B"]), pb.Hand()],
        start=pb.Point(x=4, y=-5),
        secret=pb.MovedSecret(hand=["Q", "u"], drawn=0),
        hand_size=2,
        words=["AB"],
    )
    assert message.HasField("position")
    assert MESSAGES.event_of(pb.Moved.FromString(message.SerializeToString())) == FULL


def test_none_leaves_a_field_unset_and_reads_back_as_none() -> None:
    message = MESSAGES.event_pb(STRIPPED)
    assert message.SerializeToString() == pb.Moved(seat=2, colour=1, speed=1).SerializeToString()
    for name in ("position", "start", "secret"):
        assert not message.HasField(name)
    assert MESSAGES.event_of(message) == STRIPPED


def test_a_secret_message_is_there_when_any_of_its_fields_is() -> None:
    only_drawn = Moved(0, Colour.RED, (), None, None, "slow", (), None, None, 0)
    message = MESSAGES.event_pb(only_drawn)
    assert message.HasField("secret")  # drawn 0 is not None: the secret was not stripped
    decoded = MESSAGES.event_of(message)
    assert decoded.drawn == 0
    assert decoded.hand == ()  # present secret: an empty hand is empty, not None
    # Fields that are never None: the secret message is always set, and read from it.
    peeked = Peeked(1, (), 0)
    assert MESSAGES.event_pb(peeked).HasField("secret")
    assert MESSAGES.event_of(pb.Peeked(seat=1)) == peeked


def test_public_clears_what_holds_secrets_and_keeps_the_rest() -> None:
    codec = MESSAGES.codec()
    event_type, data = codec.encode(FULL)
    public = MESSAGES.public(event_type, data)
    shown = pb.Moved.FromString(public)
    assert not shown.HasField("secret")
    assert shown.hand_size == 2  # not marked Secret: kept
    assert shown.note == "hi"
    assert MESSAGES.event_of(shown) == replace(FULL, hand=None, drawn=None)
    # Nothing secret set: the very same bytes.
    event_type, data = codec.encode(STRIPPED)
    assert MESSAGES.public(event_type, data) is data


@dataclass(frozen=True)
class Dealt:
    count: int
    hand: Annotated[tuple[str, ...] | None, Secret]
    tile: Annotated[str | None, Secret]


DEALING = Messages(Bodies(pb.DealEvent, "Deal"), (Dealt,), "test")


def test_public_clears_secrets_kept_in_fields_without_presence_as_none_encodes() -> None:
    codec = DEALING.codec()
    event_type, data = codec.encode(Dealt(2, ("A", "B"), "Q"))
    public = DEALING.public(event_type, data)
    assert public == codec.encode(Dealt(2, None, None))[1]
    assert DEALING.event_of(pb.Dealt.FromString(public)) == Dealt(2, None, None)
    event_type, data = codec.encode(Dealt(2, None, None))
    assert DEALING.public(event_type, data) is data


def test_the_events_every_game_has_go_through_the_table_mapping() -> None:
    taken = SeatsTaken((Seat("a", "Ada"), Seat("b", "Bo")))
    finished = GameFinished("DONE", (Standing(1, 3), Standing(2, 1)))
    assert isinstance(MESSAGES.event_pb(taken), common_pb2.SeatsTaken)
    assert MESSAGES.event_pb(finished).game_type == "test"
    for event in (taken, finished):
        assert MESSAGES.event_of(MESSAGES.event_pb(event)) == event
    with pytest.raises(TypeError, match="not a Test event"):
        MESSAGES.event_pb(Step(1, 2))
    with pytest.raises(TypeError, match="not a Test event message"):
        MESSAGES.event_of(pb.Point())


def test_declared_enum_tables_and_unknown_values() -> None:
    declared = Messages(BODIES, [Moved, Peeked], "test", enums={Colour: {Colour.RED: 1}})
    assert declared.event_pb(FULL).colour == 0  # a member the table lacks: unspecified
    with pytest.raises(KeyError):  # an enum value no member has (and no default)
        MESSAGES.event_of(pb.Moved(colour=0, speed=1))


def test_a_view_maps_what_it_can_and_the_caller_sets_the_rest() -> None:
    messages = Messages(BODIES, [Moved, Peeked], "test", fields={(View, "board"): None})
    view = View(3, (Step(1, 1),), object())
    message = messages.message(view, pb.Moved, note="extra", words=["W"])
    assert message == pb.Moved(seat=3, path=[pb.Point(x=1, y=1)], note="extra", words=["W"])
    assert messages.value(pb.Point(x=5, y=6), Step) == Step(5, 6)


def test_a_shape_no_rule_fits_is_refused_when_planned() -> None:
    with pytest.raises(TypeError, match=r"Lost\.mood has no field in tv1\.Moved"):
        MESSAGES.encoder(Lost, pb.Moved)

    with pytest.raises(TypeError, match="has no value for"):
        MESSAGES.encoder(Painted, pb.Moved)


def test_types_declared_by_hand_are_used_wherever_they_appear() -> None:
    made: list[Step] = []

    def step_pb(step: Step) -> Any:
        made.append(step)
        return pb.Point(x=step.y, y=step.x)  # swapped, to be seen

    messages = Messages(
        BODIES,
        [Moved, Peeked],
        "test",
        types={Step: (step_pb, lambda m: Step(m.y, m.x))},
    )
    message = messages.event_pb(FULL)
    assert message.path[0] == pb.Point(x=-2, y=1)
    assert made == list(FULL.path)
    assert messages.event_of(message) == FULL


def test_plans_are_made_once_not_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    encode = MESSAGES.encoder(Moved, pb.Moved)
    assert MESSAGES.encoder(Moved, pb.Moved) is encode

    def no_hints(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("type hints read on the hot path")

    monkeypatch.setattr(typing, "get_type_hints", no_hints)
    for event in (FULL, STRIPPED):
        assert MESSAGES.event_of(MESSAGES.event_pb(event)) == event


@dataclass(frozen=True)
class Setup:
    """A config whose message cannot tell "not given" from 0 (proto3 scalars)."""

    size: int = 7
    version: int = 3
    colour: Colour = Colour.RED
    name: str = "x"


@dataclass(frozen=True)
class Started:
    at: Step


def test_a_wire_renames_a_field_and_says_what_its_zero_reads_as() -> None:
    messages = Messages(
        BODIES,
        [Moved, Peeked],
        "test",
        fields={
            (Setup, "size"): Wire(zero=DEFAULT),
            (Setup, "version"): Wire("version_number", zero=1),
        },
    )
    write, read = messages.writer(Setup, pb.Setup), messages.reader(pb.Setup, Setup)
    given = Setup(9, 2, Colour.DEEP_BLUE, "")
    assert write(given) == pb.Setup(size=9, version_number=2, colour=2)
    assert read(write(given)) == given  # "" is no Wire's: it stays ""
    # Zeros on the wire: the default, the declared value, the enum's default (as always).
    assert read(pb.Setup()) == Setup(7, 1, Colour.RED, "")
    assert read(write(Setup(size=0, version=0))) == Setup(7, 1, Colour.RED, "x")
    # A zero read as something else is for scalars: a message field says so when planned.
    origin = Wire("start", zero=Step(0, 0))
    wrong = Messages(BODIES, [Moved, Peeked], "test", fields={(Started, "at"): origin})
    assert wrong.writer(Started, pb.Setup)(Started(Step(1, 2))) == pb.Setup(
        start=pb.Point(x=1, y=2)
    )
    with pytest.raises(TypeError, match=r"Started\.at: a zero is read as a default of a scalar"):
        wrong.reader(pb.Setup, Started)


class Hue(enum.Enum):
    UNSEEN = "unseen"  # a state no message shows: the proto has no value of its name
    RED = "red"


@dataclass(frozen=True)
class Lit:
    colour: Hue


def test_an_unspecified_member_is_the_enums_zero_and_the_rest_go_by_name() -> None:
    with pytest.raises(TypeError, match="has no value for"):
        MESSAGES.writer(Lit, pb.Setup)
    messages = Messages(BODIES, [Moved, Peeked], "test", unspecified={Hue.UNSEEN})
    write, read = messages.writer(Lit, pb.Setup), messages.reader(pb.Setup, Lit)
    assert write(Lit(Hue.UNSEEN)) == pb.Setup()
    assert write(Lit(Hue.RED)) == pb.Setup(colour=1)
    assert [read(write(Lit(h))) for h in Hue] == [Lit(h) for h in Hue]
