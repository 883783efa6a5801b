#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat server for Skiff's tests.

Why it exists: the page talks to real providers straight from the browser, so
its tests need a peer that speaks the *real* wire format, byte for byte, and
that can be told to misbehave on cue (slow, cut mid-stream, broken JSON, HTTP
errors, a wrong API key). The format follows llama.cpp's `llama-server`
(tools/server: server-task.cpp `to_json_oaicompat_chat*`, server-common.cpp
`format_oai_sse` / `format_error_response`, server-http.cpp middlewares):

* every SSE event is `data: <compact JSON>\\n\\n`, keys in llama.cpp's own
  order (it uses nlohmann::ordered_json; compare the capture in
  tests/fixtures/openai/llamacpp_b6459_reasoning.sse); chunked encoding;
* the first event carries `delta: {"role": "assistant", "content": null}`;
  content arrives as `delta.content`, reasoning as `delta.reasoning_content`;
* the finish event has `delta: {}` and `finish_reason: "stop"`; when the
  request asked `stream_options.include_usage`, a last event with
  `choices: []` and `usage` follows; `timings` rides on whichever is last;
* then `data: [DONE]\\n\\n`; an error after the stream started is one
  `data: {"error": {...}}\\n\\n` event and no `[DONE]`;
* errors before streaming are `{"error": {"code", "message", "type"}}` with
  that HTTP status; a missing or wrong key is llama.cpp's 401 body.

What it must never do: bind anything but 127.0.0.1, reach the network, or
need anything beyond the Python standard library.

Usage:
    python3 tests/servers/openai_compat.py --port 0 [--api-key K]
        [--models a,b] [--delay-ms N] [--protect-models] [--verbose]

The first line on stdout is the port it listens on. Control API (never needs
the key; CORS like everything else):

* `POST /__control/script` — JSON list of steps (or {"steps": [...],
  "append": bool}); each chat request consumes one step. Keys of a step:
  reply, reasoning, chunk_chars, delay_ms, first_delay_ms, cut_after_chars,
  status, error_body, malformed_after_chars, stream_error_after_chars,
  error_message, usage (true = always send the usage event, false = never,
  absent/null = only when the request asked for it, as llama.cpp does),
  finish_reason, tool_calls, arguments_chunk_chars, repeat_tool_ids,
  reject_tools, system_first, stall_after_chars, stall_ms, images. Unknown keys are refused with 400 so a typo fails loudly.
  The *_after_chars triggers count reply characters (not reasoning):
  cut = drop the connection without the final chunk, [DONE] or the chunked
  terminator (a browser's reader throws); malformed = one `data: {not json`
  event, after which the stream goes on to [DONE]; stream_error = llama.cpp's
  in-stream error event, then the end; stall = after that many reply
  characters, send nothing for `stall_ms` (default 600000) with the connection
  open (a server that hangs mid-answer), then go on. Without a script the reply is
  "You said: <last user message>" in 4-character chunks.

  Tool calls (llama.cpp with `--jinja`; server-common.cpp
  `common_chat_msg_diff_to_json_oaicompat`, compare the capture quoted in
  test_openai_compat.py):
  `tool_calls` is a list of {"name": str, "arguments": str | object,
  "id"?: str}; an object is sent as compact JSON, a string verbatim (so a
  test can send broken JSON); a missing id is a random 32-character
  alphanumeric one, as llama.cpp's `gen_tool_call_id`. The streamed answer
  sends the `reply` text first (empty by default when there are calls), then
  for each call in order one delta
  `{"tool_calls":[{"index":i,"id":..,"type":"function","function":{"name":..,"arguments":""}}]}`
  followed by argument pieces `{"tool_calls":[{"index":i,"function":{"arguments":"…"}}]}`
  of `arguments_chunk_chars` characters (default 8), and finishes with
  `finish_reason: "tool_calls"` (unless `finish_reason` says otherwise).
  `repeat_tool_ids: true` imitates servers that repeat `id`, `type` and
  `function.name` on every delta (arguments still come in pieces).
  With `stream: false` the calls come whole in `message.tool_calls`
  (`{"type":"function","function":{"name","arguments"},"id"}`, content null
  when there is no reply).
  `reject_tools: true` answers a request whose body has a non-empty `tools`
  list the way llama-server started without `--jinja` does: HTTP 500
  `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`
  (a std::runtime_error, which llama.cpp reports as a 500 server_error);
  an integer instead of true picks another status (e.g. 400, as some other
  servers answer) with the same message. The rejection CONSUMES the step, so
  a test scripts the retry as the next step. A request without `tools` that
  meets a `reject_tools` step is served by that step normally.
  `system_first: true` is a strict chat template (Qwen 3.x, several others under
  llama-server `--jinja`): a request with a system message anywhere but first (a
  second one, or one after the first turn) is refused as llama.cpp refuses it, HTTP 400
  invalid_request_error whose message ends "Jinja Exception: System message must be
  at the beginning." (the template's `raise_exception`, wrapped by llama.cpp's parser
  generation). Like `reject_tools`, the refusal consumes the step; a request with at
  most one system message, first, is served by it normally.
  Images (OpenRouter's image output, docs "Image Generation"): `images` is a
  list of URL strings (normally `data:image/png;base64,…`); the streamed answer
  sends, after the reply text, one delta
  `{"role":"assistant","content":"","images":[{"type":"image_url","image_url":{"url":…}}]}`
  per image; with `stream: false` they come in `message.images` (same entries).
* `GET /__control/requests` — JSON list of the chat requests received, each
  {"method", "path", "headers", "body", "status", "completed",
  "client_aborted"}; "body" is the whole parsed request body (messages with
  their `tool_calls`, `role:"tool"` results, image_url parts, `tools`...).
* `POST /__control/reset` — forget the script and the recorded requests.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import socket
import string
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SYSTEM_FINGERPRINT = "b6981-5d8bb900"
STEP_KEYS = {
    "reply",
    "reasoning",
    "chunk_chars",
    "delay_ms",
    "first_delay_ms",
    "stall_after_chars",
    "stall_ms",
    "cut_after_chars",
    "status",
    "error_body",
    "malformed_after_chars",
    "stream_error_after_chars",
    "error_message",
    "usage",
    "finish_reason",
    "tool_calls",
    "arguments_chunk_chars",
    "repeat_tool_ids",
    "reject_tools",
    "system_first",
    "images",
}
JINJA_REQUIRED = "tools param requires --jinja flag"
# What llama-server answers when a strict template's `raise_exception` fires (the Qwen 3.x
# templates' own sentence, in llama.cpp's parser-generation wrapper; ggml-org/llama.cpp#20733).
SYSTEM_NOT_FIRST = (
    "Unable to generate parser for this template. Automatic parser generation failed: \n"
    "------------\nWhile executing CallExpression at line 85, column 32 in source:\n"
    "...first %}\u21b5            {{- raise_exception('System message must be at the beginnin...\n"
    "                                           ^\n"
    "Error: Jinja Exception: System message must be at the beginning."
)
# llama.cpp's error types for the statuses a test is likely to ask for.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    500: "server_error",
    501: "not_supported_error",
    503: "unavailable_error",
}
# llama.cpp lets these through without a key (server-http.cpp, public endpoints).
PUBLIC_PATHS = {"/health", "/v1/health", "/models", "/v1/models"}


class StreamCut(Exception):
    """The script asked to drop the connection mid-body."""


class ClientGone(Exception):
    """The client closed the connection (e.g. the page pressed Stop)."""


def to_json(value: Any) -> str:
    """Compact JSON in insertion order with raw UTF-8, as llama.cpp dumps it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def sse(value: Any) -> bytes:
    return ("data: " + to_json(value) + "\n\n").encode("utf-8")


def error_object(status: int, message: str) -> dict:
    return {
        "error": {
            "code": status,
            "message": message,
            "type": ERROR_TYPES.get(status, "server_error"),
        }
    }


def random_string() -> str:
    """32 alphanumeric characters, like llama.cpp's `random_string()`."""
    alphabet = string.digits + string.ascii_uppercase + string.ascii_lowercase
    return "".join(random.choice(alphabet) for _ in range(32))


def gen_chatcmplid() -> str:
    return "chatcmpl-" + random_string()


def image_entry(url: str) -> dict:
    """One entry of OpenRouter's `images` list."""
    return {"type": "image_url", "image_url": {"url": url}}


def scripted_tool_calls(step: dict) -> list[dict]:
    """The step's tool calls as {"id", "name", "arguments": str}, ids filled in once."""
    calls = []
    for call in step.get("tool_calls") or []:
        arguments = call.get("arguments", "")
        if not isinstance(arguments, str):
            arguments = to_json(arguments)
        calls.append({"id": call.get("id") or random_string(), "name": call["name"], "arguments": arguments})
    return calls


def has_tools(body: dict) -> bool:
    tools = body.get("tools")
    return isinstance(tools, list) and len(tools) > 0


def message_text(content: Any) -> str:
    """The text of a message's content, whether a string or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
        return "".join(texts)
    return ""


def system_not_first(body: dict) -> bool:
    """Whether a system message sits anywhere but at the start (a strict template refuses)."""
    messages = body.get("messages") or []
    return any(
        isinstance(m, dict) and m.get("role") == "system" for m in messages[1:]
    )


def last_user_text(body: dict) -> str:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return message_text(message.get("content"))
    return ""


def count_prompt_tokens(body: dict) -> int:
    """A deterministic stand-in for a tokenizer: one token per 4 characters."""
    messages = body.get("messages")
    chars = 0
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict):
                chars += len(message_text(message.get("content")))
    return max(1, math.ceil(chars / 4))


def split_chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] if text else []


def validate_step(step: Any) -> dict:
    if not isinstance(step, dict):
        raise ValueError("each step must be a JSON object")
    unknown = set(step) - STEP_KEYS
    if unknown:
        raise ValueError("unknown step keys: " + ", ".join(sorted(unknown)))
    chunk_chars = step.get("chunk_chars")
    if chunk_chars is not None and (not isinstance(chunk_chars, int) or chunk_chars < 1):
        raise ValueError("chunk_chars must be a positive integer")
    status = step.get("status")
    if status is not None and (not isinstance(status, int) or not 100 <= status <= 599):
        raise ValueError("status must be an HTTP status code")
    calls = step.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            raise ValueError("tool_calls must be a list")
        for call in calls:
            if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
                raise ValueError("each tool call needs a non-empty string name")
            extra = set(call) - {"name", "arguments", "id"}
            if extra:
                raise ValueError("unknown tool call keys: " + ", ".join(sorted(extra)))
            if "id" in call and (not isinstance(call["id"], str) or not call["id"]):
                raise ValueError("a tool call id must be a non-empty string")
            if "arguments" in call and not isinstance(call["arguments"], (str, dict, list)):
                raise ValueError("tool call arguments must be a string or a JSON object")
    images = step.get("images")
    if images is not None and (
        not isinstance(images, list) or not all(isinstance(u, str) for u in images)
    ):
        raise ValueError("images must be a list of URL strings")
    args_chars = step.get("arguments_chunk_chars")
    if args_chars is not None and (not isinstance(args_chars, int) or args_chars < 1):
        raise ValueError("arguments_chunk_chars must be a positive integer")
    reject = step.get("reject_tools")
    if reject is not None and not isinstance(reject, bool) and not (
        isinstance(reject, int) and 400 <= reject <= 599
    ):
        raise ValueError("reject_tools must be true/false or an HTTP error status")
    if step.get("system_first") is not None and not isinstance(step["system_first"], bool):
        raise ValueError("system_first must be true or false")
    if step.get("repeat_tool_ids") is not None and not isinstance(step["repeat_tool_ids"], bool):
        raise ValueError("repeat_tool_ids must be true or false")
    return step


class State:
    """What the control API changes, shared by all request threads."""

    def __init__(self, api_key: str | None, models: list[str], delay_ms: int, protect_models: bool):
        self.api_key = api_key
        self.models = models
        self.delay_ms = delay_ms
        self.protect_models = protect_models
        self.lock = threading.Lock()
        self.script: list[dict] = []
        self.requests: list[dict] = []

    def next_step(self) -> dict | None:
        with self.lock:
            return self.script.pop(0) if self.script else None

    def record(self, entry: dict) -> None:
        with self.lock:
            self.requests.append(entry)

    def snapshot(self) -> list[dict]:
        with self.lock:
            return json.loads(json.dumps(self.requests))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "llama.cpp"
    state: State  # set on the subclass made in make_server
    verbose = False

    # --- plumbing -------------------------------------------------------

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib name)
        if self.verbose:
            sys.stderr.write("openai_compat: " + (format % args) + "\n")

    def cors_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Api-Key")
        self.send_header("Access-Control-Max-Age", "600")

    def send_bytes(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.cors_headers()
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def send_json(self, status: int, value: Any) -> None:
        self.send_bytes(status, to_json(value).encode("utf-8"), "application/json; charset=utf-8")

    def read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def write_chunk(self, data: bytes) -> None:
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise ClientGone() from exc

    def end_chunks(self) -> None:
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise ClientGone() from exc

    def cut_connection(self) -> None:
        """Drop the socket without finishing the body, as a crashed peer would."""
        try:
            self.wfile.flush()
            # Let the bytes already written reach the client first: an immediate shutdown can
            # reset the connection with them still in flight, and the browser then drops them,
            # which made "the partial answer is kept" depend on timing.
            time.sleep(0.2)
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True

    def authorized(self) -> bool:
        key = self.state.api_key
        if key is None:
            return True
        given = self.headers.get("Authorization") or self.headers.get("X-Api-Key") or ""
        if given.startswith("Bearer "):
            given = given[len("Bearer ") :]
        return given == key

    def send_unauthorized(self) -> None:
        self.send_json(
            401,
            {"error": {"message": "Invalid API Key", "type": "authentication_error", "code": 401}},
        )

    def send_not_found(self) -> None:
        self.send_json(
            404, {"error": {"message": "File Not Found", "type": "not_found_error", "code": 404}}
        )

    # --- routes ---------------------------------------------------------

    def do_OPTIONS(self) -> None:  # noqa: N802 (stdlib name)
        self.send_bytes(200, b"", "text/html")

    def do_GET(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        if path == "/__control/requests":
            self.send_json(200, self.state.snapshot())
        elif path in ("/health", "/v1/health"):
            self.send_json(200, {"status": "ok"})
        elif path in ("/v1/models", "/models"):
            if self.state.protect_models and not self.authorized():
                self.send_unauthorized()
                return
            created = int(time.time())
            data = [
                {"id": name, "object": "model", "created": created, "owned_by": "llamacpp"}
                for name in self.state.models
            ]
            self.send_json(200, {"object": "list", "data": data})
        else:
            self.send_not_found()

    def do_POST(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        raw = self.read_body()
        if path == "/__control/script":
            self.control_script(raw)
        elif path == "/__control/reset":
            with self.state.lock:
                self.state.script.clear()
                self.state.requests.clear()
            self.send_json(200, {"ok": True})
        elif path in ("/v1/chat/completions", "/chat/completions"):
            self.chat(path, raw)
        else:
            self.send_not_found()

    def control_script(self, raw: bytes) -> None:
        try:
            parsed = json.loads(raw or b"null")
            append = False
            if isinstance(parsed, dict):
                append = bool(parsed.get("append", False))
                parsed = parsed.get("steps")
            if not isinstance(parsed, list):
                raise ValueError("expected a JSON list of steps")
            steps = [validate_step(step) for step in parsed]
        except ValueError as exc:
            self.send_json(400, error_object(400, "bad script: " + str(exc)))
            return
        with self.state.lock:
            if not append:
                self.state.script.clear()
            self.state.script.extend(steps)
            queued = len(self.state.script)
        self.send_json(200, {"queued": queued})

    def chat(self, path: str, raw: bytes) -> None:
        try:
            body: Any = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            body = raw.decode("utf-8", errors="replace")
        entry = {
            "method": "POST",
            "path": path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body,
            "status": None,
            "completed": False,
            "client_aborted": False,
        }
        self.state.record(entry)

        if not self.authorized():
            entry["status"] = 401
            entry["completed"] = True
            self.send_unauthorized()
            return
        if not isinstance(body, dict):
            entry["status"] = 500
            entry["completed"] = True
            self.send_json(500, error_object(500, "[json.exception.parse_error.101] invalid JSON body"))
            return
        if not isinstance(body.get("messages"), list):
            entry["status"] = 400
            entry["completed"] = True
            self.send_json(400, error_object(400, "'messages' is required"))
            return

        step = self.state.next_step() or {}
        first_delay = step.get("first_delay_ms") or 0
        if first_delay:
            time.sleep(first_delay / 1000)

        reject = step.get("reject_tools")
        if reject is not None and reject is not False and has_tools(body):
            # llama-server without --jinja throws std::runtime_error before generating
            # (oaicompat_chat_params_parse); its handler reports that as 500 server_error.
            status = 500 if reject is True else int(reject)
            entry["status"] = status
            entry["completed"] = True
            self.send_json(status, error_object(status, JINJA_REQUIRED))
            return

        if step.get("system_first") and system_not_first(body):
            entry["status"] = 400
            entry["completed"] = True
            self.send_json(400, error_object(400, SYSTEM_NOT_FIRST))
            return

        status = step.get("status")
        if status is None and step.get("error_body") is not None:
            status = 500
        if status is not None:
            entry["status"] = status
            entry["completed"] = True
            error_body = step.get("error_body")
            if error_body is None:
                message = step.get("error_message") or "scripted error"
                self.send_json(status, error_object(status, message))
            elif isinstance(error_body, str):
                self.send_bytes(status, error_body.encode("utf-8"), "application/json; charset=utf-8")
            else:
                self.send_json(status, error_body)
            return

        entry["status"] = 200
        try:
            if body.get("stream") is True:
                self.stream_reply(body, step)
            else:
                self.plain_reply(body, step)
            entry["completed"] = True
        except StreamCut:
            self.cut_connection()
        except ClientGone:
            entry["client_aborted"] = True
            self.close_connection = True

    # --- replies --------------------------------------------------------

    def reply_parts(self, body: dict, step: dict) -> tuple[str, str]:
        reply = step.get("reply")
        if reply is None:
            reply = "" if step.get("tool_calls") else "You said: " + last_user_text(body)
        return str(reply), str(step.get("reasoning") or "")

    def counts(self, body: dict, n_chunks: int) -> tuple[int, int]:
        return count_prompt_tokens(body), max(1, n_chunks)

    def usage(self, prompt_tokens: int, completion_tokens: int) -> dict:
        return {
            "completion_tokens": completion_tokens,
            "prompt_tokens": prompt_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": 0},
        }

    def timings(self, prompt_tokens: int, completion_tokens: int, per_token_ms: float) -> dict:
        prompt_ms = round(prompt_tokens * 0.5, 3)
        predicted_ms = round(completion_tokens * max(per_token_ms, 1.0), 3)
        return {
            "cache_n": 0,
            "prompt_n": prompt_tokens,
            "prompt_ms": prompt_ms,
            "prompt_per_token_ms": prompt_ms / prompt_tokens,
            "prompt_per_second": 1000.0 * prompt_tokens / prompt_ms,
            "predicted_n": completion_tokens,
            "predicted_ms": predicted_ms,
            "predicted_per_token_ms": predicted_ms / completion_tokens,
            "predicted_per_second": 1000.0 * completion_tokens / predicted_ms,
        }

    def model_name(self, body: dict) -> str:
        model = body.get("model")
        if isinstance(model, str) and model:
            return model
        return self.state.models[0] if self.state.models else "model"

    def plain_reply(self, body: dict, step: dict) -> None:
        reply, reasoning = self.reply_parts(body, step)
        size = step.get("chunk_chars") or 4
        calls = scripted_tool_calls(step)
        args_size = step.get("arguments_chunk_chars") or 8
        n_chunks = len(split_chunks(reply, size)) + len(split_chunks(reasoning, size))
        n_chunks += sum(1 + len(split_chunks(c["arguments"], args_size)) for c in calls)
        prompt_tokens, completion_tokens = self.counts(body, n_chunks)
        # common_chat_msg::to_json_oaicompat: content is null when only tools were called.
        message: dict = {"role": "assistant", "content": reply if reply or not calls else None}
        if reasoning:
            message["reasoning_content"] = reasoning
        if step.get("images"):
            message["images"] = [image_entry(u) for u in step["images"]]
        if calls:
            message["tool_calls"] = [
                {
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["arguments"]},
                    "id": c["id"],
                }
                for c in calls
            ]
        value = {
            "choices": [
                {
                    "finish_reason": step.get("finish_reason") or ("tool_calls" if calls else "stop"),
                    "index": 0,
                    "message": message,
                }
            ],
            "created": int(time.time()),
            "model": self.model_name(body),
            "system_fingerprint": SYSTEM_FINGERPRINT,
            "object": "chat.completion",
            "usage": self.usage(prompt_tokens, completion_tokens),
            "id": gen_chatcmplid(),
            "timings": self.timings(prompt_tokens, completion_tokens, 0.0),
        }
        data = to_json(value).encode("utf-8")
        malformed = step.get("malformed_after_chars")
        if malformed is not None:
            data = b"{not json"
        cut = step.get("cut_after_chars")
        self.send_response(200)
        self.cors_headers()
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if cut is not None:
            self.wfile.write(data[: max(0, min(int(cut), len(data) - 1))])
            raise StreamCut()
        self.wfile.write(data)
        self.wfile.flush()

    def stream_reply(self, body: dict, step: dict) -> None:
        reply, reasoning = self.reply_parts(body, step)
        size = step.get("chunk_chars") or 4
        delay_ms = step.get("delay_ms")
        if delay_ms is None:
            delay_ms = self.state.delay_ms
        cut = step.get("cut_after_chars")
        malformed = step.get("malformed_after_chars")
        stream_error = step.get("stream_error_after_chars")
        stall = step.get("stall_after_chars")
        stalled = False
        want_usage = step.get("usage")
        if want_usage is None:
            options = body.get("stream_options")
            want_usage = isinstance(options, dict) and options.get("include_usage") is True

        created = int(time.time())
        cmpl_id = gen_chatcmplid()
        model = self.model_name(body)

        def envelope(choices: list) -> dict:
            return {
                "choices": choices,
                "created": created,
                "id": cmpl_id,
                "model": model,
                "system_fingerprint": SYSTEM_FINGERPRINT,
                "object": "chat.completion.chunk",
            }

        def chunk(delta: dict, finish_reason: Any = None) -> dict:
            return envelope([{"finish_reason": finish_reason, "index": 0, "delta": delta}])

        self.send_response(200)
        self.cors_headers()
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.write_chunk(sse(chunk({"role": "assistant", "content": None})))

        sent_chars = 0
        malformed_sent = False
        calls = scripted_tool_calls(step)
        deltas: list[tuple[str, Any]] = [
            ("reasoning_content", piece) for piece in split_chunks(reasoning, size)
        ]
        deltas += [("content", piece) for piece in split_chunks(reply, size)]
        deltas += [("images", [image_entry(u)]) for u in step.get("images") or []]
        deltas += [
            ("tool_calls", [call])
            for call in self.tool_call_deltas(
                calls, step.get("arguments_chunk_chars") or 8, bool(step.get("repeat_tool_ids"))
            )
        ]
        for field, piece in deltas:
            # The triggers count only reply characters, so a test can place a
            # fault inside the visible answer regardless of any reasoning.
            if field == "content":
                if cut is not None and sent_chars >= cut:
                    raise StreamCut()
                if stream_error is not None and sent_chars >= stream_error:
                    self.send_stream_error(step)
                    return
                if malformed is not None and not malformed_sent and sent_chars >= malformed:
                    self.write_chunk(b"data: {not json\n\n")
                    malformed_sent = True
                if stall is not None and not stalled and sent_chars >= stall:
                    stalled = True
                    time.sleep((step.get("stall_ms") or 600_000) / 1000)
            if delay_ms:
                time.sleep(delay_ms / 1000)
            if field == "images":
                # OpenRouter repeats the role and an empty content beside each image.
                self.write_chunk(sse(chunk({"role": "assistant", "content": "", field: piece})))
            else:
                self.write_chunk(sse(chunk({field: piece})))
            if field == "content":
                sent_chars += len(piece)
        if cut is not None:
            raise StreamCut()
        if stream_error is not None:
            self.send_stream_error(step)
            return
        if malformed is not None and not malformed_sent:
            self.write_chunk(b"data: {not json\n\n")

        prompt_tokens, completion_tokens = self.counts(body, len(deltas))
        finals = [chunk({}, step.get("finish_reason") or ("tool_calls" if calls else "stop"))]
        if want_usage:
            usage_chunk = envelope([])
            usage_chunk["usage"] = self.usage(prompt_tokens, completion_tokens)
            finals.append(usage_chunk)
        finals[-1]["timings"] = self.timings(prompt_tokens, completion_tokens, float(delay_ms))
        for value in finals:
            self.write_chunk(sse(value))
        self.write_chunk(b"data: [DONE]\n\n")
        self.end_chunks()

    @staticmethod
    def tool_call_deltas(calls: list[dict], args_size: int, repeat_ids: bool) -> list[dict]:
        """One call after another: the opening delta, then the argument pieces.

        The opening delta is llama.cpp's `{"index","id","type","function":{"name","arguments":""}}`;
        the pieces carry only `index` and `function.arguments`, unless `repeat_ids` asks for
        the quirk of servers that repeat id/type/name on every delta.
        """
        out = []
        for index, call in enumerate(calls):
            def full(arguments: str) -> dict:
                return {
                    "index": index,
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["name"], "arguments": arguments},
                }

            out.append(full(""))
            for piece in split_chunks(call["arguments"], args_size):
                if repeat_ids:
                    out.append(full(piece))
                else:
                    out.append({"index": index, "function": {"arguments": piece}})
        return out

    def send_stream_error(self, step: dict) -> None:
        message = step.get("error_message") or "scripted error during generation"
        self.write_chunk(sse(error_object(500, message)))
        self.end_chunks()


def make_server(
    port: int = 0,
    api_key: str | None = None,
    models: list[str] | None = None,
    delay_ms: int = 0,
    protect_models: bool = False,
    verbose: bool = False,
) -> ThreadingHTTPServer:
    """Build (not start) a server on 127.0.0.1; tests may run it in a thread."""
    state = State(api_key, models or ["test-model"], delay_ms, protect_models)
    handler = type("BoundHandler", (Handler,), {"state": state, "verbose": verbose})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--api-key", default=None, help="require Authorization: Bearer KEY")
    parser.add_argument("--models", default="test-model", help="comma-separated model ids")
    parser.add_argument("--delay-ms", type=int, default=0, help="default delay per streamed chunk")
    parser.add_argument(
        "--protect-models",
        action="store_true",
        help="require the key on /v1/models too (llama.cpp leaves it public; OpenAI does not)",
    )
    parser.add_argument("--verbose", action="store_true", help="log requests on stderr")
    args = parser.parse_args(argv)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    server = make_server(args.port, args.api_key, models, args.delay_ms, args.protect_models, args.verbose)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
