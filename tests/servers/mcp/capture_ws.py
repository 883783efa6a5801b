"""Drives ws_server.py (Python mcp 1.x, WebSocket) with a raw WebSocket and saves what went over it.

Output in tests/fixtures/mcp/captured/ws-python/:
  handshake.txt        the HTTP upgrade request and the server's 101 response headers
  conversation.frames  one frame a line: `> ` + text frame sent, `< ` + text frame received
  no-subprotocol.txt   what happens when the client offers no `mcp` subprotocol
  bad-origin.txt       the handshake with a non-loopback Origin
  restart.frames       a frame sent on a connection whose server was killed, then a fresh session
Run: "$SKIFF_MCP_PY1" tests/servers/mcp/capture_ws.py   (after `source scripts/setup-mcp.sh`)
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus, NegotiationError

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
OUT = ROOT / "tests" / "fixtures" / "mcp" / "captured" / "ws-python"
ORIGIN = "http://127.0.0.1:8080"


def start(port: int = 0) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "ws_server.py"), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=open("/tmp/skiff-cap-ws.log", "a"),
        text=True,
    )
    line = proc.stdout.readline().strip()
    return proc, int(line)


def headers_text(req_or_resp) -> str:
    return "".join(f"{k}: {v}\n" for k, v in req_or_resp.headers.raw_items())


class Recorder:
    def __init__(self, ws, lines: list[str]):
        self.ws, self.lines = ws, lines

    async def send(self, obj: dict) -> None:
        text = json.dumps(obj, separators=(",", ":"))
        self.lines.append("> " + text)
        await self.ws.send(text)

    async def recv_until(self, want_id, timeout: float = 10.0) -> list[dict]:
        """Receive frames until the response with id `want_id` (None: one frame)."""
        got = []
        while True:
            text = await asyncio.wait_for(self.ws.recv(), timeout)
            self.lines.append("< " + text)
            msg = json.loads(text)
            got.append(msg)
            if want_id is None or msg.get("id") == want_id and ("result" in msg or "error" in msg):
                return got


async def conversation(port: int) -> None:
    lines: list[str] = []
    uri = f"ws://127.0.0.1:{port}/ws"
    async with websockets.connect(uri, subprotocols=["mcp"], origin=ORIGIN) as ws:
        hs = f"GET /ws HTTP/1.1\n{headers_text(ws.request)}\nHTTP/1.1 {ws.response.status_code} {ws.response.reason_phrase}\n{headers_text(ws.response)}"
        (OUT / "handshake.txt").write_text(hs + f"negotiated subprotocol: {ws.subprotocol}\n")
        r = Recorder(ws, lines)
        await r.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "skiff-capture", "version": "0.0.0"}}})
        await r.recv_until(0)
        await r.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        await r.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
        await r.recv_until(1)
        await r.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hello skiff"}}})
        await r.recv_until(2)
        await r.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "slow", "arguments": {"seconds": 1, "steps": 2}, "_meta": {"progressToken": "tok-3"}}})
        await r.recv_until(3)
        await r.send({"jsonrpc": "2.0", "id": 4, "method": "ping"})
        await r.recv_until(4)
        await r.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "image", "arguments": {}}})
        await r.recv_until(5)
        await r.send({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "fail", "arguments": {"reason": "captured"}}})
        await r.recv_until(6)
        # cancel a slow call: no response for id 7 is expected afterwards
        await r.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "slow", "arguments": {"seconds": 2, "steps": 4}, "_meta": {"progressToken": "tok-7"}}})
        await r.recv_until(None)
        await r.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "user pressed stop"}})
        await r.send({"jsonrpc": "2.0", "id": 8, "method": "ping"})
        await r.recv_until(8)
        await asyncio.sleep(2.5)  # would show a late id-7 response if cancellation were ignored
        await r.send({"jsonrpc": "2.0", "id": 9, "method": "server/discover", "params": {}})
        await r.recv_until(9)
        await r.send({"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {
            "protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": {"name": "skiff-capture", "version": "0.0.0"}}})
        await r.recv_until(10)
        lines.append("# client closes with code 1000")
    (OUT / "conversation.frames").write_text("\n".join(lines) + "\n")

    # the same server answering a first initialize that asks for a newer version
    lines = []
    async with websockets.connect(uri, subprotocols=["mcp"], origin=ORIGIN) as ws:
        r = Recorder(ws, lines)
        await r.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": {"name": "skiff-capture", "version": "0.0.0"}}})
        await r.recv_until(0)
    (OUT / "initialize-newer-version.frames").write_text("\n".join(lines) + "\n")


async def no_subprotocol(port: int) -> None:
    """The server always answers `Sec-WebSocket-Protocol: mcp`; a client that offered none must fail
    the handshake (RFC 6455 4.1), as browsers and the websockets library both do."""
    uri = f"ws://127.0.0.1:{port}/ws"
    try:
        async with websockets.connect(uri, origin=ORIGIN) as ws:
            text = f"client offered no subprotocol; handshake accepted, subprotocol={ws.subprotocol}\n"
    except NegotiationError as exc:
        text = f"client offered no subprotocol; the client library failed the handshake: NegotiationError: {exc}\n"
    (OUT / "no-subprotocol.txt").write_text(text)


async def bad_origin(port: int) -> None:
    uri = f"ws://127.0.0.1:{port}/ws"
    try:
        async with websockets.connect(uri, subprotocols=["mcp"], origin="http://evil.example"):
            text = "unexpectedly accepted\n"
    except InvalidStatus as exc:
        resp = exc.response
        text = f"Origin: http://evil.example\nHTTP/1.1 {resp.status_code} {resp.reason_phrase}\n{headers_text(resp)}\n{resp.body.decode(errors='replace')}\n"
    (OUT / "bad-origin.txt").write_text(text)


async def restart(proc: subprocess.Popen, port: int) -> subprocess.Popen:
    lines: list[str] = []
    uri = f"ws://127.0.0.1:{port}/ws"
    async with websockets.connect(uri, subprotocols=["mcp"], origin=ORIGIN) as ws:
        r = Recorder(ws, lines)
        await r.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "skiff-capture", "version": "0.0.0"}}})
        await r.recv_until(0)
        await r.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        await r.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow", "arguments": {"seconds": 5, "steps": 5}}})
        await asyncio.sleep(0.5)
        lines.append("# server process killed (SIGKILL) while call id 1 is in flight")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        try:
            await asyncio.wait_for(ws.recv(), 5)
        except ConnectionClosed as exc:
            lines.append(f"# connection closed: rcvd={exc.rcvd} sent={exc.sent}")
    new_proc, _ = start(port)
    async with websockets.connect(uri, subprotocols=["mcp"], origin=ORIGIN) as ws:
        lines.append("# server restarted on the same port; new connection, new session")
        r = Recorder(ws, lines)
        await r.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "skiff-capture", "version": "0.0.0"}}})
        await r.recv_until(0)
        await r.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        await r.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "after restart"}}})
        await r.recv_until(1)
    (OUT / "restart.frames").write_text("\n".join(lines) + "\n")
    return new_proc


async def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for f in OUT.iterdir():
        f.unlink()
    proc, port = start()
    print(f"ws_server.py on {port}", file=sys.stderr)
    try:
        await conversation(port)
        await no_subprotocol(port)
        await bad_origin(port)
        proc = await restart(proc, port)
    finally:
        proc.terminate()
        proc.wait()
    for f in sorted(OUT.iterdir()):
        print(f"captured {f.name} ({f.stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    os.chdir(ROOT)
    asyncio.run(main())
