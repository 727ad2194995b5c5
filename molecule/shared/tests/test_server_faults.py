"""Faults on a served host: the service comes back by itself, or stops at its start limit with the
doctor's cause in its status, under systemd and under the launcher alike.

Runs after test_server.py (the file name sorts after it): these tests restart the server. Every
wait is bounded; each test leaves the server answering as converge left it. The recovery times
are printed (run the verifier with -s, or read them in a failure's output).
"""
import base64
import json
import time

import pytest

PORT = 8000
SERVER = "^/opt/vllm/current/venv/bin/python -m vllm.entrypoints.openai.api_server"
RECOVER_S = 300  # a CPU server's start is about 30 s; RestartSec is 10
DROP_IN = "/run/systemd/system/vllm.service.d/zz-fault-test.conf"
LAUNCHER = "/usr/local/sbin/vllm-launcher"
LAUNCHER_CONFIG = "/etc/vllm/launcher.json"
TLS_CERT = "/etc/vllm/tls/cert.pem"  # where the scenario serves https
# a listener on the server's port: every start fails with "Address already in use". It binds
# with SO_REUSEADDR (a stopped server's connections in TIME_WAIT do not block it; a listener
# still does) and tries again for up to 60 s, so a server that is still closing its socket when
# the test starts the holder cannot make the holder exit unseen.
HOLDER = ("setsid python3 -c 'import socket, time\n"
          "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
          "deadline = time.time() + 60\n"
          "while True:\n"
          "    try:\n"
          "        s.bind((\"127.0.0.1\", %d)); break\n"
          "    except OSError:\n"
          "        if time.time() > deadline: raise\n"
          "        time.sleep(0.5)\n"
          "s.listen(); time.sleep(900)' "
          "> /dev/null 2>&1 < /dev/null & echo $!" % PORT)


@pytest.fixture(scope="module")
def systemd(host):
    return host.file("/run/systemd/system").is_directory and \
        host.file("/proc/1/comm").content_string.strip() == "systemd"


def main_pid(host):
    out = host.run("pgrep -o -f '%s'" % SERVER).stdout.split()
    return int(out[0]) if out else None


def health(host):
    url = "http://127.0.0.1:%d/health" % PORT
    if host.file(TLS_CERT).exists:
        url = "--cacert %s https://127.0.0.1:%d/health" % (TLS_CERT, PORT)
    return host.run("curl -s -o /dev/null -w '%{http_code}' --max-time 5 " + url).stdout.strip() == "200"


def wait(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(2)
    raise AssertionError("%s: not within %d s" % (what, seconds))


def write(host, path, text):
    host.check_output("echo %s | base64 -d > %s" % (base64.b64encode(text.encode()).decode(), path))


def status_text(host, systemd):
    if systemd:
        return host.run("systemctl status vllm --no-pager -n 30 -l").stdout
    return host.run(LAUNCHER + " status").stdout


def recover_after_kill(host, pid, what):
    assert health(host), "the server does not answer before the fault"
    host.run("kill -9 %d" % pid)
    killed = time.time()
    wait(lambda: main_pid(host) not in (None, pid) and health(host), RECOVER_S,
         "/health 200 again after kill -9 of the %s" % what)
    took = time.time() - killed
    print("recovered from kill -9 of the %s in %.1f s" % (what, took))
    return took


def test_a_killed_engine_process_comes_back_without_the_playbook(host, systemd):
    engine = host.run("pgrep -o -f '^VLLM::EngineCore'").stdout.split()
    assert engine, "no engine process (VLLM::EngineCore) found"
    took = recover_after_kill(host, int(engine[0]), "engine process")
    assert took >= 5  # started again after the restart delay, not raced at once


def test_a_killed_api_server_comes_back_without_the_playbook(host, systemd):
    pid = main_pid(host)
    assert pid
    recover_after_kill(host, pid, "API server")
    # nothing of the killed server is left behind (its engine would hold memory and the port)
    assert len(host.run("pgrep -f '^VLLM::EngineCore'").stdout.split()) == 1
    if systemd:
        assert host.run("systemctl show vllm -p NRestarts --value").stdout.strip() not in ("", "0")
    else:
        assert "restarted" in status_text(host, systemd)


def test_a_server_that_fails_every_start_stops_at_the_start_limit_naming_the_cause(host, systemd):
    holder = None
    saved = None
    try:
        if systemd:
            host.check_output("mkdir -p %s && printf '[Unit]\\nStartLimitIntervalSec=300\\n"
                              "StartLimitBurst=3\\n[Service]\\nRestartSec=1\\n' > %s" % (
                                  DROP_IN.rsplit("/", 1)[0], DROP_IN))
            host.check_output("systemctl daemon-reload && systemctl stop vllm")
        else:
            saved = host.file(LAUNCHER_CONFIG).content_string
            config = json.loads(saved)
            config.update(restart_sec=1, start_limit_burst=3, start_limit_interval=300)
            host.check_output("%s stop" % LAUNCHER)
            write(host, LAUNCHER_CONFIG, json.dumps(config))
        # the stopped server may still hold its listener for a moment: wait until the port is free
        wait(lambda: host.run("ss -Hltn sport = :%d" % PORT).stdout.strip() == "", 60,
             "port %d free after the server stopped" % PORT)
        holder = int(host.check_output(HOLDER).strip())
        wait(lambda: host.run("ss -Hltn sport = :%d" % PORT).stdout.strip() != "", 60, "the port holder")
        started = time.time()
        if systemd:
            host.run("systemctl start vllm")
            wait(lambda: host.run("systemctl is-failed vllm").stdout.strip() == "failed", RECOVER_S,
                 "the unit failed at its start limit")
            # systemd 252 keeps the last start's result (exit-code) and says why it gave up
            journal = host.run("journalctl -u vllm --no-pager -o cat --since '-5min'").stdout
            assert "Start request repeated too quickly" in journal, journal[-3000:]
        else:
            host.run("%s start" % LAUNCHER)
            wait(lambda: "failed: start limit hit" in status_text(host, systemd), RECOVER_S,
                 "the launcher gave up at its start limit")
            assert host.run("%s status" % LAUNCHER).rc == 3
        print("start limit reached after %.1f s" % (time.time() - started))
        text = status_text(host, systemd)
        assert "doctor: port_in_use" in text, text
        if systemd:  # the unit's status text, beside the exit
            assert "Status: \"last exit at " in text, text
        time.sleep(5)
        assert main_pid(host) is None  # no more starts after the limit
    finally:
        if holder:
            host.run("kill %d" % holder)
        if systemd:
            host.run("rm -f %s && systemctl daemon-reload && systemctl reset-failed vllm" % DROP_IN)
            host.run("systemctl start vllm")
        else:
            if saved is not None:
                write(host, LAUNCHER_CONFIG, saved)
            host.run("%s start" % LAUNCHER)
    wait(lambda: health(host), RECOVER_S, "/health 200 after the port was free again")
