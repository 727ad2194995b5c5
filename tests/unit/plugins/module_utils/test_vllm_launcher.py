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


# --- the log file: the service user owns its folder and must not steer root's writes ----------

def _root_only_target(tmp):
    target = tmp / "root-only"
    target.write_text("secret\n")
    os.chmod(str(target), 0o600)
    return target


def test_start_refuses_a_symlinked_log_and_writes_nothing_through_it(config):
    cfg, tmp = config
    target = _root_only_target(tmp)
    os.symlink(str(target), cfg["log_file"])
    out = io.StringIO()
    assert L.start(cfg, out) == 1
    assert "symbolic link" in out.getvalue() and "not started" in out.getvalue()
    assert target.read_text() == "secret\n"
    assert L.read_pid(cfg["pidfile"]) is None


def test_start_refuses_a_dangling_symlink_and_creates_nothing(config):
    cfg, tmp = config
    os.symlink(str(tmp / "would-be-created"), cfg["log_file"])
    assert L.start(cfg, io.StringIO()) == 1
    assert not (tmp / "would-be-created").exists()


def test_start_refuses_a_hard_linked_log(config):
    cfg, tmp = config
    target = _root_only_target(tmp)
    os.link(str(target), cfg["log_file"])
    out = io.StringIO()
    assert L.start(cfg, out) == 1
    assert "2 hard links" in out.getvalue()
    assert target.read_text() == "secret\n"


def test_open_log_refuses_a_fifo_without_blocking(tmp_path):
    path = str(tmp_path / "vllm.log")
    os.mkfifo(path)
    with pytest.raises(L.UnsafeLogFile):
        L.open_log(path)


def test_open_log_refuses_a_reader_held_fifo(tmp_path):
    path = str(tmp_path / "vllm.log")
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with pytest.raises(L.UnsafeLogFile, match="not a regular file"):
            L.open_log(path)
    finally:
        os.close(reader)


def test_open_log_appends_to_an_ordinary_file_and_creates_a_missing_one(tmp_path):
    path = tmp_path / "vllm.log"
    fd = L.open_log(str(path))
    os.write(fd, b"one\n")
    os.close(fd)
    fd = L.open_log(str(path))
    os.write(fd, b"two\n")
    os.close(fd)
    assert path.read_text() == "one\ntwo\n"
    assert (os.stat(str(path)).st_mode & 0o777) == 0o640 & ~_umask()


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _nobody():
    import pwd
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        return None


needs_root_and_nobody = pytest.mark.skipif(
    os.getuid() != 0 or _nobody() is None, reason="needs root and a 'nobody' user")


@needs_root_and_nobody
def test_open_log_refuses_a_file_of_another_user(tmp_path):
    path = tmp_path / "vllm.log"
    path.write_text("")
    os.chown(str(path), _nobody().pw_uid, _nobody().pw_gid)
    with pytest.raises(L.UnsafeLogFile, match="owned by uid %d" % _nobody().pw_uid):
        L.open_log(str(path))  # the service user is root here: nobody's file is foreign
    fd = L.open_log(str(path), user="nobody")  # the service user's own log is fine
    os.close(fd)


@needs_root_and_nobody
def test_the_service_user_cannot_make_root_write_a_root_only_file():
    """The attack end to end: `nobody` owns the log folder and plants links; root opens."""
    import pathlib
    import shutil
    import tempfile
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="launcher-log-"))  # nobody can reach it
    try:
        _plant_and_open(tmp_path)
    finally:
        shutil.rmtree(str(tmp_path))


def _plant_and_open(tmp_path):
    os.chmod(str(tmp_path), 0o755)
    logdir = tmp_path / "log"
    logdir.mkdir()
    os.chown(str(logdir), _nobody().pw_uid, _nobody().pw_gid)
    target = tmp_path / "shadow"
    target.write_text("root:x\n")
    os.chmod(str(target), 0o600)
    log = str(logdir / "vllm.log")
    for plant in ("symlink", "hardlink"):
        child = os.fork()
        if child == 0:  # the service user, unprivileged
            code = 1
            try:
                os.setgid(_nobody().pw_gid)
                os.setuid(_nobody().pw_uid)
                if os.path.lexists(log):
                    os.unlink(log)
                if plant == "symlink":
                    os.symlink(str(target), log)
                else:
                    try:
                        os.link(str(target), log)
                    except OSError:  # protected_hardlinks: the kernel stops it already
                        code = 2
                        raise
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(child, 0)
        if os.WEXITSTATUS(status) == 2:
            os.link(str(target), log)  # what the attack needs, done as root to test the check
        else:
            assert os.WEXITSTATUS(status) == 0
        with pytest.raises(L.UnsafeLogFile):
            L.open_log(log, user="nobody")
        assert target.read_text() == "root:x\n"
        os.unlink(log)


def test_pidfile_is_not_written_through_a_symlink(tmp_path):
    target = _root_only_target(tmp_path)
    pidfile = tmp_path / "vllm.pid"
    os.symlink(str(target), str(pidfile))
    with pytest.raises(OSError):
        L.write_pidfile(str(pidfile), 123)
    assert target.read_text() == "secret\n"


def test_a_server_that_cannot_exec_leaves_no_pidfile_of_zero(config):
    cfg, tmp = config
    cfg["argv"] = [str(tmp / "no-such-python")] + cfg["argv"][1:]
    out = io.StringIO()
    assert L.start(cfg, out) == 1
    time.sleep(0.2)
    assert L.read_pid(cfg["pidfile"]) != 0
    assert "cannot start" in (tmp / "vllm.log").read_text()


def test_a_missing_service_user_is_a_reason_not_a_traceback(config):
    cfg, tmp = config
    cfg["user"] = "no-such-user-here"
    out = io.StringIO()
    assert L.start(cfg, out) == 1
    assert "'no-such-user-here' does not exist" in out.getvalue()


# --- what the launcher applies of the unit's confinement, read from the started server ---------

PROBE = """
import json, os, resource, sys
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
report = {key: status[key].strip() for key in ("NoNewPrivs", "Umask", "Groups", "Uid", "Gid")}
report["fds"] = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
report["nofile"] = resource.getrlimit(resource.RLIMIT_NOFILE)
report["core"] = resource.getrlimit(resource.RLIMIT_CORE)
tmp = sys.argv[1] + ".tmp"
with open(tmp, "w") as handle:
    json.dump(report, handle)
os.rename(tmp, sys.argv[1])
import time
time.sleep(120)
"""


def probe_config(folder, python, user=None):
    script = os.path.join(folder, "probe.py")
    with open(script, "w") as handle:
        handle.write(PROBE)
    os.chmod(script, 0o644)
    report = os.path.join(folder, "out", "report.json")
    cfg = {"argv": [python, script, report, "--config", os.path.join(folder, "vllm.yaml")],
           "marker": os.path.join(folder, "vllm.yaml"), "env_files": [],
           "pidfile": os.path.join(folder, "run", "vllm.pid"),
           "log_file": os.path.join(folder, "vllm.log"), "workdir": folder, "stop_timeout": 5}
    if user:
        cfg["user"] = user
    path = os.path.join(folder, "launcher.json")
    with open(path, "w") as handle:
        json.dump(cfg, handle)
    os.makedirs(os.path.dirname(report))
    os.chmod(os.path.dirname(report), 0o777)
    return L.load_config(path), report


def started_report(cfg, report):
    """What the started server reports of itself; started from a caller with an inheritable
    descriptor, umask 022 and limits unlike the unit's, so each setting shows."""
    import resource
    leaked = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(leaked, True)
    old_umask = os.umask(0o022)
    limits = dict((which, resource.getrlimit(which)) for which in (resource.RLIMIT_NOFILE,
                                                                   resource.RLIMIT_CORE))
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, limits[resource.RLIMIT_NOFILE][1]))
    core_hard = limits[resource.RLIMIT_CORE][1]
    if core_hard == resource.RLIM_INFINITY or core_hard > 0:
        resource.setrlimit(resource.RLIMIT_CORE, (min(1 << 20, core_hard) if core_hard != resource.RLIM_INFINITY
                                                  else 1 << 20, core_hard))
    try:
        out = io.StringIO()
        assert L.start(cfg, out) == 0, out.getvalue() + open(cfg["log_file"]).read()
    finally:
        os.close(leaked)
        os.umask(old_umask)
        for which, value in limits.items():
            resource.setrlimit(which, value)
    try:
        wait_for(report)
        with open(report) as handle:
            return json.load(handle), leaked
    finally:
        L.stop(cfg, out=io.StringIO())


def test_the_server_gets_no_new_privileges_umask_limits_and_no_inherited_fds(tmp_path):
    cfg, report = probe_config(str(tmp_path), sys.executable)
    got, leaked = started_report(cfg, report)
    assert got["NoNewPrivs"] == "1"
    assert got["Umask"] == "0027"
    # 65536 like the unit, or the hard limit where it is lower and may not be raised (a container)
    import resource
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert got["nofile"] in ([65536, 65536], [min(65536, hard)] * 2)
    assert got["core"] == [0, 0]
    # 0-2 and the one listdir opens to list them: nothing else, the caller's descriptor included
    assert leaked not in got["fds"] and len(got["fds"]) == 4 and got["fds"][:3] == [0, 1, 2]


@pytest.mark.skipif(os.getuid() != 0 or _nobody() is None or not os.access("/usr/bin/python3", os.X_OK),
                    reason="needs root, a 'nobody' user and /usr/bin/python3")
def test_the_server_runs_as_the_service_user_with_only_its_own_groups():
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix="launcher-probe-")  # nobody can reach it, unlike tmp_path
    os.chmod(folder, 0o755)
    old_groups = os.getgroups()
    try:
        # the launcher's own supplementary groups must not reach the server
        os.setgroups(sorted(set(old_groups) | {0, 4}))
        cfg, report = probe_config(folder, "/usr/bin/python3", user="nobody")
        got, _ = started_report(cfg, report)
    finally:
        os.setgroups(old_groups)
        shutil.rmtree(folder)
    nobody = _nobody()
    assert got["Uid"].split() == [str(nobody.pw_uid)] * 4
    assert got["Gid"].split() == [str(nobody.pw_gid)] * 4
    assert sorted(int(g) for g in got["Groups"].split()) == sorted(set(os.getgrouplist("nobody",
                                                                                        nobody.pw_gid)))
    assert got["NoNewPrivs"] == "1" and got["Umask"] == "0027" and got["core"] == [0, 0]


def test_set_limits_falls_back_to_the_hard_limit_it_may_not_raise(monkeypatch):
    import resource
    calls = []

    def setrlimit(which, value):
        calls.append(value)
        if value == (65536, 65536):
            raise ValueError("not allowed to raise maximum limit")

    monkeypatch.setattr(resource, "setrlimit", setrlimit)
    monkeypatch.setattr(resource, "getrlimit", lambda which: (4096, 4096))
    applied = L.set_limits((("RLIMIT_NOFILE", 65536),))
    assert calls == [(65536, 65536), (4096, 4096)] and applied == {"RLIMIT_NOFILE": (4096, 4096)}


# --- supervision: the unit's restart policy (Restart=always, RestartSec, a start limit) ---------

CRASHING = r"""
import sys
sys.stderr.write('''(EngineCore_DP0 pid=5) ERROR 01-01 00:00:01 [core.py:700] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.53 GiB of which 3.44 MiB is free.
(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
''')
sys.exit(1)
"""


def wait_until(predicate, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("not within %s s" % seconds)


def test_a_killed_server_is_started_again_after_the_delay(config):
    cfg, tmp = config
    cfg["restart_sec"] = 1
    assert L.start(cfg, io.StringIO()) == 0
    first = L.read_pid(cfg["pidfile"])
    supervisor = L.supervisor_pid(cfg)
    assert supervisor and supervisor != first
    killed = time.time()
    os.kill(first, 9)
    second = wait_until(lambda: L.running_pid(cfg) not in (None, first) and L.running_pid(cfg))
    assert time.time() - killed >= 0.9  # after RestartSec, not at once
    out = io.StringIO()
    assert L.status(cfg, out) == 0
    text = out.getvalue()
    assert "running, pid %d, supervised by pid %d; restarted 1 times" % (second, supervisor) in text
    assert "last exit: pid %d killed by SIGKILL" % first in text
    log = (tmp / "vllm.log").read_text()
    assert "the server (pid %d) killed by SIGKILL" % first in log and "starting it again in 1 s" in log
    out = io.StringIO()
    assert L.stop(cfg, out) == 0 and "stopped pid %d" % second in out.getvalue()
    wait_until(lambda: not L.pid_running(supervisor))
    assert not L.pid_running(second) and L.supervisor_pid(cfg) is None
    assert L.status(cfg, io.StringIO()) == L.EXIT_NOT_RUNNING


def test_a_server_that_fails_every_start_stops_at_the_start_limit_with_the_doctors_cause(config):
    cfg, tmp = config
    script = tmp / "crash.py"
    script.write_text(CRASHING)
    cfg["argv"] = [sys.executable, str(script), "--config", cfg["marker"]]
    cfg.update(restart_sec=0.2, start_limit_burst=3, start_limit_interval=60)
    assert L.start(cfg, io.StringIO()) == 1  # exited at once
    wait_until(lambda: L.read_state(cfg).get("state") == "failed")
    wait_until(lambda: L.supervisor_pid(cfg) is None)
    log = (tmp / "vllm.log").read_text()
    assert log.count(L.START_MARKER) == 3  # the burst, then no more
    assert "start limit hit: 3 starts within 60 s" in log
    out = io.StringIO()
    assert L.status(cfg, out) == L.EXIT_NOT_RUNNING
    text = out.getvalue()
    assert text.startswith("vllm-launcher: failed: start limit hit")
    assert "exited with status 1" in text and "doctor: gpu_oom:" in text and "fix:" in text
    # a new start (the next run of the playbook) begins a fresh count
    script.write_text(CHILD)
    cfg["argv"] = [sys.executable, str(script), str(tmp / "env.json"), "run", "--config", cfg["marker"]]
    assert L.start(cfg, io.StringIO()) == 0
    assert L.status(cfg, io.StringIO()) == 0


def test_stop_while_restarting_ends_the_supervisor(config):
    cfg, tmp = config
    script = tmp / "crash.py"
    script.write_text(CRASHING)
    cfg["argv"] = [sys.executable, str(script), "--config", cfg["marker"]]
    cfg.update(restart_sec=30)
    L.start(cfg, io.StringIO())
    wait_until(lambda: L.read_state(cfg).get("state") == "restarting")
    supervisor = L.supervisor_pid(cfg)
    out = io.StringIO()
    assert L.status(cfg, out) == L.EXIT_NOT_RUNNING and "restarting (supervised by pid" in out.getvalue()
    started = time.time()
    assert L.stop(cfg, io.StringIO()) == 0
    assert time.time() - started < 5 and not L.pid_running(supervisor)
    assert L.read_state(cfg)["state"] == "stopped"


def test_diagnose_unit_names_the_doctors_cause_after_a_crash_and_nothing_after_a_stop():
    journal = CRASHING.split("'''")[1]
    calls = []

    def run(argv):
        calls.append(argv)
        return journal

    out = io.StringIO()
    env = {"SERVICE_RESULT": "exit-code", "EXIT_CODE": "exited", "EXIT_STATUS": "1",
           "INVOCATION_ID": "0123abcd"}
    assert L.diagnose_unit("vllm.service", env, out, run) == 0
    assert calls == [["journalctl", "--no-pager", "-o", "cat", "_SYSTEMD_INVOCATION_ID=0123abcd"]]
    text = out.getvalue()
    assert text.startswith("vllm: the server exited with status 1 (exit-code); doctor: gpu_oom:")
    assert "fix:" in text
    out = io.StringIO()
    env = {"SERVICE_RESULT": "signal", "EXIT_CODE": "killed", "EXIT_STATUS": "KILL"}
    L.diagnose_unit("vllm.service", env, out, lambda argv: "")
    assert out.getvalue() == "vllm: the server killed by SIGKILL (signal)\n"
    out = io.StringIO()
    assert L.diagnose_unit("vllm.service", {"SERVICE_RESULT": "success"}, out, run) == 0
    assert out.getvalue() == "" and len(calls) == 1


def test_start_leaves_the_server_to_systemd_where_it_is_pid1(config, tmp_path, monkeypatch):
    cfg, tmp = config
    proc = tmp_path / "proc"
    (proc / "1").mkdir(parents=True)
    (proc / "1" / "comm").write_text("systemd\n")
    run_dir = tmp_path / "run-systemd-system"
    run_dir.mkdir()
    assert L.systemd_is_pid1(str(proc), str(run_dir))
    assert not L.systemd_is_pid1(str(proc), str(tmp_path / "absent"))
    (proc / "1" / "comm").write_text("catatonit\n")
    assert not L.systemd_is_pid1(str(proc), str(run_dir))
    monkeypatch.setattr(L, "systemd_is_pid1", lambda: True)
    out = io.StringIO()
    assert L.start(cfg, out) == 0 and "systemd is PID 1 here" in out.getvalue()
    assert L.read_pid(cfg["pidfile"]) is None
