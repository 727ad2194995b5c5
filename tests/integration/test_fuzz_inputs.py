"""Generated bad and hostile inputs through the real site.yml, in check mode with --diff.

The inputs come from tests/vllm_fuzz.py (a fixed seed; ten of them also go through real runs in
the default Molecule scenario, molecule/shared/hostile_runs.py). Each bad input
must be refused by the preflight: the run exits non-zero, one error line names the variable (and
the key or value as repr shows it; a secret's value never), and nothing is created on the host
(throwaway paths, as in test_bad_input.py). The preflight reports every problem at once, one line
each, so the bad inputs are batched: a run carries at most one value per plain variable and a
share of the hostile option and environment keys, and every input's own line must be there.
Legal but awkward inputs (quotes, '#', ': ', non-ASCII, dashed option names) must render exactly
what the user meant: the options file and the environment file of the diff read back to the
values given.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml

from vllm_fuzz import SEED, batches, legal_inputs
from vllm_testlib import ROOT

sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))
from vllm_launcher import parse_env_file  # noqa: E402  (the reader the launcher uses)

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")

pytestmark = pytest.mark.skipif(PLAYBOOK is None, reason="ansible-playbook is not installed "
                                "(run scripts/bootstrap)")

def run_site(tmp_path, extra):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "vllm_hosts:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    throwaway = dict((name, str(tmp_path / name)) for name in (
        "vllm_python_root", "vllm_model_store", "vllm_service_config_dir", "vllm_service_state_dir",
        "vllm_service_log_dir"))
    extra_vars = dict(throwaway, vllm_install_backend="cpu",
                      vllm_report_path=str(tmp_path / "report" / "report.json"), **extra)
    vars_file = tmp_path / "extra.json"
    vars_file.write_text(json.dumps(extra_vars))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default", ANSIBLE_CALLBACK_RESULT_FORMAT="json")
    proc = subprocess.run(
        [PLAYBOOK, "-i", str(inventory), os.path.join(ROOT, "site.yml"), "--check", "--diff",
         "-e", "@" + str(vars_file)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    vars_file.unlink()
    return proc, [tmp_path / name for name in throwaway]


def preflight_errors(stdout):
    """The preflight's error lines, exactly (from the failed assert's JSON result: a heading line,
    then one ``- error`` a line)."""
    for line in stdout.splitlines():
        if line.startswith("fatal: [testbox]: FAILED! => ") and "Invalid input" in line:
            lines = json.loads(line.split("=> ", 1)[1])["msg"].split("\n")[1:]
            assert all(e.startswith("- ") for e in lines), lines
            return [e[2:] for e in lines]
    return None


def test_the_generated_inputs_are_reproducible_and_many():
    runs = batches(SEED)
    assert runs == batches(SEED)
    assert sum(len(run["cases"]) for run in runs) >= 50


@pytest.mark.parametrize("index", range(len(batches(SEED))))
def test_hostile_inputs_are_refused_before_any_change(tmp_path, index):
    run = batches(SEED)[index]
    proc, created = run_site(tmp_path, run["extra"])
    assert proc.returncode != 0, proc.stdout[-3000:]
    errors = preflight_errors(proc.stdout)
    assert errors is not None, proc.stdout[-3000:]
    for variable, key, needle, secret in run["cases"]:
        mine = [e for e in errors if needle in e]
        assert mine, "no error for %s %r (expected %r) in:\n%s" % (variable, key, needle,
                                                                  "\n".join(errors))
        assert all(e.startswith(variable) for e in mine)
        if secret:
            assert secret not in proc.stdout
    assert "changed=0" in proc.stdout
    for path in created:
        assert not path.exists(), "the run created %s before failing" % path


# vllm_rollout_* are play keywords of provision.yml, read before any task: the controller play
# (playbooks/ansible_version.yml) checks them first and ends the whole run
def test_a_negative_max_fail_percentage_is_named(tmp_path):
    cases = (("vllm_rollout_max_fail_percentage", -1, "-1"), ("vllm_rollout_max_fail_percentage", "ten", "'ten'"),
             ("vllm_rollout_max_fail_percentage", 101, "101"), ("vllm_rollout_serial", 0, "0"),
             ("vllm_rollout_serial", "-5%", "'-5%'"))
    for name, value, shown in cases:
        proc, _ = run_site(tmp_path, {name: value})
        assert proc.returncode != 0, (name, value)
        assert "%s is %s" % (name, shown) in proc.stdout, (name, value, proc.stdout[-2000:])
        assert "PLAY [Provision" not in proc.stdout


def diff_after(stdout, task):
    """The rendered text of ``task``'s diff (its '+' lines)."""
    block = stdout.split("TASK [vllm_service : %s]" % task, 1)[1].split("\nTASK [", 1)[0]
    return "".join(line[1:] + "\n" for line in block.splitlines()
                   if line.startswith("+") and not line.startswith("+++"))


def test_awkward_legal_inputs_render_exactly_what_was_meant(tmp_path):
    extra = legal_inputs(SEED)
    proc, created = run_site(tmp_path, extra)
    assert proc.returncode == 0, proc.stdout[-4000:]
    rendered = yaml.safe_load(diff_after(proc.stdout, "Render the server's options (vLLM --config YAML)"))
    for key, value in extra["vllm_service_options"].items():
        assert rendered[key.lstrip("-").replace("_", "-")] == value, key
    assert rendered["served-model-name"] == "org/Model-1.5:q4"
    assert rendered["host"] == "0.0.0.0" and rendered["port"] == 8123
    env = parse_env_file(diff_after(proc.stdout, "Render the server's environment file"))
    for key, value in extra["vllm_service_env"].items():
        assert env[key] == value, key
    assert "VLLM_API_KEY" not in env
    assert extra["vllm_service_api_key"] not in proc.stdout
    for path in created:
        assert not path.exists(), "check mode created %s" % path
