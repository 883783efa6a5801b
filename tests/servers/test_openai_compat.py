"""Tests of the scripted OpenAI-compatible server (tests/servers/openai_compat.py).

Why: the page's end-to-end tests trust this server to speak llama.cpp's wire
format exactly and to fail exactly when told. These tests pin the bytes it
sends, so a drift in the fake is caught here rather than hidden as a page bug.
They read raw HTTP from a socket where framing matters (chunked SSE, abrupt
cut) and use http.client elsewhere. Run: python3 -m unittest discover -s tests/servers
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import openai_compat  # noqa: E402  (path set just above)

# llama.cpp writes keys in insertion order (nlohmann::ordered_json).
CHUNK_KEYS = ["choices", "created", "id", "model", "system_fingerprint", "object"]
FIXTURE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "fixtures",
    "openai",
    "llamacpp_b6459_reasoning.sse",
)


class ServerCase(unittest.TestCase):
    """Runs one server in a thread per test class."""

    server_kwargs: dict = {}

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = openai_compat.make_server(0, **cls.server_kwargs)
        cls.port = cls.server.server_address[1]
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self) -> None:
        status, _, _ = self.request("POST", "/__control/reset", b"")
        self.assertEqual(status, 200)

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
        finally:
            conn.close()

    def script(self, steps: list) -> None:
        status, _, data = self.request("POST", "/__control/script", json.dumps(steps).encode())
        self.assertEqual(status, 200, data)

    def chat_body(self, text: str = "hello", stream: bool = True, **extra) -> bytes:
        body = {"model": "m1", "stream": stream, "messages": [{"role": "user", "content": text}]}
        body.update(extra)
        return json.dumps(body).encode()

    def raw_exchange(self, body: bytes, headers: str = "") -> bytes:
        """Sends one chat request on a bare socket and returns every byte until close."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
            head = (
                "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Content-Type: application/json\r\nConnection: close\r\n"
                f"{headers}Content-Length: {len(body)}\r\n\r\n"
            )
            sock.sendall(head.encode() + body)
            out = b""
            while True:
                piece = sock.recv(65536)
                if not piece:
                    return out
                out += piece


def dechunk(raw_body: bytes) -> tuple[bytes, bool]:
    """Decodes a chunked body; returns (payload, saw_the_terminating_zero_chunk)."""
    out = b""
    rest = raw_body
    while rest:
        line_end = rest.find(b"\r\n")
        if line_end < 0:
            return out, False
        size = int(rest[:line_end], 16)
        if size == 0:
            return out, rest[line_end:] == b"\r\n\r\n"
        out += rest[line_end + 2 : line_end + 2 + size]
        rest = rest[line_end + 2 + size + 2 :]
    return out, False


def split_response(raw: bytes) -> tuple[str, dict, bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return lines[0], headers, body


def events(payload: bytes) -> list[str]:
    text = payload.decode("utf-8")
    assert text.endswith("\n\n"), repr(text[-40:])
    return text[:-2].split("\n\n")


class StreamFormatTest(ServerCase):
    server_kwargs = {"models": ["m1", "m2"]}

    def test_stream_bytes_follow_llama_cpp(self) -> None:
        self.script([{"reply": "Hello world", "chunk_chars": 5, "delay_ms": 0}])
        status_line, headers, body = split_response(self.raw_exchange(self.chat_body()))
        self.assertEqual(status_line, "HTTP/1.1 200 OK")
        self.assertEqual(headers["content-type"], "text/event-stream")
        self.assertEqual(headers["transfer-encoding"], "chunked")
        self.assertEqual(headers["access-control-allow-origin"], "*")
        payload, finished = dechunk(body)
        self.assertTrue(finished, "a complete stream ends with the zero-length chunk")
        evs = events(payload)
        self.assertEqual(evs[-1], "data: [DONE]")
        for ev in evs:
            self.assertTrue(ev.startswith("data: "), ev)
            self.assertNotIn("\n", ev)
        chunks = [json.loads(ev[len("data: ") :]) for ev in evs[:-1]]

        first = chunks[0]
        self.assertEqual(list(first), CHUNK_KEYS)
        self.assertRegex(first["id"], r"^chatcmpl-[0-9A-Za-z]{32}$")
        self.assertEqual(first["object"], "chat.completion.chunk")
        self.assertEqual(first["model"], "m1")
        self.assertIsInstance(first["created"], int)
        self.assertRegex(first["system_fingerprint"], r"^b\d+-[0-9a-f]+$")
        self.assertEqual(
            first["choices"],
            [{"finish_reason": None, "index": 0, "delta": {"role": "assistant", "content": None}}],
        )
        # Exact bytes of the first event: compact JSON in llama.cpp's key order.
        self.assertEqual(
            evs[0],
            'data: {"choices":[{"finish_reason":null,"index":0,'
            '"delta":{"role":"assistant","content":null}}],"created":%d,"id":"%s",'
            '"model":"m1","system_fingerprint":"%s","object":"chat.completion.chunk"}'
            % (first["created"], first["id"], first["system_fingerprint"]),
        )

        content = [c["choices"][0]["delta"]["content"] for c in chunks[1:-1]]
        self.assertEqual(content, ["Hello", " worl", "d"])
        for c in chunks:
            self.assertEqual(c["id"], first["id"], "all chunks share one id")

        finish = chunks[-1]
        self.assertEqual(
            finish["choices"], [{"delta": {}, "finish_reason": "stop", "index": 0}]
        )
        self.assertNotIn("usage", finish, "no usage unless the request asked for it")
        timings = finish["timings"]
        self.assertEqual(timings["predicted_n"], 3)
        for key in ("cache_n", "prompt_n", "prompt_ms", "predicted_ms", "predicted_per_second"):
            self.assertIn(key, timings)

    def test_images_come_after_the_text_as_openrouter_sends_them(self) -> None:
        url = "data:image/png;base64,iVBORw0KGgo="
        self.script([{"reply": "ab", "chunk_chars": 2, "images": [url]}])
        payload, _ = dechunk(split_response(self.raw_exchange(self.chat_body()))[2])
        chunks = [json.loads(e[6:]) for e in events(payload)[:-1]]
        deltas = [c["choices"][0]["delta"] for c in chunks]
        self.assertEqual(deltas[1], {"content": "ab"})
        self.assertEqual(
            deltas[2],
            {"role": "assistant", "content": "", "images": [{"type": "image_url", "image_url": {"url": url}}]},
        )
        self.assertEqual(chunks[3]["choices"][0]["finish_reason"], "stop")
        self.script([{"reply": "ab", "images": [url]}])
        status, _, body = self.request("POST", "/v1/chat/completions", self.chat_body(stream=False))
        self.assertEqual(status, 200)
        message = json.loads(body)["choices"][0]["message"]
        self.assertEqual(message["images"], [{"type": "image_url", "image_url": {"url": url}}])
        status, _, _ = self.request("POST", "/__control/script", json.dumps([{"images": "x"}]).encode())
        self.assertEqual(status, 400)

    def test_key_order_matches_a_real_llama_cpp_capture(self) -> None:
        with open(FIXTURE, encoding="utf-8") as f:
            real = [json.loads(line[6:]) for line in f if line.startswith("data: {")]
        self.script([{"reply": "ab", "reasoning": "cd", "chunk_chars": 2, "usage": True}])
        payload, _ = dechunk(split_response(self.raw_exchange(self.chat_body()))[2])
        ours = [json.loads(e[6:]) for e in events(payload)[:-1]]

        def shape(value):
            """Keys in order, recursively; lists reduced to their first item."""
            if isinstance(value, dict):
                return [(k, shape(v)) for k, v in value.items()]
            if isinstance(value, list):
                return [shape(value[0])] if value else []
            return type(value).__name__

        # The role, first reasoning, first content and finish events, then usage+timings.
        real_content = next(c for c in real if c["choices"] and c["choices"][0]["delta"].get("content"))
        real_pick = [real[0], real[1], real_content, real[-2], real[-1]]
        ours_pick = ours[:5]
        for r, o in zip(real_pick[:4], ours_pick[:4]):
            self.assertEqual(shape(o), shape(r))
        r_usage, o_usage = real_pick[4], ours_pick[4]
        self.assertEqual([k for k in o_usage], [k for k in r_usage])
        self.assertEqual(list(o_usage["timings"]), list(r_usage["timings"]))
        # Newer llama.cpp appends prompt_tokens_details; the rest is in the same order.
        self.assertEqual(list(o_usage["usage"])[:3], list(r_usage["usage"]))

    def test_usage_chunk_when_requested(self) -> None:
        body = self.chat_body("abcdefgh", stream_options={"include_usage": True})
        _, _, raw = split_response(self.raw_exchange(body))
        payload, _ = dechunk(raw)
        evs = events(payload)
        self.assertEqual(evs[-1], "data: [DONE]")
        usage_chunk = json.loads(evs[-2][len("data: ") :])
        finish = json.loads(evs[-3][len("data: ") :])
        self.assertEqual(usage_chunk["choices"], [])
        self.assertEqual(finish["choices"][0]["finish_reason"], "stop")
        self.assertNotIn("timings", finish, "timings ride on the last chunk only")
        usage = usage_chunk["usage"]
        self.assertEqual(usage["total_tokens"], usage["prompt_tokens"] + usage["completion_tokens"])
        self.assertEqual(usage["prompt_tokens_details"], {"cached_tokens": 0})
        self.assertIn("timings", usage_chunk)

    def test_usage_step_overrides_request(self) -> None:
        self.script([{"reply": "hi", "usage": True}, {"reply": "hi", "usage": False}])
        payload, _ = dechunk(split_response(self.raw_exchange(self.chat_body()))[2])
        self.assertIn('"usage":', events(payload)[-2])
        body = self.chat_body(stream_options={"include_usage": True})
        payload, _ = dechunk(split_response(self.raw_exchange(body))[2])
        self.assertNotIn('"usage":', payload.decode())

    def test_default_reply_echoes_last_user_message(self) -> None:
        body = json.dumps(
            {
                "stream": True,
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "first"},
                    {"role": "assistant", "content": "ok"},
                    {"role": "user", "content": [{"type": "text", "text": "ünïcode ✓"}]},
                ],
            }
        ).encode()
        payload, _ = dechunk(split_response(self.raw_exchange(body))[2])
        chunks = [json.loads(e[6:]) for e in events(payload)[:-1]]
        text = "".join(
            c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]
        )
        self.assertEqual(text, "You said: ünïcode ✓")
        self.assertGreater(len(chunks), 3, "the default reply comes in several chunks")
        self.assertEqual(chunks[0]["model"], "m1", "no model in request: the first listed")
        self.assertIn("✓".encode(), payload, "UTF-8 is sent raw, as llama.cpp does")
        self.assertNotIn(b"\\u", payload, "no \\u escapes")

    def test_reasoning_comes_before_content(self) -> None:
        self.script([{"reply": "42", "reasoning": "think hard", "chunk_chars": 5}])
        payload, _ = dechunk(split_response(self.raw_exchange(self.chat_body()))[2])
        deltas = [json.loads(e[6:])["choices"][0]["delta"] for e in events(payload)[1:-2]]
        self.assertEqual(
            deltas,
            [{"reasoning_content": "think"}, {"reasoning_content": " hard"}, {"content": "42"}],
        )

    def test_delay_slows_each_chunk(self) -> None:
        self.script([{"reply": "abcdef", "chunk_chars": 2, "delay_ms": 60}])
        start = time.monotonic()
        self.raw_exchange(self.chat_body())
        self.assertGreaterEqual(time.monotonic() - start, 0.17)

    def test_cut_closes_without_done_or_final_chunk(self) -> None:
        self.script([{"reply": "abcdefghijkl", "chunk_chars": 4, "cut_after_chars": 8}])
        _, _, raw = split_response(self.raw_exchange(self.chat_body()))
        payload, finished = dechunk(raw)
        self.assertFalse(finished, "a cut stream must not end the chunked body cleanly")
        text = payload.decode()
        self.assertNotIn("[DONE]", text)
        self.assertNotIn('"finish_reason":"stop"', text)
        self.assertIn('"content":"abcd"', text)
        self.assertIn('"content":"efgh"', text)
        self.assertNotIn("ijkl", text)
        # http.client, like a browser, sees the cut as an error, not a clean end.
        self.script([{"reply": "abcdefgh", "cut_after_chars": 4}])
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("POST", "/v1/chat/completions", body=self.chat_body())
        resp = conn.getresponse()
        with self.assertRaises(http.client.IncompleteRead):
            resp.read()
        conn.close()
        recorded = self.get_requests()
        self.assertFalse(recorded[-1]["completed"])

    def test_malformed_line_then_stream_goes_on(self) -> None:
        self.script([{"reply": "abcdefgh", "chunk_chars": 4, "malformed_after_chars": 4}])
        payload, finished = dechunk(split_response(self.raw_exchange(self.chat_body()))[2])
        self.assertTrue(finished)
        evs = events(payload)
        self.assertIn("data: {not json", evs)
        bad = evs.index("data: {not json")
        self.assertIn('"content":"abcd"', evs[bad - 1])
        self.assertIn('"content":"efgh"', evs[bad + 1])
        self.assertEqual(evs[-1], "data: [DONE]")

    def test_error_mid_stream_is_an_error_event_without_done(self) -> None:
        self.script(
            [{"reply": "abcdefgh", "stream_error_after_chars": 4, "error_message": "context full"}]
        )
        payload, finished = dechunk(split_response(self.raw_exchange(self.chat_body()))[2])
        self.assertTrue(finished)
        evs = events(payload)
        self.assertEqual(
            evs[-1],
            'data: {"error":{"code":500,"message":"context full","type":"server_error"}}',
        )
        self.assertNotIn("data: [DONE]", evs)

    def test_scripted_status_uses_openai_error_body(self) -> None:
        self.script([{"status": 429, "error_message": "slow down"}, {"status": 503}])
        status, headers, data = self.request("POST", "/v1/chat/completions", self.chat_body())
        self.assertEqual(status, 429)
        self.assertEqual(headers["access-control-allow-origin"], "*")
        self.assertTrue(headers["content-type"].startswith("application/json"))
        self.assertEqual(
            json.loads(data),
            {"error": {"code": 429, "message": "slow down", "type": "server_error"}},
        )
        status, _, data = self.request("POST", "/v1/chat/completions", self.chat_body())
        self.assertEqual(status, 503)
        self.assertEqual(json.loads(data)["error"]["type"], "unavailable_error")

    def test_scripted_error_body_is_sent_verbatim(self) -> None:
        self.script([{"status": 400, "error_body": "<html>bad gateway page</html>"}])
        status, _, data = self.request("POST", "/v1/chat/completions", self.chat_body())
        self.assertEqual((status, data), (400, b"<html>bad gateway page</html>"))

    def test_steps_are_consumed_in_order_then_default(self) -> None:
        self.script([{"reply": "one"}, {"reply": "two"}])
        replies = []
        for _ in range(3):
            _, _, data = self.request("POST", "/v1/chat/completions", self.chat_body("q", False))
            replies.append(json.loads(data)["choices"][0]["message"]["content"])
        self.assertEqual(replies, ["one", "two", "You said: q"])

    def test_non_streaming_answer(self) -> None:
        self.script([{"reply": "plain", "reasoning": "why"}])
        status, headers, data = self.request(
            "POST", "/v1/chat/completions", self.chat_body("x", stream=False)
        )
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "application/json; charset=utf-8")
        value = json.loads(data)
        self.assertEqual(value["object"], "chat.completion")
        self.assertRegex(value["id"], r"^chatcmpl-")
        self.assertEqual(
            value["choices"],
            [
                {
                    "finish_reason": "stop",
                    "index": 0,
                    "message": {"content": "plain", "reasoning_content": "why", "role": "assistant"},
                }
            ],
        )
        self.assertIn("usage", value)
        self.assertIn("timings", value)

    def test_models_list(self) -> None:
        status, headers, data = self.request("GET", "/v1/models")
        self.assertEqual(status, 200)
        self.assertEqual(headers["access-control-allow-origin"], "*")
        value = json.loads(data)
        self.assertEqual(value["object"], "list")
        self.assertEqual([m["id"] for m in value["data"]], ["m1", "m2"])
        self.assertTrue(all(m["object"] == "model" for m in value["data"]))

    def test_cors_preflight(self) -> None:
        status, headers, data = self.request(
            "OPTIONS",
            "/v1/chat/completions",
            headers={
                "Origin": "http://127.0.0.1:9999",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )
        self.assertEqual(status, 200)
        self.assertEqual(data, b"")
        self.assertEqual(headers["access-control-allow-origin"], "*")
        allowed = {h.strip().lower() for h in headers["access-control-allow-headers"].split(",")}
        self.assertTrue({"authorization", "content-type"} <= allowed)
        self.assertIn("POST", headers["access-control-allow-methods"])

    def test_requests_are_recorded_with_headers(self) -> None:
        self.request(
            "POST",
            "/v1/chat/completions",
            self.chat_body("remember me", False),
            headers={"Authorization": "Bearer abc", "Content-Type": "application/json"},
        )
        # The handler marks a request completed after its last write, which the client may
        # have read already: give the server's thread a moment (a loaded CI machine lost
        # this race once).
        deadline = time.monotonic() + 2.0
        recorded = self.get_requests()
        while not recorded[0]["completed"] and time.monotonic() < deadline:
            time.sleep(0.02)
            recorded = self.get_requests()
        self.assertEqual(len(recorded), 1)
        self.assertEqual(recorded[0]["body"]["messages"][0]["content"], "remember me")
        self.assertEqual(recorded[0]["headers"]["authorization"], "Bearer abc")
        self.assertEqual(recorded[0]["status"], 200)
        self.assertTrue(recorded[0]["completed"])
        self.request("POST", "/__control/reset", b"")
        self.assertEqual(self.get_requests(), [])

    def test_bad_script_is_refused(self) -> None:
        status, _, data = self.request(
            "POST", "/__control/script", json.dumps([{"replyy": "typo"}]).encode()
        )
        self.assertEqual(status, 400)
        self.assertIn("replyy", json.loads(data)["error"]["message"])

    def test_unknown_path_is_llama_cpp_404(self) -> None:
        status, _, data = self.request("GET", "/nope")
        self.assertEqual(status, 404)
        self.assertEqual(json.loads(data)["error"]["type"], "not_found_error")

    def get_requests(self) -> list:
        status, _, data = self.request("GET", "/__control/requests")
        self.assertEqual(status, 200)
        return json.loads(data)


def sse_chunks(raw: bytes) -> tuple[list[str], list[dict]]:
    """The events of a complete streamed answer and the JSON of all but [DONE]."""
    payload, finished = dechunk(split_response(raw)[2])
    assert finished, "the stream must end with the zero-length chunk"
    evs = events(payload)
    assert evs[-1] == "data: [DONE]", evs[-1]
    return evs, [json.loads(e[len("data: ") :]) for e in evs[:-1]]


class ToolCallTest(ServerCase):
    """Tool calls as llama-server --jinja streams them.

    The reference is a capture of llama-server (Qwen3-Coder, Hermes 2 Pro
    format) calling one tool, published in g0t4/ask-openai.nvim
    (lua/ask-openai/tools/notes/llama-server-tool-call.md): after the role
    chunk, `{"tool_calls":[{"index":0,"id":"…","type":"function","function":
    {"name":"run_command","arguments":""}}]}`, then pieces
    `{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]}`, then
    `{"finish_reason":"tool_calls","index":0,"delta":{}}` with timings.
    """

    server_kwargs = {"models": ["m1"]}

    def test_one_call_streams_byte_for_byte(self) -> None:
        self.script(
            [
                {
                    "tool_calls": [{"name": "echo", "arguments": {"message": "hi"}, "id": "call0"}],
                    "arguments_chunk_chars": 8,
                }
            ]
        )
        evs, chunks = sse_chunks(self.raw_exchange(self.chat_body(tools=[{"type": "function"}])))
        created, cid = chunks[0]["created"], chunks[0]["id"]
        tail = ',"created":%d,"id":"%s","model":"m1","system_fingerprint":"%s",' % (
            created,
            cid,
            openai_compat.SYSTEM_FINGERPRINT,
        ) + '"object":"chat.completion.chunk"}'

        def ev(choice: str) -> str:
            return 'data: {"choices":[' + choice + "]" + tail

        expected = [
            ev('{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}'),
            ev(
                '{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,"id":"call0",'
                '"type":"function","function":{"name":"echo","arguments":""}}]}}'
            ),
            # {"message":"hi"} (16 characters) in two 8-character pieces.
            ev(
                '{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,'
                '"function":{"arguments":"{\\"messag"}}]}}'
            ),
            ev(
                '{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,'
                '"function":{"arguments":"e\\":\\"hi\\"}"}}]}}'
            ),
        ]
        self.assertEqual(evs[: len(expected)], expected)
        self.assertEqual(len(evs), len(expected) + 2, "then the finish event and [DONE]")
        finish = chunks[-1]
        self.assertEqual(
            list(finish), ["choices", "created", "id", "model", "system_fingerprint", "object", "timings"]
        )
        self.assertEqual(
            evs[-2].split(',"created"')[0],
            'data: {"choices":[{"finish_reason":"tool_calls","index":0,"delta":{}}]',
        )
        args = "".join(
            c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for c in chunks[1:-1]
        )
        self.assertEqual(json.loads(args), {"message": "hi"})

    def test_parallel_calls_come_one_after_another_after_the_text(self) -> None:
        self.script(
            [
                {
                    "reply": "Let me check.",
                    "chunk_chars": 20,
                    "tool_calls": [
                        {"name": "get-sum", "arguments": {"a": 2, "b": 3}},
                        {"name": "echo", "arguments": '{"message":"x"}', "id": "fixed-id"},
                    ],
                    "arguments_chunk_chars": 4,
                }
            ]
        )
        _, chunks = sse_chunks(self.raw_exchange(self.chat_body()))
        deltas = [c["choices"][0]["delta"] for c in chunks[1:-1]]
        self.assertEqual(deltas[0], {"content": "Let me check."})
        calls = [d["tool_calls"] for d in deltas[1:]]
        self.assertTrue(all(len(tc) == 1 for tc in calls), "one call fragment per delta")
        indexes = [tc[0]["index"] for tc in calls]
        self.assertEqual(indexes, sorted(indexes), "call 0's deltas, then call 1's")
        self.assertEqual(set(indexes), {0, 1})
        openings = [tc[0] for tc in calls if "id" in tc[0]]
        self.assertEqual([o["function"]["name"] for o in openings], ["get-sum", "echo"])
        self.assertRegex(openings[0]["id"], r"^[0-9A-Za-z]{32}$", "llama.cpp's random id")
        self.assertEqual(openings[1]["id"], "fixed-id")
        for o in openings:
            self.assertEqual(list(o), ["index", "id", "type", "function"])
            self.assertEqual(o["function"]["arguments"], "")
        joined = {}
        for tc in calls:
            piece = tc[0]
            if "id" not in piece:
                self.assertEqual(list(piece), ["index", "function"])
                self.assertEqual(list(piece["function"]), ["arguments"])
                self.assertLessEqual(len(piece["function"]["arguments"]), 4)
            joined[piece["index"]] = joined.get(piece["index"], "") + piece["function"]["arguments"]
        self.assertEqual(json.loads(joined[0]), {"a": 2, "b": 3})
        self.assertEqual(joined[1], '{"message":"x"}', "a string is sent verbatim")
        self.assertEqual(chunks[-1]["choices"][0]["finish_reason"], "tool_calls")

    def test_repeat_quirk_repeats_id_type_and_name(self) -> None:
        self.script(
            [
                {
                    "tool_calls": [
                        {"name": "echo", "arguments": {"message": "abc"}, "id": "A"},
                        {"name": "get-sum", "arguments": {"a": 1, "b": 2}, "id": "B"},
                    ],
                    "repeat_tool_ids": True,
                    "arguments_chunk_chars": 5,
                }
            ]
        )
        _, chunks = sse_chunks(self.raw_exchange(self.chat_body()))
        pieces = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks[1:-1]]
        joined = {"A": "", "B": ""}
        for piece in pieces:
            self.assertEqual(list(piece), ["index", "id", "type", "function"])
            self.assertEqual(piece["type"], "function")
            want = {"A": (0, "echo"), "B": (1, "get-sum")}[piece["id"]]
            self.assertEqual((piece["index"], piece["function"]["name"]), want)
            self.assertLessEqual(len(piece["function"]["arguments"]), 5)
            joined[piece["id"]] += piece["function"]["arguments"]
        self.assertEqual(json.loads(joined["A"]), {"message": "abc"})
        self.assertEqual(json.loads(joined["B"]), {"a": 1, "b": 2})
        self.assertGreater(len(pieces), 4, "arguments still arrive in fragments")

    def test_broken_arguments_are_sent_as_given(self) -> None:
        self.script([{"tool_calls": [{"name": "echo", "arguments": '{"message": "unterminated'}]}])
        _, chunks = sse_chunks(self.raw_exchange(self.chat_body()))
        args = "".join(
            c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for c in chunks[1:-1]
        )
        self.assertEqual(args, '{"message": "unterminated')

    def test_reject_tools_is_llama_cpp_without_jinja_and_consumes_the_step(self) -> None:
        self.script([{"reject_tools": True, "reply": "never sent"}, {"reply": "second"}])
        status, headers, data = self.request(
            "POST", "/v1/chat/completions", self.chat_body(tools=[{"type": "function"}])
        )
        self.assertEqual(status, 500)
        self.assertEqual(headers["access-control-allow-origin"], "*")
        self.assertEqual(
            data,
            b'{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}',
        )
        _, _, data = self.request("POST", "/v1/chat/completions", self.chat_body(stream=False))
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "second")
        recorded = self.get_requests()
        self.assertEqual([r["status"] for r in recorded], [500, 200])
        self.assertEqual(recorded[0]["body"]["tools"], [{"type": "function"}])

    def test_reject_tools_without_tools_is_a_normal_step_and_status_can_change(self) -> None:
        self.script([{"reject_tools": True, "reply": "plain answer"}, {"reject_tools": 400}])
        _, _, data = self.request("POST", "/v1/chat/completions", self.chat_body(stream=False))
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "plain answer")
        status, _, data = self.request(
            "POST", "/v1/chat/completions", self.chat_body(tools=[{"type": "function"}])
        )
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(data)["error"]["message"], "tools param requires --jinja flag")
        self.assertEqual(json.loads(data)["error"]["type"], "invalid_request_error")

    def test_system_first_refuses_a_second_system_message_as_llama_cpp_does(self) -> None:
        self.script([{"system_first": True, "reply": "never sent"}, {"system_first": True, "reply": "one"}])
        two = self.chat_body(
            stream=False,
            messages=[
                {"role": "system", "content": "A"},
                {"role": "system", "content": "B"},
                {"role": "user", "content": "hi"},
            ],
        )
        status, _, data = self.request("POST", "/v1/chat/completions", two)
        self.assertEqual(status, 400)
        error = json.loads(data)["error"]
        self.assertEqual(error["type"], "invalid_request_error")
        self.assertTrue(
            error["message"].endswith("Jinja Exception: System message must be at the beginning."),
            error["message"],
        )
        one = self.chat_body(
            stream=False,
            messages=[{"role": "system", "content": "A\n\nB"}, {"role": "user", "content": "hi"}],
        )
        _, _, data = self.request("POST", "/v1/chat/completions", one)
        self.assertEqual(json.loads(data)["choices"][0]["message"]["content"], "one")

    def test_non_streamed_calls_come_whole(self) -> None:
        self.script(
            [{"tool_calls": [{"name": "echo", "arguments": {"message": "hi"}, "id": "c1"}]}]
        )
        status, _, data = self.request("POST", "/v1/chat/completions", self.chat_body(stream=False))
        self.assertEqual(status, 200)
        value = json.loads(data)
        choice = value["choices"][0]
        self.assertEqual(choice["finish_reason"], "tool_calls")
        # Exact bytes of the message, in common_chat_msg::to_json_oaicompat's key order.
        self.assertIn(
            '"message":{"role":"assistant","content":null,"tool_calls":[{"type":"function",'
            '"function":{"name":"echo","arguments":"{\\"message\\":\\"hi\\"}"},"id":"c1"}]}}',
            data.decode(),
        )
        arguments = choice["message"]["tool_calls"][0]["function"]["arguments"]
        self.assertEqual(json.loads(arguments), {"message": "hi"})

    def test_request_log_keeps_tool_results_and_images(self) -> None:
        messages = [
            {"role": "user", "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            ]},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{}"}},
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "Echo: hi"},
        ]
        body = json.dumps({"stream": False, "messages": messages, "tools": [{"type": "function"}]})
        self.request("POST", "/v1/chat/completions", body.encode())
        recorded = self.get_requests()
        self.assertEqual(recorded[0]["body"]["messages"], messages)
        self.assertEqual(recorded[0]["body"]["tools"], [{"type": "function"}])

    def test_bad_tool_steps_are_refused(self) -> None:
        for step in (
            {"tool_calls": {"name": "x"}},
            {"tool_calls": [{"arguments": "{}"}]},
            {"tool_calls": [{"name": "x", "args": "{}"}]},
            {"tool_calls": [{"name": "x", "arguments": 3}]},
            {"arguments_chunk_chars": 0},
            {"reject_tools": "yes"},
            {"repeat_tool_ids": 1},
        ):
            status, _, data = self.request("POST", "/__control/script", json.dumps([step]).encode())
            self.assertEqual(status, 400, step)

    def get_requests(self) -> list:
        status, _, data = self.request("GET", "/__control/requests")
        self.assertEqual(status, 200)
        return json.loads(data)


class ApiKeyTest(ServerCase):
    server_kwargs = {"api_key": "sekret"}

    def test_missing_or_wrong_key_is_401(self) -> None:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            status, hdrs, data = self.request(
                "POST", "/v1/chat/completions", self.chat_body(), headers=headers
            )
            self.assertEqual(status, 401)
            self.assertEqual(hdrs["access-control-allow-origin"], "*")
            self.assertEqual(
                json.loads(data),
                {"error": {"code": 401, "message": "Invalid API Key", "type": "authentication_error"}},
            )

    def test_right_key_streams(self) -> None:
        raw = self.raw_exchange(self.chat_body(), headers="Authorization: Bearer sekret\r\n")
        status_line, _, body = split_response(raw)
        self.assertEqual(status_line, "HTTP/1.1 200 OK")
        self.assertIn(b"data: [DONE]", dechunk(body)[0])

    def test_models_and_preflight_need_no_key(self) -> None:
        self.assertEqual(self.request("GET", "/v1/models")[0], 200)
        self.assertEqual(self.request("OPTIONS", "/v1/chat/completions")[0], 200)


class ProtectedModelsTest(ServerCase):
    server_kwargs = {"api_key": "k", "protect_models": True}

    def test_models_need_the_key(self) -> None:
        self.assertEqual(self.request("GET", "/v1/models")[0], 401)
        status = self.request("GET", "/v1/models", headers={"Authorization": "Bearer k"})[0]
        self.assertEqual(status, 200)


class CommandLineTest(unittest.TestCase):
    def test_port_zero_prints_the_port_first(self) -> None:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openai_compat.py")
        proc = subprocess.Popen(
            [sys.executable, script, "--port", "0", "--models", "x,y"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            line = proc.stdout.readline().strip()
            self.assertRegex(line, r"^\d+$")
            conn = http.client.HTTPConnection("127.0.0.1", int(line), timeout=10)
            conn.request("GET", "/v1/models")
            ids = [m["id"] for m in json.loads(conn.getresponse().read())["data"]]
            conn.close()
            self.assertEqual(ids, ["x", "y"])
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            proc.stdout.close()
            proc.stderr.close()


if __name__ == "__main__":
    unittest.main()
