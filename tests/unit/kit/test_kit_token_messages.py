"""What a client is told about a token the server refuses: words for people, not PyJWT's.

A client in any language shows ``TOKEN_INVALID``'s message to its user. It once was PyJWT's
own text (``Invalid crypto padding``, ``Invalid header string: 'utf-8' codec can't decode
byte 0xb7 in position 1: invalid start byte``), which says nothing a user can act on and
quotes a byte of what was sent. It now says what is wrong in plain words and where a new
token comes from.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from parlor.core.errors import Unauthenticated
from parlor.kit import auth
from parlor.kit.auth import AuthSettings, generate_private_key, issue_token, verify_token

AUTH = AuthSettings(private_key=generate_private_key())
OTHER = AuthSettings(private_key=generate_private_key())

# What PyJWT and Python's codecs say, which no client should have to read.
LIBRARY_WORDS = (
    "codec",
    "padding",
    "segments",
    "utf-8",
    "byte",
    "invalid header",
    "verification failed",
)


def _tampered_signature() -> str:
    head, body, signature = issue_token(AUTH, "ada").split(".")
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    return f"{head}.{body}.{flipped}"


TOKENS = {
    "three words that are no token": lambda: "abc.def.ghi",
    "dotted text": lambda: "not.a.token",
    "no dots": lambda: "garbage",
    "a token with a character added": lambda: issue_token(AUTH, "ada") + "x",
    "a token whose signature was changed": _tampered_signature,
    "a token signed by another platform's key": lambda: issue_token(OTHER, "ada"),
}


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    auth._VERIFIED.clear()
    yield
    auth._VERIFIED.clear()


@pytest.mark.parametrize("what", list(TOKENS))
def test_a_refused_token_is_told_in_plain_words_with_where_to_get_a_new_one(what: str) -> None:
    with pytest.raises(Unauthenticated) as caught:
        verify_token(AUTH, TOKENS[what]())
    refused = caught.value
    assert refused.reason == "TOKEN_INVALID"
    message = str(refused)
    assert message.startswith("the token is invalid: "), message
    assert not [w for w in LIBRARY_WORDS if w.lower() in message.lower()], message
    assert "IssueGuestToken" in message, message


def test_an_expired_token_is_told_where_a_new_one_comes_from() -> None:
    expired = issue_token(AUTH, "ada", ttl_seconds=1, now=1_000_000)  # long past
    with pytest.raises(Unauthenticated) as caught:
        verify_token(AUTH, expired)
    assert caught.value.reason == "TOKEN_EXPIRED"
    message = str(caught.value)
    assert message.startswith("the token has expired"), message
    assert "IssueGuestToken" in message, message
    assert "RefreshToken" in message, message
