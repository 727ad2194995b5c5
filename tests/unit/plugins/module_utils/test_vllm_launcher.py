import io
import json
import os
import sys
import time

import pytest

import vllm_launcher as L

CHILD = """
import json, os, sys, time
with open(sys.argv[1], "w") as f:
    json.dump(dict(os.environ), f)
if sys.argv[2] == "crash":
    sys.exit(3)
time.sleep(120)
"""


@pytest.fixture
def config(tmp_path):
    script = tmp_path / "server.py"
    script.write_text(CHILD)
    env = tmp_path / "vllm.env"
    env.write_text('# managed\nFOO="bar baz"\nQUOTED="a \\"b\\""\n')
    cfg = {
        "argv": [sys.executable, str(script), str(tmp_path / "env.json"), "run", "--config",
                 str(tmp_path / "vllm.yaml")],
        "marker": str(tmp_path / "vllm.yaml"),
        "env_files": [str(env), "-" + str(tmp_path / "missing-secrets.env")],
        "pidfile": str(tmp_path / "run" / "vllm.pid"),
        "log_file": str(tmp_path / "vllm.log"),
        "workdir": str(tmp_path),
        "stop_timeout": 5,
    }
    path = tmp_path / "launcher.json"
    path.write_text(json.dumps(cfg))
    yield L.load_config(str(path)), tmp_path
    L.stop(L.load_config(str(path)), out=io.StringIO())


def wait_for(path, seconds=10):
    deadline = time.time() + seconds
    while not os.path.exists(path) and time.time() < deadline:
        time.sleep(0.05)
    assert os.path.exists(path)


def test_start_status_stop(config):
    cfg, tmp = config
    out = io.StringIO()
    assert L.start(cfg, out) == 0
    assert "started, pid" in out.getvalue()
    pid = L.read_pid(cfg["pidfile"])
    assert L.pid_running(pid)
    assert os.getpgid(pid) == pid  # own session: stop reaches its children too
    wait_for(str(tmp / "env.json"))
    env = json.loads((tmp / "env.json").read_text())
    assert env["FOO"] == "bar baz" and env["QUOTED"] == 'a "b"'
    assert env["HOME"] == str(tmp)
    assert "PYTEST_CURRENT_TEST" not in env  # a clean environment, not the caller's
    out = io.StringIO()
    assert L.start(cfg, out) == 0 and "already running, pid %d" % pid in out.getvalue()
    assert L.status(cfg, io.StringIO()) == 0
    out = io.StringIO()
    assert L.stop(cfg, out) == 0 and "stopped pid %d" % pid in out.getvalue()
    assert not os.path.exists(cfg["pidfile"])
    assert L.status(cfg, io.StringIO()) == L.EXIT_NOT_RUNNING


def test_start_reports_a_server_that_exits_at_once(config):
    cfg, tmp = config
    cfg["argv"][3] = "crash"
    out = io.StringIO()
    assert L.start(cfg, out) == 1
    assert "exited at once" in out.getvalue()


def test_stale_pidfile_of_another_process_is_not_trusted(config):
    cfg, tmp = config
    os.makedirs(os.path.dirname(cfg["pidfile"]), exist_ok=True)
    with open(cfg["pidfile"], "w") as handle:
        handle.write("%d\n" % os.getpid())  # alive, but not our server
    assert L.running_pid(cfg) is None
    assert L.status(cfg, io.StringIO()) == L.EXIT_NOT_RUNNING


def test_missing_required_env_file_fails(config):
    cfg, tmp = config
    cfg["env_files"] = [str(tmp / "nope.env")]
    with pytest.raises(IOError):
        L.build_env(cfg)


def test_usage_error():
    assert L.main(["bogus"]) == 2


def test_parse_env_file_systemd_subset():
    text = "A=1\n export B='two words'\n; comment\n#c\nC=\"x\\$y\"\nnoequals\n"
    assert L.parse_env_file(text) == {"A": "1", "B": "two words", "C": "x$y"}
