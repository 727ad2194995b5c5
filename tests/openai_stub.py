"""A stand-in for a vLLM server on loopback: the endpoints a router and a readiness check use.

``OpenAIStub(name, api_key=None)`` listens on 127.0.0.1 (a free port) and answers, like vLLM:
``GET /health`` (200, empty body), ``GET /v1/models``, ``POST /v1/completions`` and
``POST /v1/chat/completions`` (plain JSON, or Server-Sent Events ending in ``data: [DONE]`` when
the body asks for ``"stream": true``) and ``GET /metrics`` (a few of vLLM's gauges). With an API
key, the ``/v1`` endpoints want ``Authorization: Bearer <key>`` (401 otherwise) and ``/health``
and ``/metrics`` do not, as vLLM's own check does. Every completion names the stub
(``"backend": name`` and the text ``"from <name>"``), so a test can count which backend answered;
``requests`` keeps (path, Authorization header) of each request; ``stop()`` closes the port and
the open keep-alive connections (a proxy's pooled connection must not outlive the server).
Nothing but loopback is bound.
"""
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "stub-model"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: pytest shows the assertion, not the access log
        pass

    def setup(self):
        super().setup()
        with self.server.stub.lock:
            self.server.stub.connections.add(self.connection)

    def finish(self):
        with self.server.stub.lock:
            self.server.stub.connections.discard(self.connection)
        super().finish()

    @property
    def stub(self):
        return self.server.stub

    def _send(self, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self):
        key = self.stub.api_key
        if key and self.headers.get("Authorization") != "Bearer " + key:
            self._send(401, {"error": "Unauthorized"})
            return False
        return True

    def _note(self):
        with self.stub.lock:
            self.stub.requests.append((self.path, self.headers.get("Authorization")))

    def do_GET(self):  # noqa: N802 - the http.server interface
        self._note()
        if self.path in ("/health", "/ping"):
            self._send(200, b"", "text/plain")
        elif self.path == "/metrics":
            text = ("vllm:num_requests_running{model_name=\"%s\"} 0\n"
                    "vllm:num_requests_waiting{model_name=\"%s\"} 0\n"
                    "vllm:kv_cache_usage_perc{model_name=\"%s\"} 0.0\n" % (MODEL, MODEL, MODEL))
            self._send(200, text.encode(), "text/plain; version=0.0.4")
        elif self.path == "/v1/models":
            if self._authorized():
                self._send(200, {"object": "list", "data": [
                    {"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL}]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):  # noqa: N802 - the http.server interface
        self._note()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path not in ("/v1/completions", "/v1/chat/completions"):
            self._send(404, {"error": "not found"})
            return
        if not self._authorized():
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, {"error": "bad json"})
            return
        chat = self.path.endswith("chat/completions")
        words = ["from", self.stub.name, "ok"]
        if body.get("stream"):
            self._stream(words, chat)
            return
        text = " ".join(words)
        choice = {"index": 0, "finish_reason": "stop"}
        choice.update({"message": {"role": "assistant", "content": text}} if chat else {"text": text})
        self._send(200, {"id": "cmpl-%s" % self.stub.name, "object": "chat.completion" if chat else "text_completion",
                         "model": MODEL, "backend": self.stub.name, "choices": [choice],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4}})

    def _stream(self, words, chat):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for word in words:
            delta = {"delta": {"content": word + " "}} if chat else {"text": word + " "}
            delta["index"] = 0
            event = {"id": "cmpl-%s" % self.stub.name, "model": MODEL, "backend": self.stub.name,
                     "choices": [delta]}
            self._chunk(b"data: " + json.dumps(event).encode() + b"\n\n")
        self._chunk(b"data: [DONE]\n\n")
        self._chunk(b"")

    def _chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


class OpenAIStub:
    """One stand-in server; ``start()`` then ``url``; ``stop()`` closes its port."""

    def __init__(self, name, api_key=None, port=0):
        self.name = name
        self.api_key = api_key
        self.requests = []
        self.connections = set()
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._server.daemon_threads = True
        self._server.stub = self
        self.port = self._server.server_address[1]
        self._thread = None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def start(self):
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        """Close the port and every open (keep-alive) connection: the server is gone."""
        if self._thread is not None:
            self._server.shutdown()
            self._thread = None
        self._server.server_close()
        with self.lock:
            connections = list(self.connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def completions(self):
        """How many completion requests reached this stub."""
        with self.lock:
            return sum(1 for path, _ in self.requests if path.endswith("completions"))
