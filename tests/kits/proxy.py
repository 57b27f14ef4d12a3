"""A TCP proxy that can stop answering, as a peer does whose host died or froze."""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType


class SilentProxy:
    """Passes TCP between its own port and ``127.0.0.1:<upstream>`` until ``silence()``.

    From then on nothing is passed either way and nothing is closed: what arrives is read
    and dropped, so neither side gets an answer, a FIN or a reset, and only a timer of its
    own (a keepalive ping's) can tell it the other side is gone.
    """

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.silent = False
        self.down = False
        self.target = ""
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    def silence(self) -> None:
        self.silent = True

    def cut(self) -> None:
        """Close every connection passed so far and refuse new ones until ``mend()``, as a
        stopping server does to its clients: they hear a closed line, then nobody there."""
        self.down = True
        for writer in self._writers:
            writer.close()
        self._writers.clear()

    def mend(self) -> None:
        self.down = False

    async def __aenter__(self) -> SilentProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.target = f"127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            writer.close()
            return
        self._writers.append(writer)
        if self.silent:
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:  # the upstream is down (restarting): the client hears a closed line
            writer.close()
            return
        self._writers.append(up_writer)
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                if not self.silent:
                    writer.write(data)
                    await writer.drain()
            if not self.silent:
                writer.close()
