"""Bad input fails in the preflight, before anything on the host changes.

Runs the real site.yml against this machine (local connection) with one bad variable at a time
and a throwaway root for everything the run would create; the run must fail naming the
variable, the value and what is accepted, and the throwaway root must not exist afterwards.
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

pytestmark = pytest.mark.skipif(PLAYBOOK is None, reason="ansible-playbook is not installed "
                                "(run scripts/bootstrap)")


def run_site(tmp_path, extra):
    root = tmp_path / "opt-vllm"
    store = tmp_path / "models"
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "vllm_hosts:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    extra_vars = dict({"vllm_python_root": str(root), "vllm_model_store": str(store),
                       "vllm_install_backend": "cpu"}, **extra)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_NOCOLOR="1", ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default")
    proc = subprocess.run(
        [PLAYBOOK, "-i", str(inventory), os.path.join(ROOT, "site.yml"),
         "-e", json.dumps(extra_vars)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        timeout=300)
    return proc, root, store


@pytest.mark.parametrize("extra,needles", [
    ({"vllm_install_backend": "rocm"},
     ["vllm_install_backend is 'rocm'", "auto, cpu, cuda"]),
    ({"vllm_model_source": "/nonexistent/models/qwen"},
     ["vllm_model_source is '/nonexistent/models/qwen', which does not exist"]),
    ({"vllm_model_source": "Qwen/Qwen3-0.6B", "vllm_model_revision": "main branch"},
     ["vllm_model_revision is 'main branch'", "branch, tag or commit"]),
    ({"vllm_model_source": "Qwen/Qwen3-0.6B", "vllm_model_hub_endpoint": "hf-mirror.local"},
     ["vllm_model_hub_endpoint is 'hf-mirror.local'", "URL of a Hub mirror"]),
    ({"vllm_service_port": 70000},
     ["vllm_service_port is", "70000", "1 to 65535"]),
    ({"vllm_python_version": "3.9"},
     ["vllm_python_version", "3.9"]),
    ({"vllm_service_options": {"port": 1234}},
     ["vllm_service_options sets 'port'", "vllm_service_port"]),
    ({"vllm_service_host": "0.0.0.0"},
     ["vllm_service_host is '0.0.0.0', which exposes the server", "vllm_service_api_key is empty",
      "vllm_service_allow_unauthenticated: true"]),
])
def test_bad_input_fails_before_any_change(tmp_path, extra, needles):
    proc, root, store = run_site(tmp_path, extra)
    assert proc.returncode != 0, proc.stdout[-3000:]
    for needle in needles:
        assert needle in proc.stdout, proc.stdout[-3000:]
    assert "nothing was changed" in proc.stdout or "Way out" in proc.stdout or \
        "vllm_python_version" in proc.stdout
    assert not root.exists(), "the run created %s before failing" % root
    assert not store.exists(), "the run created %s before failing" % store
    assert "changed=0" in proc.stdout
