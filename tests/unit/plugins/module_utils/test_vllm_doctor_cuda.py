"""Real start-up failures of the CUDA build (vllm 0.33.0 cu130 from PyPI), recorded on our machines."""
import os

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
