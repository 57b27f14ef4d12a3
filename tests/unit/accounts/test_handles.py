"""Handles: normalised, bounded, a restricted alphabet, reserved names and look-alikes."""

from __future__ import annotations

import pytest

from parlor.accounts import parse_handle, skeleton
from parlor.core.errors import InvalidArgument


def reason(raw: str) -> str:
    with pytest.raises(InvalidArgument) as refused:
        parse_handle(raw)
    return refused.value.reason


def test_a_handle_is_normalised_by_nfkc_and_casefolded() -> None:
    assert parse_handle("  Ann_Lee ").text == "ann_lee"
    assert parse_handle("\uff21\uff4e\uff4e").text == "ann"  # full-width letters
    assert parse_handle("STRASSE").text == parse_handle("straße").text == "strasse"


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("ab", "HANDLE_TOO_SHORT"),
        ("", "HANDLE_TOO_SHORT"),
        ("a" * 21, "HANDLE_TOO_LONG"),
        ("x" * 10_000, "HANDLE_TOO_LONG"),
        ("ann lee", "HANDLE_BAD_CHARACTER"),
        ("ann.lee", "HANDLE_BAD_CHARACTER"),
        ("\u0430nn", "HANDLE_BAD_CHARACTER"),  # Cyrillic a: another script, refused
        ("anne\u0301", "HANDLE_BAD_CHARACTER"),  # an accent: outside the alphabet
        ("ann\u200b", "HANDLE_BAD_CHARACTER"),  # zero width space
        ("9lives", "HANDLE_BAD_SHAPE"),
        ("_ann", "HANDLE_BAD_SHAPE"),
        ("ann_", "HANDLE_BAD_SHAPE"),
        ("an__n", "HANDLE_BAD_SHAPE"),
        ("an-_n", "HANDLE_BAD_SHAPE"),
        ("admin", "HANDLE_RESERVED"),
        ("Admin", "HANDLE_RESERVED"),
        ("adm1n", "HANDLE_RESERVED"),
        ("parlor", "HANDLE_RESERVED"),
        ("PARL0R", "HANDLE_RESERVED"),
        ("bot", "HANDLE_RESERVED"),
        ("guest", "HANDLE_RESERVED"),
        ("guest-1a2b3c", "HANDLE_RESERVED"),
        ("guest_abc", "HANDLE_RESERVED"),
        ("moderator", "HANDLE_RESERVED"),
    ],
)
def test_refusals_say_why(raw: str, why: str) -> None:
    assert reason(raw) == why


def test_the_refused_character_is_named() -> None:
    with pytest.raises(InvalidArgument, match="cyrillic small letter a"):
        parse_handle("\u0430nn")


@pytest.mark.parametrize(
    ("one", "other"),
    [("bob", "b0b"), ("will", "wi11"), ("modern", "modem"), ("wave", "vvave"), ("a-b-c", "a_b_c")],
)
def test_look_alikes_share_a_skeleton(one: str, other: str) -> None:
    assert parse_handle(one).key == parse_handle(other).key == skeleton(other)
    assert parse_handle(one).text != parse_handle(other).text


def test_different_handles_have_different_skeletons() -> None:
    assert parse_handle("alice").key != parse_handle("alicia").key
