"""``parlor login``: an account's sign-in from the terminal, the browser on this machine
bringing the answer back to a loopback port (RFC 8252, "Loopback Interface Redirection").

The identity service is the OpenID Connect relying party (state, nonce, PKCE, the code
exchange and the ID token's checks: docs/accounts.md); the CLI binds the sign-in to itself:
it listens on ``127.0.0.1:<port>`` before it begins, completes only a redirect carrying the
state it began, and keeps the account's tokens in the user's config directory, readable by
the user alone (``credentials.json``, mode 0600, in a 0700 folder). Later commands call as
the account: the access token while it lasts, then ``RenewSession`` with the refresh token
(each renewal replaces it in the file).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import os
import secrets
import socket
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from parlor.client import (
    InvalidArgument,
    ParlorClient,
    ParlorError,
    RetryPolicy,
    Unauthenticated,
)
from parlor.identity.v1 import identity_pb2 as pb

CALLBACK_PATH = "/parlor/signed-in"
DEFAULT_PORT = 47512
"""The loopback port of the default redirect URI, http://127.0.0.1:47512/parlor/signed-in:
the identity service takes only redirect URIs configured for the provider, so this one (or
the one ``--port`` makes) must be among them."""
MAX_REQUEST_BYTES = 16 * 1024  # a redirect's request line and headers; anything longer is not one
ONCE = RetryPolicy(attempts=1, timeout=30.0)


class LoginError(Exception):
    """A sign-in that did not happen, said in words."""


def config_dir() -> Path:
    """``PARLOR_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/parlor``, else ``~/.config/parlor``."""
    if os.environ.get("PARLOR_CONFIG_DIR"):
        return Path(os.environ["PARLOR_CONFIG_DIR"])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "parlor"


def credentials_file() -> Path:
    return config_dir() / "credentials.json"


@dataclass
class Stored:
    """An account's session on one platform, as kept in the credentials file."""

    access_token: str
    refresh_token: str
    refresh_expires_at: int
    player_id: str
    provider: str


def _read_all() -> dict[str, dict[str, object]]:
    path = credentials_file()
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise LoginError(f"cannot read {path}: {exc}") from None
    return raw if isinstance(raw, dict) else {}


def _write_all(entries: dict[str, dict[str, object]]) -> None:
    """Replace the file whole, created 0600 in a 0700 folder (never readable by others,
    not even for a moment: the mode is set when the file is made, before it is written)."""
    folder = config_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = credentials_file()
    temporary = folder / f".credentials-{secrets.token_hex(4)}.json"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            json.dump(entries, out, indent=2)
        os.chmod(temporary, stat.S_IRUSR | stat.S_IWUSR)  # whatever the umask said
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise


def stored(target: str) -> Stored | None:
    entry = _read_all().get(target)
    if not isinstance(entry, dict):
        return None
    try:
        return Stored(**entry)  # type: ignore[arg-type]
    except TypeError:
        return None


def store(target: str, session: Stored) -> None:
    entries = _read_all()
    entries[target] = asdict(session)
    _write_all(entries)


def forget(target: str) -> bool:
    entries = _read_all()
    if entries.pop(target, None) is None:
        return False
    _write_all(entries)
    return True


def _page(title: str, words: str) -> bytes:
    body = (
        f'<!doctype html><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<h1>{html.escape(title)}</h1><p>{html.escape(words)}</p>"
    ).encode()
    head = (
        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n"
    ).encode()
    return head + body


def _refused(status: str, words: str) -> bytes:
    return _page("Not signed in", words).replace(b"200 OK", status.encode(), 1)


def bind_loopback(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise LoginError(
            f"cannot listen on 127.0.0.1:{port} for the provider's answer ({exc.strerror}):"
            " another `parlor login` may be running; or choose --port (its redirect URI must"
            " be configured for the provider too)"
        ) from None
    sock.listen(8)
    sock.setblocking(False)
    return sock


async def _answer(sock: socket.socket, state: str, seconds: float) -> dict[str, str]:
    """Wait for the browser's redirect carrying ``state``; its query parameters. A request
    for another path or state is answered and ignored: only the sign-in begun here counts."""
    arrived: asyncio.Future[dict[str, str]] = asyncio.get_running_loop().create_future()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            method, target, *_ = head[:MAX_REQUEST_BYTES].decode("latin-1").split(" ", 2)
            url = urlsplit(target)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if method != "GET" or url.path != CALLBACK_PATH:
                writer.write(_refused("404 Not Found", "Nothing here."))
            elif not secrets.compare_digest(query.get("state", "").encode(), state.encode()):
                writer.write(
                    _refused(
                        "400 Bad Request",
                        "This answer is not for the sign-in `parlor login` began here"
                        " (STATE_MISMATCH).",
                    )
                )
            elif arrived.done():
                writer.write(_refused("400 Bad Request", "This sign-in was already answered."))
            else:
                arrived.set_result(query)
                writer.write(_page("Parlor", "Back to the terminal: `parlor login` goes on."))
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, sock=sock, limit=MAX_REQUEST_BYTES)
    try:
        async with server:
            return await asyncio.wait_for(arrived, seconds)
    except TimeoutError:
        raise LoginError(f"no answer from the browser within {seconds:g} s") from None


async def login(
    target: str,
    provider: str,
    port: int,
    seconds: float,
    show: Callable[[str], None],
) -> tuple[Stored, str]:
    """Sign in with ``provider``; the session kept for ``target``, and the account's handle."""
    sock = bind_loopback(port)
    redirect_uri = f"http://127.0.0.1:{sock.getsockname()[1]}{CALLBACK_PATH}"
    try:
        async with ParlorClient(target, retry=ONCE) as parlor:
            try:
                begun = await parlor.identity.begin_sign_in(provider, redirect_uri)
            except InvalidArgument as exc:
                if exc.reason != "REDIRECT_URI_NOT_ALLOWED":
                    raise
                raise LoginError(
                    f"the platform does not take {redirect_uri} as a redirect URI for"
                    f" {provider!r}: it must be among that provider's redirect_uris in"
                    " PARLOR_OIDC_PROVIDERS (and registered at the provider); or use --port"
                    " for one that is"
                ) from None
            show(begun.authorization_url)
            query = await _answer(sock, begun.state, seconds)
            if query.get("error"):
                raise LoginError(
                    f"the provider did not sign you in: {query['error'][:64]}"
                    f" {query.get('error_description', '')[:200]}".rstrip()
                )
            done = await parlor.identity.complete_sign_in(
                begun.state, query.get("code", ""), query.get("iss", "")
            )
    finally:
        sock.close()
    return _kept(target, done, provider), done.account.handle


PASSWORD = "password"
"""The ``provider`` a built-in account's stored session names."""


Signed = pb.CompleteSignInResponse | pb.SignUpWithPasswordResponse | pb.SignInWithPasswordResponse
"""An answer that begins a session: its tokens and the account."""


def _kept(target: str, done: Signed, provider: str) -> Stored:
    """Keep the session an answer began (a provider's sign-in or a password's)."""
    session = Stored(
        access_token=done.access_token,
        refresh_token=done.refresh_token,
        refresh_expires_at=int(done.refresh_expires_at.seconds),
        player_id=done.account.player_id,
        provider=provider,
    )
    store(target, session)
    return session


async def password_login(
    target: str, handle: str, password: str, sign_up: bool, display_name: str = ""
) -> tuple[Stored, str]:
    """Sign into (or, with ``sign_up``, make) a built-in account at ``target``: the session
    kept, and the account's handle. The platform must have PARLOR_PASSWORD_ACCOUNTS on
    (``FailedPrecondition PASSWORD_ACCOUNTS_DISABLED`` else). Never retried: each attempt
    counts towards the handle's lock-out."""
    async with ParlorClient(target, retry=ONCE) as parlor:
        if sign_up:
            done: Signed = await parlor.identity.sign_up_with_password(
                handle, password, display_name, client="parlor CLI"
            )
        else:
            done = await parlor.identity.sign_in_with_password(
                handle, password, client="parlor CLI"
            )
    session = _kept(target, done, PASSWORD)
    return session, done.account.handle


def _expires_at(token: str) -> float:
    from parlor.cli.session import claims

    try:
        expires = claims(token).expires_at
    except ValueError:
        return 0.0
    return float("inf") if expires is None else float(expires)


async def access_token(target: str, margin: float = 60.0) -> str | None:
    """The stored account's access token for ``target``, renewed first when it is (nearly)
    expired; None when no account is signed in there, or its session is over (then it is
    forgotten: `parlor login` again)."""
    session = stored(target)
    if session is None:
        return None
    if _expires_at(session.access_token) - margin > time.time():
        return session.access_token
    async with ParlorClient(target, retry=ONCE) as parlor:
        try:
            renewed = await parlor.identity.renew_session(session.refresh_token)
        except Unauthenticated as exc:  # revoked, reused, expired: gone for good
            forget(target)
            print(
                f"parlor: the account's session at {target} is over ({exc.reason}):"
                " `parlor login` to sign in again",
                file=sys.stderr,
            )
            return None
    session.access_token = renewed.access_token
    session.refresh_token = renewed.refresh_token
    session.refresh_expires_at = int(renewed.refresh_expires_at.seconds)
    store(target, session)
    return session.access_token


async def logout(target: str) -> bool:
    """End the stored session at the service and forget it here; False when there was none.
    The file forgets it even when the platform cannot be told (ParlorError then)."""
    session = stored(target)
    if session is None:
        return False
    forget(target)
    async with ParlorClient(target, retry=ONCE) as parlor:
        with contextlib.suppress(Unauthenticated):  # already over: nothing to end
            await parlor.identity.sign_out(session.refresh_token)
    return True


__all__ = [
    "CALLBACK_PATH",
    "DEFAULT_PORT",
    "LoginError",
    "ParlorError",
    "Stored",
    "access_token",
    "config_dir",
    "credentials_file",
    "login",
    "logout",
    "password_login",
    "stored",
]
