import os
import sys
import types

import pytest
from ansible.module_utils import basic

from vllm_testlib import CORPUS, ROOT, load_module

vllm_host_facts = load_module("vllm_host_facts")

QUERY = "0, NVIDIA GeForce RTX 4090, 24564, 1024, 580.65.06, 8.9\n"
A100_TABLE = os.path.join(ROOT, "tests", "fixtures", "nvidia_smi", "a100_pcie_80gb_535.104.05.txt")
A100_QUERY = "0, NVIDIA A100 80GB PCIe, 81920, 73393, 535.104.05, 8.0, GPU-5b1ae2f4-2d1e-cf0f-0b43-3a9a1c1d2e3f\n"


@pytest.fixture(autouse=True)
def no_pynvml(monkeypatch):
    """The host's system Python on a first run: no pynvml (a test that wants one installs a fake)."""
    monkeypatch.setitem(sys.modules, "pynvml", None)


def test_facts_without_gpu(module_runner, monkeypatch, tmp_path):
    monkeypatch.setattr(vllm_host_facts, "find_nvidia_smi", lambda: None)
    result = module_runner(vllm_host_facts, {"paths": {"store": str(tmp_path / "x" / "y")}})
    facts = result["ansible_facts"]["vllm_host"]
    assert result["changed"] is False
    assert facts["gpu"]["present"] is False and "not found" in facts["gpu"]["reason"]
    assert facts["cpus"] >= 1 and facts["memory"]["total_mib"] > 0
    assert facts["space"]["store"]["checked"] == str(tmp_path)
    assert facts["python"]["system"]
    assert facts["init"]["pid1"]


def test_facts_with_a_stand_in_nvidia_smi(module_runner, monkeypatch, tmp_path):
    table = open(os.path.join(CORPUS, "nvidia_smi", "08_rtx4090_580.65.06_cuda13.txt")).read() \
        if os.path.isdir(CORPUS) else ""
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\n")
    smi.chmod(0o755)
    real_run = basic.AnsibleModule.run_command

    def run_command(self, args, **kwargs):
        if args[0] == str(smi):
            return (0, QUERY, "") if len(args) > 1 else (0, table, "")
        return real_run(self, args, **kwargs)

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    result = module_runner(vllm_host_facts, {"nvidia_smi": str(smi)})
    gpu = result["ansible_facts"]["vllm_host"]["gpu"]
    assert gpu["present"] is True
    assert gpu["driver_version"] == "580.65.06"
    assert gpu["gpus"][0]["name"] == "NVIDIA GeForce RTX 4090"
    assert gpu["gpus"][0]["memory_total_mib"] == 24564


def test_failing_nvidia_smi_degrades_with_a_reason(module_runner, monkeypatch, tmp_path):
    def run_command(self, args, **kwargs):
        if args[0] == "/fake/nvidia-smi":
            return 9, "", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"
        return 0, "Python 3.11.2", ""

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    result = module_runner(vllm_host_facts, {"nvidia_smi": "/fake/nvidia-smi"})
    gpu = result["ansible_facts"]["vllm_host"]["gpu"]
    assert gpu["present"] is False
    assert "couldn't communicate" in gpu["reason"]


def test_old_driver_without_compute_cap_falls_back(module_runner, monkeypatch):
    seen = []

    def run_command(self, args, **kwargs):
        if args[0] == "/fake/nvidia-smi":
            seen.append(args)
            if any("compute_cap" in a for a in args):
                return 2, 'Field "compute_cap" is not a valid field to query.', ""
            if len(args) > 1:
                return 0, "0, Tesla V100-SXM2-16GB, 16160, 0, 470.82.01\n", ""
            return 9, "", "no table"
        return 0, "Python 3.11.2", ""

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    result = module_runner(vllm_host_facts, {"nvidia_smi": "/fake/nvidia-smi"})
    gpu = result["ansible_facts"]["vllm_host"]["gpu"]
    assert len(seen) == 3
    assert gpu["present"] and gpu["driver_version"] == "470.82.01"
    assert gpu["gpus"][0]["memory_total_mib"] == 16160


def _a100_smi(monkeypatch):
    with open(A100_TABLE) as handle:
        table = handle.read()

    def run_command(self, args, **kwargs):
        if args[0] == "/fake/nvidia-smi":
            return (0, A100_QUERY, "") if len(args) > 1 else (0, table, "")
        return 0, "Python 3.11.2", ""

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)


def _fake_pynvml(total_mib=81920, fail_init=None):
    class NVMLError(Exception):
        pass

    lib_not_found = type("NVMLError_LibraryNotFound", (NVMLError,), {})
    mod = types.ModuleType("pynvml")

    def init():
        if fail_init:
            raise lib_not_found()

    mod.nvmlInit = init
    mod.nvmlShutdown = lambda: None
    mod.nvmlSystemGetDriverVersion = lambda: "535.104.05"
    mod.nvmlSystemGetCudaDriverVersion_v2 = lambda: 12020
    mod.nvmlSystemGetNVMLVersion = lambda: "12.535.104.05"
    mod.nvmlDeviceGetCount = lambda: 1
    mod.nvmlDeviceGetHandleByIndex = lambda i: i
    mod.nvmlDeviceGetName = lambda h: b"NVIDIA A100 80GB PCIe"
    mod.nvmlDeviceGetMemoryInfo = lambda h: types.SimpleNamespace(
        total=total_mib * 1024 * 1024, used=73393 * 1024 * 1024, free=0)
    mod.nvmlDeviceGetCudaComputeCapability = lambda h: (8, 0)
    mod.nvmlDeviceGetUUID = lambda h: "GPU-5b1ae2f4-2d1e-cf0f-0b43-3a9a1c1d2e3f"
    return mod


def test_without_pynvml_the_nvidia_smi_facts_say_why(module_runner, monkeypatch):
    _a100_smi(monkeypatch)
    result = module_runner(vllm_host_facts, {"nvidia_smi": "/fake/nvidia-smi"})
    gpu = result["ansible_facts"]["vllm_host"]["gpu"]
    assert gpu["present"] is True and gpu["source"] == "query"
    assert gpu["nvml"]["used"] is False and gpu["nvml"]["reason"].startswith("no pynvml")
    assert not any("NVML" in w for w in gpu["warnings"])
    assert gpu["gpus"][0]["uuid"] == "GPU-5b1ae2f4-2d1e-cf0f-0b43-3a9a1c1d2e3f"
    assert (gpu["driver_version"], gpu["cuda_version"]) == ("535.104.05", "12.2")


def test_nvml_facts_win_and_agree(module_runner, monkeypatch):
    _a100_smi(monkeypatch)
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml())
    result = module_runner(vllm_host_facts, {"nvidia_smi": "/fake/nvidia-smi"})
    gpu = result["ansible_facts"]["vllm_host"]["gpu"]
    assert gpu["present"] is True and gpu["source"] == "nvml"
    assert gpu["nvml"] == {"used": True, "reason": "NVML 12.535.104.05", "disagreements": []}
    assert gpu["nvidia_smi"] == "/fake/nvidia-smi"
    assert (gpu["driver_version"], gpu["cuda_version"], gpu["cuda_version_from_driver"]) == \
        ("535.104.05", "12.2", "12.2")
    assert gpu["gpus"][0]["memory_total_mib"] == 81920 and gpu["gpus"][0]["compute_capability"] == "8.0"


def test_nvml_disagreement_is_a_warning(module_runner, monkeypatch):
    _a100_smi(monkeypatch)
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml(total_mib=40960))
    result = module_runner(vllm_host_facts, {"nvidia_smi": "/fake/nvidia-smi"})
    gpu = result["ansible_facts"]["vllm_host"]["gpu"]
    assert gpu["source"] == "nvml"
    assert gpu["nvml"]["disagreements"] == ["GPU 0 total memory: NVML 40960 MiB, nvidia-smi 81920 MiB"]
    assert any(w.startswith("NVML and nvidia-smi disagree") for w in gpu["warnings"])


def test_nvml_library_missing_falls_back(module_runner, monkeypatch):
    _a100_smi(monkeypatch)
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml(fail_init=True))
    result = module_runner(vllm_host_facts, {"nvidia_smi": "/fake/nvidia-smi"})
    gpu = result["ansible_facts"]["vllm_host"]["gpu"]
    assert gpu["source"] == "query" and gpu["present"] is True
    assert "NVMLError_LibraryNotFound" in gpu["nvml"]["reason"]


def test_nvml_without_nvidia_smi(module_runner, monkeypatch):
    monkeypatch.setattr(vllm_host_facts, "find_nvidia_smi", lambda: None)
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml())
    result = module_runner(vllm_host_facts, {})
    gpu = result["ansible_facts"]["vllm_host"]["gpu"]
    assert gpu["present"] is True and gpu["source"] == "nvml" and "reason" not in gpu
    assert "nvidia-smi not found" in gpu["nvml"]["reason"]


def test_the_cuda_driver_table_is_the_modules_option(module_runner, monkeypatch):
    """The role passes data/vllm_compat.yml's cuda_driver_minimums; the module has no copy of it."""
    import vllm_gpu
    monkeypatch.setattr(vllm_gpu, "_DRIVER_ROWS", None)
    _a100_smi(monkeypatch)
    only_12_0 = {"12.0": {"linux": "525.60.13", "windows": "527.41"}}
    result = module_runner(vllm_host_facts, {"nvidia_smi": "/fake/nvidia-smi", "cuda_driver_minimums": only_12_0})
    gpu = result["ansible_facts"]["vllm_host"]["gpu"]
    assert (gpu["driver_version"], gpu["cuda_version"], gpu["cuda_version_from_driver"]) == \
        ("535.104.05", "12.2", "12.0")


def test_without_the_table_off_the_repository_no_cuda_is_derived(module_runner, monkeypatch, tmp_path):
    import vllm_gpu
    monkeypatch.setattr(vllm_gpu, "_DRIVER_ROWS", None)
    monkeypatch.setattr(vllm_gpu, "DEFAULT_COMPAT_TABLE", str(tmp_path / "absent.yml"))  # as on a host
    _a100_smi(monkeypatch)
    result = module_runner(vllm_host_facts, {"nvidia_smi": "/fake/nvidia-smi"})
    gpu = result["ansible_facts"]["vllm_host"]["gpu"]
    assert (gpu["driver_version"], gpu["cuda_version"], gpu["cuda_version_from_driver"]) == \
        ("535.104.05", "12.2", None)
