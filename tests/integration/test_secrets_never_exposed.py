"""The API key, the Hugging Face token and the TLS private key never show up where they should not.

The real site.yml runs against this machine (local connection, throwaway paths as in
test_fuzz_inputs.py) in check mode with --diff and -v, exposed on 0.0.0.0 with all three secrets
set to distinctive values: none may appear in the playbook's output (results, diffs, the summary),
in the summary JSON or in the fleet report; then the same run through scripts/provision: none may
appear in its output, its report or anywhere under the runner's artifacts (.artifacts/, every file
of every kept run). A check run writes no host file, so the rendered files are searched in
tests/unit/scripts/test_plan_cli.py (scripts/plan --render: each secret only in its own file).
Not covered here: the live process list and the server's log (Molecule's testinfra,
molecule/shared/tests/test_server.py, on a real start).
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from vllm_testlib import ROOT, free_port, make_tls_cert

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")
PROVISION = os.path.join(ROOT, "scripts", "provision")
ARTIFACTS = os.path.join(ROOT, ".artifacts")

pytestmark = [
    pytest.mark.skipif(PLAYBOOK is None, reason="ansible-playbook is not installed (run scripts/bootstrap)"),
    pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed"),
]

API_KEY = "sk-NEVERSHOWN-api-5d1c7e"
HF_TOKEN = "hf_NEVERSHOWNtoken9a4f2b"


def secrets_of(key_pem):
    """Each secret as it could be found: whole, and the TLS key's base64 lines one by one (a diff
    or a wrapped line may split the PEM, never a 64-character line of it)."""
    lines = [line for line in key_pem.strip().splitlines()[1:-1] if len(line) >= 24]
    return [API_KEY, HF_TOKEN] + lines


def found_in(text, secrets):
    flat = "".join(text.split())
    return [secret[:8] + "..." for secret in secrets if secret in text or secret in flat]


def setup(tmp_path):
    _, _, cert, key = make_tls_cert(tmp_path / "..", name="secrets-test")
    throwaway = dict((name, str(tmp_path / "host" / name)) for name in (
        "vllm_python_root", "vllm_model_store", "vllm_service_config_dir", "vllm_service_state_dir",
        "vllm_service_log_dir"))
    extra = dict(throwaway, vllm_install_backend="cpu", vllm_service_host="0.0.0.0",
                 vllm_service_port=free_port(), vllm_service_api_key=API_KEY,
                 vllm_service_hf_token=HF_TOKEN, vllm_service_tls_cert=cert,
                 vllm_service_tls_key=key,
                 vllm_summary_json_path=str(tmp_path / "out" / "summary"),
                 vllm_report_path=str(tmp_path / "out" / "report.json"))
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "vllm_hosts:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    (tmp_path / "out").mkdir()
    vars_file = tmp_path / "secret-vars.json"   # as a vault-decrypted vars file would be
    vars_file.write_text(json.dumps(extra))
    return inventory, vars_file, secrets_of(key)


def tree_text(folder):
    """(path, text) of every file under ``folder``."""
    for base, _, names in os.walk(str(folder)):
        for name in names:
            path = os.path.join(base, name)
            with open(path, "rb") as handle:
                yield path, handle.read().decode("utf-8", "replace")


def test_check_diff_verbose_run_shows_no_secret(tmp_path):
    inventory, vars_file, secrets = setup(tmp_path)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default", ANSIBLE_CALLBACK_RESULT_FORMAT="json")
    proc = subprocess.run([PLAYBOOK, "-i", str(inventory), os.path.join(ROOT, "site.yml"), "--check",
                           "--diff", "-v", "-e", "@" + str(vars_file)], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=400)
    vars_file.unlink()
    assert proc.returncode == 0, proc.stdout[-5000:]
    # the run went where the secrets are used: the TLS files, the secrets file, the https summary
    assert "TASK [vllm_service : Write the TLS private key (root and the service group only)]" in proc.stdout
    assert "TASK [vllm_service : Write the secrets file (root only)]" in proc.stdout
    assert "BEGIN CERTIFICATE" in proc.stdout           # the certificate's diff: not a secret
    assert "vLLM NOT CHECKED (check mode) at https://0.0.0.0:" in proc.stdout
    assert found_in(proc.stdout, secrets) == []
    outputs = list(tree_text(tmp_path / "out"))
    assert any(path.endswith(".json") and "summary" in path for path, _ in outputs), outputs
    for path, text in outputs:
        assert found_in(text, secrets) == [], path
    assert not (tmp_path / "host" / "vllm_service_config_dir").exists()  # check mode wrote nothing


def test_provision_output_report_and_runner_artifacts_show_no_secret(tmp_path):
    inventory, vars_file, secrets = setup(tmp_path)
    report = tmp_path / "out" / "report.json"
    proc = subprocess.run([sys.executable, PROVISION, "-i", str(inventory), "--check", "--diff",
                           "-e", "@" + str(vars_file), "--report", str(report)], cwd=str(tmp_path),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    vars_file.unlink()
    assert proc.returncode == 0, proc.stdout[-5000:]
    assert found_in(proc.stdout, secrets) == []
    data = json.loads(report.read_text())
    run_dir = data["run"]["artifacts"] or ""
    assert run_dir.startswith(ARTIFACTS) and os.path.isdir(run_dir), data
    searched = 0
    for path, text in list(tree_text(ARTIFACTS)) + list(tree_text(tmp_path / "out")):
        searched += 1
        assert found_in(text, secrets) == [], path
    # the run's own events are there and were searched (they hold the diffs)
    assert any(p.startswith(os.path.join(run_dir, "job_events")) for p, _ in tree_text(run_dir))
    assert searched > 10


def test_an_exposed_key_without_tls_is_warned_about_not_refused(tmp_path):
    inventory, vars_file, secrets = setup(tmp_path)
    extra = json.loads(vars_file.read_text())
    for name in ("vllm_service_tls_cert", "vllm_service_tls_key"):
        extra.pop(name)
    vars_file.write_text(json.dumps(extra))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default")
    proc = subprocess.run([PLAYBOOK, "-i", str(inventory), os.path.join(ROOT, "site.yml"), "--check",
                           "-e", "@" + str(vars_file)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=400)
    vars_file.unlink()
    assert proc.returncode == 0, proc.stdout[-5000:]
    assert "vLLM NOT CHECKED (check mode) at http://0.0.0.0:" in proc.stdout
    assert "- 'Warning: vllm_service_host is ''0.0.0.0'' and the server speaks plain http" in proc.stdout
    summary = json.loads((tmp_path / "out" / "summary.testbox.json").read_text())
    assert summary["url"].startswith("http://0.0.0.0:")
    [warning] = summary["warnings"]
    assert warning.startswith("vllm_service_host is '0.0.0.0' and the server speaks plain http")
    assert found_in(proc.stdout, secrets) == []
