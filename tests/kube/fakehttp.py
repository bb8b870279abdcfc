"""The request handler the fake servers share: the fake API server's two (fake_apiserver.py),
the API proxy's (api_proxy.py) and the benchmark's fake GitHub (scripts/bench_github.py).

HTTP/1.1 (keep-alive, as the clients expect), quiet (no access log on stderr), answers sent
at once, the request body read by its Content-Length and JSON answered with its length.
"""

import json
import socket
from http.server import BaseHTTPRequestHandler


class FakeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The Content-Type of `send_json`; a fake of GitHub says GitHub's.
    content_type = "application/json"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        # Answers go out at once: without this, Nagle's algorithm holds a body written
        # after its headers until the client's delayed ACK, 40 ms per request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def request_body(self):
        """The request's body (bytes), or None without one."""
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else None

    def json_body(self):
        """The request's body as JSON, or None without one."""
        body = self.request_body()
        return json.loads(body) if body else None

    def send_json(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
