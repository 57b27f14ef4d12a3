"""Where lexicons come from: the packaged ENABLE list, files named in settings, a registry."""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path

from parlor.core.errors import InvalidArgument, NotFound

from .lexicon import Lexicon
from .query import LEXICON_NAME_TAKEN, UNKNOWN_LEXICON

ENABLE1 = "enable1"
"""Name of the default lexicon: the public-domain ENABLE list (172,820 words)."""

_GZIP_MAGIC = b"\x1f\x8b"


def lexicon_from_bytes(name: str, data: bytes) -> Lexicon:
    """A lexicon from a word list's bytes: one word per line, UTF-8, gzip-compressed or not."""
    if data.startswith(_GZIP_MAGIC):
        data = gzip.decompress(data)
    return Lexicon.from_text(name, data)


def load_lexicon(path: str | Path, name: str | None = None) -> Lexicon:
    """Loads a word list file (plain or .gz); the name defaults to the file name sans suffixes."""
    path = Path(path)
    return lexicon_from_bytes(name or path.name.split(".")[0].lower(), path.read_bytes())


@cache
def enable1() -> Lexicon:
    """The packaged ENABLE lexicon, loaded once per process."""
    # Beside this module, not through importlib.resources: that costs ~25 ms of imports.
    data = (Path(__file__).parent / "data" / "enable1.txt.gz").read_bytes()
    return lexicon_from_bytes(ENABLE1, data)


def load_registry(
    files: Mapping[str, str | Path] | None = None,
    *,
    default: str = ENABLE1,
    warm: bool = False,
) -> Registry:
    """The registry a service starts with: ENABLE plus each ``name -> path`` from its settings.

    Fails fast (OSError, InvalidArgument) on a missing file or a taken name; ``warm``
    builds every index now so the first query is not the slow one.
    """
    registry = Registry([enable1()])
    for name, path in (files or {}).items():
        registry.add(load_lexicon(path, name))
    registry = Registry(registry, default=default)
    if warm:
        for lexicon in registry:
            lexicon.warm()
    return registry


class Registry:
    """The lexicons a service offers, found by id (what games record) or by name (the latest of it).

    A name stands for one list: registering a different list under a taken name is
    refused, so a name never silently changes meaning while a service runs.
    """

    def __init__(self, lexicons: Iterable[Lexicon] = (), *, default: str | None = None) -> None:
        self._by_id: dict[str, Lexicon] = {}
        self._by_name: dict[str, Lexicon] = {}
        self._default: str | None = None
        for lexicon in lexicons:
            self.add(lexicon)
        if default is not None:
            self._default = self.get(default).id

    def add(self, lexicon: Lexicon) -> Lexicon:
        """Registers a lexicon (the first added is the default); adding it again is a no-op."""
        known = self._by_name.get(lexicon.name)
        if known is not None and known.id != lexicon.id:
            raise InvalidArgument(
                f"lexicon name {lexicon.name!r} is already {known.id}, not {lexicon.id}",
                reason=LEXICON_NAME_TAKEN,
                metadata={"name": lexicon.name, "id": known.id},
            )
        self._by_id.setdefault(lexicon.id, lexicon)
        self._by_name.setdefault(lexicon.name, lexicon)
        if self._default is None:
            self._default = lexicon.id
        return self._by_id[lexicon.id]

    def get(self, key: str | None = None) -> Lexicon:
        """The lexicon with this id or name; None or "" gives the default. Unknown: NotFound."""
        if not key:
            if self._default is None:
                raise NotFound("no lexicon is loaded", reason=UNKNOWN_LEXICON)
            return self._by_id[self._default]
        lexicon = self._by_id.get(key) or self._by_name.get(key)
        if lexicon is None:
            raise NotFound(f"no lexicon {key!r}", reason=UNKNOWN_LEXICON, metadata={"lexicon": key})
        return lexicon

    @property
    def default(self) -> Lexicon:
        return self.get()

    def __contains__(self, key: object) -> bool:
        return key in self._by_id or key in self._by_name

    def __iter__(self) -> Iterator[Lexicon]:
        """The lexicons in the order they were added."""
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)
