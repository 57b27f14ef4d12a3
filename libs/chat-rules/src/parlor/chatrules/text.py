"""What a chat message's text may be: checked and normalised before it is ever stored.

A message is one line of plain text, NFC-normalised and stripped of surrounding spaces,
at most ``MAX_CHARACTERS`` characters. Refused, each with ``InvalidArgument`` and a reason a
client may switch on (the text itself is never echoed in the refusal):

- ``CHAT_EMPTY``: nothing left after stripping;
- ``CHAT_TOO_LONG``: more than ``Policy.max_characters`` characters after NFC;
- ``CHAT_CONTROL_CHARACTER``: a control character (Unicode category Cc: newlines, tabs, escapes);
- ``CHAT_BIDI_OVERRIDE``: a bidirectional embedding, override or isolate (U+202A-U+202E,
  U+2066-U+2069), or a directional mark (U+200E, U+200F, U+061C), which can make a line
  read other than it is;
- ``CHAT_ZERO_WIDTH``: an invisible character that is not joining two visible ones:
  U+200B, U+2060, U+FEFF anywhere; a zero-width (non-)joiner (U+200C, U+200D: emoji
  sequences, Indic scripts) at either end or next to another invisible one (a run);
- ``CHAT_UNPRINTABLE``: any other format character (Cf), an unassigned, private-use or
  surrogate code point, a line or paragraph separator;
- ``CHAT_LINK``: something that reads as a link (a scheme such as ``http://``, ``www.``, or
  a name ending in a common top-level domain), unless the operator allows links;
- ``CHAT_FILTERED_WORD``: a word of the operator's filter list (compared casefolded, as
  whole words; metadata names no word).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from parlor.core.errors import InvalidArgument

MAX_CHARACTERS = 300
"""The default longest message, in characters after NFC."""

BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
ALWAYS_INVISIBLE = frozenset("\u200b\u2060\ufeff\u180e")
JOINERS = frozenset("\u200c\u200d")
UNPRINTABLE = frozenset({"Cf", "Cn", "Co", "Cs", "Zl", "Zp"})

DEFAULT_FILTER: tuple[str, ...] = ()
"""The word filter's default: empty. Operators set their own (``PARLOR_CHAT_FILTERED_WORDS``);
the platform ships no list, since what is offensive depends on the community and language."""

_LINK = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://|\bwww\.|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\."
    r"(?:com|net|org|io|gg|co|me|info|biz|xyz|ly|tv|app|dev|ru|de|uk|us|fr|cn)\b)",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Policy:
    """The operator's choices for every message (settings of the chat service)."""

    max_characters: int = MAX_CHARACTERS
    links_allowed: bool = False
    filtered_words: tuple[str, ...] = DEFAULT_FILTER

    def filtered(self) -> frozenset[str]:
        return frozenset(w.casefold() for w in self.filtered_words if w.strip())


def refused(reason: str, message: str) -> InvalidArgument:
    return InvalidArgument(message, reason=reason)


def checked_text(raw: str, policy: Policy | None = None) -> str:
    """``raw`` as it will be stored, or ``InvalidArgument`` with the reason it is refused."""
    policy = policy or Policy()
    text = unicodedata.normalize("NFC", raw).strip(" ")
    if not text:
        raise refused("CHAT_EMPTY", "a message needs some text")
    if len(text) > policy.max_characters:
        raise refused(
            "CHAT_TOO_LONG", f"a message holds at most {policy.max_characters} characters"
        )
    _check_characters(text)
    if not policy.links_allowed and _LINK.search(text):
        raise refused("CHAT_LINK", "links are not allowed in chat here")
    words = policy.filtered()
    if words and any(w.casefold() in words for w in _WORD.findall(text)):
        raise refused("CHAT_FILTERED_WORD", "the message holds a word this platform filters")
    return text


def _check_characters(text: str) -> None:
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category == "Cc":
            raise refused("CHAT_CONTROL_CHARACTER", "control characters are not allowed")
        if ch in BIDI:
            raise refused("CHAT_BIDI_OVERRIDE", "bidirectional overrides and marks are not allowed")
        if ch in ALWAYS_INVISIBLE:
            raise refused("CHAT_ZERO_WIDTH", "invisible characters are not allowed")
        if ch in JOINERS:
            before = text[i - 1] if i > 0 else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            if not _visible(before) or not _visible(after):
                raise refused(
                    "CHAT_ZERO_WIDTH",
                    "a zero-width joiner may only join two visible characters",
                )
            continue
        if category in UNPRINTABLE:
            raise refused("CHAT_UNPRINTABLE", "the message holds an unprintable character")


def _visible(ch: str) -> bool:
    return bool(ch) and ch not in JOINERS and ch not in ALWAYS_INVISIBLE and ch not in BIDI
