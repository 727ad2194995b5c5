"""vllm_cluster_reach: a listener that lives a bounded time, and a probe that fails naming the port."""
import socket
import time

from vllm_testlib import free_port, load_module

reach = load_module("vllm_cluster_reach")


def test_listener_then_probe_passes(module_runner):
    port = free_port()
    result = module_runner(reach, {"state": "listening", "ports": [port], "bind": "127.0.0.1", "duration": 5})
    assert result["listening"] == [port] and not result["changed"]
    result = module_runner(reach, {"state": "reached", "this_host": "n1", "timeout": 1, "deadline": 3,
                                   "targets": [{"host": "n2", "address": "127.0.0.1", "port": port}]})
    assert not result.get("failed") and result["results"][0]["ok"]


def test_listener_exits_by_itself():
    port = free_port()
    reach.listen("127.0.0.1", [port], 1)
    time.sleep(2.5)
    probe = reach.probe("127.0.0.1", port, 0.5, 0.5)
    assert not probe["ok"]


def test_port_already_listening_counts(module_runner):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    port = sock.getsockname()[1]
    try:
        result = module_runner(reach, {"state": "listening", "ports": [port], "bind": "127.0.0.1", "duration": 2})
        assert result["already"] == [port] and result["listening"] == []
    finally:
        sock.close()


def test_blocked_port_fails_naming_node_and_port(module_runner):
    port = free_port()
    start = time.monotonic()
    result = module_runner(reach, {"state": "reached", "this_host": "n1", "timeout": 0.5, "deadline": 1.5,
                                   "targets": [{"host": "n2", "address": "127.0.0.1", "port": port}]})
    assert result["failed"]
    assert "n1 cannot reach n2 at 127.0.0.1 port %d" % port in result["msg"]
    assert "firewall" in result["msg"]
    assert time.monotonic() - start < 5


def test_duration_is_bounded(module_runner):
    result = module_runner(reach, {"state": "listening", "ports": [free_port()], "duration": 3600})
    assert result["failed"] and "1 to 600" in result["msg"]
