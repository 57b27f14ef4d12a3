"""Word verdicts from the dictionary service: one ``CheckWords`` batch per command.

A command that needs verdicts (``CallTakeFour`` in auto mode, ``CallDone``) is given
to the game host as a coroutine function of the state, so after a conflict the
words are listed again from the state the command is decided on, and checked again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import grpc

from parlor.dictionary.v1 import dictionary_pb2, dictionary_pb2_grpc
from parlor.kit.auth import AuthSettings, issue_token
from parlor.kit.client import channel
from parlor.kit.settings import setting
from parlor.kit.status import from_rpc_error
from parlor.rules import takefour as tf
from parlor.rules.takefour import CallDone, CallTakeFour

MAX_BATCH = 20_000


@dataclass(frozen=True)
class DictionarySettings:
    target: str = setting(
        "PARLOR_DICTIONARY_TARGET",
        "host:port of the dictionary service that checks Take Four words",
        "localhost:50051",
    )
    timeout_seconds: float = setting(
        "PARLOR_DICTIONARY_TIMEOUT_SECONDS",
        "longest wait for one word check when the caller set no deadline",
        5.0,
    )


class Dictionary:
    """Asks the dictionary service with a service token; its errors come back as ParlorErrors."""

    def __init__(self, settings: DictionarySettings, auth_settings: AuthSettings) -> None:
        self.settings = settings
        token = issue_token(auth_settings, "service:takefour", roles=("service",))
        self._channel = channel(settings.target, token)
        self._stub = dictionary_pb2_grpc.DictionaryServiceStub(self._channel)
        self.batches = 0

    async def close(self) -> None:
        await self._channel.close()

    def _timeout(self, remaining: float | None) -> float:
        return self.settings.timeout_seconds if remaining is None else max(remaining, 0.001)

    async def lexicon_id(self, lexicon: str, remaining: float | None = None) -> str:
        """The id of a lexicon named by name or id (empty: the default), to record in the game."""
        response = await self._call(
            dictionary_pb2.CheckWordsRequest(lexicon=lexicon), self._timeout(remaining)
        )
        return str(response.lexicon_id)

    async def verdicts(
        self, lexicon: str, words: frozenset[str], remaining: float | None = None
    ) -> dict[str, bool]:
        """Whether each word is in the lexicon: one batch (more only past the batch limit)."""
        ordered = sorted(words)
        verdicts: dict[str, bool] = {}
        for start in range(0, len(ordered), MAX_BATCH):
            chunk = ordered[start : start + MAX_BATCH]
            response = await self._call(
                dictionary_pb2.CheckWordsRequest(lexicon=lexicon, words=chunk),
                self._timeout(remaining),
            )
            invalid = set(response.invalid_indices)
            verdicts.update((w, i not in invalid) for i, w in enumerate(chunk))
        return verdicts

    async def _call(self, request: Any, seconds: float) -> Any:
        self.batches += 1
        try:
            return await self._stub.CheckWords(request, timeout=seconds)
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None

    async def attach(
        self,
        state: tf.TakeFourState,
        command: tf.TakeFourCommand,
        remaining: Callable[[], float | None] = lambda: None,
    ) -> tf.TakeFourCommand:
        """The command with the verdicts it needs for ``state`` (no call when it needs none)."""
        if not isinstance(command, CallTakeFour | CallDone):
            return command
        words = tf.TAKE_FOUR.words_to_check(state, command)
        if not words:
            return command
        found = await self.verdicts(state.config.lexicon, words, remaining())
        return replace(command, verdicts=found)
