"""A word game whose dictionary target is served by its own process asks that servicer
directly, not over a loopback channel: the same answers and the same errors, as the game
service's own identity; any other target (or, ambiguously, one served twice) is called over
the network as before. The server registers what it serves once it is bound."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from parlor.core.errors import DeadlineExceeded, Unavailable
from parlor.dictionary.v1 import dictionary_pb2 as dpb
from parlor.gamehost.words.words import IN_PROCESS_CALLS, SERVICE, Dictionary
from parlor.kit import auth, inprocess
from parlor.kit.auth import AuthSettings, generate_private_key
from parlor.kit.server import ServerSettings, running
from parlor.lexicon import Lexicon, Registry
from parlor.services.dictionary.component import dictionary
from parlor.services.dictionary.servicer import DictionaryServicer

SMALL = Lexicon("small", ["cat", "dog", "at"])
HERE = "127.0.0.1:50999"  # where the test says this process serves the dictionary


class Remote:
    """The channel's stub: the calls that went over the network."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def CheckWords(self, request: dpb.CheckWordsRequest, **options: Any) -> Any:
        self.asked.append(list(request.words))
        return dpb.CheckWordsResponse(lexicon_id=request.lexicon)


@contextlib.contextmanager
def serving(servicer: DictionaryServicer) -> Iterator[None]:
    """This process serves ``servicer`` at ``HERE`` meanwhile."""
    unregister = inprocess.register(SERVICE, servicer, inprocess.addresses("127.0.0.1", 50999))
    try:
        yield
    finally:
        unregister()


def checks() -> float:
    return float(IN_PROCESS_CALLS.labels("CheckWords")._value.get())


def over(words: Dictionary) -> Remote:
    remote = Remote()
    words.stub = remote  # type: ignore[assignment]
    return remote


class Recording(DictionaryServicer):
    """The dictionary's servicer, noting who asked it what."""

    def __init__(self) -> None:
        super().__init__(Registry([SMALL]))
        self.callers: list[auth.Identity] = []

    async def CheckWords(self, request: dpb.CheckWordsRequest, context: Any) -> Any:
        self.callers.append(auth.caller())
        return await super().CheckWords(request, context)


def test_a_dictionary_served_in_the_process_is_asked_directly_as_the_game_service() -> None:
    async def run() -> None:
        servicer = Recording()
        async with Dictionary(HERE, lambda: "token", 0.5, "upwords") as words:
            player = auth.bind(auth.Identity("ada"))
            remote = over(words)
            counted = checks()
            with serving(servicer):
                assert await words.lexicon_id("") == SMALL.id
                found = await words.verdicts(SMALL.id, ["cat", "xq"])
            assert found == {"cat": True, "xq": False}
            assert (words.batches, remote.asked) == (1, [])
            assert checks() == counted + 1, "counted as an in-process call"
            assert [c.player_id for c in servicer.callers] == ["service:upwords"]
            assert servicer.callers[0].roles == ("service",)
            assert auth.caller().player_id == "ada", "the caller's identity is back"
            auth.unbind(player)

    asyncio.run(run())


def test_its_errors_are_the_ones_a_call_over_the_network_gives_and_without_it_the_network() -> None:
    async def run() -> None:
        async with Dictionary(HERE, lambda: "token", 0.5, "upwords") as words:
            with serving(Recording()):
                with pytest.raises(Unavailable) as unknown:
                    await words.verdicts("no-such-lexicon", ["cat"])
                assert unknown.value.reason == "LEXICON_NOT_LOADED"
            # nobody serves it here any more: over the network
            remote = over(words)
            assert await words.verdicts(SMALL.id, ["dog"]) == {"dog": True}
            assert remote.asked == [["dog"]]

    asyncio.run(run())


def test_two_dictionaries_in_one_process_are_not_guessed_between() -> None:
    async def run() -> None:
        one, two = Recording(), Recording()
        async with Dictionary(HERE, lambda: "token", 0.5, "upwords") as words:
            remote = over(words)
            with serving(one), serving(two):
                assert inprocess.served(SERVICE, HERE) is None
                await words.verdicts(SMALL.id, ["cat"])
            assert (one.callers, two.callers, remote.asked) == ([], [], [["cat"]])
        assert inprocess.served(SERVICE, HERE) is None

    asyncio.run(run())


def test_another_target_is_called_over_the_network() -> None:
    async def run() -> None:
        servicer = Recording()
        async with Dictionary("dictionary:50051", lambda: "token", 0.5, "upwords") as words:
            remote = over(words)
            with serving(servicer):
                await words.verdicts(SMALL.id, ["cat"])
        assert (servicer.callers, remote.asked) == ([], [["cat"]])

    asyncio.run(run())


def test_a_server_serves_the_dictionary_in_process_at_its_addresses_while_it_runs() -> None:
    async def run() -> None:
        settings = ServerSettings(host="0.0.0.0", port=0, metrics_port=0, grace_seconds=1)
        auth_settings = AuthSettings(private_key=generate_private_key())
        async with running(settings, [dictionary], auth_settings) as server:
            for target in (f"127.0.0.1:{server.port}", f"localhost:{server.port}"):
                assert isinstance(inprocess.served(SERVICE, target), DictionaryServicer)
            assert inprocess.served(SERVICE, f"dns:///localhost:{server.port}") is not None
            assert inprocess.served(SERVICE, f"127.0.0.1:{server.port + 1}") is None
            assert inprocess.served(SERVICE, f"dictionary:{server.port}") is None
            port = server.port
        assert inprocess.served(SERVICE, f"127.0.0.1:{port}") is None

    asyncio.run(run())


class Failing(Recording):
    """A servicer that hangs, or fails in a way it did not foresee."""

    def __init__(self, hang: bool) -> None:
        super().__init__()
        self.hang = hang

    async def CheckWords(self, request: dpb.CheckWordsRequest, context: Any) -> Any:
        self.callers.append(auth.caller())
        if self.hang:
            await asyncio.sleep(5)
        raise KeyError("a bug")


def test_in_the_process_the_call_keeps_the_networks_deadline_bounds_and_errors() -> None:
    async def run() -> None:
        async with Dictionary(HERE, lambda: "token", 0.05, "upwords") as words:
            player = auth.bind(auth.Identity("ada"))
            with serving(Failing(hang=True)):
                with pytest.raises(DeadlineExceeded):
                    await words.verdicts(SMALL.id, ["cat"])
            assert auth.caller().player_id == "ada"
            with serving(Failing(hang=False)):
                # over gRPC a bug is INTERNAL, which a word game hears as the dictionary down
                with pytest.raises(Unavailable) as failed:
                    await words.verdicts(SMALL.id, ["cat"])
                assert failed.value.reason == "DICTIONARY_UNAVAILABLE"
                assert "incident" in failed.value.message
            assert auth.caller().player_id == "ada"
            checked = Recording()
            with serving(checked):
                # out of the request's bounds, as the dictionary's interceptor would refuse it
                with pytest.raises(Unavailable):
                    await words.verdicts(SMALL.id, ["c" * 200])
            assert checked.callers == []
            auth.unbind(player)

    asyncio.run(run())


def test_a_server_is_reached_in_process_only_at_addresses_that_reach_it() -> None:
    assert inprocess.addresses("0.0.0.0", 7) == {"127.0.0.1:7", "localhost:7", "0.0.0.0:7"}
    assert inprocess.addresses("::", 7) == {
        "127.0.0.1:7",
        "localhost:7",
        "[::1]:7",
        "0.0.0.0:7",
        "[::]:7",
    }
    assert inprocess.addresses("127.0.0.1", 7) == {"127.0.0.1:7", "localhost:7"}
    assert inprocess.addresses("::1", 7) == {"[::1]:7", "localhost:7"}
    assert inprocess.addresses("10.1.2.3", 7) == {"10.1.2.3:7"}
    assert inprocess.addresses("Dictionary", 7) == {"dictionary:7"}
