"""Handles: what a player is called by everyone, unique on the platform.

A handle is checked in this order, and each refusal is an ``InvalidArgument`` whose
reason a client can switch on:

1. **normalised**: Unicode NFKC (so full-width letters, U+FF41 on, are ``a-z``), then casefolded
   (``Ann`` is ``ann``), surrounding spaces dropped;
2. **bounded**: 3 to 20 characters (``HANDLE_TOO_SHORT``, ``HANDLE_TOO_LONG``);
3. **a restricted alphabet**: the letters ``a-z``, the digits ``0-9``, ``_`` and ``-``,
   starting with a letter, no two separators in a row and none at the end
   (``HANDLE_BAD_CHARACTER``, ``HANDLE_BAD_SHAPE``). Letters of other scripts are refused
   rather than compared: a Cyrillic a (U+0430) looks exactly like a Latin ``a``, and a
   platform whose handles are all ASCII has no mixed-script look-alikes to tell apart;
4. **not reserved** (``HANDLE_RESERVED``): names that would pass for the platform or its
   staff (``admin``, ``parlor``, ``moderator``...), for a bot, or for a guest (``guest``,
   ``guest-*``, which ``IssueGuestToken`` mints), compared by skeleton, so ``adm1n`` is
   reserved too.

Within ASCII some characters still pass for others: ``0`` for ``o``, ``1`` and ``l``
for ``i``, ``rn`` for ``m``, ``vv`` for ``w``, ``-`` for ``_``. The **skeleton** of a
handle maps every such look-alike to one representative; two handles with the same
skeleton are the same handle for uniqueness (the service claims the skeleton, not the
handle), so ``b0b`` is refused once ``bob`` exists (``HANDLE_TAKEN``, naming it as a
look-alike). This is Unicode TR39's skeleton idea restricted to the alphabet above.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from parlor.core.errors import InvalidArgument

MIN_LENGTH = 3
MAX_LENGTH = 20
MAX_INPUT = 256
"""Longer input is refused before any normalisation (NFKC can expand a character 18-fold)."""

_ALPHABET = re.compile(r"^[a-z0-9_-]+$")
_SHAPE = re.compile(r"^[a-z](?:[a-z0-9]|[_-](?=[a-z0-9]))*$")

# Look-alikes within the alphabet, longest first: each maps to one representative.
_CONFUSABLE = (
    ("rn", "m"),
    ("vv", "w"),
    ("cl", "d"),
    ("0", "o"),
    ("1", "l"),
    ("i", "l"),
    ("j", "l"),
    ("5", "s"),
    ("2", "z"),
    ("8", "b"),
    ("6", "b"),
    ("9", "g"),
    ("q", "g"),
    ("u", "v"),
    ("-", "_"),
)
_CONFUSABLE_RE = re.compile("|".join(re.escape(a) for a, _ in _CONFUSABLE))
_CONFUSABLE_MAP = dict(_CONFUSABLE)

RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "root",
        "system",
        "parlor",
        "staff",
        "moderator",
        "mod",
        "support",
        "help",
        "official",
        "bot",
        "bots",
        "guest",
        "anonymous",
        "erased",
        "deleted",
        "null",
        "none",
        "undefined",
        "service",
        "me",
        "you",
    }
)
RESERVED_PREFIXES = ("guest_", "bot_", "service_", "parlor_", "admin_")
"""Skeleton prefixes (``guest-`` and ``guest_`` alike): ids the platform mints look so."""


def _skeleton(text: str) -> str:
    return _CONFUSABLE_RE.sub(lambda m: _CONFUSABLE_MAP[m.group(0)], text)


_RESERVED_SKELETONS = frozenset(_skeleton(name) for name in RESERVED)
_RESERVED_PREFIX_SKELETONS = tuple(_skeleton(p) for p in RESERVED_PREFIXES)


@dataclass(frozen=True)
class Handle:
    """A valid handle: ``text`` as shown (normalised), ``key`` what is unique (its skeleton)."""

    text: str
    key: str


def normalise(raw: str) -> str:
    """NFKC, casefolded, surrounding white space dropped (no check)."""
    if len(raw) > MAX_INPUT:
        raise InvalidArgument(
            f"a handle has at most {MAX_LENGTH} characters", reason="HANDLE_TOO_LONG"
        )
    return unicodedata.normalize("NFKC", raw).casefold().strip()


def skeleton(handle: str) -> str:
    """What ``handle`` (normalised) looks like: equal skeletons are one handle."""
    return _skeleton(normalise(handle))


def parse_handle(raw: str) -> Handle:
    """``raw`` as a handle, or InvalidArgument with the reason it is refused."""
    text = normalise(raw)
    if len(text) < MIN_LENGTH:
        raise InvalidArgument(
            f"a handle has at least {MIN_LENGTH} characters", reason="HANDLE_TOO_SHORT"
        )
    if len(text) > MAX_LENGTH:
        raise InvalidArgument(
            f"a handle has at most {MAX_LENGTH} characters", reason="HANDLE_TOO_LONG"
        )
    if not _ALPHABET.match(text):
        bad = next(c for c in text if not _ALPHABET.match(c))
        raise InvalidArgument(
            f"a handle may hold only the letters a-z, digits, '_' and '-', not"
            f" {unicodedata.name(bad, f'U+{ord(bad):04X}').lower()!r}",
            reason="HANDLE_BAD_CHARACTER",
        )
    if not _SHAPE.match(text):
        raise InvalidArgument(
            "a handle starts with a letter and has no '_' or '-' at its end or two in a row",
            reason="HANDLE_BAD_SHAPE",
        )
    key = _skeleton(text)
    if key in _RESERVED_SKELETONS or key.startswith(_RESERVED_PREFIX_SKELETONS):
        raise InvalidArgument(
            f"{text!r} is reserved (it could pass for the platform, its staff, a bot or a"
            " guest); choose another",
            reason="HANDLE_RESERVED",
        )
    return Handle(text, key)
