"""Built-in accounts (issue 40): a handle and a password, hashed with Argon2id, on the
in-memory store and on PostgreSQL (one class), then over gRPC with the real hasher.

The show: a bounded guessing loop against one handle is slowed, then locked out, the right
password too; the same loop against a handle nobody holds gets the very same answers
(codes, reasons, messages, delays). Timings over gRPC are measured and printed, compared
only loosely (each answer waits at least its delay)."""

from __future__ import annotations

import asyncio
import re
import statistics
import time
from typing import Any

import grpc
import pytest
from argon2 import PasswordHasher
from oidc_provider import refusal

from parlor.core.errors import ParlorError
from parlor.eventstore import EventStore
from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc
from parlor.kit import client
from parlor.kit.auth import AuthSettings, generate_private_key, verify_token
from parlor.services.matchmaking.accounts import Accounts
from parlor.services.matchmaking.oidc import OidcSettings, Providers
from parlor.services.matchmaking.passwords import Passwords, PasswordSettings
from parlor.services.matchmaking.signin import SignIns

AUTH = AuthSettings(private_key=generate_private_key())
PASSWORD = "correct horse battery"
GUESSES = 7
"""The bounded loop: 5 attempts are checked (slowed), the 6th and 7th are locked out."""
CHEAP = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)
"""Argon2id still, with small costs: the store tests make many hashes (gRPC: the defaults)."""


class Clock:
    """Stands still but for ``offset``: the answers name the seconds a lock has left, and on a
    loaded machine a real clock's second could tick between one handle's run and the other's."""

    def __init__(self) -> None:
        self.start = time.time()
        self.offset = 0.0

    def __call__(self) -> float:
        return self.start + self.offset


class Sleeps:
    """What the service waits for before answering (recorded, not slept)."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)


def make(store: EventStore, enabled: bool = True) -> tuple[Passwords, Clock, Sleeps]:
    clock, sleeps = Clock(), Sleeps()
    accounts = Accounts(store, clock=clock)
    sign_ins = SignIns(store, accounts, Providers({}), AUTH, OidcSettings(), clock=clock)
    settings = PasswordSettings(enabled=enabled)
    # the timer stands still: what is asked to be slept is the whole delay
    passwords = Passwords(store, accounts, sign_ins, settings, clock, sleeps, CHEAP, lambda: 0.0)
    return passwords, clock, sleeps


def handle_of(unique: str, prefix: str) -> str:
    return f"{prefix}{unique.lower().replace('-', '')}"[:20]


async def answer(passwords: Passwords, handle: str, password: str) -> tuple[str, str, str]:
    try:
        await passwords.sign_in(handle, password)
    except ParlorError as error:
        return error.code, error.reason, error.message
    return "OK", "", ""


class TestPasswordAccounts:
    async def test_sign_up_then_sign_in_and_only_a_hash_is_kept(
        self, store: EventStore, unique: str
    ) -> None:
        passwords, _, _ = make(store)
        handle = handle_of(unique, "pw")
        made = await passwords.sign_up(handle.upper(), PASSWORD, "Pat", "a test")
        assert made.account.handle == handle
        assert verify_token(AUTH, made.tokens.access_token).player_id == made.account.player_id
        again = await passwords.sign_in(handle, PASSWORD)
        assert again.account.player_id == made.account.player_id
        stored = await store.read_stream(f"accountpassword-{made.account.player_id}")
        assert [e.type for e in stored] == ["PasswordSet"]
        assert b'"hash":"sealed:' in stored[0].data  # the Argon2id hash, sealed
        assert b"argon2" not in stored[0].data
        # a password is compared as sign-up stored it (NFC)
        nfc = await passwords.sign_up(handle_of(unique, "nf"), "caf\u00e9 au lait!")
        back = await passwords.sign_in(handle_of(unique, "nf"), "cafe\u0301 au lait!")
        assert back.account.player_id == nfc.account.player_id
        everything = b"".join(
            e.data for e in await store.read_all(0, 100_000) if e.stream_id.startswith("account")
        )
        assert PASSWORD.encode() not in everything
        assert await answer(passwords, handle, PASSWORD + "!") == (
            "UNAUTHENTICATED",
            "SIGN_IN_FAILED",
            "the handle or the password is wrong (or the handle has no password)",
        )

    async def test_an_erased_accounts_password_signs_into_nothing(
        self, store: EventStore, unique: str
    ) -> None:
        passwords, _, _ = make(store)
        handle = handle_of(unique, "er")
        made = await passwords.sign_up(handle, PASSWORD)
        await passwords.accounts.erase(made.account.player_id)
        assert (await answer(passwords, handle, PASSWORD))[1] == "SIGN_IN_FAILED"
        keys = passwords.accounts.keys
        assert await keys.get(made.account.player_id) is None  # the sealed hash is shredded

    async def test_sign_up_refusals_make_nothing(self, store: EventStore, unique: str) -> None:
        passwords, _, _ = make(store)
        handle = handle_of(unique, "up")
        await passwords.sign_up(handle, PASSWORD)
        for raw, password, reason in (
            (handle.replace("o", "0"), PASSWORD, "HANDLE_TAKEN"),
            ("adm1n", PASSWORD, "HANDLE_RESERVED"),
            (handle_of(unique, "sh"), "short", "PASSWORD_TOO_SHORT"),
        ):
            with pytest.raises(ParlorError) as error:
                await passwords.sign_up(raw, password)
            assert error.value.reason == reason
        off, _, _ = make(store, enabled=False)
        for call in (off.sign_up(handle_of(unique, "of"), PASSWORD), off.sign_in(handle, PASSWORD)):
            with pytest.raises(ParlorError) as error:
                await call
            assert error.value.reason == "PASSWORD_ACCOUNTS_DISABLED"

    async def test_guessing_is_slowed_then_locked_alike_for_a_handle_held_or_not(
        self, store: EventStore, unique: str
    ) -> None:
        passwords, clock, sleeps = make(store)
        held, nobodys = handle_of(unique, "gh"), handle_of(unique, "gn")
        await passwords.sign_up(held, PASSWORD)
        runs = {}
        for handle in (held, nobodys):
            sleeps.asked.clear()
            answers = [await answer(passwords, handle, f"guess number {n}") for n in range(GUESSES)]
            runs[handle] = (answers, list(sleeps.asked))
        assert runs[held] == runs[nobodys]
        answers, delays = runs[held]
        assert [a[1] for a in answers] == ["SIGN_IN_FAILED"] * 5 + ["SIGN_IN_LOCKED"] * 2
        assert delays == [0.0, 0.25, 0.5, 1.0, 2.0]  # the locked ones are answered at once
        # locked: the right password is not even checked
        assert (await answer(passwords, held, PASSWORD))[1] == "SIGN_IN_LOCKED"
        clock.offset += 901  # the lockout passes
        assert await answer(passwords, held, PASSWORD) == ("OK", "", "")
        assert (await answer(passwords, held, "wrong again!"))[1] == "SIGN_IN_FAILED"
        assert sleeps.asked[-1] == 0.0  # the right password cleared the count

    async def test_guesses_at_once_are_all_counted(self, store: EventStore, unique: str) -> None:
        passwords, _, _ = make(store)
        handle = handle_of(unique, "pa")
        await passwords.sign_up(handle, PASSWORD)
        answers = await asyncio.gather(
            *(answer(passwords, handle, f"parallel {n}!!") for n in range(12))
        )
        reasons = [a[1] for a in answers]
        assert reasons.count("SIGN_IN_FAILED") <= 5, reasons
        assert set(reasons) <= {"SIGN_IN_FAILED", "SIGN_IN_LOCKED"}


@pytest.mark.integration
@pytest.mark.serial  # measures each attempt's delay
async def test_a_guessing_loop_over_grpc_is_slowed_locked_and_tells_nothing(
    accounts_platform: Any, monkeypatch: pytest.MonkeyPatch, unique: str
) -> None:
    monkeypatch.setenv("PARLOR_PASSWORD_ACCOUNTS", "true")
    async with (
        accounts_platform("matchmaking") as platform,
        client.channel(platform.target, None) as anonymous,
    ):
        stub = pb_grpc.IdentityServiceStub(anonymous)
        held, nobodys = handle_of(unique, "rh"), handle_of(unique, "rn")
        made = await stub.SignUpWithPassword(
            pb.SignUpWithPasswordRequest(handle=held, password=PASSWORD, client="test")
        )
        assert made.created
        assert made.account.handle == held
        assert await refusal(
            stub.SignUpWithPassword, pb.SignUpWithPasswordRequest(handle=held, password=PASSWORD)
        ) == (grpc.StatusCode.ALREADY_EXISTS, "HANDLE_TAKEN")

        runs: dict[str, list[tuple[Any, str, str, float]]] = {}
        for handle in (held, nobodys):
            runs[handle] = []
            for n in range(GUESSES):
                started = time.perf_counter()
                with pytest.raises(grpc.aio.AioRpcError) as error:
                    await stub.SignInWithPassword(
                        pb.SignInWithPasswordRequest(handle=handle, password=f"guess {n} !!")
                    )
                took = time.perf_counter() - started
                runs[handle].append((error.value.code(), *_reason(error.value), round(took, 3)))
        shown = {h: [r[:3] for r in run] for h, run in runs.items()}
        # alike but for the seconds a lock has left, which the server's real clock counts
        # and which may tick between the two runs on a loaded machine
        assert [_unnumbered(r) for r in shown[held]] == [_unnumbered(r) for r in shown[nobodys]]
        assert [r[1] for r in shown[held]] == ["SIGN_IN_FAILED"] * 5 + ["SIGN_IN_LOCKED"] * 2
        assert {r[0] for r in shown[held]} == {
            grpc.StatusCode.UNAUTHENTICATED,
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        }
        delays = [0.0, 0.25, 0.5, 1.0, 2.0]
        for run in runs.values():
            # slowed: each checked attempt waited at least its delay (a lower bound only)
            assert all(r[3] >= d for r, d in zip(run, delays, strict=False)), run
        print("\nguessing loop over gRPC, seconds per attempt (held | nobody's):")
        for n in range(GUESSES):
            times = f"{runs[held][n][3]:.3f} | {runs[nobodys][n][3]:.3f}"
            print(f"  {n + 1}: {times}  {shown[held][n][1]}")
        checked = [
            (runs[held][n][3] - delays[n], runs[nobodys][n][3] - delays[n]) for n in range(5)
        ]
        extra_held = [a for a, _ in checked]
        extra_nobody = [b for _, b in checked]
        print(
            f"  beyond the delays: held mean {statistics.mean(extra_held):.3f} s"
            f" (sd {statistics.pstdev(extra_held):.3f}), nobody's mean"
            f" {statistics.mean(extra_nobody):.3f} s (sd {statistics.pstdev(extra_nobody):.3f})"
        )
        # the right password is locked out too, until the lockout passes
        assert await refusal(
            stub.SignInWithPassword, pb.SignInWithPasswordRequest(handle=held, password=PASSWORD)
        ) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "SIGN_IN_LOCKED")


def _unnumbered(answer: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(re.sub(r"\d+", "N", part) if isinstance(part, str) else part for part in answer)


def _reason(error: grpc.aio.AioRpcError) -> tuple[str, str]:
    from parlor.kit.status import reason_of

    return reason_of(error) or "", error.details() or ""
