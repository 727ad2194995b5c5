"""Real failures of the CUDA stack: the CUDA build (vllm 0.33.0 cu130 from PyPI) on our machines, torch, NCCL and vLLM 0.25.1 on an H200."""
import os

import pytest

import vllm_doctor
from vllm_testlib import ROOT

LOGS = os.path.join(ROOT, "tests", "fixtures", "logs_cuda")


def _diagnose(name):
    with open(os.path.join(LOGS, name)) as handle:
        text = handle.read()
    return text, vllm_doctor.diagnose(text)


def test_cuda_build_without_a_visible_gpu_is_named_with_the_fix():
    text, result = _diagnose("serve_no_gpu_visible.log")
    assert result["category"] == "cuda_driver_mismatch", result
    assert result["cause"] == "no_gpu_visible"
    assert "Failed to infer device type" in result["evidence"]
    assert result["evidence"].strip() in text
    assert result["fix"].startswith("No NVIDIA GPU visible")
    for way_out in ("/dev/nvidia0", "/dev/dxg", "CUDA_VISIBLE_DEVICES", "vllm_install_backend: cpu"):
        assert way_out in result["fix"]
    assert result["confidence"] >= 0.8


def test_the_missing_vllm_c_warning_is_not_taken_for_the_cause():
    # the CUDA build has no vllm._C (its kernels are *_stable_libtorch.abi3.so); the import warning
    # printed first is noise, the device error is the cause
    _, result = _diagnose("serve_no_gpu_visible.log")
    assert "vllm._C" not in result["evidence"]


# Real failures made on purpose on an NVIDIA H200 (tests/fixtures/logs_cuda/README.md): the cause
# of each is known by construction
H200_CASES = [
    ("h200_torch_cuda_oom_300gib.log", "gpu_oom", "cuda_oom", "tried 300.00 GiB"),
    ("h200_torch_cuda_visible_devices_empty.log", "cuda_driver_mismatch", "no_gpu_visible", "CUDA_VISIBLE_DEVICES"),
    ("h200_torch_cuda_visible_devices_unknown_uuid.log", "cuda_driver_mismatch", "no_gpu_visible",
     "CUDA_VISIBLE_DEVICES"),
    ("h200_torch_invalid_device_ordinal.log", "tensor_parallel_config", "invalid_ordinal", None),
    ("h200_nccl_two_ranks_one_gpu.log", "tensor_parallel_config", "duplicate_gpu", "tensor_parallel_size"),
    ("h200_torch_distributed_port_in_use.log", "port_in_use", "eaddrinuse", None),
    ("h200_vllm0251_no_module_tvm_ffi.log", "engine_core_generic", "vllm_dependency_missing", "'tvm_ffi'"),
    ("h200_vllm0251_engine_core_no_module_flashinfer.log", "engine_core_generic", "vllm_dependency_missing",
     "'flashinfer'"),
    ("h200_vllm0251_xgrammar_tvm_ffi_too_old.log", "engine_core_generic", "dependency_call_mismatch",
     "load_lib_module() of another with the keyword 'extra_lib_paths'"),
]


@pytest.mark.parametrize("name,category,cause,in_fix", H200_CASES, ids=[c[0] for c in H200_CASES])
def test_real_failures_on_an_h200(name, category, cause, in_fix):
    text, result = _diagnose(name)
    assert (result["category"], result["cause"]) == (category, cause), result
    assert result["evidence"].strip() in text
    if in_fix:
        assert in_fix in result["fix"], result["fix"]


def test_a_healthy_start_on_an_h200_names_no_cause():
    # vLLM 0.25.1 started with the rendered options and answered: nothing failed
    _, result = _diagnose("h200_vllm0251_serve_rendered_options_answers.log")
    assert result["category"] == "unknown" and result["confidence"] <= 0.2
