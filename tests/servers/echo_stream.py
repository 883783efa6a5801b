#!/usr/bin/env python3
"""Local HTTP server for Skiff's browser tests (tests/platform.rs).

Why it exists: the wasm tests need a real HTTP peer whose timing and failures we control —
chunks written with delays, bodies that break off, error statuses — and that answers CORS
like a well-behaved API, because the test page lives on the test runner's own origin.

Stdlib only. Binds 127.0.0.1 only; never expose it. Usage: echo_stream.py [PORT]
(0 or nothing = pick a free port). The chosen port is printed as stdout's first line.

Endpoints:
  OPTIONS *                        CORS preflight (echoes requested headers/method)
  ANY  /echo                       JSON {method, path, query, headers, body}; sets X-Echo-Id
                                   (exposed) and X-Hidden (not exposed)
  POST /stream?split=3,7&delay_ms  sends the request body back, chunked, cut at the given
                                   byte offsets, sleeping delay_ms between writes
  GET  /status?code=401            JSON error body with that status
  GET  /hold?hold_ms=N             one chunk "first", then silence for N ms, then "late"
  GET  /drop?mode=chunked|length|eof
                                   one chunk, then the connection is closed mid-body:
                                   chunked = no terminating chunk, length = fewer bytes than
                                   Content-Length, eof = close-delimited body (a clean end)
  GET  /dead-port                  JSON {"port": N} for a port that was just bound and closed
  GET  /nocors                     200 without any CORS headers
"""

import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "SkiffEcho/1"
    echo_counter = 0
    counter_lock = threading.Lock()

    def log_message(self, fmt, *args):
        sys.stderr.write("echo_stream: " + (fmt % args) + "\n")

    # --- helpers -------------------------------------------------------------------------

    def cors(self):
        self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin") or "*")
        self.send_header("Vary", "Origin")
        self.send_header("Access-Control-Expose-Headers", "X-Echo-Id")

    def query(self):
        parts = urlsplit(self.path)
        return parts.path, {k: v[-1] for k, v in parse_qs(parts.query).items()}

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def send_bytes(self, status, body, content_type, cors=True, extra=()):
        self.send_response(status)
        if cors:
            self.cors()
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status, obj, **kw):
        self.send_bytes(status, json.dumps(obj).encode("utf-8"), "application/json", **kw)

    def start_chunked(self, content_type="text/plain; charset=utf-8"):
        self.send_response(200)
        self.cors()
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_chunks(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def hard_close(self):
        self.wfile.flush()
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True

    # --- routes --------------------------------------------------------------------------

    def do_OPTIONS(self):
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin") or "*")
        self.send_header("Vary", "Origin")
        self.send_header("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
        requested = self.headers.get("Access-Control-Request-Headers")
        self.send_header(
            "Access-Control-Allow-Headers", requested or "Authorization, Content-Type"
        )
        if self.headers.get("Access-Control-Request-Private-Network"):
            self.send_header("Access-Control-Allow-Private-Network", "true")
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def do_DELETE(self):
        self.route()

    def route(self):
        path, q = self.query()
        try:
            handler = {
                "/echo": self.r_echo,
                "/stream": self.r_stream,
                "/status": self.r_status,
                "/hold": self.r_hold,
                "/drop": self.r_drop,
                "/dead-port": self.r_dead_port,
                "/nocors": self.r_nocors,
            }.get(path)
            if handler is None:
                self.read_body()
                self.send_json(404, {"error": {"message": "no such endpoint: " + path}})
            else:
                handler(q)
        except (BrokenPipeError, ConnectionResetError):
            # The browser aborted or dropped the request; that is what several tests do.
            self.close_connection = True

    def r_echo(self, q):
        body = self.read_body()
        with Handler.counter_lock:
            Handler.echo_counter += 1
            n = Handler.echo_counter
        self.send_json(
            200,
            {
                "method": self.command,
                "path": urlsplit(self.path).path,
                "query": q,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode("utf-8", errors="replace"),
            },
            extra=(("X-Echo-Id", "echo-%d" % n), ("X-Hidden", "not-exposed")),
        )

    def r_stream(self, q):
        body = self.read_body()
        delay = int(q.get("delay_ms", "50")) / 1000.0
        offsets = sorted({int(x) for x in q.get("split", "").split(",") if x.strip()})
        offsets = [o for o in offsets if 0 < o < len(body)]
        self.start_chunked()
        start = 0
        for i, end in enumerate(offsets + [len(body)]):
            if i > 0:
                time.sleep(delay)
            self.chunk(body[start:end])
            start = end
        self.end_chunks()

    def r_status(self, q):
        code = int(q.get("code", "500"))
        self.send_json(
            code,
            {"error": {"message": "status %d from echo_stream" % code, "code": code}},
        )

    def r_hold(self, q):
        hold = int(q.get("hold_ms", "10000")) / 1000.0
        self.start_chunked()
        self.chunk(b"first")
        deadline = time.monotonic() + hold
        while time.monotonic() < deadline:
            time.sleep(0.05)
        self.chunk(b"late")
        self.end_chunks()

    def r_drop(self, q):
        mode = q.get("mode", "chunked")
        if mode == "chunked":
            self.start_chunked()
            self.chunk(b"partial")
            time.sleep(0.2)
        elif mode in ("length", "eof"):
            self.send_response(200)
            self.cors()
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Connection", "close")
            if mode == "length":
                self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"partial")
            self.wfile.flush()
            time.sleep(0.2)
        else:
            self.send_json(400, {"error": {"message": "unknown mode " + mode}})
            return
        self.hard_close()

    def r_dead_port(self, q):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        self.send_json(200, {"port": port})

    def r_nocors(self, q):
        self.send_bytes(200, b"no cors here", "text/plain", cors=False)


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
