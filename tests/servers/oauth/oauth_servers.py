"""A real OAuth 2.1 authorization server and a protected MCP server for Skiff's sign-in tests
(issue 10), on the Python `mcp` SDK 2.x's own auth routes, plus an unprotected MCP server that
records what it is sent (the key-isolation check).

Why it exists: the page's sign-in must be proven against the SDK's real handlers (metadata,
dynamic registration, authorize with PKCE, token, refresh, revocation, the bearer middleware
and its 401 with `WWW-Authenticate: Bearer ... resource_metadata=...`), as the SDK's
`simple-auth` example wires them, not against a mock of our own reading.

- authorization server: `create_auth_routes` (RFC 8414 metadata, /register, /authorize,
  /token, /revoke) over an in-memory provider that approves every authorization at once (a
  test user who always says yes; `--deny` makes it answer `access_denied`). Access tokens live
  `--token-lifetime` seconds, so refresh is exercised in seconds.
- protected MCP server: `MCPServer` with `AuthSettings` (resource `<origin>/mcp`, RFC 9728
  metadata, required scope `mcp`), Streamable HTTP, tools `echo` and `whoami`.
- other MCP server: no auth; records every request's Authorization header.
Both MCP servers send CORS headers exposing WWW-Authenticate and Mcp-Session-Id.

RFC 7662 introspection at POST /introspect (form `token`; `active`, `client_id`, `scope`,
`exp`, `aud` = the RFC 8707 resource, `sub`, `iss`), so resource servers in another process
check its tokens: tests/servers/oauth/legacy_server.py (SDK 1.x, the 2025-11-25 era). As in the
SDK's simple-auth example it asks no client authentication: it listens on loopback only.

Test-only control routes on the authorization server: GET /_state (counts of registrations,
codes, refreshes, revocations, and which tokens each MCP server saw), POST /_expire (every
access token issued so far now expires; the next MCP request gets a 401).

Listens on 127.0.0.1 only; prints one JSON line {"as", "mcp", "other"} once all three listen.
    "$SKIFF_MCP_PY2" tests/servers/oauth/oauth_servers.py [--token-lifetime 3600] [--deny]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import socket
import sys
import time

import uvicorn
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

SCOPE = "mcp"

# SDK 2.3.0's RevocationRequest declares `client_secret: str | None` without a default, so a
# public client (token_endpoint_auth_method "none", as Skiff is) that sends no client_secret
# gets 400 "client_secret: Field required" from /revoke, although the client authenticator
# right before it accepts that client. RFC 7009 §2.1 asks a public client for client_id only.
# Give the field its evident default; the route and handler stay the SDK's own.
from mcp.server.auth.handlers import revoke as _revoke  # noqa: E402

_revoke.RevocationRequest.model_fields["client_secret"].default = None
_revoke.RevocationRequest.model_rebuild(force=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TestProvider:
    """In-memory `OAuthAuthorizationServerProvider` that approves at once."""

    def __init__(self, lifetime: int, deny: bool, callback_iss: str | None = None) -> None:
        self.lifetime = lifetime
        self.deny = deny
        # RFC 9207: an `iss` in the authorization response, which a client must check when given.
        self.callback_iss = callback_iss
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken] = {}
        self.expiry: dict[str, float] = {}  # exact expiry, seconds (AccessToken keeps an int)
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self.state = {"registrations": 0, "authorizations": 0, "codes": 0, "refreshes": 0, "revoked": []}

    async def get_client(self, client_id: str):
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.state["registrations"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.state["authorizations"] += 1
        if self.deny:
            return construct_redirect_uri(str(params.redirect_uri), error="access_denied", state=params.state)
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
            subject="test-user",
        )
        extra = {"iss": self.callback_iss} if self.callback_iss else {}
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, **extra)

    async def load_authorization_code(self, client, authorization_code: str):
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None, refresh: str | None) -> OAuthToken:
        at = "at_" + secrets.token_urlsafe(24)
        now = time.time()
        self.tokens[at] = AccessToken(
            token=at,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(now + self.lifetime) + 1,
            resource=resource,
            subject="test-user",
        )
        self.expiry[at] = now + self.lifetime
        rt = refresh or "rt_" + secrets.token_urlsafe(24)
        self.refresh_tokens[rt] = RefreshToken(token=rt, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=at, expires_in=self.lifetime, scope=" ".join(scopes), refresh_token=rt)

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        if self.codes.pop(authorization_code.code, None) is None:
            raise TokenError("invalid_grant", "authorization code already used")
        self.state["codes"] += 1
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource, None)

    async def load_refresh_token(self, client, refresh_token: str):
        rt = self.refresh_tokens.get(refresh_token)
        return rt if rt and rt.client_id == client.client_id else None

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        self.state["refreshes"] += 1
        # Rotate the refresh token (OAuth 2.1 §4.3.3 for public clients).
        self.refresh_tokens.pop(refresh_token.token, None)
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource, None)

    async def load_access_token(self, token: str):
        t = self.tokens.get(token)
        if t is None or time.time() >= self.expiry.get(token, 0):
            return None
        return t

    async def revoke_token(self, token) -> None:
        self.state["revoked"].append(type(token).__name__)
        self.tokens.pop(token.token, None)
        self.refresh_tokens.pop(token.token, None)

    async def exchange_identity_assertion(self, client, params):  # pragma: no cover
        raise TokenError("unsupported_grant_type")


class Recorder:
    """ASGI wrapper noting the Authorization header of every request to one MCP server."""

    def __init__(self, app, seen: list[str]) -> None:
        self.app = app
        self.seen = seen

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            for name, value in scope.get("headers", []):
                if name == b"authorization":
                    self.seen.append(value.decode("latin-1"))
        await self.app(scope, receive, send)


def cors(app):
    return CORSMiddleware(
        app,
        allow_origins=["*"],
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=["*"],
        expose_headers=["WWW-Authenticate", "Mcp-Session-Id", "MCP-Protocol-Version"],
    )


def without_cors_on_token(app):
    """The token endpoint answers without CORS headers (a browser then refuses to read it), as
    many real authorization servers do; every other route keeps them. The SDK's token route adds
    its own, so they are taken out of the answer."""

    async def wrapped(scope, receive, send):
        if scope.get("type") != "http" or scope.get("path") != "/token":
            return await app(scope, receive, send)

        async def send_bare(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [(k, v) for k, v in message.get("headers", [])
                                                  if not k.lower().startswith(b"access-control-")]}
            await send(message)

        await app(scope, receive, send_bare)

    return wrapped


def add_tools(mcp: MCPServer) -> None:
    @mcp.tool(description="Echo the message back.")
    def echo(message: str) -> str:
        return f"Echo: {message}"

    @mcp.tool(description="Say who the server thinks is calling.")
    def whoami() -> str:
        return "test-user"


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--token-lifetime", type=int, default=3600, help="access token lifetime, seconds")
    ap.add_argument("--deny", action="store_true", help="the test user declines every authorization")
    ap.add_argument("--no-token-cors", action="store_true",
                    help="the token endpoint sends no CORS headers, as many real authorization servers")
    ap.add_argument("--wrong-iss", action="store_true",
                    help="the authorization response names another issuer (a mix-up attack's answer)")
    args = ap.parse_args()

    as_port, mcp_port, other_port = free_port(), free_port(), free_port()
    issuer = f"http://127.0.0.1:{as_port}"
    resource = f"http://127.0.0.1:{mcp_port}/mcp"
    provider = TestProvider(args.token_lifetime, args.deny,
                            "http://127.0.0.1:1/elsewhere" if args.wrong_iss else None)
    seen_mcp: list[str] = []
    seen_other: list[str] = []

    async def state(_: Request) -> Response:
        return JSONResponse({**provider.state, "seen_mcp": seen_mcp, "seen_other": seen_other,
                             "issued": list(provider.tokens)})

    async def expire(_: Request) -> Response:
        for t in provider.expiry:
            provider.expiry[t] = 0
        return JSONResponse({"ok": True})

    async def introspect(request: Request) -> Response:
        form = await request.form()
        token = form.get("token")
        t = await provider.load_access_token(token) if isinstance(token, str) else None
        if t is None:
            return JSONResponse({"active": False})
        return JSONResponse({
            "active": True,
            "client_id": t.client_id,
            "scope": " ".join(t.scopes),
            "exp": t.expires_at,
            "aud": t.resource,
            "sub": t.subject,
            "iss": issuer,
            "token_type": "Bearer",
        })

    routes = create_auth_routes(
        provider=provider,
        issuer_url=AnyHttpUrl(issuer),
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]),
        revocation_options=RevocationOptions(enabled=True),
    )
    routes += [Route("/introspect", introspect, methods=["POST"])]
    routes += [Route("/_state", state, methods=["GET"]), Route("/_expire", expire, methods=["POST"])]
    as_app = cors(Starlette(routes=routes))
    if args.no_token_cors:
        as_app = without_cors_on_token(as_app)

    protected = MCPServer(
        name="skiff-oauth-test-server",
        token_verifier=provider,  # load_access_token is a verifier's verify_token below
        auth=AuthSettings(
            issuer_url=AnyHttpUrl(issuer),
            resource_server_url=AnyHttpUrl(resource),
            required_scopes=[SCOPE],
            validate_token_resource=True,
        ),
    )
    add_tools(protected)
    mcp_app = cors(Recorder(protected.streamable_http_app(host="127.0.0.1", json_response=True), seen_mcp))

    other = MCPServer(name="skiff-oauth-other-server")
    add_tools(other)
    other_app = cors(Recorder(other.streamable_http_app(host="127.0.0.1", json_response=True), seen_other))

    servers = [
        uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
        for app, port in ((as_app, as_port), (mcp_app, mcp_port), (other_app, other_port))
    ]
    tasks = [asyncio.create_task(s.serve()) for s in servers]
    while not all(s.started for s in servers):
        if any(t.done() for t in tasks):
            for t in tasks:
                if t.done() and t.exception():
                    raise t.exception()
            sys.exit(1)
        await asyncio.sleep(0.05)
    print(json.dumps({"as": issuer, "mcp": resource, "other": f"http://127.0.0.1:{other_port}/mcp"}), flush=True)
    await asyncio.gather(*tasks)


# The provider doubles as the protected server's token verifier.
TestProvider.verify_token = TestProvider.load_access_token  # type: ignore[attr-defined]

if __name__ == "__main__":
    asyncio.run(main())
