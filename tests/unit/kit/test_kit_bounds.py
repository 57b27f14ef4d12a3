"""The bounds the protos declare, read from descriptors and checked on decoded requests."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pool

from parlor.common.v1 import common_pb2
from parlor.core.errors import InvalidArgument
from parlor.identity.v1 import identity_pb2
from parlor.kit import bounds
from parlor.kit.status import MAX_MESSAGE, to_status
from parlor.options.v1 import bounds_pb2
from parlor.takefour.v1 import takefour_pb2 as tpb
from parlor.upwords.v1 import upwords_pb2 as upb

DOCS = Path(__file__).resolve().parents[3] / "docs" / "bounds.md"


def refusal(message: Any) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        bounds.check(message)
    return caught.value


def services() -> list[Any]:
    root = Path(bounds_pb2.__file__).resolve().parents[2]
    for path in sorted(root.glob("*/v1/*_pb2.py")):
        importlib.import_module(f"parlor.{path.parent.parent.name}.v1.{path.stem}")
    pool = descriptor_pool.Default()
    found = []
    for path in sorted(root.glob("*/v1/*.proto")) or sorted(root.glob("*/v1/*_pb2.py")):
        name = f"parlor/{path.parent.parent.name}/v1/{path.stem.removesuffix('_pb2')}.proto"
        found.extend(pool.FindFileByName(name).services_by_name.values())
    return found


def test_a_string_past_its_bound_is_refused_without_echoing_it() -> None:
    error = refusal(tpb.PlaceTileRequest(game_id="g" * 1_000_000))
    assert error.reason == "INVALID_GAME_ID"
    assert error.metadata == {"field": "game_id", "limit": "128"}
    assert "ggg" not in error.message
    assert len(error.message) < 100


def test_nested_repeated_and_numeric_bounds_hold() -> None:
    huge = tpb.CreateGameRequest(config=tpb.Config(tiles=tpb.TileSet(jokers=100_000)))
    assert refusal(huge).metadata["field"] == "config.tiles.jokers"
    assert refusal(huge).reason == "NUMBER_OUT_OF_RANGE"
    value = tpb.LetterTiles(letter="A", count=1, value=2**32 - 1)
    error = refusal(tpb.CreateGameRequest(config=tpb.Config(tiles=tpb.TileSet(letters=[value]))))
    assert error.metadata["field"] == "config.tiles.letters[0].value"
    seats = [common_pb2.Seat(player_id=f"p{i}") for i in range(9)]
    assert refusal(tpb.CreateGameRequest(seats=seats)).reason == "TOO_MANY_ITEMS"
    bounds.check(tpb.CreateGameRequest(seats=seats[:8]))


def test_unknown_enum_values_are_refused() -> None:
    assert refusal(upb.CreateGameRequest(config=upb.Config(word_checking=99))).reason == (
        "UNKNOWN_ENUM_VALUE"
    )
    assert refusal(tpb.CreateGameRequest(config=tpb.Config(checking=7))).reason == (
        "UNKNOWN_ENUM_VALUE"
    )
    bounds.check(tpb.CreateGameRequest(config=tpb.Config(checking=tpb.CHECKING_AUTO)))


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("Ada\u202eevil", "NAME_NOT_PRINTABLE"),
        ("\u2066x", "NAME_NOT_PRINTABLE"),
        ("Ada\nBob", "NAME_NOT_PRINTABLE"),
        ("\x1b[31mred", "NAME_NOT_PRINTABLE"),
        (" Ada", "NAME_NOT_PRINTABLE"),
        ("zero\u200bwidth", "NAME_NOT_PRINTABLE"),
        ("bot:best", "NAME_RESERVED"),
        ("Bot-strong", "NAME_RESERVED"),
        ("BOT", "NAME_RESERVED"),
    ],
)
def test_display_names_are_printable_and_bot_forms_reserved(name: str, reason: str) -> None:
    assert refusal(identity_pb2.IssueGuestTokenRequest(display_name=name)).reason == reason
    seat = common_pb2.Seat(player_id="ada", display_name=name)
    assert refusal(tpb.CreateGameRequest(seats=[seat])).reason == reason


def test_ordinary_names_and_a_bots_own_seat_are_fine() -> None:
    for name in ("Ada", "Zoë Ørsted", "é💥", "李小龍", "O'Brien-Smith"):
        bounds.check(identity_pb2.IssueGuestTokenRequest(display_name=name))
    for name in ("bot:strong", "Bot:Strong", "Bot"):
        bot = common_pb2.Seat(player_id="bot:strong", display_name=name)
        bounds.check(tpb.CreateGameRequest(seats=[bot]))
    assert refusal(identity_pb2.IssueGuestTokenRequest(display_name="x" * 65)).reason == (
        "FIELD_TOO_LONG"
    )


def test_every_request_field_of_every_service_has_a_bound() -> None:
    found = services()
    assert len(found) >= 7
    for service in found:
        for method in service.methods:
            for path, field in bounds.request_fields(method.input_type):
                if field.type == field.TYPE_MESSAGE and not field.is_repeated:
                    continue
                if field.type == field.TYPE_BOOL:
                    continue
                assert bounds.describe(field), f"{method.full_name} {path} has no bound"


def test_the_bounds_table_in_the_docs_is_the_protos() -> None:
    """docs/bounds.md is generated: PARLOR_WRITE_DOCS=1 pytest this test to rewrite it."""
    header = DOCS.read_text().split("<!-- generated -->\n")[0] if DOCS.exists() else ""
    text = header + "<!-- generated -->\n" + bounds.table(services())
    if os.environ.get("PARLOR_WRITE_DOCS") == "1":
        DOCS.write_text(text)
    assert DOCS.read_text() == text


def test_an_error_never_carries_a_huge_message() -> None:
    status = to_status(InvalidArgument("x" * 5_000_000, metadata={"k": "v" * 10_000}))
    assert len(status.details) <= MAX_MESSAGE
    assert sum(len(v) for _, v in status.trailing_metadata) < 4096


def test_map_fields_are_bounded_in_items_keys_and_values() -> None:
    """No Parlor request has a map yet; google.protobuf.Struct has one, with defaults."""
    from google.protobuf import struct_pb2

    many = struct_pb2.Struct()
    many.update({f"k{i}": i for i in range(65)})
    assert refusal(many).reason == "TOO_MANY_ITEMS"
    long_key = struct_pb2.Struct()
    long_key.update({"k" * 129: 1})
    assert refusal(long_key).metadata["field"] == "fields.key"
    long_value = struct_pb2.Struct()
    long_value.update({"k": "v" * 129})
    assert refusal(long_value).metadata["field"] == "fields.value.string_value"
    bounds.check(struct_pb2.Struct(fields={"k": struct_pb2.Value(string_value="v")}))


def test_a_name_from_elsewhere_is_shown_only_if_a_request_could_set_it() -> None:
    assert bounds.shown_name("Ada", "guest-1") == "Ada"
    for evil in ("Ada\u202e", "bot:best", "\x1b[31m", "x" * 65, ""):
        assert bounds.shown_name(evil, "guest-1") == "guest-1"


def _service_limits() -> list[tuple[Any, str, int, str]]:
    """(request, field, the service's own largest value, its reason) for the numbers a
    service checks beyond their type's range."""
    from parlor.connect4x4.v1 import connect4x4_pb2 as cpb
    from parlor.dictionary.v1 import dictionary_pb2 as dpb
    from parlor.directory.listed import MAX_PAGE
    from parlor.gamehost.wire.replay import MAX_PACE_MS
    from parlor.lexicon import MAX_LIMIT as MAX_WORDS
    from parlor.lexicon import MAX_WORD_LENGTH
    from parlor.scoring.v1 import scoring_pb2 as spb
    from parlor.services.scoring.servicer import MAX_LIMIT

    found: list[tuple[Any, str, int, str]] = []
    for pb in (cpb, upb, tpb):
        found.append((pb.ListGamesRequest, "page_size", MAX_PAGE, "INVALID_PAGE_SIZE"))
        found.append((pb.ReplayGameRequest, "pace_ms", MAX_PACE_MS, "INVALID_PACE"))
    found.append((spb.GetLeaderboardRequest, "limit", MAX_LIMIT, "BAD_LIMIT"))
    found.append(
        (dpb.FindAnagramsRequest, "min_length", MAX_WORD_LENGTH, "MIN_LENGTH_OUT_OF_RANGE")
    )
    found.append((dpb.FindAnagramsRequest, "limit", MAX_WORDS, "LIMIT_OUT_OF_RANGE"))
    found.append((dpb.MatchPatternRequest, "limit", MAX_WORDS, "LIMIT_OUT_OF_RANGE"))
    return found


@pytest.mark.parametrize(
    ("request_type", "field", "largest", "reason"),
    _service_limits(),
    ids=lambda v: v.DESCRIPTOR.full_name if hasattr(v, "DESCRIPTOR") else str(v),
)
def test_a_number_the_service_bounds_declares_that_bound(
    request_type: Any, field: str, largest: int, reason: str
) -> None:
    """A page size, a replay pace, a leaderboard length, an anagram's least length: the
    descriptors (and docs/bounds.md, and every client reading them) say the service's own
    limit, and the edge refuses past it with the service's reason, field and limit."""
    bounds.check(request_type(**{field: largest}))
    refused = refusal(request_type(**{field: largest + 1}))
    assert refused.reason == reason
    assert refused.metadata["field"] == field
    assert refused.metadata["limit"] == f"0..{largest}"


# Well-known types whose JSON is a string: nothing in them for check_json to count.
_JSON_STRINGS = {"google.protobuf.Timestamp", "google.protobuf.Duration"}


def _at_its_bound(field: Any, over: int) -> Any:
    """A JSON value for ``field`` ``over`` past its bound, or None if it has none."""
    found = bounds.bounds_of(field)
    if field.is_repeated:
        item = {field.TYPE_STRING: "a", field.TYPE_MESSAGE: {}, field.TYPE_BYTES: ""}
        return [item.get(field.type, 0)] * (found.max_items + over)
    if field.type == field.TYPE_STRING:
        return "x" * (found.max_len + over)
    if field.type == field.TYPE_BYTES:
        import base64

        return base64.b64encode(b"x" * (found.max_len + over)).decode()
    return None


def _json_at_bounds(descriptor: Any, over: int, seen: tuple[str, ...] = ()) -> Any:
    """(JSON, the path bounds.check names) for each list and string of a message, one at a
    time ``over`` past its bound, nested messages and their lists included."""
    for field in descriptor.fields:
        value = _at_its_bound(field, over)
        if value is not None:
            yield {field.json_name: value}, field.name
        inner = field.message_type
        if inner is None or inner.full_name in seen or inner.GetOptions().map_entry:
            continue
        assert inner.full_name in _JSON_STRINGS or not inner.full_name.startswith("google.")
        if inner.full_name in _JSON_STRINGS:
            continue
        for nested, path in _json_at_bounds(inner, over, (*seen, inner.full_name)):
            if field.is_repeated:
                yield {field.json_name: [nested]}, f"{field.name}[0].{path}"
            else:
                yield {field.json_name: nested}, f"{field.name}.{path}"


def test_a_requests_json_past_its_bounds_is_refused_as_the_parsed_request_is() -> None:
    """check_json (the web bridge, before json_format builds the message) refuses every list
    and string of every request past its bound with the reason and field check gives, and
    takes it at its bound."""
    from google.protobuf import json_format
    from google.protobuf.message_factory import GetMessageClass

    cases = 0
    for service in services():
        for method in service.methods:
            for body, _ in _json_at_bounds(method.input_type, 0):
                bounds.check_json(body, method.input_type)  # at the bound: taken
            for body, path in _json_at_bounds(method.input_type, 1):
                message = GetMessageClass(method.input_type)()
                json_format.ParseDict(body, message)
                parsed = refusal(message)
                with pytest.raises(InvalidArgument) as caught:
                    bounds.check_json(body, method.input_type)
                assert (caught.value.reason, caught.value.metadata) == (
                    parsed.reason,
                    parsed.metadata,
                ), f"{method.full_name} {path}"
                assert parsed.metadata["field"] == path
                cases += 1
    assert cases > 100
