"""The vllm_report callback, through real ansible-playbook runs on a throwaway fleet.

The point of a callback: ansible-core 2.19 ends the whole run when a batch exceeds the failure
budget or every host of a play fails, so a report play at the end of site.yml would not run.
These runs prove the report is printed and written in those cases too.
"""
import json
import os
import subprocess
import sys

import fakefleet

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
PLAYBOOK_BIN = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")


def ansible_playbook(tmp_path, hosts, *args, env=None, playbook=None):
    site, inventory, roles = fakefleet.write(tmp_path, hosts)
    full_env = dict(os.environ, ANSIBLE_ROLES_PATH=roles, ANSIBLE_NOCOLOR="1")
    full_env.update(env or {})
    # run from the repository root: its ansible.cfg enables the callback
    return subprocess.run([PLAYBOOK_BIN, "-i", inventory, playbook or site] + list(args), cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300,
                          env=full_env)


def statuses(report):
    return dict((row["host"], row["status"]) for row in report["hosts"])


def test_report_when_the_failure_budget_stops_the_run(tmp_path):
    path = tmp_path / "out" / "report.json"
    hosts = {"a-ok": "ready", "b-bad": "not_ready", "c-ok": "ready", "d-ok": "ready"}
    proc = ansible_playbook(tmp_path, hosts, "-e", "vllm_report_path=%s" % path,
                            "-e", '{"vllm_rollout_serial": [1, 1], "vllm_rollout_max_fail_percentage": 0}')
    assert proc.returncode != 0
    # Ansible stopped after b-bad's batch: c-ok and d-ok never ran
    assert "NO MORE HOSTS LEFT" in proc.stdout
    report = json.loads(path.read_text())
    assert statuses(report) == {"a-ok": "ready", "b-bad": "not ready", "c-ok": "not reached", "d-ok": "not reached"}
    assert report["hosts"][1]["diagnosis"]["category"] == "model_files"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    text = proc.stdout[proc.stdout.index("VLLM FLEET REPORT"):]
    assert "c-ok   not reached" in text
    assert "NOT OK: 4 targeted: 1 ready, 0 rolled back, 3 not ready" in text
    assert "Report: %s" % path in text


def test_report_when_every_host_fails(tmp_path):
    path = tmp_path / "report.json"
    proc = ansible_playbook(tmp_path, {"x": "fail_early", "y": "unreachable"}, env={"VLLM_REPORT_PATH": str(path)})
    assert proc.returncode != 0
    report = json.loads(path.read_text())
    assert statuses(report) == {"x": "failed", "y": "unreachable"}
    assert report["hosts"][0]["failed_task"] == "vllm_fake : Refuse bad input"


def test_all_ready_and_no_file_when_the_path_is_empty(tmp_path):
    proc = ansible_playbook(tmp_path, {"a": "ready", "b": "ready"}, "-e", "vllm_report_path=")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK: 2 targeted: 2 ready, 0 rolled back, 0 not ready" in proc.stdout
    assert "Report:" not in proc.stdout


def test_plays_without_the_project_roles_get_no_report(tmp_path):
    fakefleet.write(tmp_path, {"a": "ready"})
    other = tmp_path / "other.yml"
    other.write_text("- name: Not a rollout\n  hosts: vllm_hosts\n  gather_facts: false\n  tasks:\n"
                     "    - name: Nothing\n      ansible.builtin.debug:\n        msg: hi\n")
    path = tmp_path / "report.json"
    proc = ansible_playbook(tmp_path, {"a": "ready"}, "-e", "vllm_report_path=%s" % path, playbook=str(other))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "VLLM FLEET REPORT" not in proc.stdout and not path.exists()
