#!/usr/bin/env python3
"""Anthropic's Messages API as captured, replayed to the page.

Why it exists: the provider seam lets the settings pick Anthropic's wire format, and only a
browser can show that the runner really went through it (the request the page sends, the
stream it decodes, the error it reads). This server answers `POST /v1/messages` with the
documented example stream in tests/fixtures/anthropic/docs_basic_text.sse, byte for byte,
in small chunks, and a wrong `x-api-key` with the API's documented 401 body. It records what
it received so a test can check the request the page built.

What it must never do: bind anything but 127.0.0.1, reach the network, or need anything
beyond the Python standard library.

Usage:
    python3 tests/servers/anthropic_replay.py --port 0 --api-key K

The first line on stdout is the port. `GET /__control/requests` lists the requests received
({method, path, headers, body}); `POST /__control/reset` forgets them.
"""

import argparse
import json
import pathlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "anthropic"
STREAM = (FIXTURES / "docs_basic_text.sse").read_bytes()
CHUNK_BYTES = 16
# https://platform.claude.com/docs/en/api/errors
UNAUTHORIZED = {
    "type": "error",
    "error": {"type": "authentication_error", "message": "invalid x-api-key"},
}


class State:
    def __init__(self, api_key: str) -> None:
        self.api_key = api_key
        self.lock = threading.Lock()
        self.requests: list = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: State

    def log_message(self, *args) -> None:  # quiet: tests read /__control/requests
        pass

    def cors(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        self.send_header(
            "Access-Control-Allow-Headers",
            "Authorization, Content-Type, X-Api-Key, Anthropic-Version, "
            "Anthropic-Dangerous-Direct-Browser-Access",
        )

    def send_json(self, status: int, value) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        self.cors()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_OPTIONS(self) -> None:  # noqa: N802 (stdlib name)
        self.send_response(204)
        self.cors()
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/__control/requests":
            with self.state.lock:
                self.send_json(200, list(self.state.requests))
        # The page asks `/v1/models?limit=1000` (core::anthropic::models_request).
        elif self.path.split("?")[0] == "/v1/models":
            self.send_json(200, {"data": [{"type": "model", "id": "claude-test"}]})
        else:
            self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "Not found"}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace")
        if self.path == "/__control/reset":
            with self.state.lock:
                self.state.requests.clear()
            self.send_json(200, {})
            return
        with self.state.lock:
            self.state.requests.append({
                "method": "POST",
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": raw,
            })
        if self.path != "/v1/messages":
            self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": "Not found"}})
            return
        if self.headers.get("x-api-key") != self.state.api_key:
            self.send_json(401, UNAUTHORIZED)
            return
        self.send_response(200)
        self.cors()
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i in range(0, len(STREAM), CHUNK_BYTES):
            piece = STREAM[i:i + CHUNK_BYTES]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
            time.sleep(0.002)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--api-key", default="sk-ant-test")
    args = ap.parse_args()
    Handler.state = State(args.api_key)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
