#!/usr/bin/env python3
"""Google's Gemini API (`streamGenerateContent?alt=sse`) as recorded, scripted per request.

Why it exists: the provider seam lets the settings pick Gemini's wire format, and only a
browser can show that the runner really went through it: the request the page builds (key in
`x-goog-api-key` only, `systemInstruction`, `contents`, `functionDeclarations`,
`functionResponse` parts), the stream it decodes, the errors it reads. The wire follows the
recordings in tests/fixtures/gemini (see its README), byte for byte where it can:

* `GET /v1beta/models` answers a models.list page (two chat models and an embedding
  model), with the same key checks as generation.
* `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` answers 200 with
  `Content-Type: text/event-stream`, chunked; every event is `data: <JSON>\\r\\n\\r\\n`, the
  JSON written as Google writes it (`", "`-free: `{"candidates": [...],"usageMetadata": ...}`,
  i.e. separators `,` and `: `);
* each event is a GenerateContentResponse slice: `candidates[0].content.parts` (`text`,
  `thought: true` text, whole `functionCall`s), `usageMetadata` running totals,
  `modelVersion`, `responseId`; the last one carries `finishReason` (and, after calls, the
  recorded empty text part);
* errors are Google's `{"error": {"code", "message", "status", "details"?}}`: a missing key
  is 403 PERMISSION_DENIED, a wrong key 400 INVALID_ARGUMENT with ErrorInfo
  `API_KEY_INVALID` (tests/fixtures/gemini/error_api_key_invalid.json), an error after the
  stream began one `data: {"error": {...}}` event and the end.

What it must never do: bind anything but 127.0.0.1, reach the network, or need anything
beyond the Python standard library.

Usage:
    python3 tests/servers/gemini_replay.py --port 0 [--api-key K]

The first line on stdout is the port. Control API (no key needed):

* `POST /__control/script` - JSON list of steps; each model request consumes one. Keys:
  `fixture` (a file in tests/fixtures/gemini replayed byte for byte; the other keys are then
  ignored), `thought` (thought-summary text sent first, `thought: true`), `text` (answer text),
  `calls` (list of {"name", "args", "id"?}, sent whole after the text, one event each, the
  first with a `thoughtSignature` as Gemini 3 sends it), `chunk_chars` (text per event,
  default 8), `finish` (default STOP), `status` + `error` (answer with that HTTP status and
  `{"error": error}` before any stream), `stream_error_after_chars` (after that much text,
  one `data: {"error": ...}` event with `error`, then the end), `cut_after_chars` (after
  that much text the connection is dropped without the chunked terminator), `no_finish`
  (the body ends cleanly but without a finish reason), `prompt_block` (a promptFeedback
  blockReason and no candidates), `delay_ms` (between events, default 2). Unknown keys are
  refused with 400 so a typo fails loudly. Without a script the answer is "Hello from
  Gemini!".
* `GET /__control/requests` - the model requests received: {method, path, query, headers,
  body (parsed JSON)}.
* `POST /__control/reset` - forget the script and the requests.
"""

import argparse
import json
import pathlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "gemini"
KEY_INVALID = json.loads((FIXTURES / "error_api_key_invalid.json").read_text())
# What Google answers a request without any key.
NO_KEY = {
    "error": {
        "code": 403,
        "message": "Method doesn't allow unregistered callers (callers without established "
        "identity). Please use API Key or other form of API consumer identity to call this API.",
        "status": "PERMISSION_DENIED",
    }
}
STEP_KEYS = {
    "fixture", "thought", "text", "calls", "chunk_chars", "finish", "status", "error",
    "stream_error_after_chars", "cut_after_chars", "no_finish", "prompt_block", "delay_ms",
}
# A recorded Gemini 3 signature (adk_gemini3_parallel_calls.sse), sent on the first call.
SIGNATURE = "EukBCuYBAb4+9vt/vxxSqnu1O2VmsspptIIuZ5UI1XKt5qIGVw+l6Wp8gHTOskqE5v3VzNm9TnfsQQoZiWn9SnbjHsEB8zT4ABquQukeRIimRFRDehFQR0+Q8d1Ycq/8nu9h9pPtATCiVhb7L705JKNsMPhSk/k8i3XDw/jhFa11w9YWuCP2/nsul7SZP1/AfDJRroE/3/J5U8vUXnBFgmh9ZOAqEpTQvro03WSEEXy7XL5E5lMuPBEu/9CcH+N1OX32GeV0JQgZFA1vnh6DYJRwmWAbqEYqBZj8ruO7cY6FRIKagh+o7gVb+dk="


def dumps(value) -> str:
    """JSON the way Gemini's streaming endpoint writes it."""
    return json.dumps(value, separators=(",", ": "), ensure_ascii=False)


class State:
    def __init__(self, api_key: str) -> None:
        self.api_key = api_key
        self.lock = threading.Lock()
        self.requests: list = []
        self.script: list = []


class Cut(Exception):
    """The step asked for the connection to drop mid-answer."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: State

    def log_message(self, *args) -> None:  # quiet: tests read /__control/requests
        pass

    def cors(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Content-Type, X-Goog-Api-Key")

    def send_json(self, status: int, value) -> None:
        # Google's JSON answers (errors included) are pretty-printed with two spaces.
        body = (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()
        self.send_response(status)
        self.cors()
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_OPTIONS(self) -> None:  # noqa: N802 (stdlib name)
        self.send_response(204)
        self.cors()
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        if self.path == "/__control/requests":
            with self.state.lock:
                self.send_json(200, list(self.state.requests))
        elif url.path == "/v1beta/models":
            # models.list, checked like a generation request: the key in its header only.
            key = self.headers.get("x-goog-api-key")
            if key is None:
                self.send_json(403, NO_KEY)
            elif key != self.state.api_key:
                self.send_json(400, KEY_INVALID)
            else:
                self.send_json(200, {"models": [
                    {"name": "models/gemini-2.5-flash", "displayName": "Gemini 2.5 Flash",
                     "supportedGenerationMethods": ["generateContent", "countTokens"]},
                    {"name": "models/gemini-2.5-pro", "displayName": "Gemini 2.5 Pro",
                     "supportedGenerationMethods": ["generateContent", "countTokens"]},
                    {"name": "models/text-embedding-004", "displayName": "Text Embedding 004",
                     "supportedGenerationMethods": ["embedContent"]},
                ]})
        else:
            self.send_json(404, {"error": {"code": 404, "message": "Not found", "status": "NOT_FOUND"}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace")
        url = urlsplit(self.path)
        if url.path == "/__control/reset":
            with self.state.lock:
                self.state.requests.clear()
                self.state.script.clear()
            self.send_json(200, {})
            return
        if url.path == "/__control/script":
            steps = json.loads(raw or "[]")
            bad = [k for s in steps for k in s if k not in STEP_KEYS]
            if bad:
                self.send_json(400, {"error": f"unknown step keys: {bad}"})
                return
            with self.state.lock:
                self.state.script = list(steps)
            self.send_json(200, {"queued": len(steps)})
            return
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        with self.state.lock:
            self.state.requests.append({
                "method": "POST",
                "path": url.path,
                "query": parse_qs(url.query),
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body,
            })
        if not (url.path.startswith("/v1beta/models/") and url.path.endswith(":streamGenerateContent")):
            self.send_json(404, {"error": {"code": 404, "message": "Not found", "status": "NOT_FOUND"}})
            return
        key = self.headers.get("x-goog-api-key")
        if key is None:
            self.send_json(403, NO_KEY)
            return
        if key != self.state.api_key:
            self.send_json(400, KEY_INVALID)
            return
        with self.state.lock:
            step = self.state.script.pop(0) if self.state.script else {"text": "Hello from Gemini!"}
        if "status" in step:
            self.send_json(int(step["status"]), {"error": step.get("error", {})})
            return
        self.send_response(200)
        self.cors()
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Disposition", "attachment")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            if "fixture" in step:
                data = (FIXTURES / step["fixture"]).read_bytes()
                for i in range(0, len(data), 64):
                    self.chunk(data[i:i + 64])
                    time.sleep(0.002)
            else:
                self.stream(step, url.path.split("/")[-1].split(":")[0])
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
        prompt_tokens = 12
        sent = {"text": 0}

        def event(value: dict) -> None:
            value.setdefault("modelVersion", model)
            value.setdefault("responseId", "skiffReplay0001")
            self.chunk(("data: " + dumps(value) + "\r\n\r\n").encode())
            time.sleep(delay)

        def usage(done: int) -> dict:
            return {"promptTokenCount": prompt_tokens, "candidatesTokenCount": done,
                    "totalTokenCount": prompt_tokens + done}

        def candidate(parts: list, **extra) -> dict:
            return {"candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0, **extra}],
                    "usageMetadata": usage(sent["text"])}

        if step.get("prompt_block"):
            event({"promptFeedback": {"blockReason": step["prompt_block"]},
                   "usageMetadata": {"promptTokenCount": prompt_tokens, "totalTokenCount": prompt_tokens}})
            return
        thought = step.get("thought", "")
        for i in range(0, len(thought), size):
            event(candidate([{"text": thought[i:i + size], "thought": True}]))
        text = step.get("text", "")
        error_at = step.get("stream_error_after_chars")
        cut_at = step.get("cut_after_chars")
        for i in range(0, len(text), size):
            piece = text[i:i + size]
            sent["text"] += len(piece)
            event(candidate([{"text": piece}]))
            if error_at is not None and sent["text"] >= error_at:
                event({"error": step.get("error", {"code": 500, "message": "An internal error has occurred.", "status": "INTERNAL"})})
                return
            if cut_at is not None and sent["text"] >= cut_at:
                # Let the page read what was sent: a browser discards the chunks still queued
                # in a body stream that errors.
                time.sleep(0.3)
                raise Cut()
        for n, call in enumerate(step.get("calls", [])):
            fc = {"name": call["name"], "args": call.get("args", {})}
            if "id" in call:
                fc["id"] = call["id"]
            part = {"functionCall": fc}
            if n == 0:
                part["thoughtSignature"] = SIGNATURE
            sent["text"] += 16
            event(candidate([part]))
        if step.get("no_finish"):
            return
        event(candidate([{"text": ""}], finishReason=step.get("finish", "STOP")))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--api-key", default="AIza-test-key")
    args = ap.parse_args()
    Handler.state = State(args.api_key)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
