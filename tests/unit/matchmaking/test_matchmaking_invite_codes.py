"""Invite codes are ids the platform issues: unguessable, and readable aloud."""

from __future__ import annotations

import math

from parlor.services.matchmaking.tickets import CODE_ALPHABET, CODE_LENGTH, invite_code


def test_an_invite_code_has_at_least_60_bits_of_chance() -> None:
    assert len(set(CODE_ALPHABET)) == len(CODE_ALPHABET)
    assert CODE_LENGTH * math.log2(len(CODE_ALPHABET)) >= 60
    codes = {invite_code() for _ in range(2000)}
    assert len(codes) == 2000
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)


def test_an_invite_code_has_no_symbols_that_read_alike() -> None:
    assert not set("01IO") & set(CODE_ALPHABET)
