"""The server's guard covers the ports that really serve: every instance's port with
vllm_instances, else vllm_service_port.

The role's own variable (roles/vllm_service/vars/main.yml: __vllm_service_guard_ports) and the
filter chain of tasks/firewall.yml are run by the real ansible-playbook on this machine, the table
written to a throwaway file as the role writes it, then checked by `nft -c` where nft is installed.
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

pytestmark = pytest.mark.skipif(PLAYBOOK is None, reason="ansible-playbook is not installed (run scripts/bootstrap)")

PLAY = """
- name: Write the guard as roles/vllm_service does
  hosts: localhost
  gather_facts: false
  vars_files:
    - {root}/roles/vllm_service/defaults/main.yml
    - {root}/roles/vllm_service/vars/main.yml
  tasks:
    - name: Write the guard's nftables table
      ansible.builtin.copy:
        content: "{{{{ __vllm_service_guard_ports | vllm_ops.workstation.vllm_nft_guard(vllm_service_firewall_allow) }}}}"
        dest: "{dest}"
        mode: "0644"
"""


def guard(tmp_path, extra):
    dest = tmp_path / "guard.nft"
    play = tmp_path / "play.yml"
    play.write_text(PLAY.format(root=ROOT, dest=dest))
    extra = dict(extra, ansible_python_interpreter=sys.executable)
    done = subprocess.run([PLAYBOOK, "-i", "localhost,", "-c", "local", str(play), "-e", json.dumps(extra)],
                          cwd=ROOT, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return dest


def nft_check(path):
    if shutil.which("nft") is None:
        return
    done = subprocess.run(["nft", "-c", "-f", str(path)], capture_output=True, text=True, check=False)
    if "Operation not permitted" in done.stderr:
        return
    assert done.returncode == 0, done.stderr


def test_instances_ports_guarded_not_the_unused_service_port(tmp_path):
    planned = [{"name": "chat", "port": 8001}, {"name": "embed", "port": 8002}]
    path = guard(tmp_path, {"vllm_service_firewall_allow": ["10.89.0.7"], "vllm_service_port": 8000,
                            "vllm_instances": planned, "vllm_preflight_instances": planned})
    text = path.read_text()
    assert "ip saddr { 10.89.0.7 } tcp dport { 8001, 8002 } accept" in text
    assert "tcp dport { 8001, 8002 } reject with tcp reset" in text
    assert "8000" not in text
    nft_check(path)


def test_one_server_guards_its_port(tmp_path):
    path = guard(tmp_path, {"vllm_service_firewall_allow": ["10.89.0.7"], "vllm_service_port": 8123,
                            "vllm_instances": []})
    text = path.read_text()
    assert "tcp dport 8123 reject with tcp reset" in text and "{ 8123" not in text
    nft_check(path)
