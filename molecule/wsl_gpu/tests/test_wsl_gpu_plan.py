"""The WSL2 GPU stand-in, provisioned in check mode: the plan and what would run, nothing more."""
import json
import os

import pytest

REPORT = os.path.join(os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "/nonexistent"),
                      "summary.vllm-wsl-gpu.json")


@pytest.fixture(scope="module")
def report():
    with open(REPORT) as handle:
        return json.load(handle)


def test_wsl_and_the_gpu_were_detected(report):
    assert report["wsl"]["is_wsl"] is True and report["wsl"]["version"] == 2
    gpu = report["gpu"]
    assert gpu["present"] is True
    assert gpu["nvidia_smi"] == "/usr/lib/wsl/lib/nvidia-smi"
    assert gpu["driver_version"] == "591.86"
    assert gpu["cuda_version"] == "13.1"
    assert gpu["gpus"][0]["name"] == "NVIDIA GeForce RTX 4070"
    assert gpu["gpus"][0]["memory_total_mib"] == 12282


def test_the_plan_is_the_cuda_stack_the_driver_can_run(report):
    plan = report["plan"]
    assert plan["error"] is None
    assert plan["backend"] == "cuda"
    assert plan["vllm_package"] == "vllm"
    assert plan["cuda_variant"] == "cu130"
    assert plan["python_version"] == "3.11"
    assert "vllm==%s" % plan["vllm_version"] in plan["requirements"]
    assert any(r.startswith("torch==") for r in plan["requirements"])
    assert report["ready"] is False  # check mode: nothing was started


def test_the_unit_environment_uses_wsl_libcuda_and_pinned_memory(report):
    env = report["environment"]
    assert env["LD_LIBRARY_PATH"] == "/usr/lib/wsl/lib"
    assert env["VLLM_WSL2_ENABLE_PIN_MEMORY"] == "1"
    assert env["HF_HUB_OFFLINE"] == "1"


def test_install_commands_are_shown(report):
    compile_cmd, sync_cmd = report["install_commands"]
    assert " pip compile " in compile_cmd and "requirements.in" in compile_cmd
    assert " pip sync " in sync_cmd and "requirements.lock" in sync_cmd


def test_nothing_was_installed_or_downloaded(host):
    assert not host.file("/opt/vllm").exists
    assert not host.file("/etc/vllm").exists
    assert not host.file("/etc/systemd/system/vllm.service").exists
    assert not host.file("/var/cache/vllm-provision").exists
    found = host.run("find / -xdev \\( -name 'torch' -o -name 'nvidia_*' \\) -path '*-packages*' "
                     "-print -quit").stdout
    assert found == ""
