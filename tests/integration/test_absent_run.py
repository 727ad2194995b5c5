"""vllm_state absent on the real site.yml, against this machine with throwaway paths.

A throwaway root looks like a host that was provisioned (a release that ``current`` points at,
the release history, the options, environment and secrets files, a model store). The unit file
and the launcher are at their fixed paths, absent on this machine, so only the throwaway tree is
touched. An absent run must remove the releases and the configuration, keep the model store
byte for byte, call the host "removed" in the report and exit 0; a second absent run changes
nothing; check mode removes nothing and says what it would. Nothing of vLLM is installed or run.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from vllm_testlib import ROOT

PLAYBOOK = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or \
    shutil.which("ansible-playbook")

pytestmark = pytest.mark.skipif(PLAYBOOK is None, reason="ansible-playbook is not installed "
                                "(run scripts/bootstrap)")


def tree_digest(path):
    out = {}
    for base, _, files in os.walk(str(path)):
        for name in files:
            full = os.path.join(base, name)
            with open(full, "rb") as handle:
                out[os.path.relpath(full, str(path))] = hashlib.sha256(handle.read()).hexdigest()
    return out


@pytest.fixture()
def provisioned(tmp_path):
    root = tmp_path / "opt-vllm"
    (root / "releases" / "rel-x" / "venv").mkdir(parents=True)
    (root / "releases" / "rel-x" / "venv" / "marker").write_text("x")
    (root / "releases.json").write_text("[]\n")
    (root / "tools").mkdir()
    os.symlink(str(root / "releases" / "rel-x"), str(root / "current"))
    config = tmp_path / "etc-vllm"
    config.mkdir()
    for name in ("vllm.yaml", "vllm.env", "secrets.env"):
        (config / name).write_text("port: 18000\n" if name == "vllm.yaml" else "X=1\n")
    store = tmp_path / "models"
    (store / "tiny-llama").mkdir(parents=True)
    (store / "tiny-llama" / "config.json").write_text('{"architectures": ["LlamaForCausalLM"]}')
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "vllm_hosts:\n  hosts:\n    testbox:\n      ansible_connection: local\n"
        "      ansible_python_interpreter: %s\n" % sys.executable)
    extra = tmp_path / "extra.json"
    report = tmp_path / "report.json"
    extra.write_text(json.dumps({
        "vllm_state": "absent", "vllm_python_root": str(root), "vllm_model_store": str(store),
        "vllm_service_config_dir": str(config), "vllm_install_backend": "cpu", "vllm_service_port": 18000,
        "vllm_report_path": str(report)}))
    return {"root": root, "config": config, "store": store, "inventory": inventory, "extra": extra,
            "report": report}


def run(host, *args):
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", VLLM_PROGRESS_INTERVAL="0")
    return subprocess.run([PLAYBOOK, "-i", str(host["inventory"]), os.path.join(ROOT, "site.yml"),
                           "-e", "@%s" % host["extra"]] + list(args), cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)


def flat(stdout):
    """The output with whitespace folded (the YAML result format wraps long lines)."""
    return " ".join(stdout.split())


def recap(stdout):
    match = re.search(r"^testbox\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", stdout, re.M)
    assert match, stdout[-3000:]
    return dict(zip(("ok", "changed", "unreachable", "failed"), map(int, match.groups())))


def test_absent_removes_the_server_keeps_the_store_and_a_second_run_changes_nothing(provisioned):
    store_before = tree_digest(provisioned["store"])
    first = run(provisioned)
    assert first.returncode == 0, first.stdout[-4000:]
    counts = recap(first.stdout)
    assert counts["changed"] >= 1 and counts["failed"] == 0
    root = provisioned["root"]
    assert sorted(os.listdir(str(root))) == ["tools"]
    assert not provisioned["config"].exists()
    assert tree_digest(provisioned["store"]) == store_before
    assert "vLLM REMOVED on testbox: no server was set up to stop" in flat(first.stdout)
    assert "Kept: %s" % provisioned["store"] in first.stdout
    assert ("bring it back: ansible-playbook site.yml -l testbox (the model store was kept: no download)"
            in flat(first.stdout))
    report = json.loads(provisioned["report"].read_text())
    assert [(r["host"], r["status"]) for r in report["hosts"]] == [("testbox", "removed")]
    assert report["ok"] is True and report["counts"]["removed"] == 1 and report["counts"]["not_ready"] == 0
    # the install roles were skipped: the only change is the removal
    assert counts["changed"] == 1, first.stdout[-4000:]

    second = run(provisioned)
    assert second.returncode == 0, second.stdout[-4000:]
    assert recap(second.stdout)["changed"] == 0, second.stdout[-4000:]
    assert "Removed: nothing (already gone)" in flat(second.stdout)
    assert tree_digest(provisioned["store"]) == store_before


def test_absent_in_check_mode_removes_nothing_and_says_what_it_would(provisioned):
    before = sorted(os.listdir(str(provisioned["root"])))
    proc = run(provisioned, "--check")
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert recap(proc.stdout)["changed"] >= 1
    assert sorted(os.listdir(str(provisioned["root"]))) == before
    assert sorted(os.listdir(str(provisioned["config"]))) == ["secrets.env", "vllm.env", "vllm.yaml"]
    assert "vLLM WOULD BE REMOVED (check mode) on testbox" in flat(proc.stdout)


def test_an_unknown_state_is_refused_before_any_change(provisioned):
    proc = run(provisioned, "-e", "vllm_state=gone")
    assert proc.returncode == 2, proc.stdout[-4000:]
    # the preflight's argument spec refuses it first (its input check says the same in its words)
    assert "vllm_state must be one of: present, absent, got: gone" in proc.stdout
    report = json.loads(provisioned["report"].read_text())
    assert [(r["host"], r["status"]) for r in report["hosts"]] == [("testbox", "refused")]
    assert os.path.islink(str(provisioned["root"] / "current"))
