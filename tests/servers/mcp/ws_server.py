"""WebSocket MCP server for Skiff's tests, built on the Python `mcp` SDK 1.x (`mcp[ws]<2`).

Why it exists: SDK 2.x dropped the WebSocket transport, and Skiff's `ws://` transport needs a
real server to talk to. Subprotocol `mcp`, one JSON-RPC message per text frame, legacy
`initialize` handshake (SDK 1.30 negotiates up to 2025-11-25). Each WebSocket connection is
its own session; nothing survives a restart.

It listens on 127.0.0.1 only (endpoint ws://127.0.0.1:PORT/ws, also at /) and prints the bound
port as its first stdout line. Run with the venv from scripts/setup-mcp.sh:
    "$SKIFF_MCP_PY1" tests/servers/mcp/ws_server.py [--port 0] [--pidfile F]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import socket
import struct
import sys
import warnings
import zlib

import uvicorn
from mcp.server.fastmcp import Context, FastMCP, Image
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute

with warnings.catch_warnings():
    # Deprecated in 1.x because 2.x removes it; it is exactly what this server is for.
    warnings.simplefilter("ignore", DeprecationWarning)
    from mcp.server.websocket import websocket_server

log = logging.getLogger("ws_server")

# A browser sends its page origin on the WebSocket handshake; accept loopback pages only.
LOOPBACK = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)


def tiny_png(width: int = 2, height: int = 2, rgb: tuple[int, int, int] = (0, 0, 255)) -> bytes:
    """A valid PNG built in code, so the image tool needs no binary file in the repo."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def build_server() -> FastMCP:
    mcp = FastMCP(name="skiff-ws-test-server", instructions="WebSocket test server for Skiff.")

    @mcp.tool(description="Echo the message back.")
    def echo(message: str) -> str:
        return f"Echo: {message}"

    @mcp.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool(description="Sleep `seconds` in `steps` steps, reporting progress after each.")
    async def slow(ctx: Context, seconds: float = 2.0, steps: int = 4) -> str:
        for i in range(1, steps + 1):
            await asyncio.sleep(seconds / steps)
            await ctx.report_progress(i, steps, f"step {i} of {steps}")
        return f"slow done after {seconds} s in {steps} steps"

    @mcp.tool(description="Return a tiny blue PNG image.")
    def image() -> Image:
        return Image(data=tiny_png(), format="png")

    @mcp.tool(description="Always fails: the result has isError true.")
    def fail(reason: str = "requested failure") -> str:
        raise ToolError(f"fail tool: {reason}")

    @mcp.resource("skiff://readme", name="readme", description="A fixed text resource.", mime_type="text/plain")
    def readme() -> str:
        return "Skiff WebSocket test server: a fixed resource."

    @mcp.prompt(description="Ask for a review of some code.")
    def review(code: str) -> str:
        return f"Please review this code:\n\n{code}"

    return mcp


def build_app(mcp: FastMCP, security: TransportSecuritySettings | None) -> Starlette:
    lowlevel = mcp._mcp_server  # FastMCP has no public WebSocket runner in 1.x

    async def handle(websocket) -> None:
        try:
            async with websocket_server(websocket.scope, websocket.receive, websocket.send, security) as (r, w):
                await lowlevel.run(r, w, lowlevel.create_initialization_options())
        except ValueError as exc:  # handshake rejected by the Host/Origin check
            log.warning("WebSocket handshake rejected: %s", exc)

    return Starlette(routes=[WebSocketRoute("/ws", handle), WebSocketRoute("/", handle)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=int(os.environ.get("PORT", "0")))
    ap.add_argument("--pidfile", default=os.environ.get("SKIFF_MCP_PIDFILE"))
    ap.add_argument("--any-origin", action="store_true", help="skip the loopback Host/Origin check")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    app = build_app(build_server(), None if args.any_origin else LOOPBACK)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    print(sock.getsockname()[1], flush=True)
    if args.pidfile:
        with open(args.pidfile, "w") as f:
            f.write(f"{os.getpid()}\n")

    config = uvicorn.Config(app, log_level="warning", ws="websockets-sansio", lifespan="off")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    sys.exit(main())
