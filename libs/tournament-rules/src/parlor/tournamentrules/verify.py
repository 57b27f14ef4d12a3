"""Re-deciding a stored tournament: ``verify(events, results)`` lists what does not add up.

Each event is turned back into the command that made it and decided again on the state
before it: a pairing must be exactly what the rules pair from that state with the recorded
seed and game ids (so legal: only active, free players, each once, byes as the rules give
them), a score exactly what the rules score from the recorded places (and, when the games'
own results are given, those places must be the games'), every other event what its
command decides. At the end the points each player holds must equal a recomputation from
the scored games and byes. ``[]`` when all is well.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from parlor.core.errors import ParlorError
from parlor.tournamentrules.commands import (
    Berserk,
    Command,
    Create,
    Finish,
    Join,
    Pair,
    Pause,
    RecordResult,
    Rejoin,
    Remove,
    Start,
    Withdraw,
)
from parlor.tournamentrules.events import (
    EVENT_TYPES,
    GameScored,
    PlayerBerserked,
    PlayerJoined,
    PlayerPaused,
    PlayerRejoined,
    PlayerRemoved,
    PlayerWithdrew,
    TablesPaired,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    TournamentStarted,
)
from parlor.tournamentrules.standings import points_from_games
from parlor.tournamentrules.state import Tournament
from parlor.tournamentrules.tournament import TOURNAMENTS

EVENT_CLASSES = tuple(EVENT_TYPES.values())


def command_of(event: TournamentEvent, state: Tournament) -> Command:
    """The command that decides ``event`` on ``state`` (an INVITE join as admitted, a start
    by someone other than the organiser as an operator's)."""
    match event:
        case TournamentCreated():
            return Create(event.settings, event.organiser, event.at_ms)
        case PlayerJoined():
            return Join(event.player, event.is_bot, event.at_ms, admitted=True)
        case PlayerWithdrew():
            return Withdraw(event.player, event.at_ms)
        case PlayerRemoved():
            return Remove(event.player, event.by, event.reason, event.at_ms, event.by_operator)
        case PlayerPaused():
            return Pause(event.player, event.at_ms)
        case PlayerRejoined():
            return Rejoin(event.player, event.at_ms)
        case TournamentStarted():
            return Start(event.by, event.at_ms, by_operator=event.by != state.organiser)
        case TablesPaired():
            return Pair(event.at_ms, tuple(game_id for game_id, _ in event.tables), event.seed)
        case PlayerBerserked():
            return Berserk(event.player, event.game_id, event.at_ms)
        case GameScored():
            places = tuple((player, place) for player, place, *_ in event.scores)
            return RecordResult(event.game_id, places, event.moves, event.at_ms)
        case TournamentFinished():
            return Finish(event.at_ms)
    raise TypeError(f"not a tournament event: {event!r}")


def verify(
    events: Iterable[TournamentEvent],
    results: Mapping[str, Mapping[str, int]] | None = None,
    berserks: Mapping[str, frozenset[str]] | None = None,
) -> list[str]:
    """What is wrong with a stored tournament (``[]``: nothing). ``results``: the games'
    own places by game id (from their streams), when the caller has them; ``berserks``: the
    players each game's stream records going berserk (``SeatBerserked``), which must be the
    berserks the game is scored with."""
    problems: list[str] = []
    state = TOURNAMENTS.initial_state()
    for n, event in enumerate(events, start=1):
        name = type(event).__name__
        if not isinstance(event, EVENT_CLASSES):
            problems.append(f"event {n} ({name}): not a tournament event")
            return problems
        try:
            decided: Sequence[TournamentEvent] = TOURNAMENTS.decide(state, command_of(event, state))
        except ParlorError as refused:
            problems.append(f"event {n} ({name}): the rules refuse it: {refused.reason}")
            decided = [event]
        except (KeyError, AssertionError) as broken:
            problems.append(f"event {n} ({name}): cannot be decided ({broken!r})")
            return problems
        if list(decided) != [event]:
            problems.append(f"event {n} ({name}): the rules decide {list(decided)!r} instead")
        if isinstance(event, GameScored) and results is not None:
            places = {player: place for player, place, *_ in event.scores}
            game_places = results.get(event.game_id)
            if game_places is None:
                problems.append(f"event {n} ({name}): game {event.game_id} has no result")
            elif dict(game_places) != places:
                problems.append(
                    f"event {n} ({name}): game {event.game_id} ended {dict(game_places)}, "
                    f"scored as {places}"
                )
        if isinstance(event, GameScored) and berserks is not None:
            game = state.games.get(event.game_id)
            scored = set(game.berserk) if game is not None else set()
            recorded = set(berserks.get(event.game_id, frozenset()))
            if scored != recorded:
                problems.append(
                    f"event {n} ({name}): game {event.game_id} records berserk"
                    f" {sorted(recorded)}, scored with {sorted(scored)}"
                )
        try:
            state = TOURNAMENTS.evolve(state, event)
        except (KeyError, AssertionError) as broken:
            problems.append(f"event {n} ({name}): cannot be applied ({broken!r})")
            return problems
    if state.settings is not None:
        recomputed = points_from_games(state)
        for player, points in state.points.items():
            if player in state.entrants and recomputed.get(player, 0) != points:
                problems.append(
                    f"{player} holds {points} points, the games and byes give "
                    f"{recomputed.get(player, 0)}"
                )
    return problems
