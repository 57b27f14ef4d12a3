"""A challenge's game configuration, checked before anything is stored
(``parlor.services.matchmaking.challengeconfig``), for each installed game's own Config:
its bytes, its bounds, its seat fields, then the game's own create."""

from __future__ import annotations

import pytest

from parlor.connect4x4.v1 import connect4x4_pb2 as c4
from parlor.core.errors import InvalidArgument
from parlor.services.matchmaking.challengeconfig import checked_config, config_bytes
from parlor.services.matchmaking.games import GAME_TYPES
from parlor.takefour.v1 import takefour_pb2 as tf
from parlor.upwords.v1 import upwords_pb2 as uw


@pytest.mark.parametrize(
    ("game", "config", "seats"),
    [
        ("connect4x4", c4.Config(players=4, first_seat=3, blockers_count_toward_lines=True), 4),
        ("connect4x4", c4.Config(first_seat=1), 2),  # players unset: the seats'
        ("takefour", tf.Config(target=80, max_rounds=12), 5),
        ("upwords", uw.Config(word_checking=uw.WORD_CHECKING_CHALLENGE), 2),
    ],
)
def test_a_valid_config_is_kept_as_sent(game: str, config: object, seats: int) -> None:
    raw = config.SerializeToString()  # type: ignore[attr-defined]
    assert config_bytes(checked_config(GAME_TYPES[game], raw, seats)) == raw


def test_no_config_is_the_games_defaults() -> None:
    assert checked_config(GAME_TYPES["connect4x4"], b"", 2) == ""
    assert config_bytes("") == b""


@pytest.mark.parametrize(
    ("game", "raw", "seats", "reason"),
    [
        ("connect4x4", c4.Config(players=3).SerializeToString(), 2, "BAD_CONFIG"),
        ("connect4x4", c4.Config(first_seat=4).SerializeToString(), 4, "BAD_CONFIG"),
        ("connect4x4", tf.Config(max_rounds=3).SerializeToString(), 2, "BAD_CONFIG"),
        ("connect4x4", b"\x08", 2, "BAD_CONFIG"),  # a tag with no value
        ("takefour", tf.Config(target=1_000_001).SerializeToString(), 3, "NUMBER_OUT_OF_RANGE"),
        ("takefour", tf.Config(max_rounds=1001).SerializeToString(), 3, "NUMBER_OUT_OF_RANGE"),
        ("upwords", uw.Config(lexicon="x" * 200).SerializeToString(), 2, "FIELD_TOO_LONG"),
        # the game's own create refuses it, as it would at the match
        (
            "takefour",
            tf.Config(rules_version=99).SerializeToString(),
            3,
            "UNSUPPORTED_RULES_VERSION",
        ),
    ],
)
def test_an_invalid_config_is_refused_with_a_reason(
    game: str, raw: bytes, seats: int, reason: str
) -> None:
    with pytest.raises(InvalidArgument) as refused:
        checked_config(GAME_TYPES[game], raw, seats)
    assert refused.value.reason == reason
