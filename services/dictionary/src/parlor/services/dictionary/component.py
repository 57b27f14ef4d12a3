"""The dictionary service as a component: lexicons loaded and indexed before it reports SERVING."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from parlor.dictionary.v1 import dictionary_pb2, dictionary_pb2_grpc
from parlor.kit.server import Component, GrpcService
from parlor.kit.settings import SettingsError, load, setting
from parlor.lexicon import ENABLE1, load_registry
from parlor.services.dictionary.servicer import DictionaryServicer

SERVICE_NAME = dictionary_pb2.DESCRIPTOR.services_by_name["DictionaryService"].full_name


@dataclass(frozen=True)
class DictionarySettings:
    lexicon_files: tuple[str, ...] = setting(
        "PARLOR_LEXICON_FILES",
        "extra lexicons as name=path pairs, comma-separated (plain or .gz word lists)",
        (),
    )
    default_lexicon: str = setting(
        "PARLOR_DEFAULT_LEXICON", "lexicon used when a request names none", ENABLE1
    )
    warm: bool = setting(
        "PARLOR_LEXICON_WARM", "build anagram and pattern indexes at start-up", False
    )


def lexicon_files(pairs: tuple[str, ...]) -> dict[str, str]:
    files: dict[str, str] = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise SettingsError(f"PARLOR_LEXICON_FILES entry {pair!r} must be name=path")
        files[name.strip()] = path.strip()
    return files


@contextlib.asynccontextmanager
async def dictionary() -> AsyncIterator[Component]:
    settings = load(DictionarySettings)
    try:
        registry = load_registry(
            lexicon_files(settings.lexicon_files),
            default=settings.default_lexicon,
            warm=settings.warm,
        )
    except (OSError, ValueError) as exc:
        raise SettingsError(f"cannot load lexicons: {exc}") from exc
    servicer = DictionaryServicer(registry)
    yield Component(
        name="dictionary",
        services=[
            GrpcService(
                SERVICE_NAME,
                lambda server: dictionary_pb2_grpc.add_DictionaryServiceServicer_to_server(
                    servicer, server
                ),
                # the word games of this process call it directly (``parlor.kit.inprocess``)
                servicer=servicer,
            )
        ],
    )
