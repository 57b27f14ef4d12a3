"""`parlor verify` for Upwords: whole games the rules made verify; a falsified event is named.

Games are played through the seated rules as the service stores them (seats, the
two shuffles, dictionary verdicts, exchange places), by bots that sometimes bluff,
challenge, exchange and pass, in both word-checking modes and for 2 to 4 players.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from parlor.gamehost.table.seating import GameFinished, OpenTable, Table
from parlor.gamehost.verify.verify import COMMAND_REFUSED, EVENT_DIFFERS, verify_history
from parlor.gametypes.seats import Seat
from parlor.lexicon import enable1
from parlor.rules import upwords as uw
from parlor.rules.upwords.bot import BotExchange, BotPlay, UpwordsBot
from parlor.rules.upwords.dawg import Dawg
from parlor.services.upwords.game import GAME, rules

JUDGE = Dawg(w for w in enable1().words() if 2 <= len(w) <= 4)  # short words: fast bots
HONEST = UpwordsBot(JUDGE)
# Believes in phony words (real ones backwards), so challenge-mode games have withdrawals.
BLUFFER = UpwordsBot([*JUDGE.words, *(w[::-1] for w in sorted(JUDGE.words)[::4])])
RULES = rules()
command_of, create_of = GAME.command_of, GAME.create_of  # as parlor verify finds them


def verdicts(words: tuple[str, ...] | list[str]) -> dict[str, bool]:
    return {w: w in JUDGE for w in words}


def choose(game: uw.UpwordsState, rng: random.Random) -> uw.Command:
    """What a seat does now: challenge, accept, pass, exchange, or the bot's play."""
    pending = game.pending
    if pending is not None and rng.random() < 0.3:
        challenger = rng.choice([s for s in range(game.players) if s != pending.seat])
        return uw.Challenge(challenger, verdicts(pending.words))
    seat = game.to_move
    if game.pending_is_final():
        return uw.AcceptPlay(seat)
    positions = uw.exchange_positions(game)
    roll = rng.random()
    if roll < 0.02:
        return uw.Pass(seat)
    if roll < 0.06 and positions and not game.retry:
        return uw.Exchange(seat, rng.choice(game.racks[seat]), rng.randrange(positions))
    auto = game.config.word_checking is uw.WordChecking.AUTO
    move = (HONEST if auto else BLUFFER).choose(uw.view(game, seat))
    if isinstance(move, BotPlay):
        words = uw.words_formed(game, uw.Play(seat, move.placements))
        return uw.Play(seat, move.placements, verdicts(words) if auto else {})
    if isinstance(move, BotExchange) and positions and not game.retry:
        return uw.Exchange(seat, move.tile, rng.randrange(positions))
    return uw.Pass(seat)


def played(seed: int, players: int, mode: uw.WordChecking) -> list[Any]:
    """A whole game as the service stores it, from SeatsTaken to GameFinished."""
    rng = random.Random(seed)
    draw, bag = list(uw.full_bag()), list(uw.full_bag())
    rng.shuffle(draw)
    rng.shuffle(bag)
    seats = tuple(Seat(f"p{i}", f"P{i}") for i in range(players))
    config = uw.UpwordsConfig(word_checking=mode, lexicon="enable-2to4")
    create = uw.CreateGame(config, tuple(s.player_id for s in seats), tuple(draw), tuple(bag))
    events: list[Any] = list(RULES.decide(RULES.initial_state(), OpenTable(seats, create)))
    table: Table[uw.UpwordsState] = RULES.replay(events)
    for _ in range(3000):
        if RULES.is_terminal(table):
            break
        decided = RULES.decide(table, choose(table.game, rng))
        events += decided
        for event in decided:
            table = RULES.evolve(table, event)
    assert isinstance(events[-1], GameFinished)
    return events


def check(events: list[Any]):  # type: ignore[no-untyped-def]
    return verify_history(RULES, command_of, events, stream_id="upwords-g", create_of=create_of)


def first(events: list[Any], kind: type, after: int = 2) -> int:
    return next(i for i, e in enumerate(events) if isinstance(e, kind) and i >= after)


@pytest.mark.parametrize(
    ("seed", "players", "mode"),
    [
        (1, 2, uw.WordChecking.AUTO),
        (2, 3, uw.WordChecking.AUTO),
        (3, 4, uw.WordChecking.AUTO),
        (4, 2, uw.WordChecking.CHALLENGE),
        (5, 3, uw.WordChecking.CHALLENGE),
        (6, 4, uw.WordChecking.CHALLENGE),
    ],
)
def test_every_game_the_rules_made_verifies(seed: int, players: int, mode: uw.WordChecking) -> None:
    events = played(seed, players, mode)
    verdict = check(events)
    assert verdict.ok, verdict.divergence
    assert verdict.events == len(events)
    assert verdict.final == RULES.replay(events)
    if mode is uw.WordChecking.AUTO:
        turns = uw.WordPlayed | uw.Passed | uw.TileExchanged | uw.PlayerResigned
        assert verdict.commands == 1 + sum(isinstance(e, turns) for e in events)


def test_challenge_games_hold_every_kind_of_turn() -> None:
    """The games above exercise every command verify has to rebuild."""
    kinds = {type(e) for seed in (4, 5, 6) for e in played(seed, 2, uw.WordChecking.CHALLENGE)}
    assert {
        uw.WordPlayed,
        uw.PlayAccepted,
        uw.ChallengeFailed,
        uw.PlayWithdrawn,
        uw.TileExchanged,
        uw.TilesDrawn,
    } <= kinds


def test_a_play_scored_wrongly_diverges_at_that_play() -> None:
    events = played(1, 2, uw.WordChecking.AUTO)
    i = first(events, uw.WordPlayed, after=5)
    events[i] = dataclasses.replace(events[i], score=events[i].score + 1)
    d = check(events).divergence
    assert d is not None
    assert (d.version, d.reason) == (i + 1, EVENT_DIFFERS)


def test_a_falsified_draw_diverges_at_the_draw() -> None:
    events = played(2, 2, uw.WordChecking.AUTO)
    i = first(events, uw.TilesDrawn)
    drawn = events[i].drawn
    other = next(t for t in uw.DISTRIBUTION if t != drawn[0])
    events[i] = dataclasses.replace(events[i], drawn=(other, *drawn[1:]))
    d = check(events).divergence
    assert d is not None
    assert (d.version, d.reason) == (i + 1, EVENT_DIFFERS)


def test_a_different_first_player_diverges_at_the_creation() -> None:
    events = played(3, 2, uw.WordChecking.AUTO)
    created = events[1]
    events[1] = dataclasses.replace(created, first_seat=1 - created.first_seat)
    d = check(events).divergence
    assert d is not None
    assert (d.version, d.reason) == (2, EVENT_DIFFERS)


def test_a_challenge_stored_with_other_invalid_words_diverges_there() -> None:
    events = played(4, 2, uw.WordChecking.CHALLENGE)
    i = first(events, uw.PlayWithdrawn)
    events[i] = dataclasses.replace(events[i], invalid_words=("zzzz",))
    d = check(events).divergence
    assert d is not None
    assert d.version == i + 1
    assert d.reason in {EVENT_DIFFERS, COMMAND_REFUSED}


def test_a_word_the_play_did_not_form_is_refused_at_that_play() -> None:
    """The stored words are the verdicts: a play whose words differ now is not decided."""
    events = played(1, 2, uw.WordChecking.AUTO)
    i = first(events, uw.WordPlayed)
    events[i] = dataclasses.replace(events[i], words=("qi",))
    d = check(events).divergence
    assert d is not None
    assert (d.version, d.reason) == (i + 1, COMMAND_REFUSED)


def test_the_game_type_is_registered_for_parlor_verify() -> None:
    from parlor.gamehost.wire.replay import game_types

    registered = game_types()["upwords"]()
    assert registered.category == GAME.category == "upwords"
    assert registered.create_of is create_of
    assert registered.command_of is command_of
