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


# --- hostile or broken answers: a stage and a reason, never a traceback or a long hang ---------
import socketserver  # noqa: E402
import time  # noqa: E402

HEALTH_OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"


def _json(payload, status=b"200 OK"):
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return (b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)


MODELS_OK = _json({"data": [{"id": "tiny"}]})


class RawServer(object):
    """A loopback server that answers each path with scripted raw bytes: a callable of the
    handler (to hang or close early) or bytes. Hanging handlers wait at most 10 s."""

    def __init__(self, answers):
        self.release = threading.Event()
        server = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                line = self.rfile.readline().decode("latin-1")
                length = 0
                while True:
                    header = self.rfile.readline()
                    if header in (b"\r\n", b"\n", b""):
                        break
                    if header.lower().startswith(b"content-length:"):
                        length = int(header.split(b":", 1)[1])
                if length:
                    self.rfile.read(length)
                path = line.split(" ")[1] if " " in line else ""
                answer = answers.get(path, b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                if callable(answer):
                    answer(self, server)
                else:
                    self.wfile.write(answer)

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def _hang(handler, server):
    server.release.wait(10)


def _truncated(handler, server):
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n"
                        b'{"usage": ')
    handler.wfile.flush()


def _close_at_once(handler, server):
    pass  # the connection closes with no status line: RemoteDisconnected


def _gate(answers, timeout=5, **kwargs):
    with RawServer(answers) as raw:
        began = time.monotonic()
        result = r.wait_ready("127.0.0.1", raw.port, "tiny", timeout=timeout, interval=0.01,
                              **kwargs)
        return result, time.monotonic() - began


@pytest.mark.parametrize("body", [b"0", {"data": None}, {"data": 5}, {"data": [None, 3, "x"]},
                                  b"[]", b"null", b"not json"])
def test_odd_models_answers_fail_at_models(body):
    result, _ = _gate({"/health": HEALTH_OK, "/v1/models": _json(body)})
    assert not result.ready and result.stage == "models", result.detail
    assert "not 'tiny'" in result.detail


@pytest.mark.parametrize("body", [
    b"0", {"data": None}, {"usage": None}, {"usage": [], "choices": 5},
    {"usage": {"completion_tokens": True}, "choices": [{"text": "x"}]},
    {"usage": {"completion_tokens": -1}, "choices": [{"text": "x"}]},
    {"usage": {"completion_tokens": 0}, "choices": [{"text": "x"}]},
    {"usage": {"completion_tokens": "3"}, "choices": [{"text": "x"}]},
    {"usage": {"completion_tokens": 2.0}, "choices": [{"text": "x"}]},
    {"usage": {"completion_tokens": 2}, "choices": []},
    {"usage": {"completion_tokens": 2}},
    {"usage": {"completion_tokens": 2}, "choices": ["x"]},
    {"usage": {"completion_tokens": 2}, "choices": None},
])
def test_a_completion_passes_only_with_positive_tokens_and_a_choice(body):
    result, _ = _gate({"/health": HEALTH_OK, "/v1/models": MODELS_OK,
                       "/v1/completions": _json(body)})
    assert not result.ready and result.stage == "completion", result.detail


def test_a_completion_with_tokens_and_a_choice_passes():
    body = {"usage": {"completion_tokens": 3}, "choices": [{"text": " hi"}]}
    result, _ = _gate({"/health": HEALTH_OK, "/v1/models": MODELS_OK,
                       "/v1/completions": _json(body)})
    assert result.ready and result.completion_tokens == 3 and result.completion_text == " hi"


def test_a_response_cut_short_gives_a_stage_and_reason():
    result, _ = _gate({"/health": HEALTH_OK, "/v1/models": MODELS_OK,
                       "/v1/completions": _truncated})
    assert not result.ready and result.stage == "completion"
    assert "closed mid-response" in result.detail


def test_a_connection_closed_without_an_answer_gives_a_stage_and_reason():
    result, _ = _gate({"/health": HEALTH_OK, "/v1/models": _close_at_once})
    assert not result.ready and result.stage == "models"
    assert "RemoteDisconnected" in result.detail


def test_an_error_status_cut_short_gives_a_stage_and_reason():
    def cut(handler, server):
        handler.wfile.write(b"HTTP/1.1 500 Oops\r\nContent-Length: 50\r\nConnection: close\r\n\r\nx")
    result, _ = _gate({"/health": HEALTH_OK, "/v1/models": cut})
    assert not result.ready and result.stage == "models"


@pytest.mark.parametrize("hang_at, stage", [("/v1/models", "models"),
                                             ("/v1/completions", "completion")])
def test_inner_timeouts_end_at_the_gate_deadline(hang_at, stage):
    answers = {"/health": HEALTH_OK, "/v1/models": MODELS_OK, hang_at: _hang}
    result, took = _gate(answers, timeout=1.5)
    assert not result.ready and result.stage == stage, result.detail
    assert took < 4, took  # not the 30 s / 120 s of the request's own limit


def test_a_hanging_health_check_ends_at_the_gate_deadline():
    result, took = _gate({"/health": _hang}, timeout=1.0)
    assert not result.ready and "not ready after 1s" in result.detail
    assert took < 4, took


def test_no_request_starts_after_the_deadline():
    now = [0.0]

    def clock():
        now[0] += 0.6  # each look at the clock costs 0.6 s: /health passes, then time is up
        return now[0]

    with RawServer({"/health": HEALTH_OK, "/v1/models": MODELS_OK}) as raw:
        result = r.wait_ready("127.0.0.1", raw.port, "tiny", timeout=2, interval=0.01,
                              clock=clock)
    assert not result.ready and "no time left" in result.detail


def test_a_trickled_answer_ends_at_the_gate_deadline():
    def trickle(handler, server):
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n")
        for _ in range(100):  # one byte every 0.1 s: each recv is quick, the whole is not
            if server.release.wait(0.1):
                return
            handler.wfile.write(b" ")
            handler.wfile.flush()

    result, took = _gate({"/health": HEALTH_OK, "/v1/models": trickle}, timeout=1.5)
    assert not result.ready and result.stage == "models", result.detail
    assert "still arriving" in result.detail
    assert took < 4, took


def test_an_endless_answer_is_cut_at_the_size_limit(monkeypatch):
    monkeypatch.setattr(r, "MAX_BODY_BYTES", 1000)
    big = _json({"data": [{"id": "tiny"}], "pad": "x" * 5000})
    result, _ = _gate({"/health": HEALTH_OK, "/v1/models": big})
    assert not result.ready and result.stage == "models"  # cut JSON: the name is not listed


# --- TLS: a real https server on 127.0.0.1 with a certificate made for the test ----------------
import shutil  # noqa: E402
import ssl  # noqa: E402

from vllm_testlib import make_tls_cert  # noqa: E402

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")


def tls_server(cert, keyfile, **kwargs):
    fake = FakeVllm(**kwargs)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, keyfile)
    fake.server.socket = context.wrap_socket(fake.server.socket, server_side=True)
    return fake.start()


@needs_openssl
def test_the_gate_speaks_https_and_verifies_the_self_signed_certificate(tmp_path):
    cert, key, cert_text, _ = make_tls_cert(tmp_path)
    fake = tls_server(cert, key, key="sk-tls")
    try:
        for ca in (cert, cert_text):  # a path or the PEM text
            result = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=10, interval=0.05,
                                  api_key="sk-tls", tls_ca=ca)
            assert result.ready, result.as_dict()
        # the name checked may differ from the address connected to (a bind on 0.0.0.0)
        result = r.wait_ready("0.0.0.0", fake.port, "tiny", timeout=10, interval=0.05,
                              api_key="sk-tls", tls_ca=cert, tls_server_name="localhost")
        assert result.ready, result.as_dict()
    finally:
        fake.stop()
    assert ("GET", "/health") in fake.requests


@needs_openssl
def test_a_certificate_for_another_name_fails_the_gate_at_once(tmp_path):
    cert, key, _, _ = make_tls_cert(tmp_path, san="DNS:vllm.example.com")
    fake = tls_server(cert, key)
    try:
        result = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=20, interval=0.05, tls_ca=cert)
        assert not result.ready and result.stage == "tls"
        assert "does not verify" in result.detail and "'127.0.0.1'" in result.detail
        assert result.elapsed < 5  # not after the whole timeout
        named = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=10, interval=0.05,
                             tls_ca=cert, tls_server_name="vllm.example.com")
        assert named.ready, named.as_dict()
    finally:
        fake.stop()


@needs_openssl
def test_a_server_with_another_certificate_is_not_trusted(tmp_path):
    cert, key, _, _ = make_tls_cert(tmp_path)
    other, _, _, _ = make_tls_cert(tmp_path, name="other")
    fake = tls_server(cert, key)
    try:
        result = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=10, interval=0.05, tls_ca=other)
    finally:
        fake.stop()
    assert not result.ready and result.stage == "tls"
    assert "certificate verify failed" in result.detail or "self-signed" in result.detail


@needs_openssl
def test_plain_http_to_a_tls_server_does_not_pass(tmp_path):
    cert, key, _, _ = make_tls_cert(tmp_path)
    fake = tls_server(cert, key)
    try:
        result = r.wait_ready("127.0.0.1", fake.port, "tiny", timeout=1, interval=0.05)
    finally:
        fake.stop()
    assert not result.ready


def test_an_unreadable_ca_fails_at_stage_tls(tmp_path):
    result = r.wait_ready("127.0.0.1", 1, "tiny", timeout=1, tls_ca=str(tmp_path / "missing.pem"))
    assert not result.ready and result.stage == "tls" and "cannot be loaded" in result.detail


@pytest.mark.parametrize("host, tls, url", [
    ("127.0.0.1", False, "http://127.0.0.1:8000/v1"),
    ("0.0.0.0", True, "https://0.0.0.0:8000/v1"),
    ("::", True, "https://[::]:8000/v1"),
])
def test_service_url(host, tls, url):
    assert r.service_url(host, 8000, tls) == url
    assert r.base_url(host, 8000, tls).startswith("https://" if tls else "http://")
