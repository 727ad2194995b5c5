# -*- coding: utf-8 -*-
"""The readiness gate: what "the server answers" means, checked step by step.

1. a TCP connect succeeds (while the model loads, connections are refused: keep waiting);
2. ``GET /health`` is 200;
3. ``GET /v1/models`` lists the served name;
4. one tiny ``POST /v1/completions`` returns at least one token.

While waiting, ``alive()`` is asked whether the server process still exists, so a start that
failed is reported at once instead of after the whole timeout. Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import json
import socket
import time

try:  # Python 3
    from urllib.error import HTTPError, URLError
    from urllib.request import Request, urlopen
except ImportError:  # pragma: no cover - Python 2 targets are not supported by vLLM anyway
    from urllib2 import HTTPError, Request, URLError, urlopen  # type: ignore

__metaclass__ = type


class GateResult(object):
    def __init__(self):
        self.ready = False
        self.stage = "connect"
        self.detail = ""
        self.steps = []
        self.elapsed = 0.0
        self.completion_text = None
        self.completion_tokens = None
        self.models = []

    def as_dict(self):
        return {
            "ready": self.ready,
            "stage": self.stage,
            "detail": self.detail,
            "steps": self.steps,
            "elapsed_s": round(self.elapsed, 1),
            "models": self.models,
            "completion_text": self.completion_text,
            "completion_tokens": self.completion_tokens,
        }


def _connect_host(host):
    if host in ("0.0.0.0", "", None):
        return "127.0.0.1"
    if host in ("::", "[::]"):
        return "::1"
    return host.strip("[]")


def base_url(host, port):
    host = _connect_host(host)
    if ":" in host:
        host = "[%s]" % host
    return "http://%s:%d" % (host, int(port))


def http(method, url, body=None, api_key=None, timeout=10.0):
    """Return (status, parsed JSON or text). Network errors raise URLError/socket errors."""
    data = json.dumps(body).encode("utf-8") if body is not None else None
    request = Request(url, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if api_key:
        request.add_header("Authorization", "Bearer %s" % api_key)
    try:
        response = urlopen(request, timeout=timeout)
        status, raw = response.getcode(), response.read()
    except HTTPError as err:
        status, raw = err.code, err.read()
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def port_open(host, port, timeout=2.0):
    try:
        sock = socket.create_connection((_connect_host(host), int(port)), timeout=timeout)
    except (OSError, socket.error):
        return False
    sock.close()
    return True


def wait_ready(host, port, served_name, timeout=600, interval=2.0, api_key=None,
               completion=True, alive=None, clock=time.monotonic, sleep=time.sleep,
               prompt="Hello", max_tokens=4):
    """Run the gate; return a :class:`GateResult`. ``alive()`` -> (bool, reason)."""
    result = GateResult()
    url = base_url(host, port)
    start = clock()
    deadline = start + timeout

    def out_of_time():
        return clock() >= deadline

    def step(name, detail):
        result.steps.append({"step": name, "detail": detail, "t_s": round(clock() - start, 1)})

    # 1 and 2: connection refused while loading, then /health 200
    last = ""
    while True:
        if alive is not None:
            ok, why = alive()
            if not ok:
                result.stage = "process"
                result.detail = "the server process is not running: %s" % why
                result.elapsed = clock() - start
                return result
        if port_open(host, port):
            try:
                status, _ = http("GET", url + "/health", api_key=api_key, timeout=10)
            except (URLError, OSError, socket.error) as err:
                status, last = None, "GET /health failed: %s" % err
            if status == 200:
                step("health", "GET /health 200")
                break
            if status is not None:
                last = "GET /health answered %s" % status
                result.stage = "health"
        else:
            last = "connection to %s refused (model still loading?)" % url
        if out_of_time():
            result.detail = "not ready after %ds: %s" % (timeout, last)
            result.elapsed = clock() - start
            return result
        sleep(interval)

    # 3: the served name in /v1/models
    result.stage = "models"
    try:
        status, payload = http("GET", url + "/v1/models", api_key=api_key, timeout=30)
    except (URLError, OSError, socket.error) as err:
        result.detail = "GET /v1/models failed: %s" % err
        result.elapsed = clock() - start
        return result
    names = []
    if status == 200 and isinstance(payload, dict):
        names = [m.get("id") for m in payload.get("data", []) if isinstance(m, dict)]
    result.models = names
    if served_name not in names:
        result.detail = "GET /v1/models answered %s and lists %s, not %r" % (
            status, names or "no model", served_name)
        result.elapsed = clock() - start
        return result
    step("models", "GET /v1/models lists %s" % served_name)

    # 4: one tiny completion returns tokens
    if completion:
        result.stage = "completion"
        body = {"model": served_name, "prompt": prompt, "max_tokens": max_tokens,
                "temperature": 0}
        try:
            status, payload = http("POST", url + "/v1/completions", body=body, api_key=api_key,
                                   timeout=120)
        except (URLError, OSError, socket.error) as err:
            result.detail = "POST /v1/completions failed: %s" % err
            result.elapsed = clock() - start
            return result
        tokens = None
        text = None
        if status == 200 and isinstance(payload, dict):
            usage = payload.get("usage") or {}
            tokens = usage.get("completion_tokens")
            choices = payload.get("choices") or [{}]
            text = choices[0].get("text")
        if not tokens:
            result.detail = "POST /v1/completions answered %s without tokens: %s" % (
                status, str(payload)[:300])
            result.elapsed = clock() - start
            return result
        result.completion_tokens = tokens
        result.completion_text = text
        step("completion", "completion returned %d token(s)" % tokens)

    result.ready = True
    result.stage = "ready"
    result.detail = "ready: /health 200, %s listed, completion ok" % served_name
    result.elapsed = clock() - start
    return result
