"""Finding hidden tiles in anything a viewer receives: the truth from the store, then a search.

Helpers for ``test_secrets_every_rpc.py``. The truth of a game is its stored
events folded with the game's own decider: every seat's rack or hand and the bag
at every version. From it, ``Secrets`` lists what one viewer (a seat, or ``None``
for a spectator) must not receive before the game ends, as *values*:

- multisets of tiles: another seat's rack/hand at any version, the bag at any
  version, another seat's draws; those equal to something public (a board stack)
  or to the viewer's own tiles are dropped, since nothing could tell them apart;
- tile ids (Take Four): every id the viewer never held;
- per event: the secret values of the stored event (another seat's drawn or
  exchanged tile, a grid change's cell and letter, where an exchange went in the bag);
- text: a line listing another seat's rack or hand, a row of another seat's grid.

``Secrets.leaks`` walks a message by its descriptor (every field, nested messages,
``Any`` details unpacked) and names each value that matches. Nothing in it knows
which field of which RPC is secret: a field added to any message is searched too.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg
from google.protobuf import any_pb2, descriptor_pool
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from parlor.core.decider import Decider
from parlor.gamehost.table.seating import Table
from parlor.kit.auth import AuthSettings
from parlor.kit.main import available
from parlor.kit.ratelimit import RateLimitSettings
from parlor.kit.server import Server, ServerSettings, running
from parlor.rules import takefour as tf
from parlor.rules import upwords as uw
from parlor.rules.takefour.view import draw_grid
from parlor.rules.upwords.notation import format_exchange

# --- serving the platform in a thread (as the fuzzer does), the dictionary at a known port ----


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Backend:
    """Every installed service on one server, on its own loop in a thread (sync tests drive it).

    The port is chosen before the components are built, so the word games can be pointed
    at the dictionary on the same server (``PARLOR_DICTIONARY_TARGET``), as a deployment does.
    """

    def __init__(self, auth: AuthSettings) -> None:
        self.auth = auth
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.server: Server | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        try:
            factories = list(available().values())
            settings = ServerSettings(host="127.0.0.1", port=self.port, metrics_port=0)
            no_limit = RateLimitSettings(per_second=0, burst=1)
            async with running(settings, factories, self.auth, no_limit) as server:
                self.server = server
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # surfaced to the test thread
            self._failure = exc
            self._ready.set()

    def start(self) -> Server:
        saved = os.environ.get("PARLOR_DICTIONARY_TARGET")
        os.environ["PARLOR_DICTIONARY_TARGET"] = f"127.0.0.1:{self.port}"
        try:
            self.thread.start()
            self._ready.wait(120)
        finally:
            if saved is None:
                os.environ.pop("PARLOR_DICTIONARY_TARGET", None)
            else:
                os.environ["PARLOR_DICTIONARY_TARGET"] = saved
        if self._failure is not None:
            raise self._failure
        assert self.server is not None
        return self.server

    def stop(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self.thread.join(30)


# --- the store ------------------------------------------------------------------------------


NOT_A_BOT = (
    "(actor IS NULL OR (actor NOT LIKE 'bot:%%' AND actor NOT LIKE 'parlor:%%'"
    " AND actor <> 'matchmaking' AND actor <> 'turnfeed'))"
)
"""Events a caller's request made: not a bot's, nor the platform's own (the clock's
timeouts, ``parlor:clock``; the turn feed's "your turn" notices, ``turnfeed``, noted a
moment after a move), nor a game matchmaking created from an earlier test's match, which
arrives when it arrives."""


def stored_position(database_url: str) -> int:
    """The last global position of an event a caller made (``NOT_A_BOT``): a call that stored
    nothing leaves it as it was. Bots are left out because they act on their own, at their own pace,
    in any game of the session that still has a bot to move (earlier tests' games too); a
    refused call cannot make a bot act without storing an event of its own first."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            f"SELECT coalesce(max(position), 0) FROM events WHERE {NOT_A_BOT}"
        ).fetchone()
    return int(row[0]) if row else 0


def stored_since(database_url: str, position: int) -> list[tuple[str, str, str | None]]:
    """(stream, type, actor) of every event not made by a bot stored after ``position``."""
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            f"SELECT stream_id, type, actor FROM events WHERE position > %s AND {NOT_A_BOT}"
            " ORDER BY position",
            (position,),
        ).fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


@dataclass(frozen=True)
class StoredEvent:
    version: int
    type: str
    data: bytes


def read_stream(database_url: str, stream_id: str) -> list[StoredEvent]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT version, type, data FROM events WHERE stream_id = %s ORDER BY version",
            (stream_id,),
        ).fetchall()
    return [StoredEvent(int(v), str(t), bytes(d)) for v, t, d in rows]


@dataclass
class Truth:
    """A game as stored: its events (full, secrets included) and the state after each version."""

    category: str
    game_id: str
    records: list[StoredEvent]
    events: list[Any]
    states: list[Any]  # states[v]: the Table after version v (states[0]: before any event)
    terminal: list[bool]

    @property
    def version(self) -> int:
        return len(self.records)

    @property
    def ended_at(self) -> int | None:
        """The first version at which the game is over (from then on anything may be shown)."""
        return next((v for v, done in enumerate(self.terminal) if done), None)

    @property
    def over(self) -> bool:
        return self.ended_at is not None

    @property
    def hidden_versions(self) -> range:
        """The versions whose secrets must stay hidden (all of them until the game ends)."""
        end = self.ended_at
        return range(self.version + 1 if end is None else end)


def fold(
    database_url: str, category: str, game_id: str, codec: Any, decider: Decider[Any, Any, Any]
) -> Truth:
    records = read_stream(database_url, f"{category}-{game_id}")
    events = [codec.decode(r.type, r.data) for r in records]
    state = decider.initial_state()
    states = [state]
    for event in events:
        state = decider.evolve(state, event)
        states.append(state)
    terminal = [
        decider.is_terminal(s) if isinstance(s, Table) and s.seats else False for s in states
    ]
    return Truth(category, game_id, records, events, states, terminal)


# --- walking messages -----------------------------------------------------------------------

EVENT_INFO = "parlor.common.v1.EventInfo"


@dataclass(frozen=True)
class Leaf:
    """One value in a message: the message type it sits in, the field's name, the value
    (a tuple for a repeated scalar field), and the path for messages."""

    owner: str
    name: str
    value: Any
    path: str


def _unpacked(message: any_pb2.Any) -> Message | None:
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(message.TypeName())
    except KeyError:
        return None
    out = GetMessageClass(descriptor)()
    message.Unpack(out)
    return out


def leaves(message: Message, path: str = "", skip: frozenset[str] = frozenset()) -> Iterator[Leaf]:
    """Every set value anywhere in ``message`` (fields named in ``skip`` left out at this level)."""
    owner = message.DESCRIPTOR.full_name
    if isinstance(message, any_pb2.Any):
        inner = _unpacked(message)
        if inner is not None:
            yield from leaves(inner, f"{path}<{inner.DESCRIPTOR.name}>")
        return
    for fd, value in message.ListFields():
        if fd.name in skip:
            continue
        where = f"{path}.{fd.name}" if path else fd.name
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            if fd.message_type.GetOptions().map_entry:
                for key, item in value.items():
                    yield Leaf(owner, fd.name, key, f"{where}[key]")
                    if isinstance(item, Message):
                        yield from leaves(item, f"{where}[{key}]")
                    else:
                        yield Leaf(owner, fd.name, item, f"{where}[{key}]")
                continue
            items = list(value) if fd.is_repeated else [value]
            for i, item in enumerate(items):
                yield from leaves(item, f"{where}[{i}]" if fd.is_repeated else where)
        elif fd.is_repeated:
            yield Leaf(owner, fd.name, tuple(value), where)
        else:
            yield Leaf(owner, fd.name, value, where)


def messages(message: Message, path: str = "") -> Iterator[tuple[str, Message]]:
    """``message`` and every message inside it, with paths (``Any`` details unpacked)."""
    yield path, message
    if isinstance(message, any_pb2.Any):
        inner = _unpacked(message)
        if inner is not None:
            yield from messages(inner, f"{path}<{inner.DESCRIPTOR.name}>")
        return
    for fd, value in message.ListFields():
        if fd.type != FieldDescriptor.TYPE_MESSAGE or fd.message_type.GetOptions().map_entry:
            continue
        where = f"{path}.{fd.name}" if path else fd.name
        for i, item in enumerate(list(value) if fd.is_repeated else [value]):
            yield from messages(item, f"{where}[{i}]" if fd.is_repeated else where)


def event_version(message: Message) -> int | None:
    """The stream version of a game event message (one with an ``EventInfo``), else None."""
    fields = message.DESCRIPTOR.fields_by_name
    info = fields.get("info")
    if info is None or info.message_type is None or info.message_type.full_name != EVENT_INFO:
        return None
    if not message.HasField("info"):
        return None
    return int(message.info.version)  # type: ignore[attr-defined]


Multiset = tuple[str, ...]


def multiset(tiles: Iterable[str]) -> Multiset:
    return tuple(sorted(tiles))


# --- what one viewer must not receive -------------------------------------------------------


@dataclass
class Secrets:
    """Everything one viewer must not receive of one game, and the search for it."""

    truth: Truth
    viewer: int | None
    tiles: frozenset[str]
    forbidden_sets: set[Multiset] = field(default_factory=set)
    forbidden_ids: frozenset[int] = frozenset()
    forbidden_rows: set[str] = field(default_factory=set)
    per_event: dict[int, list[tuple[str, Any]]] = field(default_factory=dict)

    @property
    def who(self) -> str:
        return "a spectator" if self.viewer is None else f"seat {self.viewer}"

    # -- the search --

    def leaks(self, message: Message, where: str = "", version: int | None = None) -> list[str]:
        """What of this viewer's secrets ``message`` holds (empty: nothing).

        ``version``: the message is the body of the event at that version (as NATS carries it).
        """
        found: list[str] = []
        for leaf in leaves(message):
            found += self._leaf(leaf, where)
        for path, inner in messages(message):
            v = event_version(inner)
            skip = frozenset({"info"})
            if v is None and path == "" and version is not None:
                v, skip = version, frozenset()
            if v is not None:
                found += self._event(inner, v, skip, f"{where}{path}")
        return found

    def text_leaks(self, text: str, where: str) -> list[str]:
        return self._text(text, where)

    def _leaf(self, leaf: Leaf, where: str) -> list[str]:
        at = f"{where}{leaf.path}"
        value = leaf.value
        found: list[str] = []
        if isinstance(value, str):
            found += self._text(value, at)
        elif isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
            tiles = len(value) >= 2 and all(v in self.tiles for v in value)
            if tiles and multiset(value) in self.forbidden_sets:
                found.append(f"{at}: {list(value)} is a secret multiset of tiles")
            for item in value:
                found += self._text(item, at)
        if self.forbidden_ids and self._is_tile_id(leaf):
            ids = value if isinstance(value, tuple) else (value,)
            bad = sorted(set(ids) & self.forbidden_ids)
            if bad:
                found.append(f"{at}: tile ids {bad} were never {self.who}'s")
        return found

    @staticmethod
    def _is_tile_id(leaf: Leaf) -> bool:
        """Take Four's tile-id fields: tile, tiles, joker, bag, unused, and Tile.id."""
        value = leaf.value
        ints = (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, tuple) and all(isinstance(v, int) for v in value)
        )
        named = leaf.name in {"tile", "tiles", "joker", "bag", "unused"} or (
            leaf.owner.endswith(".Tile") and leaf.name == "id"
        )
        return ints and named

    def _event(self, event: Message, version: int, skip: frozenset[str], where: str) -> list[str]:
        secret = self.per_event.get(version)
        if not secret:
            return []
        shown = {(leaf.name, leaf.value) for leaf in leaves(event, skip=skip)}
        return [
            f"{where}: event {version} shows {name}={value!r}, a secret of another seat"
            for name, value in secret
            if (name, value) in shown
        ]

    _TOKEN = re.compile(r"\S+")

    def _text(self, text: str, where: str) -> list[str]:
        found: list[str] = []
        for line in text.splitlines() or [text]:
            tokens = self._TOKEN.findall(line)
            tiles = [t for t in tokens if t in self.tiles]
            if len(tiles) >= 2 and multiset(tiles) in self.forbidden_sets:
                found.append(f"{where}: the line {line.strip()!r} lists secret tiles")
            for token in tokens:
                if len(token) >= 5 and token.isalpha() and token.isupper():
                    split = _split_tiles(token, self.tiles)
                    if split is not None and multiset(split) in self.forbidden_sets:
                        found.append(f"{where}: {token!r} spells secret tiles")
            if line.strip() in self.forbidden_rows:
                found.append(f"{where}: the line {line.strip()!r} is a row of another grid")
        return found


def _split_tiles(token: str, tiles: frozenset[str]) -> list[str] | None:
    """``CATSQUX`` as tiles (``Qu`` is one tile), or None if it is not made of tiles."""
    out: list[str] = []
    i = 0
    while i < len(token):
        if token[i : i + 2] == "QU" and "Qu" in tiles:
            out.append("Qu")
            i += 2
        elif token[i] in tiles:
            out.append(token[i])
            i += 1
        else:
            return None
    return out


# --- Upwords --------------------------------------------------------------------------------

UPWORDS_TILES = frozenset(uw.DISTRIBUTION)


def upwords_secrets(truth: Truth, viewer: int | None) -> Secrets:
    """Racks, draws and the bag of an Upwords game, as ``viewer`` must never see them."""
    secrets = Secrets(truth, viewer, UPWORDS_TILES)
    public: set[Multiset] = set()
    for v in truth.hidden_versions:
        game: uw.UpwordsState = truth.states[v].game
        if not game.seats:
            continue
        secrets.forbidden_sets.add(multiset(game.bag))
        for seat, rack in enumerate(game.racks):
            (public if seat == viewer else secrets.forbidden_sets).add(multiset(rack))
        for r in range(uw.SIZE):
            for c in range(uw.SIZE):
                public.add(multiset(game.board.stack(r, c)))
    for v in truth.hidden_versions:
        if v == 0:
            continue
        event = truth.events[v - 1]
        owner = getattr(event, "seat", None)
        if isinstance(event, uw.WordPlayed | uw.PlayWithdrawn):
            # what goes on the board is public: a play of a whole rack shows that rack
            public.add(multiset(p.tile for p in event.placements))
            for word in (*getattr(event, "words", ()), *getattr(event, "invalid_words", ())):
                split = _split_tiles(word.upper(), UPWORDS_TILES)
                if split is not None:
                    public.add(multiset(split))
        if isinstance(event, uw.TilesDrawn) and event.drawn:
            (public if owner == viewer else secrets.forbidden_sets).add(multiset(event.drawn))
        secret: list[tuple[str, Any]] = []
        for name in uw.secret_fields(event):
            value = getattr(event, name)
            if value is None or name in ("racks", "bag"):  # whole racks and bags: multisets
                continue
            if owner == viewer and name != "position":  # one's own draws; no one sees the bag
                continue
            secret.append((name, tuple(value) if isinstance(value, tuple) else value))
            if isinstance(event, uw.TileExchanged) and name == "returned":
                secret.append(("notation", format_exchange(value)))
        if secret:
            secrets.per_event[v] = secret
    secrets.forbidden_sets = {s for s in secrets.forbidden_sets if len(s) >= 2} - public
    return secrets


# --- Take Four ------------------------------------------------------------------------------


def takefour_secrets(truth: Truth, viewer: int | None) -> Secrets:
    """Hands, grids, the bag and unused tiles of a Take Four game, as ``viewer`` must not see them.

    Tile ids are unique within a round; the games checked here stay in their first round, so
    every id the viewer never held is another's (or the bag's) and must not reach them.
    """
    secrets = Secrets(truth, viewer, frozenset())
    held: set[int] = set()
    public_faces: set[Multiset] = set()
    public_rows: set[str] = set()
    size = 0
    for v in truth.hidden_versions:
        game: tf.TakeFourState = truth.states[v].game
        if game.phase is tf.Phase.NOT_CREATED:
            continue
        assert game.round <= 1, "tile ids repeat across rounds: keep checked games in round one"
        tiles = game.config.tiles
        size = tiles.size
        secrets.tiles = frozenset({tiles.face(t) for t in range(size)})
        jokers = frozenset(t for t in range(size) if tiles.is_joker(t))
        for seat, player in enumerate(game.players):
            mine = player.hand + tuple(p.tile for p in player.grid.values())
            faces = multiset(tiles.face(t) for t in player.hand)
            rows = {
                row.strip()
                for row in draw_grid(player.grid, jokers).splitlines()[1:]
                if sum(ch.isalpha() for ch in row) >= 2
            }
            if seat == viewer:
                held.update(mine)
                public_faces.add(faces)
                public_rows |= rows
            else:
                secrets.forbidden_sets.add(faces)
                secrets.forbidden_rows |= rows
    secrets.forbidden_ids = frozenset(range(size)) - held
    secrets.forbidden_sets = {s for s in secrets.forbidden_sets if len(s) >= 2} - public_faces
    secrets.forbidden_rows -= public_rows
    from parlor.services.takefour.game import event_pb

    for v in truth.hidden_versions:
        if v == 0:
            continue
        event = truth.events[v - 1]
        owner = getattr(event, "seat", None)
        stored: Any = event_pb(event)
        if owner is None or owner == viewer or "secret" not in stored.DESCRIPTOR.fields_by_name:
            continue  # deals and scores: their tile ids are searched as ids
        secret = [(leaf.name, leaf.value) for leaf in leaves(stored.secret)]
        if secret:
            secrets.per_event[v] = secret
    return secrets


def secrets_of(truth: Truth, viewer: int | None) -> Secrets:
    if truth.category == "upwords":
        return upwords_secrets(truth, viewer)
    if truth.category == "takefour":
        return takefour_secrets(truth, viewer)
    raise ValueError(f"no hidden information in {truth.category}")


def describe(found: Sequence[str], limit: int = 8) -> str:
    more = f"\n... and {len(found) - limit} more" if len(found) > limit else ""
    return "\n".join(found[:limit]) + more
