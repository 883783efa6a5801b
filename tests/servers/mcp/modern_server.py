"""Dual-era Streamable HTTP MCP server for Skiff's tests, built on the Python `mcp` SDK 2.x.

Why it exists: it is the real "modern" (2026-07-28) server the client's era detection is
proven against. SDK 2.3.0 routes by the `MCP-Protocol-Version` header: a request whose
header names 2026-07-28 (or an unknown version) is served statelessly (server/discover,
per-request `_meta`, UnsupportedProtocolVersionError -32022); a request without it, or
with a handshake-era version, gets the legacy `initialize` + `Mcp-Session-Id` session.
Sessions are in memory, so a restart answers 404 to the old session id.

It listens on 127.0.0.1 only and prints the bound port as its first stdout line.
Run with the venv from scripts/setup-mcp.sh:
    "$SKIFF_MCP_PY2" tests/servers/mcp/modern_server.py [--port 0] [--pidfile F] [--page-size 3]
        [--json-response] [--cors full|none|no-expose|no-allow-headers|no-param-headers]
        [--no-event-store] [--retry-ms N] [--param-tool] [--bump-tool] [--tick-ms N]

Resources (issue 13's browser, cache and subscriptions are tested against them):
    skiff://readme (text), skiff://config.json (JSON), skiff://logo.png (a PNG blob),
    skiff://counter (text that --bump-tool's `bump` or --tick-ms changes; subscribable in both
    eras: legacy `resources/subscribe`, or a 2026-07-28 `subscriptions/listen` filter's
    `resourceSubscriptions`),
    template skiff://greeting/{name} with completion/complete suggestions for `name`.
Prompts: review(code), summarize(topic, style) with suggestions for `style`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import socket
import struct
import sys
import zlib

import uuid

from typing import Annotated

import uvicorn
from pydantic import Field
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve
from pydantic import BaseModel
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
import mcp_types as types
from mcp_types import Completion, ListToolsResult, PromptReference, ResourceTemplateReference
from starlette.middleware.cors import CORSMiddleware

# The browser must be allowed to send these, and to read Mcp-Session-Id back.
# Mcp-Method / Mcp-Name / Mcp-Param-* are the 2026-07-28 mirrored headers; "*" reflects
# whatever the preflight asks for, which covers Mcp-Param-{Name}.
CORS_ALLOW_HEADERS = ["*"]
CORS_EXPOSE_HEADERS = ["Mcp-Session-Id", "MCP-Protocol-Version"]
# What a server that predates SEP-2243 might allow: everything Skiff sends but Mcp-Param-*.
NO_PARAM_HEADERS = ["Content-Type", "Accept", "Authorization", "Mcp-Method", "Mcp-Name",
                    "MCP-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID"]


def tiny_png(width: int = 2, height: int = 2, rgb: tuple[int, int, int] = (255, 0, 0)) -> bytes:
    """A valid PNG built in code, so the image tool needs no binary file in the repo."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


class InMemoryEventStore(EventStore):
    """Keeps the last `limit` SSE events so a legacy-era client can resume with Last-Event-ID.

    Also needed for correctness: SDK 2.3.0 answers a GET carrying Last-Event-ID with a bare
    500 (no CORS headers) when no event store is configured.
    """

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self.events: list[tuple[str, str, object]] = []  # (event_id, stream_id, message or None)

    async def store_event(self, stream_id, message):  # type: ignore[override]
        event_id = uuid.uuid4().hex
        self.events.append((event_id, stream_id, message))
        del self.events[: -self.limit]
        return event_id

    async def replay_events_after(self, last_event_id, send_callback: EventCallback):  # type: ignore[override]
        for i, (event_id, stream_id, _) in enumerate(self.events):
            if event_id == last_event_id:
                for later_id, later_stream, message in self.events[i + 1 :]:
                    if later_stream == stream_id and message is not None:
                        await send_callback(EventMessage(message, later_id))
                return stream_id
        return None


class PagedMCPServer(MCPServer):
    """MCPServer whose tools/list is paginated, so clients must follow nextCursor."""

    page_size: int = 3

    async def _handle_list_tools(self, ctx, params):  # type: ignore[override]
        tools = await self.list_tools()
        start = 0
        cursor = getattr(params, "cursor", None) if params is not None else None
        if cursor:
            try:
                start = int(base64.urlsafe_b64decode(cursor.encode()).decode().removeprefix("offset:"))
            except (ValueError, UnicodeDecodeError):
                from mcp.shared.exceptions import MCPError

                raise MCPError(code=-32602, message=f"Invalid cursor: {cursor}")
        end = start + self.page_size
        next_cursor = base64.urlsafe_b64encode(f"offset:{end}".encode()).decode() if end < len(tools) else None
        return ListToolsResult(tools=tools[start:end], next_cursor=next_cursor)


def add_param_tool(mcp: PagedMCPServer) -> None:
    """`route`, whose `region` argument is mirrored into `Mcp-Param-Region` (SEP-2243): the
    SDK refuses a modern `tools/call` whose header is missing or disagrees with the body."""

    @mcp.tool(description="Route a message to a region (its region travels in Mcp-Param-Region).")
    def route(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], message: str = "") -> str:
        return f"Routed to {region}: {message}"


def build_server(page_size: int) -> PagedMCPServer:
    mcp = PagedMCPServer(
        name="skiff-modern-test-server",
        title="Skiff modern test server",
        version="1.0.0",
        instructions="Test server for Skiff: echo, add, slow (progress), image, fail.",
        # Our own bus, so --tick-ms (outside any request) reaches the listen streams too.
        subscriptions=BUS,
    )
    mcp.page_size = page_size

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

    @mcp.tool(description="Return a tiny red PNG image.")
    def image() -> Image:
        return Image(data=tiny_png(), format="png")

    @mcp.tool(description="Always fails: the result has isError true.")
    def fail(reason: str = "requested failure") -> str:
        raise ToolError(f"fail tool: {reason}")

    @mcp.resource("skiff://readme", name="readme", description="A fixed text resource.", mime_type="text/plain")
    def readme() -> str:
        return "Skiff modern test server: a fixed resource."

    @mcp.resource("skiff://greeting/{name}", name="greeting", description="A greeting for {name}.")
    def greeting(name: str) -> str:
        return f"Hello, {name}!"

    @mcp.resource("skiff://config.json", name="config.json", description="Settings as JSON.", mime_type="application/json")
    def config() -> str:
        return '{"theme":"dark","retries":3,"regions":["eu","us"]}'

    @mcp.resource("skiff://logo.png", name="logo.png", description="A tiny red square.", mime_type="image/png")
    def logo() -> bytes:
        return tiny_png(4, 4)

    @mcp.resource("skiff://counter", name="counter", description="Counts `bump` calls; subscribe to follow it.", mime_type="text/plain")
    def counter() -> str:
        return f"count: {COUNTER['n']}"

    @mcp.completion()
    async def complete(ref, argument, context):
        if isinstance(ref, ResourceTemplateReference) and argument.name == "name":
            names = ["Ada", "Alan", "Grace", "Linus", "Margaret"]
            return Completion(values=[n for n in names if n.lower().startswith(argument.value.lower())])
        if isinstance(ref, PromptReference) and argument.name == "style":
            styles = ["brief", "bullet points", "detailed"]
            return Completion(values=[s for s in styles if s.startswith(argument.value)])
        return None

    @mcp.prompt(description="Ask for a review of some code.")
    def review(code: str) -> str:
        return f"Please review this code:\n\n{code}"

    @mcp.prompt(description="Summarize a topic in a style.")
    def summarize(topic: str, style: str = "brief") -> str:
        return f"Summarize {topic} ({style})."

    add_subscriptions(mcp)
    return mcp


class Booking(BaseModel):
    """What `book` asks the user (an elicitation form)."""

    name: str
    guests: int = 2


def ask_booking(room: str) -> Elicit[Booking]:
    return Elicit(f"Who is booking {room}?", Booking)


def ask_roots() -> ListRoots:
    return ListRoots()


def add_ask_tools(mcp: PagedMCPServer) -> None:
    """`book` asks the user through the SDK's resolvers: at 2026-07-28 the question travels as an
    `input_required` result and the answer comes back on the retry (multi round-trip requests);
    `postcard` is a prompt whose message is an image."""

    @mcp.tool(description="Book a room: asks who books it, and reads the client's roots.")
    def book(
        room: str,
        booking: Annotated[Booking, Resolve(ask_booking)],
        roots: Annotated[types.ListRootsResult, Resolve(ask_roots)],
    ) -> str:
        where = ", ".join(str(r.uri) for r in roots.roots) or "no roots"
        return f"Booked {room} for {booking.name} ({booking.guests} guests); roots: {where}"

    @mcp.prompt(description="A postcard: a picture and a line.")
    def postcard() -> list[UserMessage]:
        return [
            UserMessage(content=Image(data=tiny_png(3, 3, (0, 128, 255)), format="png")),
            UserMessage(content="Describe this postcard."),
        ]


def add_bump_tool(mcp: PagedMCPServer) -> None:
    """--bump-tool: `bump` changes skiff://counter on demand (a flag, so the default server keeps
    the five tools other suites count)."""

    @mcp.tool(description="Add one to skiff://counter and tell its subscribers.")
    async def bump() -> str:
        COUNTER["n"] += 1
        await notify_counter()
        return f"count: {COUNTER['n']}"


# skiff://counter's value, and the legacy-era sessions subscribed to it (resources/subscribe).
COUNTER = {"n": 0}
SUBSCRIBERS: dict[str, set] = {}
# The 2026-07-28 era's fan-out: each `subscriptions/listen` stream whose filter lists
# skiff://counter in `resourceSubscriptions` gets `notifications/resources/updated` from it.
BUS = InMemorySubscriptionBus()


async def notify_counter() -> None:
    """Tells every legacy session subscribed to skiff://counter, and modern listeners."""
    for session in list(SUBSCRIBERS.get("skiff://counter", ())):
        try:
            await session.send_resource_updated("skiff://counter")
        except Exception:  # a closed session: forget it
            SUBSCRIBERS["skiff://counter"].discard(session)
    await BUS.publish(ResourceUpdated(uri="skiff://counter"))


def add_subscriptions(mcp: PagedMCPServer) -> None:
    """`resources/subscribe` and `resources/unsubscribe` for the legacy era (the modern era has
    `subscriptions/listen`, which the SDK serves itself)."""

    async def subscribe(ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
        SUBSCRIBERS.setdefault(str(params.uri), set()).add(ctx.session)
        return types.EmptyResult()

    async def unsubscribe(ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        SUBSCRIBERS.get(str(params.uri), set()).discard(ctx.session)
        return types.EmptyResult()

    mcp._lowlevel_server.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
    mcp._lowlevel_server.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe)


async def tick(every_ms: int) -> None:
    """--tick-ms: skiff://counter changes on its own, as a live resource would."""
    while True:
        await asyncio.sleep(every_ms / 1000)
        COUNTER["n"] += 1
        await notify_counter()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=int(os.environ.get("PORT", "0")))
    ap.add_argument("--pidfile", default=os.environ.get("SKIFF_MCP_PIDFILE"))
    ap.add_argument("--page-size", type=int, default=3, help="tools per tools/list page")
    ap.add_argument("--json-response", action="store_true", help="answer legacy requests with JSON, not SSE")
    ap.add_argument(
        "--cors",
        choices=["full", "none", "no-expose", "no-allow-headers", "no-param-headers"],
        default="full",
        help="CORS behaviour, to reproduce what a browser client meets in the wild: "
        "full (default); none (no CORS headers at all); no-expose (Mcp-Session-Id not exposed); "
        "no-allow-headers (preflight allows only Content-Type, so mcp-* request headers are refused); "
        "no-param-headers (every header Skiff sends except Mcp-Param-*)",
    )
    ap.add_argument("--param-tool", action="store_true", help="also offer `route`, which declares x-mcp-header")
    ap.add_argument("--no-event-store", action="store_true", help="legacy era: no SSE event ids, no resume")
    ap.add_argument("--retry-ms", type=int, default=None, help="legacy era: SSE `retry:` sent with priming events")
    ap.add_argument("--bump-tool", action="store_true", help="also offer `bump`, which changes skiff://counter")
    ap.add_argument("--ask-tools", action="store_true", help="also offer `book` (input_required) and the `postcard` prompt")
    ap.add_argument("--tick-ms", type=int, default=0, help="skiff://counter changes every N ms (0: only on `bump`)")
    args = ap.parse_args()

    mcp = build_server(args.page_size)
    if args.param_tool:
        add_param_tool(mcp)
    if args.bump_tool:
        add_bump_tool(mcp)
    if args.ask_tools:
        add_ask_tools(mcp)
    app = mcp.streamable_http_app(
        json_response=args.json_response,
        event_store=None if args.no_event_store else InMemoryEventStore(),
        retry_interval=args.retry_ms,
        host="127.0.0.1",
    )
    if args.cors != "none":
        app.add_middleware(
            CORSMiddleware,
            allow_origins=["*"],
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            allow_headers=(
                ["Content-Type"]
                if args.cors == "no-allow-headers"
                else NO_PARAM_HEADERS
                if args.cors == "no-param-headers"
                else CORS_ALLOW_HEADERS
            ),
            expose_headers=[] if args.cors == "no-expose" else CORS_EXPOSE_HEADERS,
        )

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    print(sock.getsockname()[1], flush=True)
    if args.pidfile:
        with open(args.pidfile, "w") as f:
            f.write(f"{os.getpid()}\n")

    config = uvicorn.Config(app, log_level="warning", lifespan="on")

    async def serve() -> None:
        if args.tick_ms > 0:
            ticker = asyncio.create_task(tick(args.tick_ms))  # noqa: F841 (lives as long as the server)
        await uvicorn.Server(config).serve(sockets=[sock])

    asyncio.run(serve())


if __name__ == "__main__":
    sys.exit(main())
