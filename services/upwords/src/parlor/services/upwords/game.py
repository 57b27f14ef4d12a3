"""Upwords, declared once and served: the one place that says what this game is to the platform.

Its rules are in ``parlor.rules.upwords`` (every rule, in words: docs/rules/upwords.md),
under the game contract (``contract.ENGINE``: the name, the seat range), with what the
platform asks of them beyond it: the standings ``GameFinished`` carries, whose clock runs
(``timing``), how replay tools rebuild commands (``replay``) and how a game is created and
its bags drawn (``hosting``). This module adds, in order:

- the events and views between the engine's dataclasses and protobuf (``MESSAGES``). Secret
  fields of the engine's events (annotated ``Secret``) are protobuf fields of their own, so
  a stripped event (``None`` there) encodes to a message with those fields empty, and
  ``public`` clears them in a stored event's payload (racks and the bag are never published);
- the declaration (``GAME``: the codec, the bots, the proto, the time controls), registered
  under ``parlor.game_types`` (pyproject.toml); its bots (``UpwordsBots``) play the rules'
  strategy (``parlor.rules.upwords.bot``) on the service's word graph and the dictionary's
  verdicts;
- the wire (``wire``: the ``Game`` and ``GameEvent`` pictures and the move RPCs), from which
  the game host builds its servicer (``SERVING``, whose component is registered under
  ``parlor.services``), a word game's: given the dictionary client, every command asks it
  about its words in one batch, inside it, so the verdicts are about the very state the
  command is decided on (the game's ``words``). Every response is built for its caller:
  their own rack and draws, counts for everyone else's, until the game ends (then
  everything).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from parlor.common.v1 import common_pb2
from parlor.gamehost.bots.thinking import think
from parlor.gamehost.pipeline.games import GameType
from parlor.gamehost.pipeline.turns import BotCommand, Bots
from parlor.gamehost.table.codec import Bodies, game_fields
from parlor.gamehost.table.seating import TABLE_EVENTS, Table, TableEvent
from parlor.gamehost.wire.messages import Custom, Messages
from parlor.gamehost.wire.messages import Wire as WireField
from parlor.gamehost.wire.views import ElementWire
from parlor.gamehost.wire.wire import Move, Wire
from parlor.gamehost.wiring.component import Served
from parlor.gamehost.wiring.serving import Serving
from parlor.gamehost.words.botwords import built_index
from parlor.gamehost.words.words import Dictionary, DictionarySettings
from parlor.gametypes.timecontrol import TimeControl
from parlor.kit.settings import load, setting
from parlor.rules import upwords as uw
from parlor.rules.upwords import hosting, notation, record, replay, verdicts
from parlor.rules.upwords.bot import Offer, UpwordsBot, bot_turn
from parlor.rules.upwords.contract import ENGINE
from parlor.rules.upwords.record import move_notation
from parlor.rules.upwords.render import render
from parlor.rules.upwords.standings import standings as standings  # the component's too
from parlor.rules.upwords.timing import TIMING
from parlor.upwords.v1 import upwords_pb2 as pb

GAME_TYPE = "upwords"
STATUS = {uw.Phase.PLAYING: pb.STATUS_IN_PROGRESS, uw.Phase.ENDED: pb.STATUS_ENDED}

Event = uw.Event | TableEvent


def _racks_pb(racks: Sequence[Sequence[str] | None] | None) -> list[pb.SeatRack]:
    """Only the racks present: a stripped rack (None) is simply absent."""
    if racks is None:
        return []
    return [pb.SeatRack(seat=i, tiles=r) for i, r in enumerate(racks) if r is not None]


def _racks_of(
    messages: Sequence[pb.SeatRack], seats: int
) -> tuple[tuple[str, ...] | None, ...] | None:
    if not messages:
        return None
    by_seat = {m.seat: tuple(m.tiles) for m in messages}
    return tuple(by_seat.get(i) for i in range(seats))


def _racks_left_of(message: pb.GameEnded) -> tuple[tuple[str, ...], ...]:
    return tuple(r or () for r in _racks_of(message.racks_left, len(message.final_scores)) or ())


BODIES = Bodies(pb.GameEvent, "Upwords")
EVENT_TYPES = BODIES.types
decode_message = BODIES.parse
MESSAGES: Messages[Event] = Messages(
    BODIES,
    uw.Event,
    GAME_TYPE,
    fields={
        (uw.GameCreated, "racks"): Custom(
            lambda e: _racks_pb(e.racks), lambda m: _racks_of(m.racks, len(m.seats))
        ),
        (uw.GameEnded, "racks_left"): Custom(lambda e: _racks_pb(e.racks_left), _racks_left_of),
        (uw.PendingPlay, "passes_before"): None,
        (uw.UpwordsConfig, "rules"): WireField("rules_version", zero=uw.RECORDED_BEFORE_VERSIONS),
        **{(uw.PlayerView, n): None for n in ("viewer", "phase", "seats", "board", "racks", "bag")},
    },
)
event_pb, event_of = MESSAGES.event_pb, MESSAGES.event_of
"""The protobuf message an event is stored (full) or shown (stripped) as, and back."""
Codec = MESSAGES.codec
"""``Codec()``: the ``EventCodec`` of Upwords games."""
config_pb = MESSAGES.writer(uw.UpwordsConfig, pb.Config)
config_of = MESSAGES.reader(pb.Config, uw.UpwordsConfig)


def new_config(message: pb.Config) -> uw.UpwordsConfig:
    """A new game's config from a request's: its rules version 0 is the current one."""
    return replace(config_of(message), rules=uw.rules_for_new_game(message.rules_version))


public = MESSAGES.published
"""What NATS carries: every Upwords move is shown to all as what it is, its payload with every
secret field cleared (as a stripped event's)."""


def shown(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` (a seat, or None for a spectator) may see it during play: the
    engine's ``public_event`` (their own rack and draws, never bag order)."""
    if isinstance(event, TABLE_EVENTS):
        return event
    return cast(Event, ENGINE.public_event(event, viewer))


def game_event_pb(event: Event, info: common_pb2.EventInfo, board_before: uw.Board) -> pb.GameEvent:
    """An event (already as the viewer may see it) with its place in the stream."""
    out: pb.GameEvent = BODIES.wrap(
        event_pb(event), info=info, notation=move_notation(event, board_before)
    )
    return out


# The board's 100 stacks (row by row) go in as one parse of kept wire bytes.
_BOARD = ElementWire(pb.Game, "board", MESSAGES.writer(tuple[str, ...], pb.Stack))


def game_pb(
    game_id: str,
    version: int,
    table: Table[uw.UpwordsState],
    viewer: int | None,
    reveal: bool = False,
) -> pb.Game:
    """The game as ``viewer`` sees it; ``reveal`` (the game is over now) shows every rack."""
    v = uw.view(table.game, viewer)
    racks = v.racks if v.racks is not None else (table.game.racks if reveal else None)
    bag = v.bag if v.bag is not None else (table.game.bag if reveal else None)
    out = MESSAGES.message(
        v,
        pb.Game,
        **game_fields(game_id, version, table.seats),
        status=STATUS.get(v.phase, pb.STATUS_UNSPECIFIED),
        seats_to_move=ENGINE.to_move(table.game),
        racks=_racks_pb(racks),
        bag=bag,
        board_text=render(table.game, viewer) if table.seats else "",
        timed_out=table.game.out,
        departures=[table.game.departure(seat) for seat in range(table.game.players)],
        viewer_seat=viewer,
    )
    _BOARD.merge_into(out, v.board.stacks)
    return out


UpwordsTable = Table[uw.UpwordsState]

GAME: GameType[UpwordsTable, Any, Event] = GameType(
    ENGINE,
    Codec(),
    standings,
    replay,
    TIMING,
    pb,
    bots=("random", "best", "best"),
    public=public,
    rules_page="docs/rules/upwords.md",
    calls=("dictionary",),
    departures=(pb.PlayerResigned, pb.PlayerTimedOut),
    notation=record.export_game,
    hosting=hosting.GAME,
    words=verdicts,
    config_of=new_config,
    create_attempts=3,  # practically never: the first-player draw ran out of tiles
    create_retry_reasons=frozenset({"DRAW_EXHAUSTED"}),
    default_time_control=TimeControl.fischer(600, 5),
    time_controls=(
        TimeControl.per_move(90),
        TimeControl.fischer(600, 5),
        TimeControl.fischer(1200, 10),
        TimeControl.correspondence(days=2),
    ),
)
rules = GAME.rules  # the seated rules, as tests and tools fold a stream with


def thought_turn(
    words_file: str, game: uw.UpwordsState, seat: int, level: str, seed: int
) -> uw.Challenge | uw.AcceptPlay | Offer:
    """A bot's turn as a bot worker thinks it (``thinking``): from the worker's own word
    graph of ``words_file``, built there once, never sent to it; ``seed`` draws its choices
    (a level below ``best`` plays at random)."""
    bot = built_index(UpwordsBot, words_file)
    return bot_turn(bot, game, seat, level, random.Random(seed))


class UpwordsBots(Bots):
    """``bot:best`` plays its highest-scoring valid play, ``bot:random`` any: each seeing
    only its seat's view, from its own word graph of ``words_file`` (built once per process,
    about 2 s, the first time a bot moves), in the process's bot workers (``thinking``: off
    the event loop and its GIL). The dictionary judges a bot's words like anyone's: it offers
    its best ``BOT_CANDIDATES`` plays in one batch and plays the first valid. Its answer to a
    pending play is made on the very state it is decided on, so it always means the play
    pending then and names none (``play`` is for callers from outside)."""

    def __init__(self, dictionary: Dictionary, words_file: str, rng: random.Random) -> None:
        super().__init__(GAME.hosting)
        self.dictionary, self.words_file, self.random = dictionary, words_file, rng

    def command(self, seat: int, level: str) -> BotCommand:
        async def command(table: UpwordsTable) -> uw.Command:
            game, seed = table.game, self.random.getrandbits(64)
            turn = await think(thought_turn, self.words_file, game, seat, level or "best", seed)
            lexicon = game.config.lexicon
            if not isinstance(turn, Offer):
                return await self.dictionary.attach(verdicts, lexicon, game, turn, lambda: None)
            found = await self.dictionary.verdicts(lexicon, turn.words) if turn.words else {}
            return turn.chosen(game, seat, found, uw.insert_position(game, self.random))

        return command


def _meant_play(request: pb.ChallengeRequest | pb.AcceptPlayRequest, table: UpwordsTable) -> None:
    """A challenge or accept naming a play (``play``) other than the one pending is stale."""
    uw.check_meant_play(table.game, request.play)


def _play(request: pb.PlayRequest) -> notation.NotatedPlay:
    """A play's placements or its notation, read at the edge (tiles on the board: ``kept``)."""
    return notation.play_of([(p.row, p.col, p.tile) for p in request.placements], request.move)


def _played(play: notation.NotatedPlay, table: UpwordsTable, seat: int) -> uw.Play:
    notation.check_kept(table.game.board, play.kept)
    return uw.Play(seat, play.placements)  # every board rule first, then one batch


def wire(chance: random.Random) -> Wire[UpwordsTable, Event]:
    """Upwords' wire, a returned tile put back into the bag where ``chance`` (a secure
    random) says. An event's notation reads the board before it."""
    return Wire(
        game_pb,
        lambda event, info, before: game_event_pb(event, info, before.game.board),
        {
            "Play": Move(_played, parse=_play),
            "Pass": Move(lambda request, table, seat: uw.Pass(seat)),
            "Exchange": Move(
                lambda tile, table, seat: uw.Exchange(
                    seat, tile, uw.insert_position(table.game, chance)
                ),
                parse=lambda request: notation.exchanged_tile(request.tile),
            ),
            # Both name the play they mean (``play``): refused if another is pending (PLAY_CHANGED).
            "AcceptPlay": Move(lambda request, table, seat: uw.AcceptPlay(seat), _meant_play),
            "Resign": Move(lambda request, table, seat: uw.Resign(seat)),
            # the verdicts go in as the pipeline builds it
            "Challenge": Move(lambda request, table, seat: uw.Challenge(seat, {}), _meant_play),
        },
    )


@dataclass(frozen=True)
class BotSettings:
    words: str = setting(
        "PARLOR_UPWORDS_BOT_WORDS",
        "word list file the Upwords bots play from (empty: the packaged ENABLE list)",
        "",
    )


# Its servicer (``SERVING.servicer(host, dictionary, bot_words=..., chance=...)``): the wire
# and the bots draw from ``chance``; the component's bots play from ``BotSettings.words``.
SERVING = Serving(
    GAME,
    wire,
    UpwordsBots,
    BotSettings,
    lambda make, s: Served(make(bot_words=s.words)),
    lambda: load(DictionarySettings),  # racks, bag stay home
)
