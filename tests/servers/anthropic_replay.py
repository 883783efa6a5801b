#!/usr/bin/env python3
"""Anthropic's Messages API as captured, replayed to the page, or scripted per request.

Why it exists: the provider seam lets the settings pick Anthropic's wire format, and only a
browser can show that the runner really went through it (the request the page sends, the
stream it decodes, the error it reads). Without a script this server answers
`POST /v1/messages` with the documented example stream in
tests/fixtures/anthropic/docs_basic_text.sse, byte for byte, in small chunks, and a wrong
`x-api-key` with the API's documented 401 body. It records what it received so a test can
check the request the page built.

A scripted step is written in the documented wire format of the streaming guide
(https://platform.claude.com/docs/en/build-with-claude/streaming) as the example streams in
tests/fixtures/anthropic show it: `event: <type>` and `data: <compact JSON>` lines and a blank
line per event; `message_start` (with `usage.input_tokens`), a `ping`, then per content block
`content_block_start` / `content_block_delta`s / `content_block_stop` (a `thinking` block's
text as `thinking_delta`s then its `signature_delta`; a `redacted_thinking` block whole in its
start; a `text` block's `text_delta`s; a `tool_use` block opened with `input: {}` whose input
arrives as `input_json_delta` fragments, the first empty), `message_delta` (stop reason,
`usage.output_tokens`), `message_stop`. An error after the stream began is one
`event: error` with `{"type":"error","error":{"type","message"}}` and the end of the body.

What it must never do: bind anything but 127.0.0.1, reach the network, or need anything
beyond the Python standard library.

Usage:
    python3 tests/servers/anthropic_replay.py --port 0 --api-key K

The first line on stdout is the port. `GET /__control/requests` lists the requests received
({method, path, headers, body}); `POST /__control/reset` forgets them and the script.
`POST /__control/script` queues steps, a JSON list; each model request consumes one. Keys:
`thinking` (thinking text), `signature` (the thinking block's signature, sent in two
`signature_delta`s as it may be), `redacted` (the `data` of a `redacted_thinking` block after
the thinking), `text`, `calls` (list of {"name", "input", "id"?}), `chunk_chars` (text per
delta, default 8), `stop_reason` (default `tool_use` after calls, else `end_turn`), `status`
+ `error` (answer that HTTP status with `{"type":"error","error":error}` before any stream),
`stream_error_after_chars` (after that much answer text, one `error` event with `error`, then
the end), `cut_after_chars` (after that much answer text the connection drops without the
chunked terminator), `delay_ms` (between events, default 2). Unknown keys are refused with
400 so a typo fails loudly.
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


STEP_KEYS = {
    "thinking", "signature", "redacted", "text", "calls", "chunk_chars", "stop_reason",
    "status", "error", "stream_error_after_chars", "cut_after_chars", "delay_ms",
}
OVERLOADED = {"type": "overloaded_error", "message": "Overloaded"}


def dumps(value) -> str:
    """Compact JSON, as the documented tool-use stream writes it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Cut(Exception):
    """The step asked for the connection to drop mid-answer."""


class State:
    def __init__(self, api_key: str) -> None:
        self.api_key = api_key
        self.lock = threading.Lock()
        self.requests: list = []
        self.script: list = []


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
                self.state.script.clear()
            self.send_json(200, {})
            return
        if self.path == "/__control/script":
            steps = json.loads(raw or "[]")
            bad = [k for s in steps for k in s if k not in STEP_KEYS]
            if bad:
                self.send_json(400, {"error": f"unknown step keys: {bad}"})
                return
            with self.state.lock:
                self.state.script = list(steps)
            self.send_json(200, {"queued": len(steps)})
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
        with self.state.lock:
            step = self.state.script.pop(0) if self.state.script else None
        if step is not None and "status" in step:
            self.send_json(int(step["status"]), {"type": "error", "error": step.get("error", OVERLOADED)})
            return
        self.send_response(200)
        self.cors()
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if step is None:
            for i in range(0, len(STREAM), CHUNK_BYTES):
                self.chunk(STREAM[i:i + CHUNK_BYTES])
                time.sleep(0.002)
        else:
            try:
                model = json.loads(raw).get("model", "") if raw else ""
            except ValueError:
                model = ""
            try:
                self.stream(step, model)
            except Cut:
                # Drop the connection without the chunked terminator: the browser's reader throws.
                self.close_connection = True
                return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def chunk(self, piece: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.flush()

    def stream(self, step: dict, model: str) -> None:
        delay = step.get("delay_ms", 2) / 1000
        size = max(1, int(step.get("chunk_chars", 8)))
        output = {"tokens": 0, "text": 0}

        def event(value: dict) -> None:
            self.chunk(("event: %s\ndata: %s\n\n" % (value["type"], dumps(value))).encode())
            time.sleep(delay)

        def pieces(text: str):
            for i in range(0, len(text), size):
                output["tokens"] += 1
                yield text[i:i + size]

        event({"type": "message_start", "message": {
            "id": "msg_skiffreplay01", "type": "message", "role": "assistant", "content": [],
            "model": model, "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 1}}})
        event({"type": "ping"})
        index = 0
        if step.get("thinking") is not None or step.get("signature"):
            event({"type": "content_block_start", "index": index,
                   "content_block": {"type": "thinking", "thinking": ""}})
            for piece in pieces(step.get("thinking", "")):
                event({"type": "content_block_delta", "index": index,
                       "delta": {"type": "thinking_delta", "thinking": piece}})
            signature = step.get("signature", "")
            if signature:
                half = len(signature) // 2
                for part in (signature[:half], signature[half:]):
                    event({"type": "content_block_delta", "index": index,
                           "delta": {"type": "signature_delta", "signature": part}})
            event({"type": "content_block_stop", "index": index})
            index += 1
        if step.get("redacted"):
            event({"type": "content_block_start", "index": index,
                   "content_block": {"type": "redacted_thinking", "data": step["redacted"]}})
            event({"type": "content_block_stop", "index": index})
            index += 1
        text = step.get("text", "")
        error_at = step.get("stream_error_after_chars")
        cut_at = step.get("cut_after_chars")
        if text:
            event({"type": "content_block_start", "index": index,
                   "content_block": {"type": "text", "text": ""}})
            for piece in pieces(text):
                event({"type": "content_block_delta", "index": index,
                       "delta": {"type": "text_delta", "text": piece}})
                output["text"] += len(piece)
                if error_at is not None and output["text"] >= error_at:
                    event({"type": "error", "error": step.get("error", OVERLOADED)})
                    return
                if cut_at is not None and output["text"] >= cut_at:
                    # Let the page read what was sent: a browser discards the chunks still
                    # queued in a body stream that errors.
                    time.sleep(0.3)
                    raise Cut()
            event({"type": "content_block_stop", "index": index})
            index += 1
        calls = step.get("calls", [])
        for n, call in enumerate(calls):
            event({"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": call.get("id", "toolu_skiffreplay%02d" % n),
                "name": call["name"], "input": {}}})
            for piece in [""] + list(pieces(dumps(call.get("input", {})))):
                event({"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": piece}})
            event({"type": "content_block_stop", "index": index})
            index += 1
        stop = step.get("stop_reason", "tool_use" if calls else "end_turn")
        event({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
               "usage": {"output_tokens": output["tokens"]}})
        event({"type": "message_stop"})


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
