"""The dictionary service as the word games ask it: one CheckWords batch per command.

The rules stay pure: the engine lists the words a command needs checked, this asks
the dictionary about all of them at once, and the verdicts go into the command
(``Dictionary.attach``, with the game's ``WordChecks``).
A game service calls with a token of its own (``service_token``), renewed before it
expires, that is for the dictionary alone (its ``aud``: no other service takes it); a
target at which this very process serves the dictionary (the platform's workers each host
one) is asked directly, as the game service's own identity, without a loopback call
(``parlor.kit.inprocess``).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol, Self, TypeVar, cast

import grpc
from prometheus_client import Counter

from parlor import telemetry
from parlor.core.errors import DeadlineExceeded, NotFound, ParlorError, Unavailable, translated
from parlor.dictionary.v1 import dictionary_pb2 as dpb
from parlor.dictionary.v1 import dictionary_pb2_grpc as dpb_grpc
from parlor.kit import auth, bounds, client, inprocess, logs
from parlor.kit.auth import AuthSettings, issue_token
from parlor.kit.settings import setting
from parlor.kit.status import INCIDENT_MESSAGE, from_rpc_error, reason_of

log = logging.getLogger("parlor.gamehost.words")

DEFAULT_TIMEOUT = 5.0
SERVICE = dpb.DESCRIPTOR.services_by_name["DictionaryService"].full_name
AUDIENCE = "dictionary"
"""The dictionary's component name: what a word game's token is for, and its declaration's
``calls`` names."""
IN_PROCESS_CALLS = Counter(
    "parlor_dictionary_in_process_calls_total",
    "Dictionary calls a word game made to the dictionary of its own process, without gRPC"
    " (calls over the network are grpc_client_*).",
    ["method"],
)

S = TypeVar("S")
C = TypeVar("C")
S_contra = TypeVar("S_contra", contravariant=True)


class WordChecks(Protocol[S_contra, C]):
    """What a word game's rules say of the words a command is decided by."""

    def words_to_check(self, state: S_contra, command: C) -> Collection[str]:
        """The words whose verdicts ``command`` must carry on ``state`` (none: no call)."""

    def attach_verdicts(self, state: S_contra, command: C, verdicts: Mapping[str, bool]) -> C:
        """The command carrying the dictionary's ``verdicts`` on those words."""


class LocalDictionary(Protocol):
    """The dictionary's servicer, as a word game in the same process calls it."""

    def ListLexicons(
        self, request: dpb.ListLexiconsRequest, context: Any
    ) -> Awaitable[dpb.ListLexiconsResponse]: ...

    def CheckWords(
        self, request: dpb.CheckWordsRequest, context: Any
    ) -> Awaitable[dpb.CheckWordsResponse]: ...


@dataclass(frozen=True)
class DictionarySettings:
    target: str = setting(
        "PARLOR_DICTIONARY_TARGET",
        "gRPC target (host:port, dns:///name:port) of the dictionary service the word games"
        " check words with, each call to the next address it resolves to (where this very"
        " process serves it, it is asked directly)",
        "localhost:50051",
    )
    timeout_seconds: float = setting(
        "PARLOR_DICTIONARY_TIMEOUT_SECONDS",
        "longest a word check may take when the caller set no deadline",
        DEFAULT_TIMEOUT,
    )


def service_token(auth: AuthSettings, service: str) -> Callable[[], str]:
    """A service's own token for the dictionary (and no other service: ``aud``), renewed
    well before it expires."""
    held: dict[str, float | str] = {"token": "", "renew_at": 0.0}

    def token() -> str:
        now = time.time()
        if now >= float(held["renew_at"]):
            held["token"] = issue_token(
                auth, f"service:{service}", roles=("service",), now=now, audience=(AUDIENCE,)
            )
            held["renew_at"] = now + auth.token_ttl_seconds / 2
        return str(held["token"])

    return token


KNOWN_VERDICTS = 200_000
"""Verdicts a client keeps (a few MB), forgotten all at once when full."""
MAX_BATCH = 20_000
"""The most words the dictionary checks in one call (``parlor.lexicon.MAX_BATCH``)."""


class Dictionary:
    """A client of the dictionary service that speaks in verdicts."""

    def __init__(
        self,
        target: str,
        token: Callable[[], str],
        timeout: float = DEFAULT_TIMEOUT,
        service: str = "",
    ):
        self.target = target
        self.channel = client.channel(target, token)
        # who asks a dictionary served in this process (over the network: the token's subject)
        self.identity = auth.Identity(
            f"service:{service}", roles=("service",), audience=(AUDIENCE,)
        )
        self.stub = dpb_grpc.DictionaryServiceStub(self.channel)
        self.timeout = timeout
        # A lexicon id names its words (it is derived from them), so a verdict never
        # changes: words asked once are answered here after (most plays repeat some).
        self._known: dict[tuple[str, str], bool] = {}
        self.batches = 0
        """CheckWords calls made."""

    @classmethod
    def of(cls, settings: DictionarySettings, auth: AuthSettings, service: str) -> Self:
        """The client a game service uses: its target and timeout, its own token."""
        return cls(settings.target, service_token(auth, service), settings.timeout_seconds, service)

    async def close(self) -> None:
        await self.channel.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _deadline(self, remaining: float | None) -> float:
        return self.timeout if remaining is None else max(0.001, min(remaining, self.timeout))

    async def _call(self, method: str, request: Any, remaining: float | None) -> Any:
        """One dictionary call: to the servicer if this very process serves the dictionary
        at the target, else over the channel; a failure either way is ``_upstream``'s error.

        In the process it is the call the network would make: the request checked against
        its bounds, as the game service's identity (bound for the call), within the same
        deadline, and a failure the servicer did not foresee is the dictionary unavailable
        (logged with an incident id), as its INTERNAL status would be."""
        local = cast(LocalDictionary | None, inprocess.served(SERVICE, self.target))
        if local is None:
            try:
                return await getattr(self.stub, method)(request, timeout=self._deadline(remaining))
            except grpc.RpcError as exc:
                raise _upstream(_answered(exc)) from None
        IN_PROCESS_CALLS.labels(method).inc()
        seconds = self._deadline(remaining)
        bound = auth.bind(self.identity)
        try:
            bounds.check(request)
            async with asyncio.timeout(seconds):
                with telemetry.span(
                    f"{SERVICE}/{method}",
                    tracer="parlor.gamehost",
                    attributes={"rpc.system": "in-process", "rpc.method": method},
                ):
                    return await getattr(local, method)(request, None)
        except TimeoutError:
            late = DeadlineExceeded(f"the dictionary did not answer within {seconds:g} s")
            raise _upstream(late) from None
        except Exception as error:
            known = translated(error)
            if known is None:
                incident = logs.incident(log, "dictionary call failed", error)
                known = Unavailable(f"the dictionary failed (incident {incident})")
            raise _upstream(known) from None
        finally:
            auth.unbind(bound)

    async def lexicon_id(self, lexicon: str, remaining: float | None = None) -> str:
        """The id of a lexicon named by id or name ("" for the default): games record it."""
        reply = await self._call("ListLexicons", dpb.ListLexiconsRequest(), remaining)
        for lex in reply.lexicons:
            if (not lexicon and lex.is_default) or lexicon in (lex.id, lex.name):
                return str(lex.id)
        if lexicon:
            raise NotFound(f"the dictionary has no lexicon {lexicon!r}", reason="UNKNOWN_LEXICON")
        raise Unavailable(
            f"the dictionary has no lexicon {lexicon or '(default)'!r}",
            reason="LEXICON_NOT_LOADED",
        )

    async def attach(
        self,
        rules: WordChecks[S, C],
        lexicon_id: str,
        state: S,
        command: C,
        remaining: Callable[[], float | None] = lambda: None,
    ) -> C:
        """``command`` with the verdicts it needs on ``state``, in one batch (none asked when
        it needs none; ``remaining``: the caller's time left bounds the call)."""
        words = rules.words_to_check(state, command)
        if not words:
            return command
        found = await self.verdicts(lexicon_id, words, remaining())
        return rules.attach_verdicts(state, command, found)

    async def verdicts(
        self, lexicon_id: str, words: Collection[str], remaining: float | None = None
    ) -> dict[str, bool]:
        """Whether each word is in the lexicon: the words not answered before, asked in one
        CheckWords batch (more only past the dictionary's ``MAX_BATCH``)."""
        known = self._known
        found = {w: known[lexicon_id, w] for w in words if (lexicon_id, w) in known}
        unique = [w for w in dict.fromkeys(words) if w not in found]
        for start in range(0, len(unique), MAX_BATCH):
            found.update(
                await self._check(lexicon_id, unique[start : start + MAX_BATCH], remaining)
            )
        return found

    async def _check(
        self, lexicon_id: str, unique: list[str], remaining: float | None
    ) -> dict[str, bool]:
        """One CheckWords call about words not known yet; their verdicts, remembered."""
        known = self._known
        self.batches += 1
        request = dpb.CheckWordsRequest(lexicon=lexicon_id, words=unique)
        reply = await self._call("CheckWords", request, remaining)
        if reply.lexicon_id != lexicon_id:
            raise Unavailable(
                f"the dictionary answered from lexicon {reply.lexicon_id!r}, not {lexicon_id!r}",
                reason="LEXICON_NOT_LOADED",
            )
        invalid = set(reply.invalid_indices)
        if len(known) + len(unique) > KNOWN_VERDICTS:
            known.clear()
        found: dict[str, bool] = {}
        for i, word in enumerate(unique):
            found[word] = known[lexicon_id, word] = i not in invalid
        return found


_INCIDENT = re.compile(re.escape(INCIDENT_MESSAGE).replace(r"\{\}", "[0-9a-f]{1,32}"))


def _answered(error: grpc.RpcError) -> ParlorError:
    """A failed call over the network as a ``ParlorError``: the dictionary's own answer (its
    reason, or its incident id) in its words; anything else is gRPC's, whose words name the
    dictionary's address inside the deployment ("failed to connect to all addresses; last
    error: ... ipv4:10.244.3.17:50051: Connection refused"). The player hears those through
    the game service, and a browser through the bridge, which passes a Parlor service's
    words as they are: so they go to the log, and the caller is told only the code."""
    said = error.details() or ""  # type: ignore[attr-defined]
    if reason_of(error) is not None or _INCIDENT.fullmatch(said):
        return from_rpc_error(error)
    code: grpc.StatusCode = error.code()  # type: ignore[attr-defined]
    log.warning("dictionary call failed", extra={"code": code.name, "said": said})
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return DeadlineExceeded("the dictionary did not answer in time")
    return Unavailable(f"no answer from it ({code.name}); try again shortly")


def _upstream(error: ParlorError) -> ParlorError:
    """A failed dictionary call: retriable for the player, never a "game not found"."""
    if isinstance(error, DeadlineExceeded):
        return error
    if isinstance(error, NotFound):
        return Unavailable(
            f"the dictionary cannot answer: {error.message}", reason="LEXICON_NOT_LOADED"
        )
    return Unavailable(
        f"the dictionary is unavailable: {error.message}", reason="DICTIONARY_UNAVAILABLE"
    )


class WordAnswers:
    """A word game's outside answers, from its dictionary client: a new game's create gets
    its lexicon's id (``settled``: the game records the very list it is played by), and a
    command that asks (``Command.asks``) the verdicts on the words it is decided by
    (``with_verdicts``: the rules' ``WordChecks``, one batch on the very state it is decided
    on; a command that needs none asks nothing). The game's state has its lexicon's id at
    ``config.lexicon``; its config is a dataclass."""

    def __init__(self, dictionary: Dictionary, checks: WordChecks[Any, Any]) -> None:
        self.dictionary, self.checks = dictionary, checks

    async def with_lexicon(self, config: Any, deadline: float | None) -> Any:
        """``config`` with the dictionary's id of the lexicon it names ("": the default)."""
        return replace(config, lexicon=await self.dictionary.lexicon_id(config.lexicon, deadline))

    async def settled(self, create: Any, deadline: float | None) -> Any:
        """A new game's create command with its lexicon's id (``with_lexicon``)."""
        return replace(create, config=await self.with_lexicon(create.config, deadline))

    async def with_verdicts(
        self, game: Any, command: C, remaining: Callable[[], float | None] = lambda: None
    ) -> C:
        """``command`` carrying the verdicts it needs on ``game`` (bounded by ``remaining``)."""
        lexicon = game.config.lexicon
        return await self.dictionary.attach(self.checks, lexicon, game, command, remaining)
