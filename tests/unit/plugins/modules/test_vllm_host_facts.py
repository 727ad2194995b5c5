import os

from ansible.module_utils import basic

from vllm_testlib import CORPUS, load_module

vllm_host_facts = load_module("vllm_host_facts")

QUERY = "0, NVIDIA GeForce RTX 4090, 24564, 1024, 580.65.06, 8.9\n"


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
