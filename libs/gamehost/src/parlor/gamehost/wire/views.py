"""Each version's per-viewer ``Game`` message built once, for every reply and watcher.

A version names one state, so the game as one viewer sees it at one version never
changes: the mover's reply, the mover's own watch stream and a second look by
``GetGame`` share one message. The key holds the viewer's seat and whether
everything is shown (the game is over), so no viewer ever gets another's picture.
Messages handed out are shared: callers put them into responses (which copy them)
and never change them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Generic, TypeVar

from google.protobuf.message import Message

M = TypeVar("M", bound=Message)
K = TypeVar("K", bound=Hashable)

VIEWS = 4096
"""Pictures kept per game type and process (the latest versions of the busiest games)."""


class ViewCache(Generic[M]):
    """The ``Game`` message of (game id, version, viewer seat, everything), built on demand."""

    def __init__(self, size: int = VIEWS) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[str, int, int | None, bool], M] = OrderedDict()

    def get(
        self,
        game_id: str,
        version: int,
        viewer: int | None,
        everything: bool,
        build: Callable[[], M],
    ) -> M:
        key = (game_id, version, viewer, everything)
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = build()
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return found


class ElementWire(Generic[K]):
    """The wire bytes of single elements of one repeated message field, per value, kept.

    A board of many cells (Connect 4x4's 84 holes, Upwords' 100 stacks) then goes into
    its message as one parse of joined bytes (``merge_into``) instead of one message
    built per cell, which was the largest part of building a reply. Concatenated
    encodings of a repeated field parse as its elements in order (the protobuf wire
    format's merge rule), so the message is the same as one built field by field.
    """

    def __init__(
        self,
        message: type[Message],
        field: str,
        element: Callable[[K], Message],
        limit: int = 65536,
    ) -> None:
        self.message = message
        self.field = field
        self.element = element
        self.limit = limit
        self._wire: dict[K, bytes] = {}
        self._groups: dict[int, tuple[Sequence[K], bytes]] = {}

    def wire(self, value: K) -> bytes:
        found = self._wire.get(value)
        if found is None:
            holder = self.message()
            getattr(holder, self.field).append(self.element(value))
            found = holder.SerializeToString()
            if len(self._wire) < self.limit:
                self._wire[value] = found
        return found

    def join(self, values: Iterable[K]) -> bytes:
        wire, known = self.wire, self._wire
        return b"".join([known.get(v) or wire(v) for v in values])

    def merge_into(self, message: Message, values: Iterable[K]) -> None:
        """Append ``values`` to ``message``'s field, in order."""
        message.MergeFromString(self.join(values))

    def group(self, values: Sequence[K]) -> bytes:
        """``join(values)``, kept by the identity of ``values`` (held with its bytes, so its
        id is never another's): for groups that views share, such as a board's columns."""
        found = self._groups.get(id(values))
        if found is not None and found[0] is values:
            return found[1]
        joined = self.join(values)
        if len(self._groups) < self.limit:
            self._groups[id(values)] = (values, joined)
        return joined

    def merge_groups(self, message: Message, groups: Iterable[Sequence[K]]) -> None:
        """Append each group's values to ``message``'s field, in order (``group``)."""
        group = self.group
        message.MergeFromString(b"".join([group(values) for values in groups]))
