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


REFUSING_ROLE = """\
---
- name: Record what serves now
  ansible.builtin.set_fact:
    vllm_preflight_serving: {release: rel-1, url: "http://127.0.0.1:8000/v1", answers: true}

- name: Validate inputs before anything changes
  vars:
    __lines: ["Invalid input, nothing was changed on {{ inventory_hostname }}:", "- fake_port is 70000; accepted: 1 to 65535",
              "- fake_option is not an option"]
  ansible.builtin.assert:
    that: fake_outcome != 'refuse'
    fail_msg: "{{ __lines | join('\\n') }}"
    quiet: true
"""


def refusing_fleet(tmp_path, hosts):
    """The fake fleet with a role that fails before any change for hosts whose outcome is refuse."""
    site, inventory, roles = fakefleet.write(tmp_path, hosts)
    os.makedirs(os.path.join(roles, "vllm_refuse", "tasks"))
    with open(os.path.join(roles, "vllm_refuse", "tasks", "main.yml"), "w") as handle:
        handle.write(REFUSING_ROLE)
    with open(site) as handle:
        text = handle.read()
    # ansible_playbook() writes the fleet again: a playbook of our own
    refusing = os.path.join(str(tmp_path), "refusing.yml")
    with open(refusing, "w") as handle:
        handle.write(text.replace("  roles:\n", "  roles:\n    - role: vllm_refuse\n"))
    return refusing


def test_a_host_refused_before_any_change_is_not_called_failed(tmp_path):
    path = tmp_path / "report.json"
    site = refusing_fleet(tmp_path, {"a": "ready", "r": "refuse", "x": "fail_early"})
    proc = ansible_playbook(tmp_path, {"a": "ready", "r": "refuse", "x": "fail_early"},
                            "-e", "vllm_report_path=%s" % path, playbook=site)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    report = json.loads(path.read_text())
    # x changed a file before its failure: failed; r changed nothing: refused, still on rel-1
    assert statuses(report) == {"a": "ready", "r": "refused", "x": "failed"}
    row = report["hosts"][1]
    assert row["release"] == "rel-1" and row["changed_before_failure"] == 0
    assert row["serving"] == {"release": "rel-1", "url": "http://127.0.0.1:8000/v1", "answers": True}
    assert row["message_lines"] == ["Invalid input, nothing was changed on r:",
                                    "- fake_port is 70000; accepted: 1 to 65535", "- fake_option is not an option"]
    text = proc.stdout[proc.stdout.index("VLLM FLEET REPORT"):]
    assert "r     refused  rel-1" in text
    assert "r (refused before any change):\n  nothing was changed on it: still serving release rel-1" in text
    assert "    - fake_port is 70000; accepted: 1 to 65535\n    - fake_option is not an option\n" in text
    assert "NOT OK: 3 targeted: 1 ready, 0 rolled back, 2 not ready (1 refused before any change)" in text


def test_the_stdout_callback_prints_a_refusal_once_before_the_report(tmp_path):
    site = refusing_fleet(tmp_path, {"r": "refuse"})
    proc = ansible_playbook(tmp_path, {"r": "refuse"}, "-e", "vllm_report_path=", playbook=site)
    assert proc.returncode == 2
    out = proc.stdout + proc.stderr
    # the fatal block and the report's message, nothing else: no "[ERROR]: Task failed" repeat
    assert out.count("fake_port is 70000") == 2, out
    assert "[ERROR]: Task failed" not in out and "['Invalid input" not in out
    assert "task path: " in out
    # the default callback prints it a third time
    proc = ansible_playbook(tmp_path, {"r": "refuse"}, "-e", "vllm_report_path=", playbook=site,
                            env={"ANSIBLE_STDOUT_CALLBACK": "ansible.builtin.default"})
    assert (proc.stdout + proc.stderr).count("fake_port is 70000") == 3


def test_the_stdout_callback_keeps_errors_that_say_more(tmp_path):
    fakefleet.write(tmp_path, {"a": "ready"})
    other = tmp_path / "other.yml"
    other.write_text("- name: Broken\n  hosts: vllm_hosts\n  gather_facts: false\n  tasks:\n"
                     "    - name: Undefined\n      ansible.builtin.debug:\n        msg: '{{ no_such_var }}'\n")
    proc = ansible_playbook(tmp_path, {"a": "ready"}, playbook=str(other))
    assert proc.returncode == 2
    assert "[ERROR]: Task failed" in proc.stdout + proc.stderr and "no_such_var" in proc.stdout + proc.stderr


def test_timings_on_request_and_the_report_after_them(tmp_path):
    proc = ansible_playbook(tmp_path, {"a": "ready", "b": "ready"}, "-e", "vllm_report_path=",
                            env={"VLLM_REPORT_TIMINGS": "1", "VLLM_REPORT_TIMINGS_COUNT": "3"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = proc.stdout[proc.stdout.index("VLLM TASK TIMINGS"):]
    lines = text.splitlines()
    assert lines[1].startswith("slowest 3 of 12 task runs:")
    durations = [float(line.split("s  ")[0]) for line in lines[2:5]]
    assert durations == sorted(durations, reverse=True)
    assert all(" vllm_fake : " in line or " vllm_summary : " in line for line in lines[2:5])
    assert lines[5].startswith("total task time: a ") and ", b " in lines[5]
    assert text.index("VLLM FLEET REPORT") > 0 and "OK: 2 targeted: 2 ready" in text
    # off by default
    proc = ansible_playbook(tmp_path, {"a": "ready"}, "-e", "vllm_report_path=")
    assert "VLLM TASK TIMINGS" not in proc.stdout


INSTANCES_ROLE = """\
---
- name: Gate each instance (the loop results vllm_ready gives, one per instance)
  ansible.builtin.set_fact:
    __gates: "{{ __both_ready if fake_outcome == 'instances' else __one_down }}"
  vars:
    __alpha: {item: {name: alpha, port: 8001, unit: vllm@alpha.service}, ready: true, stage: ready,
              elapsed_s: 12.4}
    __both_ready:
      - "{{ __alpha }}"
      - {item: {name: beta, port: 8002, unit: vllm@beta.service}, ready: true, stage: ready, elapsed_s: 20}
    __one_down:
      - "{{ __alpha }}"
      - {item: {name: beta, port: 8002, unit: vllm@beta.service}, ready: false, stage: connect,
         elapsed_s: 30, msg: "vLLM is not ready at stage 'connect'", diagnosis: {category: port_in_use}}

- name: Record the rollout result of every instance (as roles/vllm_rollout/tasks/instances.yml)
  ansible.builtin.set_fact:
    vllm_service_rollout:
      host: "{{ inventory_hostname }}"
      ready: "{{ __failed | length == 0 }}"
      release: rel-2
      attempted_release: rel-2
      rolled_back: false
      backend: cpu
      vllm_version: 0.32.0
      torch_version: 2.13.0+cpu
      diagnosis: "{{ (__failed | first | default({})).diagnosis | default(none) }}"
      instances: "{{ __rows }}"
  vars:
    __rows: "{{ __gates | map('vllm_instance_gate_row') | list }}"
    __failed: "{{ __rows | rejectattr('ready') | list }}"

- name: Fail the host whose instance is not ready
  ansible.builtin.fail:
    msg: "{{ vllm_service_rollout.instances | rejectattr('ready') | map(attribute='message') | list }}"
  when: not vllm_service_rollout.ready
"""


def test_the_report_has_a_line_per_instance_under_its_host(tmp_path):
    hosts = {"a": "ready", "i-bad": "instances_down", "i-ok": "instances"}
    fakefleet.write(tmp_path, hosts)
    roles = tmp_path / "roles"
    (roles / "vllm_inst" / "tasks").mkdir(parents=True)
    (roles / "vllm_inst" / "tasks" / "main.yml").write_text(INSTANCES_ROLE)
    site = tmp_path / "instances.yml"
    site.write_text("- name: Instances\n  hosts: i-*\n  gather_facts: false\n  roles:\n    - role: vllm_inst\n"
                    "- name: One server\n  hosts: a\n  gather_facts: false\n  roles:\n    - role: vllm_fake\n")
    path = tmp_path / "report.json"
    proc = ansible_playbook(tmp_path, hosts, "-e", "vllm_report_path=%s" % path, playbook=str(site))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    report = json.loads(path.read_text())
    assert statuses(report) == {"a": "ready", "i-bad": "not ready", "i-ok": "ready"}
    rows = dict((row["host"], row) for row in report["hosts"])
    assert rows["a"]["instances"] is None
    assert rows["i-ok"]["instances"][0] == {"name": "alpha", "port": 8001, "unit": "vllm@alpha.service",
                                            "ready": True, "elapsed_s": 12.4, "stage": None, "diagnosis": None,
                                            "message": None}
    assert rows["i-bad"]["instances"][1]["diagnosis"] == "port_in_use"
    assert rows["i-bad"]["why"] == "instance not ready: beta (port 8002, stage connect, port_in_use)"
    text = proc.stdout[proc.stdout.index("VLLM FLEET REPORT"):]
    lines = text.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("i-bad  not ready")))
    assert lines[at + 1:at + 3] == ["  alpha  port 8001  vllm@alpha.service  ready after 12 s",
                                    "  beta   port 8002  vllm@beta.service   NOT READY at stage connect: port_in_use"]
    at = lines.index(next(line for line in lines if line.startswith("i-ok   ready")))
    assert lines[at + 1:at + 3] == ["  alpha  port 8001  vllm@alpha.service  ready after 12 s",
                                    "  beta   port 8002  vllm@beta.service   ready after 20 s"]
    # the host with one server: its line and no instance line under it
    at = lines.index(next(line for line in lines if line.startswith("a      ready")))
    assert lines[at + 1].startswith("i-bad")
    assert "NOT OK: 3 targeted: 2 ready, 0 rolled back, 1 not ready" in text
