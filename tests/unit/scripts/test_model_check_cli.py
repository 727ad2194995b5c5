"""scripts/model-check run as a subprocess on tiny models made in the test."""
import json
import os
import subprocess
import sys

from tiny_model import make_tiny_model

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TOOL = os.path.join(ROOT, "scripts", "model-check")


def run(*args):
    return subprocess.run([sys.executable, TOOL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60)


def test_a_good_model_passes_with_the_architecture_list(tmp_path):
    model = str(tmp_path / "m")
    make_tiny_model(model)
    archs = tmp_path / "archs.json"
    archs.write_text(json.dumps(["LlamaForCausalLM"]))
    proc = run(model, "--archs-file", str(archs), "--backend", "cpu", "--ram-gib", "8")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "LlamaForCausalLM, safetensors weights" in proc.stdout and proc.stdout.endswith("OK\n")


def test_a_truncated_model_is_refused_in_json(tmp_path):
    model = str(tmp_path / "m")
    make_tiny_model(model)
    with open(os.path.join(model, "model.safetensors"), "r+b") as handle:
        handle.truncate(50000)
    proc = run(model, "--json")
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert not result["ok"] and "model.safetensors is truncated" in result["errors"][0]


def test_options_change_the_size_check(tmp_path):
    model = str(tmp_path / "m")
    make_tiny_model(model)
    proc = run(model, "--backend", "cuda", "--gpu-gib", "0.5", "--option", "gpu_memory_utilization=0.1")
    assert proc.returncode == 1 and "cannot fit" in proc.stdout


def test_usage_errors_exit_2(tmp_path):
    assert run(str(tmp_path), "--backend", "cpu").returncode == 2
    assert run(str(tmp_path), "--option", "novalue").returncode == 2
