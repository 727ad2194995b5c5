# -*- coding: utf-8 -*-
"""The readiness gate: what "the server answers" means, checked step by step.

1. a TCP connect succeeds (while the model loads, connections are refused: keep waiting);
2. ``GET /health`` is 200;
3. ``GET /v1/models`` lists the served name;
4. one tiny ``POST /v1/completions`` returns at least one token.

With TLS (``tls_ca`` given) every request speaks https and verifies the server's certificate
against ``tls_ca`` (PEM text or the path of a PEM file: the served certificate itself when it is
self-signed, or a CA bundle) and its name against ``tls_server_name`` (default: the address the
gate connects to, so a certificate for 127.0.0.1 needs that IP in its subjectAltName). Nothing
is left unverified: a name that does not match fails the gate with the reason.

While waiting, ``alive()`` is asked whether the server process still exists, so a start that
failed is reported at once instead of after the whole timeout. Pure standard library.
"""
from __future__ import absolute_import, division, print_function

import json
import socket
import ssl
import time

from http.client import HTTPConnection, HTTPException, HTTPSConnection, IncompleteRead
from urllib.error import HTTPError, URLError
from urllib.request import HTTPSHandler, Request, build_opener, urlopen

__metaclass__ = type

# What a request can fail with besides an HTTP status: refused or reset connections and timeouts
# (OSError, URLError) and a connection closed mid-response or a malformed one (HTTPException:
# IncompleteRead, RemoteDisconnected, BadStatusLine, LineTooLong).
NETWORK_ERRORS = (URLError, OSError, socket.error, HTTPException)
# The longest each request may take; never longer than the time the gate has left.
HEALTH_TIMEOUT_S = 10.0
MODELS_TIMEOUT_S = 30.0
COMPLETION_TIMEOUT_S = 120.0
CONNECT_TIMEOUT_S = 2.0


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


def base_url(host, port, tls=False):
    """The URL the gate talks to: a wildcard bind address is reached on loopback."""
    host = _connect_host(host)
    if ":" in host:
        host = "[%s]" % host
    return "%s://%s:%d" % ("https" if tls else "http", host, int(port))


def service_url(host, port, tls=False):
    """The URL clients use, as the summary shows it: the bind address as given (brackets for
    IPv6), https when the server has a certificate, the OpenAI API's /v1."""
    host = str(host)
    if ":" in host and not host.startswith("["):
        host = "[%s]" % host
    return "%s://%s:%d/v1" % ("https" if tls else "http", host, int(port))


def tls_context(ca):
    """A client context that verifies the server against ``ca``: PEM text (one or more
    certificates) or the path of a PEM file. The certificates given are trust anchors even when
    they are not self-signed (the served leaf itself may be given: partial chains are accepted),
    the host name is checked, TLS 1.2 at least."""
    context = ssl.create_default_context(cafile=None if _is_pem(ca) else ca,
                                         cadata=ca if _is_pem(ca) else None)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.verify_flags |= getattr(ssl, "VERIFY_X509_PARTIAL_CHAIN", 0)
    context.check_hostname = True
    context.verify_mode = ssl.CERT_REQUIRED
    return context


def _is_pem(ca):
    return isinstance(ca, str) and "-----BEGIN" in ca


class _NamedHTTPSConnection(HTTPSConnection):
    """Connects to the URL's address, but verifies (and sends as SNI) ``server_name``: the
    gate reaches a server bound to 0.0.0.0 on 127.0.0.1 while its certificate names the host."""

    def __init__(self, *args, **kwargs):
        self._server_name = kwargs.pop("server_name")
        HTTPSConnection.__init__(self, *args, **kwargs)

    def connect(self):
        HTTPConnection.connect(self)
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self._server_name)


class _NamedHTTPSHandler(HTTPSHandler):
    def __init__(self, context, server_name):
        HTTPSHandler.__init__(self, context=context)
        self._tls = (context, server_name)

    def https_open(self, req):
        context, server_name = self._tls

        def connection(host, **kwargs):
            kwargs["context"] = context
            kwargs.pop("check_hostname", None)
            return _NamedHTTPSConnection(host, server_name=server_name or host.rsplit(":", 1)[0]
                                         .strip("[]"), **kwargs)
        return self.do_open(connection, req)


MAX_BODY_BYTES = 8 * 1024 * 1024  # /v1/models and a 4-token completion are a few KiB


def _read_body(response, stop_at):
    """The body, at most MAX_BODY_BYTES, read in chunks so a server that trickles it cannot hold
    the gate past ``stop_at`` (time.monotonic(); each recv has the socket timeout besides)."""
    read = getattr(response, "read1", None) or response.read  # read1: what has arrived, no wait
    chunks, size = [], 0
    while size < MAX_BODY_BYTES:
        chunk = read(min(65536, MAX_BODY_BYTES - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if time.monotonic() > stop_at:
            raise socket.timeout("the answer was still arriving when the time was up")
    body = b"".join(chunks)
    try:
        expected = int(response.headers.get("Content-Length"))
    except (AttributeError, TypeError, ValueError):
        expected = None
    if expected is not None and size < min(expected, MAX_BODY_BYTES):
        raise IncompleteRead(body, expected - size)  # closed before the promised length
    return body


def http(method, url, body=None, api_key=None, timeout=10.0, context=None, server_name=None):
    """Return (status, parsed JSON or text). Network errors raise URLError/socket errors or
    http.client's HTTPException (a certificate that does not verify: URLError with an
    ssl.SSLCertVerificationError reason); the whole exchange ends within about ``timeout``
    seconds. ``context``: the ssl context for https (tls_context); ``server_name``: the name the
    certificate must carry (default: the URL's host)."""
    stop_at = time.monotonic() + timeout
    data = json.dumps(body).encode("utf-8") if body is not None else None
    request = Request(url, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if api_key:
        request.add_header("Authorization", "Bearer %s" % api_key)
    try:
        if context is not None:
            response = build_opener(_NamedHTTPSHandler(context, server_name)).open(
                request, timeout=timeout)
        else:
            response = urlopen(request, timeout=timeout)
    except HTTPError as err:
        response = err
    try:
        status, raw = response.getcode(), _read_body(response, stop_at)
    finally:
        response.close()
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def _positive_int(value):
    """A count of tokens: a positive int, not a bool, a float or a string."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def port_open(host, port, timeout=CONNECT_TIMEOUT_S):
    try:
        sock = socket.create_connection((_connect_host(host), int(port)), timeout=timeout)
    except (OSError, socket.error):
        return False
    sock.close()
    return True


def wait_ready(host, port, served_name, timeout=600, interval=2.0, api_key=None,
               completion=True, alive=None, clock=time.monotonic, sleep=time.sleep,
               prompt="Hello", max_tokens=4, tls_ca=None, tls_server_name=None):
    """Run the gate; return a :class:`GateResult`. ``alive()`` -> (bool, reason).
    ``tls_ca``: speak https and verify the server against it (see :func:`tls_context`);
    ``tls_server_name``: the name its certificate must carry (default: the connect address)."""
    result = GateResult()
    url = base_url(host, port, tls=bool(tls_ca))
    tls = {}
    if tls_ca:
        try:
            tls = {"context": tls_context(tls_ca), "server_name": tls_server_name or None}
        except (OSError, ssl.SSLError, ValueError) as err:
            result.stage = "tls"
            return _fail_now(result, "the CA to verify the server with cannot be loaded: %s"
                             % (_why(err),))
    start = clock()
    deadline = start + timeout

    def remaining():
        return deadline - clock()

    def out_of_time():
        return remaining() <= 0

    def bounded(limit):
        """A request's timeout: its own limit, but never past the gate's deadline."""
        return max(0.01, min(limit, remaining()))

    def step(name, detail):
        result.steps.append({"step": name, "detail": detail, "t_s": round(clock() - start, 1)})

    def fail(detail):
        result.detail = detail
        result.elapsed = clock() - start
        return result

    # 1 and 2: connection refused while loading, then /health 200
    last = ""
    while True:
        if alive is not None:
            ok, why = alive()
            if not ok:
                result.stage = "process"
                return fail("the server process is not running: %s" % why)
        if port_open(host, port, timeout=bounded(CONNECT_TIMEOUT_S)):
            try:
                status, _ = http("GET", url + "/health", api_key=api_key,
                                 timeout=bounded(HEALTH_TIMEOUT_S), **tls)
            except NETWORK_ERRORS as err:
                if _cert_error(err):  # it will not verify on the next try either
                    result.stage = "tls"
                    return fail("GET /health over https: %s; the server name checked was %r "
                                "(vllm_service_tls_server_name), verified against %s" % (
                                    _why(err), tls["server_name"] or _connect_host(host),
                                    "the PEM given" if _is_pem(tls_ca) else tls_ca))
                status, last = None, "GET /health failed: %s" % (_why(err),)
            if status == 200:
                step("health", "GET /health 200")
                break
            if status is not None:
                last = "GET /health answered %s" % status
                result.stage = "health"
        else:
            last = "connection to %s refused (model still loading?)" % url
        if out_of_time():
            return fail("not ready after %ds: %s" % (timeout, last))
        sleep(max(0.0, min(interval, remaining())))

    # 3: the served name in /v1/models
    result.stage = "models"
    if out_of_time():
        return fail("not ready after %ds: no time left for GET /v1/models" % timeout)
    try:
        status, payload = http("GET", url + "/v1/models", api_key=api_key,
                               timeout=bounded(MODELS_TIMEOUT_S), **tls)
    except NETWORK_ERRORS as err:
        return fail("GET /v1/models failed: %s" % (_why(err),))
    names = []
    data = payload.get("data") if status == 200 and isinstance(payload, dict) else None
    if isinstance(data, list):
        names = [m.get("id") for m in data if isinstance(m, dict)]
    result.models = names
    if served_name not in names:
        return fail("GET /v1/models answered %s and lists %s, not %r (body: %s)" % (
            status, names or "no model", served_name, _short(payload)))
    step("models", "GET /v1/models lists %s" % served_name)

    # 4: one tiny completion returns tokens
    if completion:
        result.stage = "completion"
        if out_of_time():
            return fail("not ready after %ds: no time left for POST /v1/completions" % timeout)
        body = {"model": served_name, "prompt": prompt, "max_tokens": max_tokens,
                "temperature": 0}
        try:
            status, payload = http("POST", url + "/v1/completions", body=body, api_key=api_key,
                                   timeout=bounded(COMPLETION_TIMEOUT_S), **tls)
        except NETWORK_ERRORS as err:
            return fail("POST /v1/completions failed: %s" % (_why(err),))
        tokens = None
        text = None
        choices = None
        if status == 200 and isinstance(payload, dict):
            usage = payload.get("usage")
            tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
            choices = payload.get("choices")
        if not _positive_int(tokens):
            return fail("POST /v1/completions answered %s without a positive completion_tokens: "
                        "%s" % (status, _short(payload)))
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return fail("POST /v1/completions answered %s without a choice: %s"
                        % (status, _short(payload)))
        text = choices[0].get("text")
        result.completion_tokens = tokens
        result.completion_text = text if isinstance(text, str) else None
        step("completion", "completion returned %d token(s)" % tokens)

    result.ready = True
    result.stage = "ready"
    result.detail = "ready: /health 200, %s listed, completion ok" % served_name
    result.elapsed = clock() - start
    return result


def _cert_error(err):
    return isinstance(getattr(err, "reason", err), ssl.SSLCertVerificationError)


def _fail_now(result, detail):
    result.detail = detail
    return result


def _why(err):
    """A network error in words (IncompleteRead's repr holds the bytes read, not the reason)."""
    reason = getattr(err, "reason", err)
    if isinstance(reason, ssl.SSLCertVerificationError):
        return "the server's certificate does not verify (%s)" % (
            getattr(reason, "verify_message", None) or reason)
    name = type(err).__name__
    text = str(err)
    if name == "IncompleteRead":
        return "the connection closed mid-response (IncompleteRead: %d bytes read)" % len(
            getattr(err, "partial", b"") or b"")
    return "%s: %s" % (name, text) if text else name


def _short(payload):
    return str(payload)[:300]


def tls_files(enabled, certfile, keyfile):
    """The server's certificate and key paths (``{certfile, keyfile}``) when it speaks https,
    else ``{}``."""
    return {"certfile": certfile, "keyfile": keyfile} if enabled else {}


def trusted_ca(enabled, ca, certfile):
    """What the readiness gate trusts: the CA given, else the served certificate itself
    (pinned); ``''`` without TLS."""
    return (ca or certfile) if enabled else ""
