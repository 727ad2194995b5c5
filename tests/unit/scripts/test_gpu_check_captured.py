"""scripts/gpu-check's captures from machines with a real NVIDIA GPU (tests/fixtures/gpu_check/<machine-date>/).

Each capture is what the check printed and wrote there. Replayed here against today's code:
- the raw nvidia-smi runs it recorded parse to the facts it recorded, and NVML and nvidia-smi
  agreed there (the real driver's outputs stay parser fixtures);
- nothing in the project's code raised there;
- torch saw the GPU, and the GPU's architecture is in the arch list of the torch that ran;
- today's planner, given the recorded facts, makes the same plan (variant, mode, release) and
  NVIDIA's rule for the recorded driver (R580 and newer: the CUDA 13.0 build, native) holds.
"""
import json
import os

import pytest

import vllm_gpu
from vllm_plan import load_table, plan

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CAPTURES = os.path.join(ROOT, "tests", "fixtures", "gpu_check")
NAMES = sorted(d for d in os.listdir(CAPTURES) if os.path.isdir(os.path.join(CAPTURES, d)))


def _load(name):
    with open(os.path.join(CAPTURES, name, "gpu-check.json")) as handle:
        return json.load(handle)


def test_there_is_a_real_gpu_capture():
    assert NAMES, "no capture in tests/fixtures/gpu_check"
    for name in NAMES:
        assert os.path.isfile(os.path.join(CAPTURES, name, "gpu-check.txt")), name


@pytest.mark.parametrize("name", NAMES)
def test_recorded_nvidia_smi_runs_parse_to_the_recorded_facts(name):
    capture = _load(name)
    runs = {tuple(r["args"]): r for r in capture["nvidia_smi"]["runs"]}

    def replay(args):
        run = runs[tuple(args)]
        return run["rc"], run["stdout"], run.get("stderr", "")

    facts, reason = vllm_gpu.read_nvidia_smi(replay)
    assert reason is None
    assert facts == capture["nvidia_smi"]["facts"]
    assert capture["agreement"] == {"compared": True, "disagreements": []}
    assert capture["crashes"] == []


@pytest.mark.parametrize("name", NAMES)
def test_torch_saw_the_gpu_and_has_its_kernels(name):
    capture = _load(name)
    torch = capture["torch"]
    assert torch["is_available"] and torch["device_count"] == len(capture["gpu"]["gpus"])
    for device in torch["devices"]:
        arch = "sm_" + device["capability"].replace(".", "")
        assert arch in torch["arch_list"], (device, torch["arch_list"])


@pytest.mark.parametrize("name", NAMES)
def test_todays_plan_for_the_recorded_facts(name):
    capture = _load(name)
    recorded = capture["plan"]["plan"]
    host = capture["host"]
    table = load_table(os.path.join(ROOT, "data", "vllm_compat.yml"))
    facts = {"arch": host.get("arch", "x86_64"), "python_version": recorded["python_version"],
             "python_available": [recorded["python_version"]], "gpu": capture["gpu"], "wsl": False}
    today = plan(facts, table)
    for key in ("backend", "cuda_variant", "compat_mode", "vllm_version", "torch_version"):
        assert today[key] == recorded[key], key
    driver = tuple(int(p) for p in capture["gpu"]["driver_version"].split(".")[:1])
    if driver >= (580,):
        assert (today["cuda_variant"], today["compat_mode"]) == ("cu130", "native")


@pytest.mark.parametrize("name", ["h200_580.159.04_device_check.txt", "q_h200_580.159.04_device_check.txt"])
def test_the_real_h200_outputs_parse(name):
    with open(os.path.join(ROOT, "tests", "fixtures", "nvidia_smi", name)) as handle:
        facts = vllm_gpu.parse_nvidia_smi(handle.read())
    assert facts["driver_version"] == "580.159.04" and facts["cuda_version"] == "13.0"
    assert [(g["name"], g["memory_total_mib"]) for g in facts["gpus"]] == [("NVIDIA H200", 143771)]
    assert not [w for w in facts["warnings"] if "-q" not in w]  # -q only says it read -q
