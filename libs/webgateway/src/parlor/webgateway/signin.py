"""Signing in on the web: the bridge plays the server side of OpenID Connect for the browser.

The identity service is the relying party (``BeginSignIn``, ``CompleteSignIn``: state,
nonce, PKCE, code exchange and ID token checks are all there); the bridge binds a sign-in
to the browser that began it and keeps the account's refresh token out of every script's
reach:

- ``GET /auth/providers``: the providers offered here (``PARLOR_WEB_SIGN_IN_PROVIDERS``).
- ``GET /auth/sign-in?provider=<name>``: refused from another site's page
  (``Sec-Fetch-Site: cross-site``: ``SIGN_IN_FROM_ELSEWHERE``); ``BeginSignIn`` with the
  bridge's callback URL
  (``PARLOR_WEB_SIGN_IN_REDIRECT_URI``), the state put in a short-lived cookie
  (``parlor-sign-in``: HttpOnly, SameSite=Lax, path ``/auth/callback``), and a redirect
  to the provider.
- ``GET /auth/callback?state&code&iss``: completed only when the state is the one in this
  browser's cookie (``SIGN_IN_NOT_STARTED`` without one: a callback from another browser,
  or one replayed after it was used; ``STATE_MISMATCH`` for another state: a tampered one,
  or someone else's sign-in pushed on this browser, login CSRF). The cookie is spent
  either way. Then ``CompleteSignIn``; the account's refresh token goes into the
  ``parlor-session`` cookie (HttpOnly, SameSite=Strict, path ``/auth/``) and the browser
  is sent to ``/#/signed-in``. A refusal is a page naming its reason.
- ``POST /auth/session`` (JSON): ``RenewSession`` with the cookie's refresh token; the
  rotated one replaces it in the cookie and the page gets the access token only.
- ``POST /auth/sign-out`` (JSON): ``SignOut`` with it, and the cookie cleared.
- ``POST /auth/password`` (JSON ``{"handle", "password", "signUp", "displayName"}``, when
  ``PARLOR_WEB_PASSWORD_ACCOUNTS`` offers built-in accounts): ``SignUpWithPassword`` or
  ``SignInWithPassword``; the refresh token goes into the ``parlor-session`` cookie as a
  provider's sign-in's does, and the page gets the access token only. Refused from another
  site's page (``SIGN_IN_FROM_ELSEWHERE``), as ``/auth/sign-in`` is.

The POSTs take JSON only (a cross-site script must ask first, a CORS preflight never
granted here, and a form cannot send JSON) and their cookie is SameSite=Strict, so no
other site can renew or end a session for its visitor. Access tokens are what the page
holds, as a guest's are (an hour's worth); the refresh token never reaches a script.
"""

from __future__ import annotations

import html
import json
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from parlor.identity.v1 import identity_pb2 as pb
from parlor.identity.v1 import identity_pb2_grpc as pb_grpc
from parlor.webgateway.errors import BridgeError, from_rpc_error

CALLBACK_PATH = "/auth/callback"
SIGNED_IN = "/#/signed-in"
STATE_COOKIE = "parlor-sign-in"
SESSION_COOKIE = "parlor-session"
SERVICE = "parlor.identity.v1.IdentityService"
TIMEOUT_SECONDS = 30.0
MAX_STATE_SECONDS = 600  # the state cookie outlives no sign-in the service would complete
# what a cookie of ours may hold: a state (base64url) or a refresh token (<family>.<secret>)
_COOKIE_VALUE = re.compile(r"[A-Za-z0-9_.-]{1,256}")
_PROVIDER = re.compile(r"[A-Za-z0-9_.-]{1,32}")
MAX_PASSWORD_BODY = 4096  # a handle, a password, a name: the service bounds each again
WEB_CLIENT = "web"

Channels = Callable[[str], grpc.aio.Channel]
Metadata = Callable[[Request], tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class SignInSettings:
    """Which providers the web client offers, and the bridge's callback URL as registered
    with them (and in the identity service's ``PARLOR_OIDC_PROVIDERS``)."""

    providers: tuple[str, ...] = ()
    redirect_uri: str = ""
    passwords: bool = False
    """Whether the page offers built-in accounts (the identity service's
    ``PARLOR_PASSWORD_ACCOUNTS`` must be on too, else their calls are refused)."""

    @property
    def secure(self) -> bool:
        """Cookies only over HTTPS when the site is served over it."""
        return self.redirect_uri.startswith("https://")


def _seconds_until(stamp: Timestamp, cap: int | None = None) -> int:
    left = max(0, int(stamp.seconds - time.time()))
    return min(left, cap) if cap is not None else left


def _from_here(request: Request) -> None:
    """Refuse a sign-in another site's page started (its link, image or script)."""
    if request.headers.get("sec-fetch-site", "same-origin") == "cross-site":
        raise BridgeError(
            403,
            "PERMISSION_DENIED",
            "SIGN_IN_FROM_ELSEWHERE",
            "a sign-in is begun from Parlor's own page: open Parlor and use its button",
        )


async def _small_json(request: Request) -> dict[str, Any]:
    """A JSON object of at most MAX_PASSWORD_BODY bytes (read no further), else a refusal."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_PASSWORD_BODY:
            raise BridgeError(413, "INVALID_ARGUMENT", "TOO_LARGE", "the request is too large")
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        raise BridgeError(400, "INVALID_ARGUMENT", "BAD_JSON", "send a JSON object")
    return parsed


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise BridgeError(400, "INVALID_ARGUMENT", "BAD_JSON", f"{key} must be a string")
    return value


def refusal_page(error: BridgeError) -> HTMLResponse:
    """A sign-in that did not happen, said in words, with its reason for machines."""
    reason = html.escape(error.reason)
    page = f"""<!doctype html><meta charset="utf-8"><title>Sign-in refused · Parlor</title>
<main id="sign-in-refused" data-reason="{reason}">
<h1>Sign-in refused</h1>
<p><code>{reason}</code>: {html.escape(error.message)}</p>
<p><a href="/">Back to Parlor</a> (you can sign in again from there)</p>
</main>"""
    response = HTMLResponse(page, status_code=error.http_status)
    response.headers["cache-control"] = "no-store"
    return response


class SignIn:
    """The ``/auth/`` routes (see the module's words)."""

    def __init__(
        self,
        settings: SignInSettings,
        channels: Channels,
        metadata: Metadata,
        json_only: Callable[[Request], None],
    ) -> None:
        self.settings = settings
        self.channels = channels
        self.metadata = metadata
        self.json_only = json_only

    @property
    def stub(self) -> pb_grpc.IdentityServiceAsyncStub:
        stub: Any = pb_grpc.IdentityServiceStub(self.channels(SERVICE))  # on an aio channel
        return cast("pb_grpc.IdentityServiceAsyncStub", stub)

    def _calling(self, request: Request) -> tuple[tuple[str, str], ...]:
        """The caller's address for the services' limits; no token: these calls are public."""
        return tuple((k, v) for k, v in self.metadata(request) if k != "authorization")

    def _cookie(self, response: Response, name: str, value: str, seconds: int) -> None:
        strict = name == SESSION_COOKIE
        response.set_cookie(
            name,
            value,
            max_age=seconds,
            path="/auth/" if strict else CALLBACK_PATH,
            secure=self.settings.secure,
            httponly=True,
            samesite="strict" if strict else "lax",
        )

    def _forget(self, response: Response, name: str) -> None:
        self._cookie(response, name, "", 0)

    def routes(self) -> list[Route]:
        return [
            Route("/auth/providers", self.providers, methods=["GET"]),
            Route("/auth/sign-in", self.begin, methods=["GET"]),
            Route(CALLBACK_PATH, self.callback, methods=["GET"]),
            Route("/auth/session", self.session, methods=["POST"]),
            Route("/auth/sign-out", self.sign_out, methods=["POST"]),
            Route("/auth/password", self.password, methods=["POST"]),
        ]

    async def providers(self, request: Request) -> Response:
        return JSONResponse(
            {"providers": list(self.settings.providers), "passwords": self.settings.passwords},
            headers={"cache-control": "no-store"},
        )

    async def begin(self, request: Request) -> Response:
        provider = request.query_params.get("provider", "")
        try:
            # begun from Parlor's own page (or typed), not by another site's link or image,
            # which would replace a sign-in in progress here with one of its own making
            _from_here(request)
            if provider not in self.settings.providers or not _PROVIDER.fullmatch(provider):
                raise BridgeError(
                    404,
                    "NOT_FOUND",
                    "UNKNOWN_PROVIDER",
                    "this site offers no sign-in with that provider",
                )
            begun = await self.stub.BeginSignIn(
                pb.BeginSignInRequest(provider=provider, redirect_uri=self.settings.redirect_uri),
                metadata=self._calling(request),
                timeout=TIMEOUT_SECONDS,
            )
        except BridgeError as error:
            return refusal_page(error)
        except grpc.RpcError as exc:
            return refusal_page(from_rpc_error(exc))
        response = RedirectResponse(begun.authorization_url, status_code=303)
        response.headers["cache-control"] = "no-store"
        seconds = _seconds_until(begun.expires_at, MAX_STATE_SECONDS)
        self._cookie(response, STATE_COOKIE, begun.state, seconds)
        return response

    def _bound_state(self, request: Request) -> str:
        """The callback's state, when it is the one this browser began; else a refusal."""
        query = request.query_params
        if query.get("error"):  # the provider's own refusal (RFC 6749, 4.1.2.1)
            described = query.get("error_description", "")[:200]
            raise BridgeError(
                401,
                "UNAUTHENTICATED",
                "PROVIDER_REFUSED",
                f"the provider did not sign you in: {query['error'][:64]}"
                + (f" ({described})" if described else ""),
            )
        began = request.cookies.get(STATE_COOKIE, "")
        if not _COOKIE_VALUE.fullmatch(began):
            raise BridgeError(
                401,
                "UNAUTHENTICATED",
                "SIGN_IN_NOT_STARTED",
                "no sign-in was begun in this browser, or it was already completed or expired:"
                " start again from Parlor's sign-in button",
            )
        state = query.get("state", "")
        if not secrets.compare_digest(state.encode(), began.encode()):
            raise BridgeError(
                401,
                "UNAUTHENTICATED",
                "STATE_MISMATCH",
                "this answer is not for the sign-in begun in this browser (it was changed, or"
                " is someone else's): start again from Parlor's sign-in button",
            )
        return state

    async def callback(self, request: Request) -> Response:
        query = request.query_params
        try:
            state = self._bound_state(request)
            done = await self.stub.CompleteSignIn(
                pb.CompleteSignInRequest(
                    state=state, code=query.get("code", ""), iss=query.get("iss", "")
                ),
                metadata=self._calling(request),
                timeout=TIMEOUT_SECONDS,
            )
        except BridgeError as error:
            response: Response = refusal_page(error)
        except grpc.RpcError as exc:
            response = refusal_page(from_rpc_error(exc))
        else:
            response = RedirectResponse(SIGNED_IN, status_code=303)
            response.headers["cache-control"] = "no-store"
            seconds = _seconds_until(done.refresh_expires_at)
            self._cookie(response, SESSION_COOKIE, done.refresh_token, seconds)
        self._forget(response, STATE_COOKIE)  # spent, whatever came of it
        return response

    def _refresh_token(self, request: Request) -> str:
        token = request.cookies.get(SESSION_COOKIE, "")
        if not _COOKIE_VALUE.fullmatch(token):
            raise BridgeError(
                401, "UNAUTHENTICATED", "NOT_SIGNED_IN", "this browser holds no account session"
            )
        return token

    async def session(self, request: Request) -> Response:
        """A fresh access token for the page, the refresh token rotated in its cookie."""
        try:
            self.json_only(request)
            token = self._refresh_token(request)
            renewed = await self.stub.RenewSession(
                pb.RenewSessionRequest(refresh_token=token),
                metadata=self._calling(request),
                timeout=TIMEOUT_SECONDS,
            )
        except (BridgeError, grpc.RpcError) as exc:
            error = exc if isinstance(exc, BridgeError) else from_rpc_error(exc)
            response = JSONResponse(error.body(), status_code=error.http_status)
            if error.status == "UNAUTHENTICATED":  # revoked, reused, expired: it is no more
                self._forget(response, SESSION_COOKIE)
            return response
        body: dict[str, Any] = {
            "accessToken": renewed.access_token,
            "accessExpiresAt": renewed.access_expires_at.ToJsonString(),
            "refreshExpiresAt": renewed.refresh_expires_at.ToJsonString(),
        }
        answer = Response(json.dumps(body), media_type="application/json")
        answer.headers["cache-control"] = "no-store"
        self._cookie(
            answer,
            SESSION_COOKIE,
            renewed.refresh_token,
            _seconds_until(renewed.refresh_expires_at),
        )
        return answer

    async def sign_out(self, request: Request) -> Response:
        try:
            self.json_only(request)
            token = request.cookies.get(SESSION_COOKIE, "")
            if _COOKIE_VALUE.fullmatch(token):
                await self.stub.SignOut(
                    pb.SignOutRequest(refresh_token=token),
                    metadata=self._calling(request),
                    timeout=TIMEOUT_SECONDS,
                )
        except (BridgeError, grpc.RpcError) as exc:
            error = exc if isinstance(exc, BridgeError) else from_rpc_error(exc)
            response = JSONResponse(error.body(), status_code=error.http_status)
            # a token the service no longer knows is gone anyway; any other failure (not
            # JSON, the service unreachable) keeps the session, to be ended again
            if error.status == "UNAUTHENTICATED":
                self._forget(response, SESSION_COOKIE)
            return response
        response = JSONResponse({}, headers={"cache-control": "no-store"})
        self._forget(response, SESSION_COOKIE)
        return response

    async def password(self, request: Request) -> Response:
        """A built-in account's sign-up or sign-in; the session kept in the cookie."""
        try:
            self.json_only(request)
            _from_here(request)
            if not self.settings.passwords:
                raise BridgeError(
                    412,
                    "FAILED_PRECONDITION",
                    "PASSWORD_ACCOUNTS_DISABLED",
                    "this site offers no accounts with a password",
                )
            body = await _small_json(request)
            handle, password = _text(body, "handle"), _text(body, "password")
            done: Any
            if body.get("signUp") is True:
                done = await self.stub.SignUpWithPassword(
                    pb.SignUpWithPasswordRequest(
                        handle=handle,
                        password=password,
                        display_name=_text(body, "displayName"),
                        client=WEB_CLIENT,
                    ),
                    metadata=self._calling(request),
                    timeout=TIMEOUT_SECONDS,
                )
            else:
                done = await self.stub.SignInWithPassword(
                    pb.SignInWithPasswordRequest(
                        handle=handle, password=password, client=WEB_CLIENT
                    ),
                    metadata=self._calling(request),
                    timeout=TIMEOUT_SECONDS,
                )
        except (BridgeError, grpc.RpcError) as exc:
            error = exc if isinstance(exc, BridgeError) else from_rpc_error(exc)
            return JSONResponse(
                error.body(), status_code=error.http_status, headers={"cache-control": "no-store"}
            )
        answer = JSONResponse(
            {
                "accessToken": done.access_token,
                "accessExpiresAt": done.access_expires_at.ToJsonString(),
                "refreshExpiresAt": done.refresh_expires_at.ToJsonString(),
                "created": done.created,
            },
            headers={"cache-control": "no-store"},
        )
        self._cookie(
            answer, SESSION_COOKIE, done.refresh_token, _seconds_until(done.refresh_expires_at)
        )
        return answer
