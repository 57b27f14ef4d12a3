"""How a game is opened: its create command made from the game's value and appended, a
person's (``CreateGame``) or a match's (``open_match``), with no servicer in the way.

The create command is the game's (``GameType.create``: ``parlor.rules.<game>.hosting``),
given the outside answers it needs (``Settle``: a word game's lexicon id, the dictionary's)
and then its opening chance step drawn (``Hosting.opening``: Upwords' bags). A retried
create (a command id the game already has) is answered from the store before anything is
asked; a create refused for one of the game's ``create_retry_reasons`` is drawn again, up to
``create_attempts``; a creator's unfinished games are counted first (``opengames``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from google.protobuf.message import Message

from parlor.admission.opengames import Claims, within_cap
from parlor.admission.privacy import Privacy
from parlor.core.errors import InvalidArgument, ParlorError
from parlor.gamehost.host.host import GameHost, Outcome
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.pipeline.matches import from_match, match_privacy, match_seats
from parlor.gamehost.record.chance import drawn
from parlor.gamehost.table.seating import OpenTable, Table
from parlor.gametypes.seats import Seat
from parlor.gametypes.timecontrol import UNTIMED, TimeControl
from parlor.kit import auth
from parlor.matchmaking.v1.events_pb2 import MatchFormed
from parlor.matchrecords.consent import create_consent

T = TypeVar("T", bound=Table[Any])
E = TypeVar("E")

Settle = Callable[[Any, float | None], Awaitable[Any]]
"""A create command with the outside answers it needs, within the caller's time left (a
word game's lexicon id: ``wordgame.with_lexicon``)."""


class Opener(Generic[T, E]):
    """Opens games of one type on ``host``: ``game``'s create command, ``settle``d (None:
    it needs no answers), counted against ``max_open_games`` in ``open_games`` (None: not
    counted; 0: no cap)."""

    def __init__(
        self,
        host: GameHost[T, Any, E],
        game: GameType[Any, Any, Any],
        *,
        settle: Settle | None = None,
        open_games: Claims | None = None,
        max_open_games: int = 0,
    ) -> None:
        self.host = host
        self.game = game
        self.settle = settle
        self.open_games = open_games
        self.max_open_games = max_open_games

    async def create_command(
        self, config: Message | None, seats: tuple[Seat, ...], deadline: float | None
    ) -> Any:
        """The engine's create command (``config`` None: the defaults, for a match): the
        game's (``GameType.create``), settled, then its opening chance step drawn."""
        players = tuple(seat.player_id for seat in seats)
        command = self.game.create(config, players, tuple(seat.is_bot for seat in seats))
        if self.settle is not None:
            command = await self.settle(command, deadline)
        assert self.game.hosting is not None  # GameType.create refused a game without
        step = self.game.hosting.opening(command)
        return command if step is None else drawn(step)

    async def open(
        self,
        game_id: str,
        seats: tuple[Seat, ...],
        config: Message | None,
        *,
        command_id: str | None,
        actor: str,
        extra: Mapping[str, str],
        correlation_id: str | None = None,
        deadline: float | None = None,
        time_control: TimeControl = UNTIMED,
        matched: bool = False,
        berserk_allowed: bool = False,
        capped: auth.Identity | None = None,
        fingerprint: str | None = None,
    ) -> Outcome[T, E]:
        """Create the game. A retried create (a command id the game already has) is answered
        from the store before ``create_command`` asks a dependency anything (the dictionary);
        a refusal of a ``create_retry_reasons`` reason draws the command again (Upwords
        shuffles again when the first-player draw runs out), up to ``create_attempts``.
        ``capped``: the caller whose unfinished games are counted first (``TOO_MANY_OPEN_GAMES``
        at ``max_open_games``, under their claim: ``opengames.within_cap``; a retry already
        answered is not refused)."""
        if command_id is not None and await self.host.exists(game_id):
            # The id is the actor's own (COMMAND_ID_TAKEN otherwise) and the same create
            # (COMMAND_ID_REUSED otherwise).
            prior = await self.host.prior(game_id, command_id, actor, fingerprint)
            if prior is not None:
                return prior

        async def create() -> Outcome[T, E]:
            last = self.game.create_attempts
            for attempt in range(1, last + 1):
                command = await self.create_command(config, seats, deadline)
                try:
                    return await self.host.create(
                        game_id,
                        OpenTable(seats, command, time_control, matched, berserk_allowed),
                        command_id=command_id,
                        actor=actor,
                        correlation_id=correlation_id,
                        extra=extra,
                        fingerprint=fingerprint,
                    )
                except ParlorError as refused:
                    if refused.reason not in self.game.create_retry_reasons or attempt == last:
                        raise
            raise AssertionError("unreachable")

        if capped is None:
            return await create()
        return await within_cap(
            self.open_games, capped, self.max_open_games, self.game.name, game_id, create
        )

    async def open_match(self, match: MatchFormed) -> Outcome[T, E]:
        """A matchmade game's create (``match`` as the store holds it): seats as matched, the
        configuration a challenge chose (``MatchFormed.config``, checked by matchmaking when
        the challenge was made and by the game's create here) or the game's default rules,
        under the match's system command id (the pipeline's ``create_from_match`` makes it,
        then the bots' turns). A seat may go berserk if the match allows it (an arena's
        pairing: ``MatchFormed.berserk_allowed``) and the game is timed."""
        seats = match_seats(match)
        config = None
        message = getattr(self.game.proto, "Config", None)
        if match.config and message is not None:
            config = message.FromString(match.config)
        requested = match.time_control if match.HasField("time_control") else None
        made = from_match(match)
        made["extra"] = {**made["extra"], **match_privacy(match).extra()}
        time_control = self.time_control(requested, seats)
        return await self.open(
            match.match_id,
            seats,
            config,
            **made,
            time_control=time_control,
            matched=True,
            berserk_allowed=match.berserk_allowed and time_control.timed,
        )

    def time_control(self, requested: Any, seats: Sequence[Seat]) -> TimeControl:
        """The time control a new game gets: the one asked for, else the game type's default
        for games with two or more people, else none (a game against bots waits)."""
        people = sum(1 for seat in seats if not seat.is_bot)
        default = self.game.default_time_control if people >= 2 else TimeControl()
        if requested is None:
            return default
        return TimeControl.from_proto(requested, default)

    def check_bots(self, seats: Sequence[Seat]) -> None:
        """Refuse a seat of a bot the game has none of (``UNKNOWN_BOT_LEVEL``, naming them)."""
        levels = tuple(dict.fromkeys(self.game.bots))
        for seat in seats:
            if seat.is_bot and seat.bot_level not in levels:
                bots = ", ".join(f"bot:{level}" for level in levels)
                raise InvalidArgument(
                    f"unknown bot {seat.player_id!r}; bots are {bots}", reason="UNKNOWN_BOT_LEVEL"
                )

    async def open_for(
        self,
        me: auth.Identity,
        game_id: str,
        seats: tuple[Seat, ...],
        config: Message | None,
        *,
        requested: Any,
        private: bool,
        findable: bool,
        command_id: str | None,
        fingerprint: str | None,
        deadline: float | None,
    ) -> Outcome[T, E]:
        """A caller's ``CreateGame``: its bots known (``check_bots``), its time control
        (``requested``, or the default: ``time_control``), its seats consented (a person seats
        only themselves and bots: ``create_consent``) and its privacy chosen (``findable``:
        the caller may be found in it by id), then ``open``, capped by the caller's open games."""
        self.check_bots(seats)
        control = self.time_control(requested, seats)
        consent = await create_consent(self.host.store, game_id, seats, me)
        privacy = Privacy.chosen(private, [me.player_id] if findable else [])
        return await self.open(
            game_id,
            seats,
            config,
            command_id=command_id,
            fingerprint=fingerprint,
            actor=me.player_id,
            extra={**consent, **privacy.extra()},
            deadline=deadline,
            time_control=control,
            capped=me,
        )
