import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

import vllm_readiness as r
from vllm_testlib import free_port


class FakeVllm(object):
    """A stand-in server whose answers each test scripts."""

    def __init__(self, health=(200,), models=("tiny",), tokens=2, key=None):
        self.health = list(health)
        self.models = list(models)
        self.tokens = tokens
        self.key = key
        self.requests = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code, payload):
                body = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _authorised(self):
                if fake.key and self.headers.get("Authorization") != "Bearer " + fake.key:
                    self._send(401, {"error": "Unauthorized"})
                    return False
                return True

            def do_GET(self):
                fake.requests.append(("GET", self.path))
                if self.path == "/health":
                    code = fake.health.pop(0) if len(fake.health) > 1 else fake.health[0]
                    self._send(code, {})
                elif self._authorised():
                    self._send(200, {"object": "list", "data": [{"id": m} for m in fake.models]})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                fake.requests.append(("POST", self.path, body))
                if self._authorised():
                    self._send(200, {"choices": [{"text": " hi" * fake.tokens}],
                                     "usage": {"completion_tokens": fake.tokens}})

        self.port = free_port()
        self.server = HTTPServer(("127.0.0.1", self.port), Handler)

    def start(self):
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def test_ready_after_503_then_200():
    fake = FakeVllm(health=(503, 503, 200)).start()
    try:
        result = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=10, interval=0.01)
    finally:
        fake.stop()
    assert result.ready, result.detail
    assert [s["step"] for s in result.steps] == ["health", "models", "completion"]
    assert result.completion_tokens == 2
    post = [req for req in fake.requests if req[0] == "POST"][0]
    assert post[2]["model"] == "tiny" and post[2]["max_tokens"] == 4


def test_waits_through_connection_refused_until_the_port_opens():
    fake = FakeVllm()
    timer = threading.Timer(0.3, fake.start)
    timer.start()
    try:
        result = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=10, interval=0.05)
    finally:
        timer.join()
        fake.stop()
    assert result.ready, result.detail


def test_served_name_missing_fails_at_models():
    fake = FakeVllm(models=("other",)).start()
    try:
        result = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=5, interval=0.01)
    finally:
        fake.stop()
    assert not result.ready
    assert result.stage == "models"
    assert "['other']" in result.detail and "'tiny'" in result.detail


def test_completion_without_tokens_fails():
    fake = FakeVllm(tokens=0).start()
    try:
        result = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=5, interval=0.01)
    finally:
        fake.stop()
    assert not result.ready and result.stage == "completion"


def test_api_key_is_sent():
    fake = FakeVllm(key="s3cret").start()
    try:
        bad = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=5, interval=0.01)
        good = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=5, interval=0.01,
                            api_key="s3cret")
    finally:
        fake.stop()
    assert not bad.ready and "401" in bad.detail
    assert good.ready


def test_times_out_with_the_last_reason():
    port = free_port()
    now = [0.0]
    result = r.wait_ready("127.0.0.1", port, "tiny", timeout=30, interval=5,
                          clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
    assert not result.ready
    assert result.stage == "connect"
    assert "not ready after 30s" in result.detail and "refused" in result.detail


def test_dead_process_ends_the_wait_at_once():
    port = free_port()
    calls = []

    def alive():
        calls.append(1)
        return (len(calls) < 3, "vllm.service is failed (failed), result exit-code")

    result = r.wait_ready("127.0.0.1", port, "tiny", timeout=600, interval=0.01, alive=alive)
    assert not result.ready and result.stage == "process"
    assert "exit-code" in result.detail
    assert result.elapsed < 5


@pytest.mark.parametrize("host,url", [("0.0.0.0", "http://127.0.0.1:8000"),
                                      ("::", "http://[::1]:8000"),
                                      ("10.0.0.5", "http://10.0.0.5:8000")])
def test_base_url_connects_to_loopback_for_wildcards(host, url):
    assert r.base_url(host, 8000) == url
