"""What a chat message's text may be (parlor.chatrules.text)."""

from __future__ import annotations

import unicodedata

import pytest

from parlor.chatrules import Policy, checked_text
from parlor.core.errors import InvalidArgument

DEFAULT = Policy()


def reason(text: str, policy: Policy = DEFAULT) -> str:
    with pytest.raises(InvalidArgument) as refused:
        checked_text(text, policy)
    assert text.strip() == "" or text not in refused.value.message  # never echoed
    return refused.value.reason


def test_text_is_nfc_normalised_and_stripped() -> None:
    decomposed = "  cafe\u0301 au lait "
    assert checked_text(decomposed) == unicodedata.normalize("NFC", "cafe\u0301 au lait")
    assert checked_text(decomposed) == "café au lait"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "CHAT_EMPTY"),
        ("   ", "CHAT_EMPTY"),
        ("two\nlines", "CHAT_CONTROL_CHARACTER"),
        ("tab\there", "CHAT_CONTROL_CHARACTER"),
        ("\x1b[31mred", "CHAT_CONTROL_CHARACTER"),
        ("abc\u202edcb", "CHAT_BIDI_OVERRIDE"),
        ("isolate\u2066x\u2069", "CHAT_BIDI_OVERRIDE"),
        ("mark\u200fx", "CHAT_BIDI_OVERRIDE"),
        ("zero\u200bwidth", "CHAT_ZERO_WIDTH"),
        ("joiner run a\u200d\u200db", "CHAT_ZERO_WIDTH"),
        ("\u200dleading joiner", "CHAT_ZERO_WIDTH"),
        ("bom\ufeff", "CHAT_ZERO_WIDTH"),
        ("soft\u00adhyphen", "CHAT_UNPRINTABLE"),
        ("private \ue000 use", "CHAT_UNPRINTABLE"),
        ("see https://example.org", "CHAT_LINK"),
        ("go to www.example", "CHAT_LINK"),
        ("visit cheat-site.com now", "CHAT_LINK"),
        ("x" * 301, "CHAT_TOO_LONG"),
    ],
)
def test_refusals_name_their_reason(text: str, why: str) -> None:
    assert reason(text) == why


def test_an_emoji_sequence_keeps_its_joiners() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert checked_text(f"gg {family}") == f"gg {family}"


def test_the_operator_sets_length_links_and_the_word_filter() -> None:
    policy = Policy(max_characters=20, links_allowed=True, filtered_words=("Darn",))
    assert checked_text("see a.com", policy) == "see a.com"
    assert reason("x" * 21, policy) == "CHAT_TOO_LONG"
    assert reason("well DARN it", policy) == "CHAT_FILTERED_WORD"
    assert checked_text("darned", policy) == "darned"  # whole words only
    assert checked_text("darn") == "darn"  # the default list is empty
