"""A Challenge or AcceptPlay names the play it means (``play``, the pending play's ``number``
as the caller saw it): once another play is pending, it is refused (``PLAY_CHANGED``) and
nothing is appended; unset (old clients), it is decided on whatever play is pending.

Three players in challenge mode, through the servicer on an in-memory store: Ada plays, Cy
means to challenge her play, but Bob plays first (which closes the window of Ada's play),
so Cy's challenge arrives while Bob's play is the pending one.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pytest

from parlor.core.errors import RuleViolation
from parlor.eventstore import InMemoryEventStore
from parlor.gamehost import GameHost
from parlor.gamehost.table.seating import OpenTable
from parlor.gamehost.wire.service import GameService
from parlor.gamehost.words.words import Dictionary
from parlor.gametypes.seats import Seat
from parlor.kit import auth
from parlor.rules import upwords as uw
from parlor.rules.upwords import tiles
from parlor.services.upwords.game import GAME as UW
from parlor.services.upwords.game import SERVING as UPWORDS_SERVING
from parlor.upwords.v1 import upwords_pb2 as pb

NAMES = ("ada", "bob", "cy")
CHALLENGE = uw.UpwordsConfig(word_checking=uw.WordChecking.CHALLENGE)
# The sorted bag deals Ada seven As and Bob BBBCCCC.
ADA_AA = [pb.Placement(row=4, col=4, tile="A"), pb.Placement(row=4, col=5, tile="A")]
BOB_B = [pb.Placement(row=5, col=4, tile="B")]  # AB down


class EveryWord(Dictionary):
    """Every word is good: a challenge fails, and the play stands (no server behind it)."""

    def __init__(self) -> None:
        pass

    async def verdicts(
        self, lexicon_id: str, words: Collection[str], remaining: float | None = None
    ) -> dict[str, bool]:
        return dict.fromkeys(words, True)


async def as_player(player_id: str, call: Any) -> Any:
    token = auth.bind(auth.Identity(player_id))
    try:
        return await call()
    finally:
        auth.unbind(token)


async def started() -> tuple[GameService[Any, Any], GameHost[Any, Any, Any]]:
    host: GameHost[Any, Any, Any] = GameHost("upwords", UW.decider, UW.codec, InMemoryEventStore())
    bag = tiles.full_bag()
    create = uw.CreateGame(CHALLENGE, NAMES, bag, bag)
    await host.create("u", OpenTable(tuple(Seat(n) for n in NAMES), create))
    return UPWORDS_SERVING.servicer(host, EveryWord()), host


async def play(
    servicer: GameService[Any, Any], player_id: str, placements: list[pb.Placement]
) -> None:
    request = pb.PlayRequest(game_id="u", placements=placements)
    await as_player(player_id, lambda: servicer.Play(request, None))


async def ada_then_bob(servicer: GameService[Any, Any]) -> tuple[pb.Game, pb.Game]:
    """Ada plays (play 1), then Bob (play 2): the game as Cy saw it after each."""
    await play(servicer, "ada", ADA_AA)
    seen_first = await get(servicer, "cy")
    await play(servicer, "bob", BOB_B)
    return seen_first, await get(servicer, "cy")


async def get(servicer: GameService[Any, Any], player_id: str) -> pb.Game:
    response = await as_player(
        player_id, lambda: servicer.GetGame(pb.GetGameRequest(game_id="u"), None)
    )
    game: pb.Game = response.game
    return game


async def test_a_late_challenge_naming_an_earlier_play_is_refused_and_appends_nothing() -> None:
    servicer, host = await started()
    seen_first, now = await ada_then_bob(servicer)
    assert (seen_first.pending.seat, seen_first.pending.number) == (0, 1)
    assert (now.pending.seat, now.pending.number) == (1, 2)
    version = now.version

    meant = seen_first.pending.number
    with pytest.raises(RuleViolation) as refused:
        await as_player(
            "cy",
            lambda: servicer.Challenge(pb.ChallengeRequest(game_id="u", play=meant), None),
        )
    assert (refused.value.code, refused.value.reason) == ("FAILED_PRECONDITION", "PLAY_CHANGED")
    assert refused.value.metadata == {"play": "2", "meant_for": "1"}
    with pytest.raises(RuleViolation, match="play 1"):
        await as_player(
            "cy",
            lambda: servicer.AcceptPlay(pb.AcceptPlayRequest(game_id="u", play=meant), None),
        )
    _, stored = await host.load("u")
    assert stored == version  # nothing appended
    assert (await get(servicer, "cy")).pending.number == 2

    # Naming the play pending now, the challenge is decided (every word is good: it fails).
    lost = await as_player(
        "cy", lambda: servicer.Challenge(pb.ChallengeRequest(game_id="u", play=2), None)
    )
    kinds = [e.WhichOneof("body") for e in lost.events]
    assert kinds[0] == "challenge_failed"
    assert lost.events[0].challenge_failed.seat == 1
    assert not lost.game.HasField("pending")

    # No play pending any more: one still named is refused as well.
    with pytest.raises(RuleViolation) as closed:
        await as_player(
            "ada", lambda: servicer.AcceptPlay(pb.AcceptPlayRequest(game_id="u", play=2), None)
        )
    assert closed.value.reason == "PLAY_CHANGED"
    assert closed.value.metadata == {"play": "0", "meant_for": "2"}


async def test_a_challenge_naming_no_play_is_decided_on_the_pending_one_as_before() -> None:
    servicer, _ = await started()
    await ada_then_bob(servicer)
    lost = await as_player("cy", lambda: servicer.Challenge(pb.ChallengeRequest(game_id="u"), None))
    assert lost.events[0].challenge_failed.seat == 1  # Bob's play, the one pending now


async def test_an_accept_naming_the_pending_play_lets_it_stand() -> None:
    servicer, _ = await started()
    await play(servicer, "ada", ADA_AA)
    accepted = await as_player(
        "bob", lambda: servicer.AcceptPlay(pb.AcceptPlayRequest(game_id="u", play=1), None)
    )
    assert accepted.events[0].WhichOneof("body") == "play_accepted"
    assert not accepted.game.HasField("pending")
