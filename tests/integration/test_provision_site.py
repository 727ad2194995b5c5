"""scripts/provision on the real site.yml, with input every host refuses in its preflight.

Two hosts of this machine (local connection), each with a bad variable and a throwaway root for
everything a run would create. With the rollout defaults of playbooks/provision.yml (a canary
batch of one host, no failure tolerated) box-a stops in vllm_preflight, before anything changes,
and Ansible ends the run: box-b is never reached. The report must list both (box-a with the
preflight task and its message, refused before any change, nothing installed yet) and the script
must exit 3 (refused before any change). Nothing of vLLM is installed or run.
"""
import json
import os
import subprocess
import sys

from vllm_testlib import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "provision")


def test_preflight_refusals_on_two_hosts_are_in_the_report(tmp_path):
    inventory = tmp_path / "hosts.yml"
    lines = ["vllm_hosts:", "  vars:", "    ansible_connection: local",
             "    ansible_python_interpreter: %s" % sys.executable, "    vllm_install_backend: cpu", "  hosts:"]
    for name, bad in (("box-a", "vllm_service_port: 70000"), ("box-b", "vllm_python_version: '3.9'")):
        lines += ["    %s:" % name, "      %s" % bad,
                  "      vllm_python_root: %s" % (tmp_path / name / "opt-vllm"),
                  "      vllm_model_store: %s" % (tmp_path / name / "models")]
    inventory.write_text("\n".join(lines) + "\n")
    report_path = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, SCRIPT, "-i", str(inventory), "--report", str(report_path)],
                          cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=600)
    assert proc.returncode == 3, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout.splitlines()
    assert out[0] == "provision: %s on 2 hosts: box-a, box-b" % os.path.join(ROOT, "site.yml")
    # progress lines come from the real roles
    assert any(line.startswith("[") and " box-a  ok          Validating arguments against arg spec" in line
               for line in out)
    assert any(" box-a  failed      Validate inputs before anything changes (" in line for line in out)
    assert not any(" box-b " in line for line in out if line.startswith("["))
    report = json.loads(report_path.read_text())
    rows = dict((row["host"], row) for row in report["hosts"])
    assert rows["box-a"]["status"] == "refused"
    assert rows["box-a"]["serving"] == {"release": None, "url": None, "answers": None}
    assert "  nothing was changed on it: nothing installed yet" in out
    assert rows["box-a"]["failed_task"] == "vllm_preflight : Validate inputs before anything changes"
    assert "vllm_service_port is 70000; accepted: an integer from 1 to 65535" in rows["box-a"]["message"]
    assert rows["box-b"]["status"] == "not reached"
    for name in ("box-a", "box-b"):
        assert not (tmp_path / name / "opt-vllm").exists()
        assert not (tmp_path / name / "models").exists()
    assert report["counts"]["not_ready"] == 2
    assert ("NOT OK: 2 targeted: 0 ready, 0 rolled back, 2 not ready "
            "(1 refused before any change, 1 not reached)") in out
