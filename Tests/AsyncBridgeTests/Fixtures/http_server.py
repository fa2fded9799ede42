#!/usr/bin/env python3
"""A tiny HTTP server for the URLSession bridge tests (stdlib only).

Binds 127.0.0.1 on a port chosen by the OS and prints that port as its first line of
standard output. Then serves:

  GET /ok            200, body OK_BODY
  GET /status/<n>    status <n>, a short text body
  GET /slow?id=<x>   prints "slow-started <x>", then holds the request until the client
                     disconnects (prints "slow-disconnected <x>") or ~30 s pass (answers 200)

Every line on standard output is flushed at once, so the test can wait on it.
The server exits when its standard input reaches end-of-file (the test process went away)
or on SIGTERM.
"""

import os
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

OK_BODY = b"hello from the fixture server"
SLOW_LIMIT_SECONDS = 30.0
POLL_SECONDS = 0.05

_stdout_lock = threading.Lock()


def say(line):
    with _stdout_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection: a disconnect is unambiguous

    def log_message(self, format, *args):  # keep stderr quiet
        pass

    def send_body(self, status, body, content_type="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/ok":
            self.send_body(200, OK_BODY)
        elif url.path.startswith("/status/"):
            try:
                code = int(url.path[len("/status/"):])
            except ValueError:
                self.send_body(400, b"bad status")
                return
            self.send_body(code, ("status %d" % code).encode())
        elif url.path == "/slow":
            request_id = parse_qs(url.query).get("id", ["-"])[0]
            say("slow-started " + request_id)
            if self.wait_for_disconnect():
                say("slow-disconnected " + request_id)
                return
            self.send_body(200, b"slow body")
        else:
            self.send_body(404, b"no such path")

    def wait_for_disconnect(self):
        """True once the client has closed the connection; False after the time limit."""
        deadline = time.monotonic() + SLOW_LIMIT_SECONDS
        sock = self.connection
        while time.monotonic() < deadline:
            readable, _, _ = select.select([sock], [], [], POLL_SECONDS)
            if not readable:
                continue
            try:
                if sock.recv(1, socket.MSG_PEEK) == b"":
                    return True
            except OSError:
                return True
            # Unexpected extra bytes from the client: drain them and keep waiting.
            try:
                sock.recv(4096)
            except OSError:
                return True
        return False


def exit_when_stdin_closes():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        os._exit(0)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    say(str(server.server_address[1]))
    server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()
