import os

import pytest
from ansible.module_utils import basic

from vllm_testlib import free_port, load_module

vllm_ready = load_module("vllm_ready")


def test_launcher_dead_process_fails_with_log_tail(module_runner, tmp_path):
    log = tmp_path / "vllm.log"
    log.write_text("".join("line %d\n" % i for i in range(100)) + "ValueError: Head size 24 is not supported\n")
    result = module_runner(vllm_ready, {
        "port": free_port(), "served_name": "tiny", "manager": "launcher",
        "pidfile": str(tmp_path / "none.pid"), "log_file": str(log), "log_lines": 5, "timeout": 30})
    assert result["failed"] and not result["ready"]
    assert result["stage"] == "process"
    assert "no pidfile" in result["msg"]
    assert result["log_tail"][-1] == "ValueError: Head size 24 is not supported"
    assert len(result["log_tail"]) == 5
    assert result["diagnosis"]["category"] in ("unknown", "model_files", "engine_core_generic")


def test_launcher_log_is_read_from_the_last_start_only(module_runner, tmp_path):
    log = tmp_path / "vllm.log"
    log.write_text("==== vllm-launcher: starting pid 1 at x\n"
                   "OSError: [Errno 98] Address already in use\n"
                   "==== vllm-launcher: starting pid 2 at y\n"
                   "INFO: loading\n")
    result = module_runner(vllm_ready, {
        "port": free_port(), "served_name": "tiny", "manager": "launcher",
        "pidfile": str(tmp_path / "none.pid"), "log_file": str(log), "timeout": 30})
    assert result["log_tail"] == ["==== vllm-launcher: starting pid 2 at y", "INFO: loading"]
    assert result["diagnosis"]["category"] != "port_in_use"


def test_systemd_failed_unit_reads_its_invocation_journal(module_runner, monkeypatch):
    calls = []

    def run_command(self, args, **kwargs):
        calls.append(args)
        if args[:2] == ["systemctl", "show"] and "InvocationID" in args:
            return 0, "abc123\n", ""
        if args[:2] == ["systemctl", "show"]:
            return 0, "ActiveState=activating\nSubState=auto-restart\nMainPID=0\nResult=exit-code\nNRestarts=2\n", ""
        if args[0] == "journalctl":
            return 0, "boom\nOSError: [Errno 98] Address already in use\n", ""
        raise AssertionError(args)

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    result = module_runner(vllm_ready, {"port": free_port(), "served_name": "tiny", "manager": "systemd"})
    assert result["failed"] and result["stage"] == "process"
    assert "auto-restart" in result["msg"] and "restarts 2" in result["msg"]
    assert result["log_tail"][-1].endswith("Address already in use")
    assert ["journalctl", "--no-pager", "-o", "cat", "-n", "3000", "_SYSTEMD_INVOCATION_ID=abc123"] in calls
    assert result["diagnosis"]["category"] == "port_in_use"
    assert "Cause: port_in_use" in result["msg"]


def test_api_key_is_not_returned(module_runner, tmp_path):
    result = module_runner(vllm_ready, {
        "port": free_port(), "served_name": "tiny", "manager": "launcher", "api_key": "s3cret-key",
        "pidfile": str(tmp_path / "none.pid"), "log_file": str(tmp_path / "none.log")})
    assert "s3cret-key" not in repr(result)


def test_timeout_and_interval_are_checked(module_runner):
    for args in ({"timeout": 0}, {"timeout": -5}, {"interval": 0}, {"interval": -1.0}):
        result = module_runner(vllm_ready, dict({"port": free_port(), "served_name": "tiny"}, **args))
        assert result["failed"] and result["stage"] == "arguments", args
        assert "accepted" in result["msg"]


def test_a_broken_completion_answer_fails_with_a_stage(module_runner):
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, body):
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self._send(b"{}" if self.path == "/health" else json.dumps(
                {"data": [{"id": "tiny"}]}).encode())

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self._send(b'{"usage": {"completion_tokens": true}, "choices": [{"text": "x"}]}')

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        result = module_runner(vllm_ready, {"port": server.server_address[1], "served_name": "tiny",
                                            "timeout": 10, "interval": 0.1})
    finally:
        server.shutdown()
        server.server_close()
    assert result["failed"] and result["stage"] == "completion"
    assert "positive completion_tokens" in result["msg"]


def test_the_log_is_never_read_through_a_link(module_runner, tmp_path):
    secret = tmp_path / "root-only"
    secret.write_text("root:$6$hash\n")
    for plant in (os.symlink, os.link):
        log = tmp_path / "vllm.log"
        if os.path.lexists(str(log)):
            os.unlink(str(log))
        plant(str(secret), str(log))
        result = module_runner(vllm_ready, {
            "port": free_port(), "served_name": "tiny", "manager": "launcher",
            "pidfile": str(tmp_path / "none.pid"), "log_file": str(log), "timeout": 30})
        assert result["failed"] and result["stage"] == "process"
        assert "$6$hash" not in repr(result)
        assert "the log was not read" in result["log_tail"][0]


def test_the_module_speaks_https_with_tls_ca_and_fails_at_stage_tls_on_a_wrong_name(module_runner, tmp_path):
    import shutil
    import ssl
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from vllm_testlib import make_tls_cert

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key, _, _ = make_tls_cert(tmp_path, san="IP:127.0.0.1")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            body = b"{}" if self.path == "/health" else b'{"data": [{"id": "tiny"}]}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = HTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        base = {"port": server.server_address[1], "served_name": "tiny", "timeout": 10,
                "interval": 0.1, "completion": False}
        ok = module_runner(vllm_ready, dict(base, tls_ca=cert))
        wrong = module_runner(vllm_ready, dict(base, tls_ca=cert, tls_server_name="vllm.example.com"))
    finally:
        server.shutdown()
        server.server_close()
    assert ok["ready"] and not ok.get("failed"), ok
    assert wrong["failed"] and wrong["stage"] == "tls"
    assert "'vllm.example.com'" in wrong["msg"]
