"""Protected legacy-era (2025-11-25) MCP servers for Skiff's sign-in tests (issue 10), on the
Python `mcp` SDK 1.x's FastMCP auth: the same tools over HTTP+SSE, over Streamable HTTP and over
WebSocket, all three resource servers of the authorization server that
tests/servers/oauth/oauth_servers.py runs.

Why it exists: the sign-in must hold in both protocol eras and on every HTTP transport.
oauth_servers.py (SDK 2.x) speaks the modern era over Streamable HTTP only; SDK 1.x negotiates
up to 2025-11-25 and still ships the deprecated HTTP+SSE transport (GET /sse + POSTs to the
endpoint the stream announces), where both the stream and every POST must carry the token.

- SSE server: `FastMCP.sse_app()` (GET /sse, POST /messages/?session_id=...), resource
  `<origin>/`: the whole origin, since one server answers on two paths (RFC 9728 metadata at
  /.well-known/oauth-protected-resource).
- Streamable HTTP server: `FastMCP.streamable_http_app()`, resource `<origin>/mcp`.
- WebSocket server: `mcp.server.websocket` at ws://<origin>/ws behind the SDK's
  `RequireAuthMiddleware`, which refuses the handshake with 401: a browser cannot put an
  `Authorization` header on a WebSocket, so this is what a page meets there.
Each is FastMCP with `AuthSettings` (required scope `mcp`, `validate_token_resource`) and the
SDK's bearer middleware (401 + `WWW-Authenticate: Bearer ... resource_metadata=...`). Tokens
are checked by RFC 7662 introspection at the authorization server (`--as`), as the SDK's
simple-auth example does, so /_expire there ends them here too.

Test-only route on each server: GET /_state {"seen": [Authorization of every request, in order,
with the method and path], "drops": n}; POST /_drop (SSE server) ends every open SSE stream, so
the page must reconnect (a server restart, seen from the page); POST /_refuse (any server) makes
all three refuse every token from then on, fresh ones included (a grant this server will not
take).

Listens on 127.0.0.1 only; prints one JSON line {"sse", "mcp", "ws"} once all listen.
    "$SKIFF_MCP_PY1" tests/servers/oauth/legacy_server.py --as http://127.0.0.1:PORT
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import warnings

import anyio
import httpx
import uvicorn
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from mcp.server.auth.settings import AuthSettings
from mcp.server.fastmcp import FastMCP

with warnings.catch_warnings():
    # Deprecated in 1.x because 2.x removes it; the test needs exactly this transport.
    warnings.simplefilter("ignore", DeprecationWarning)
    from mcp.server.websocket import websocket_server

SCOPE = "mcp"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class IntrospectionVerifier:
    """`TokenVerifier` asking the authorization server's RFC 7662 /introspect about each token."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.refuse = False  # POST /_refuse: as a server that takes none of this AS's tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        if self.refuse:
            return None
        async with httpx.AsyncClient(timeout=5) as client:
            r = await client.post(self.endpoint, data={"token": token})
        if r.status_code != 200:
            return None
        d = r.json()
        if not d.get("active"):
            return None
        aud = d.get("aud")
        return AccessToken(
            token=token,
            client_id=d["client_id"],
            scopes=(d.get("scope") or "").split(),
            expires_at=d.get("exp"),
            resource=aud[0] if isinstance(aud, list) and aud else aud,
            subject=d.get("sub"),
            claims={"iss": d["iss"]} if d.get("iss") else None,
        )


class Recorder:
    """ASGI wrapper noting the method, path and Authorization of every request (and handshake)."""

    def __init__(self, app, seen: list[dict]) -> None:
        self.app = app
        self.seen = seen

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket") and not scope["path"].startswith("/_"):
            auth = next((v.decode("latin-1") for n, v in scope.get("headers", []) if n == b"authorization"), None)
            method = scope.get("method", "WS")
            if method != "OPTIONS":
                self.seen.append({"method": method, "path": scope["path"], "authorization": auth})
        await self.app(scope, receive, send)


def cors(app):
    return CORSMiddleware(
        app,
        allow_origins=["*"],
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=["*"],
        expose_headers=["WWW-Authenticate", "Mcp-Session-Id", "MCP-Protocol-Version"],
    )


def build(name: str, issuer: str, resource: str, verifier: IntrospectionVerifier) -> FastMCP:
    mcp = FastMCP(
        name=name,
        host="127.0.0.1",
        token_verifier=verifier,
        auth=AuthSettings(
            issuer_url=AnyHttpUrl(issuer),
            resource_server_url=AnyHttpUrl(resource),
            required_scopes=[SCOPE],
            validate_token_resource=True,
        ),
    )

    @mcp.tool(description="Echo the message back.")
    def echo(message: str) -> str:
        return f"Echo: {message}"

    @mcp.tool(description="Say who the server thinks is calling.")
    def whoami() -> str:
        return "test-user"

    return mcp


class Droppable:
    """ASGI wrapper around the SSE GET whose open streams `drop()` ends, as a restart would."""

    def __init__(self, app) -> None:
        self.app = app
        self.open: set[anyio.CancelScope] = set()
        self.drops = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] != "/sse":
            await self.app(scope, receive, send)
            return
        with anyio.CancelScope() as cs:
            self.open.add(cs)
            try:
                await self.app(scope, receive, send)
            finally:
                self.open.discard(cs)

    def drop(self) -> int:
        n = len(self.open)
        for cs in list(self.open):
            cs.cancel()
        self.drops += n
        return n


def ws_app(mcp: FastMCP, verifier: IntrospectionVerifier, resource: str) -> Starlette:
    """The FastMCP server over WebSocket, behind the same bearer middleware as the HTTP apps."""

    async def session(websocket):
        async with websocket_server(websocket.scope, websocket.receive, websocket.send) as (r, w):
            await mcp._mcp_server.run(r, w, mcp._mcp_server.create_initialization_options())

    async def endpoint(scope, receive, send):
        from starlette.websockets import WebSocket

        await session(WebSocket(scope, receive, send))

    protected = RequireAuthMiddleware(endpoint, [SCOPE], build_resource_metadata_url(AnyHttpUrl(resource)))
    return Starlette(
        routes=[WebSocketRoute("/ws", protected)]
        + create_protected_resource_routes(AnyHttpUrl(resource), [AnyHttpUrl(mcp.settings.auth.issuer_url)], [SCOPE]),
        middleware=[
            Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier)),
            Middleware(AuthContextMiddleware),
        ],
    )


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--as", dest="issuer", required=True, help="the authorization server's issuer URL")
    args = ap.parse_args()
    issuer = args.issuer.rstrip("/")
    verifier = IntrospectionVerifier(f"{issuer}/introspect")

    sse_port, http_port, ws_port = free_port(), free_port(), free_port()
    seen = {"sse": [], "mcp": [], "ws": []}

    sse_mcp = build("skiff-oauth-legacy-sse", issuer, f"http://127.0.0.1:{sse_port}/", verifier)
    droppable = Droppable(sse_mcp.sse_app())
    http_mcp = build("skiff-oauth-legacy-http", issuer, f"http://127.0.0.1:{http_port}/mcp", verifier)
    ws_mcp = build("skiff-oauth-legacy-ws", issuer, f"http://127.0.0.1:{ws_port}/ws", verifier)

    def control(kind: str, app):
        async def state(_: Request) -> Response:
            return JSONResponse({"seen": seen[kind], "drops": droppable.drops})

        async def drop(_: Request) -> Response:
            return JSONResponse({"dropped": droppable.drop()})

        async def refuse(_: Request) -> Response:
            verifier.refuse = True
            return JSONResponse({"ok": True})

        routes = [
            Route("/_state", state, methods=["GET"]),
            Route("/_drop", drop, methods=["POST"]),
            Route("/_refuse", refuse, methods=["POST"]),
        ]
        return Starlette(routes=routes), app

    def with_control(kind: str, app):
        ctl, inner = control(kind, app)

        async def asgi(scope, receive, send):
            if scope["type"] == "http" and scope["path"] in ("/_state", "/_drop", "/_refuse"):
                await ctl(scope, receive, send)
            else:
                await inner(scope, receive, send)

        return cors(Recorder(asgi, seen[kind]))

    apps = (
        (with_control("sse", droppable), sse_port),
        (with_control("mcp", http_mcp.streamable_http_app()), http_port),
        (with_control("ws", ws_app(ws_mcp, verifier, f"http://127.0.0.1:{ws_port}/ws")), ws_port),
    )
    servers = [
        uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
        for app, port in apps
    ]
    tasks = [asyncio.create_task(s.serve()) for s in servers]
    while not all(s.started for s in servers):
        if any(t.done() for t in tasks):
            for t in tasks:
                if t.done() and t.exception():
                    raise t.exception()
            sys.exit(1)
        await asyncio.sleep(0.05)
    print(
        json.dumps(
            {
                "sse": f"http://127.0.0.1:{sse_port}/sse",
                "mcp": f"http://127.0.0.1:{http_port}/mcp",
                "ws": f"ws://127.0.0.1:{ws_port}/ws",
            }
        ),
        flush=True,
    )
    await asyncio.gather(*tasks)


if __name__ == "__main__":
    asyncio.run(main())
