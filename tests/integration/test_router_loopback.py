"""vllm-router for real, on loopback, in front of three stand-in OpenAI servers (tests/openai_stub.py).

The router is the pinned release (data/vllm_compat.yml ``router``), installed from PyPI once into
.cache/vllm-router/<version>/venv (kept between runs), and started with the command line the role
renders (vllm_router.router_argv). Every server wants the fleet's API key on /v1, as vLLM does.
Proved here: requests through the router are answered and every server answers some; streaming
passes through; the key is required (vllm-router passes the client's Authorization header through,
the servers check it); a stopped server is taken out by the health check and requests still
succeed (the router's /readiness counts it out, /health answers 503 naming it). Every loop is
bounded in count and time; all traffic goes to 127.0.0.1.
"""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
import yaml

import vllm_router
from openai_stub import MODEL, OpenAIStub
from vllm_testlib import ROOT, free_port, pypi_reachable

KEY = "fleet-key-123"
with open(os.path.join(ROOT, "data", "vllm_compat.yml")) as _handle:
    VERSION = yaml.safe_load(_handle)["router"]["version"]
VENV = os.path.join(ROOT, ".cache", "vllm-router", VERSION, "venv")
ROUTER_BIN = os.path.join(VENV, "bin", "vllm-router")


def _install():
    """The pinned vllm-router in .cache (once): a venv of this interpreter, pip from PyPI."""
    if os.path.exists(ROUTER_BIN):
        return True
    if not pypi_reachable():
        return False
    subprocess.run([sys.executable, "-m", "venv", VENV], check=True, timeout=120)
    subprocess.run([os.path.join(VENV, "bin", "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "vllm-router==%s" % VERSION], check=True, timeout=600)
    return os.path.exists(ROUTER_BIN)


@pytest.fixture(scope="module")
def router_bin():
    if not _install():
        pytest.skip("vllm-router %s is not in .cache and PyPI is unreachable" % VERSION)
    return ROUTER_BIN


def _request(url, body=None, key=KEY, timeout=10):
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = "Bearer " + key
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()
    except OSError as err:
        return None, repr(err).encode()


class Fleet:
    def __init__(self, router_bin, tmp_path, count=3):
        self.stubs = [OpenAIStub("s%d" % i, api_key=KEY).start() for i in range(count)]
        servers = vllm_router.backends(
            [s.name for s in self.stubs],
            {s.name: {"vllm_service_host": "127.0.0.1", "vllm_service_port": s.port} for s in self.stubs},
            router_host=None)
        self.port = free_port()
        settings = {"host": "127.0.0.1", "port": self.port, "policy": "round_robin", "health_interval": 1,
                    "health_timeout": 1, "health_failure_threshold": 1, "health_success_threshold": 1,
                    "request_timeout": 30, "prometheus_host": "127.0.0.1", "prometheus_port": free_port(),
                    "log_level": "info"}
        argv = vllm_router.router_argv(os.path.dirname(os.path.dirname(router_bin)), settings, servers)
        self.log = tmp_path / "router.log"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=str(tmp_path))
        self.url = "http://127.0.0.1:%d" % self.port
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            if _request(self.url + "/health", key=None, timeout=2)[0] == 200:
                return
            time.sleep(0.5)
        self.close()
        pytest.fail("the router did not answer /health within 60 s:\n" + self.log.read_text()[-3000:])

    def complete(self, prompt="hi", stream=False, key=KEY):
        return _request(self.url + "/v1/completions", {"model": MODEL, "prompt": prompt, "max_tokens": 3,
                                                      "stream": stream}, key=key)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        for stub in self.stubs:
            stub.stop()


@pytest.fixture
def fleet(router_bin, tmp_path):
    fleet = Fleet(router_bin, tmp_path)
    yield fleet
    fleet.close()


def _backend(body):
    return json.loads(body)["backend"]


def test_requests_are_answered_and_spread_over_every_server(fleet):
    answered = []
    for i in range(12):
        status, body = fleet.complete("prompt %d" % i)
        assert status == 200, body
        answered.append(_backend(body))
    assert set(answered) == {"s0", "s1", "s2"}
    assert all(stub.completions() >= 1 for stub in fleet.stubs)
    status, body = _request(fleet.url + "/v1/models")
    assert status == 200 and MODEL in body.decode()


def test_streaming_passes_through(fleet):
    status, body = fleet.complete(stream=True)
    assert status == 200, body
    events = [line[len(b"data: "):] for line in body.split(b"\n") if line.startswith(b"data: ")]
    assert events[-1] == b"[DONE]"
    chunks = [json.loads(event) for event in events[:-1]]
    assert len(chunks) == 3
    assert "".join(c["choices"][0]["text"] for c in chunks).startswith("from s")


def test_the_api_key_is_required(fleet):
    for key in (None, "wrong-key"):
        status, _ = fleet.complete(key=key)
        assert status == 401
    status, _ = _request(fleet.url + "/v1/models", key=None)
    assert status == 401
    assert fleet.complete()[0] == 200
    # the key reached the server only as the client sent it; no request of the router's own
    # carried another
    sent = {auth for stub in fleet.stubs for path, auth in stub.requests if path.startswith("/v1")}
    assert sent <= {None, "Bearer wrong-key", "Bearer " + KEY}


def test_a_stopped_server_is_taken_out_and_requests_still_succeed(fleet):
    stopped = fleet.stubs[1]
    stopped.stop()
    # health checks every second, one failure takes a server out: the router's /readiness
    # counts two healthy servers and /health (503) names the stopped one, within a bounded wait
    deadline = time.monotonic() + 30
    readiness = {}
    for _ in range(60):
        status, body = _request(fleet.url + "/readiness", key=None, timeout=2)
        readiness = json.loads(body) if status == 200 else {}
        if readiness.get("healthy_workers") == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert readiness == {"status": "ready", "healthy_workers": 2, "total_workers": 3}, fleet.log.read_text()[-3000:]
    status, body = _request(fleet.url + "/health", key=None)
    assert status == 503 and stopped.url.encode() in body
    answered = []
    for i in range(12):
        status, body = fleet.complete("after %d" % i)
        assert status == 200, body
        answered.append(_backend(body))
    assert set(answered) == {"s0", "s2"}


def _admin(url, method="POST", timeout=60):
    req = urllib.request.Request(url, data=b"" if method == "POST" else None, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_a_drained_server_gets_no_request_until_it_is_added_back(fleet):
    """What vllm_rollout's drain does, with the URLs vllm_router.drain_plan computes: remove the
    server on the router's loopback admin port, requests go to the others only, add it back."""
    hostvars = {s.name: {"vllm_service_host": "127.0.0.1", "vllm_service_port": s.port} for s in fleet.stubs}
    hostvars["router"] = {"vllm_router_host": "127.0.0.1", "vllm_router_port": fleet.port}
    names = [s.name for s in fleet.stubs]
    # the router is this host: the servers' loopback addresses are its to reach
    plan = vllm_router.drain_plan("s1", {k: v for k, v in hostvars.items()}, names, [])
    assert plan["routers"] == []
    plan = {"worker_url": fleet.stubs[1].url.rstrip("/"),
            "routers": [{"name": "router", "list_url": fleet.url + "/list_workers",
                         "remove_url": fleet.url + "/remove_worker?url=" + urllib.parse.quote(
                             fleet.stubs[1].url.rstrip("/"), safe=""),
                         "add_url": fleet.url + "/add_worker?url=" + urllib.parse.quote(
                             fleet.stubs[1].url.rstrip("/"), safe="")}]}
    router = plan["routers"][0]
    status, body = _admin(router["list_url"], "GET")
    listed = json.loads(body)
    print("list_workers:", listed)
    backends = vllm_router.backends(names, hostvars)
    assert [w["state"] for w in vllm_router.workers_state(backends, listed)] == ["healthy", "healthy", "healthy"]
    status, body = _admin(router["remove_url"])
    print("remove_worker:", status, body)
    assert status == 200, body
    states = vllm_router.workers_state(backends, json.loads(_admin(router["list_url"], "GET")[1]))
    assert [w["state"] for w in states] == ["healthy", "out", "healthy"]
    answered = {_backend(fleet.complete("drained %d" % i)[1]) for i in range(9)}
    assert answered == {"s0", "s2"}
    status, body = _admin(router["remove_url"])
    print("remove_worker again:", status, body)
    status, body = _admin(router["add_url"])
    print("add_worker:", status, body)
    assert status == 200, body
    states = vllm_router.workers_state(backends, json.loads(_admin(router["list_url"], "GET")[1]))
    assert [w["state"] for w in states] == ["healthy", "healthy", "healthy"]
    status, body = _admin(router["add_url"])
    print("add_worker again:", status, body)
    answered = {_backend(fleet.complete("back %d" % i)[1]) for i in range(9)}
    assert answered == {"s0", "s1", "s2"}
