"""`parlor` commands run as a player runs them: a process of its own, its stdin a pipe."""

from __future__ import annotations

import asyncio
import sys


class Terminal:
    """``python -m parlor.cli <args>``; ``until`` reads its screen until a text is on it."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.shown = b""

    @classmethod
    async def start(cls, *args: str) -> Terminal:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "parlor.cli",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        return cls(process)

    async def until(self, text: str, seconds: float = 30) -> None:
        """Read the screen until ``text`` is on it."""
        assert self.process.stdout is not None
        while text.encode() not in self.shown:
            chunk = await asyncio.wait_for(self.process.stdout.read(4096), seconds)
            assert chunk, self.shown.decode()
            self.shown += chunk

    async def type(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def finish(self, typed: bytes, seconds: float = 60) -> str:
        """Type the rest and read the screen to the end: all it showed."""
        try:
            rest, _ = await asyncio.wait_for(self.process.communicate(typed), seconds)
        finally:
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()
        return (self.shown + rest).decode()
