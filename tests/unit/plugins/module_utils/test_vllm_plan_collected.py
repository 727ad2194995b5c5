"""The plan over real nvidia-smi outputs collected from public reports (2026-12-01).

Each output is a file in tests/fixtures/nvidia_smi with a row in its labels.tsv (source URL, the
values read off the output by hand). The parse is checked against the labels; the plan is checked
against the outcome NVIDIA's rules give, worked out here from the labels and not from the code:

- driver 580 or newer: the CUDA 13.0 build runs natively (cu130, native);
- driver 575.x: the CUDA 12.9 build runs natively (cu129, native);
- Linux 525.60.13 to 574.x, Windows (WSL) 528.33 to 576.01: cu129 under CUDA 12.x minor version
  compatibility;
- older drivers: refused, the way out is a driver update;
- a GPU of compute capability below 7.5 (vLLM 0.33.0's minimum): refused, naming the capability.
"""
import csv
import os
import re

import pytest

import vllm_gpu
from vllm_plan import PlanError, load_table, plan

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
TABLE_PATH = os.path.join(ROOT, "data", "vllm_compat.yml")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "nvidia_smi")
MVC = "minor_version_compatibility"

# the outputs collected here; every one has a row in labels.tsv
COLLECTED = [
    "q_wsl_rtx4070_laptop_566.36.txt",
    "q_rtx2060_525.78.01_nvidia_smi_a.txt",
    "wsl_rtx3070_531.68.txt",
    "v100_sxm2_525.105.17.txt",
    "v100_sxm2_470.182.03.txt",
    "l4_570.133.20.txt",
    "a800_sxm4_535.86.10_cuda12.2.txt",
    "a800_pcie_2gpu_550.54.15.txt",
    "mixed_rtx5090_rtx4090_580.82.09.txt",
    "mixed_rtx5090_rtx3090_580.119.02.txt",
    "rtx5070_570.133.07.txt",
    "rtx5090_580.95.05.txt",
    "rtx4090d_550.107.02.txt",
    "tesla_p4_550.135.txt",
    "rtx4070_550.40.07.txt",
    "t4_515.105.01.txt",
]

# NVIDIA's minimum drivers, written out from NVIDIA's tables (not read from the code)
LINUX_MVC_MIN = (525, 60, 13)      # CUDA 12.x minor version compatibility, Linux
WINDOWS_MVC_MIN = (528, 33)        # the same, Windows (WSL runs the Windows driver)
LINUX_CUDA_12_9 = (575, 51, 3)     # CUDA 12.9 GA
WINDOWS_CUDA_12_9 = (576, 2)
CUDA_13_0 = (580,)                 # R580 and newer: CUDA 13.0
MIN_CC = (7, 5)                    # vLLM 0.33.0


def _labels():
    with open(os.path.join(FIXTURES, "labels.tsv")) as handle:
        return {row["file"]: row for row in csv.DictReader(handle, delimiter="\t")}


LABELS = _labels()


def _bare(label):
    """'531.68 (NVIDIA-SMI 530.47 inside WSL)' -> '531.68'; 'n/a (...)' -> None."""
    value = re.sub(r"\s+\(.*\)$", "", (label or "").strip()).strip()
    return None if value.lower() in ("", "n/a", "none", "-") else value


def _number(label):
    value = _bare(label)
    return int(value) if value and value.isdigit() else None


def _version(text):
    return tuple(int(p) for p in text.split("."))


def expected_outcome(row):
    """(variant, mode) or ('refused', what the refusal must name), from NVIDIA's rules."""
    cc = _bare(row["compute_capability"])
    if cc and _version(cc) < MIN_CC:
        return ("refused", "compute capability %s" % cc)
    driver = _version(_bare(row["driver_version"]))
    windows = row["is_wsl"].strip() == "yes"
    if driver >= CUDA_13_0:
        return ("cu130", "native")
    if driver >= (WINDOWS_CUDA_12_9 if windows else LINUX_CUDA_12_9):
        return ("cu129", "native")
    if driver >= (WINDOWS_MVC_MIN if windows else LINUX_MVC_MIN):
        return ("cu129", MVC)
    return ("refused", "driver")


def host(gpu, wsl):
    return {"arch": "x86_64", "python_version": "3.11", "python_available": ["3.11"], "gpu": gpu, "wsl": wsl}


@pytest.fixture(scope="module")
def table():
    return load_table(TABLE_PATH)


def _parse(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return vllm_gpu.parse_nvidia_smi(handle.read())


def test_every_collected_output_has_a_label_and_a_source():
    assert len(COLLECTED) >= 10 and len(set(COLLECTED)) == len(COLLECTED)
    for name in COLLECTED:
        assert os.path.exists(os.path.join(FIXTURES, name)), name
        row = LABELS[name]
        assert row["source"].startswith("https://github.com/"), name


@pytest.mark.parametrize("name", COLLECTED)
def test_parse_matches_the_labels(name):
    row = LABELS[name]
    facts = _parse(name)
    assert facts["driver_version"] == _bare(row["driver_version"])
    assert facts["cuda_version"] == _bare(row["cuda_version_shown"])
    assert len(facts["gpus"]) == int(row["gpu_count"])
    first = facts["gpus"][0]
    assert first["name"] == _bare(row["gpu_name"])
    assert first["memory_total_mib"] == _number(row["total_memory_MiB"])
    assert first["memory_used_mib"] == _number(row["used_memory_MiB"])
    assert first["compute_capability"] == _bare(row["compute_capability"])


@pytest.mark.parametrize("name", COLLECTED)
def test_plan_follows_nvidia_rules(table, name):
    row = LABELS[name]
    expected = expected_outcome(row)
    h = host(_parse(name), wsl=row["is_wsl"].strip() == "yes")
    if expected[0] == "refused":
        with pytest.raises(PlanError) as err:
            plan(h, table, {})
        assert err.value.way_out and "vllm_install_backend: cpu" in err.value.way_out
        if expected[1] == "driver":
            assert err.value.reason.startswith("driver %s supports CUDA" % _bare(row["driver_version"]))
            assert "update the" in err.value.way_out and "driver" in err.value.way_out
        else:
            assert expected[1] in err.value.reason
            assert "GPU 0 (%s)" % _bare(row["gpu_name"]) in err.value.reason
        return
    result = plan(h, table, {})
    assert result["backend"] == "cuda"
    assert (result["cuda_variant"], result["compat_mode"]) == expected
    assert any(r.startswith("compat mode: %s" % expected[1]) for r in result["reasons"])


def test_how_many_get_a_plan():
    outcomes = [expected_outcome(LABELS[name]) for name in COLLECTED]
    planned = [o for o in outcomes if o[0] != "refused"]
    assert (len(planned), len(outcomes) - len(planned)) == (12, 4)
    assert sorted(set(planned)) == [("cu129", MVC), ("cu130", "native")]


def test_mixed_boxes_check_every_gpu(table):
    """Both GPUs of a mixed box have kernels in the cu130 build: the plan names each."""
    for name in ("mixed_rtx5090_rtx4090_580.82.09.txt", "mixed_rtx5090_rtx3090_580.119.02.txt"):
        facts = _parse(name)
        assert [g["compute_capability"] for g in facts["gpus"]][0] == "12.0"
        result = plan(host(facts, wsl=False), table, {})
        for gpu in facts["gpus"]:
            assert any(r.startswith("GPU %d (%s): kernels" % (gpu["index"], gpu["name"])) for r in result["reasons"]), \
                result["reasons"]


def test_v100_on_an_old_driver_is_refused_for_the_gpu_first(table):
    """No driver update makes a V100 run vLLM 0.33.0: the refusal names the capability."""
    with pytest.raises(PlanError) as err:
        plan(host(_parse("v100_sxm2_470.182.03.txt"), wsl=False), table, {})
    assert "compute capability 7.0" in err.value.reason


def test_wsl_q_output_plans_on_the_windows_minimum(table):
    """The -q output carries no NVIDIA-SMI version: WSL comes from the host facts, not the parse."""
    facts = _parse("q_wsl_rtx4070_laptop_566.36.txt")
    result = plan(host(facts, wsl=True), table, {})
    assert any("528.33, NVIDIA's minimum Windows driver" in r for r in result["reasons"])
