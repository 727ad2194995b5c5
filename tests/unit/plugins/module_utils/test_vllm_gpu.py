"""Tests for plugins/module_utils/vllm_gpu.py over real nvidia-smi outputs.

Two sets of real outputs, each with a labels.tsv: the shared corpus (../shared/corpus/nvidia_smi)
and the fixtures collected for this module (tests/fixtures/nvidia_smi, with their source URLs).
Every label column that the parser can know is checked.
"""
import csv
import os
import re

import pytest

import vllm_gpu
from vllm_gpu import (
    QUERY_ARGS,
    QUERY_ARGS_FALLBACK,
    QUERY_FIELDS,
    compute_capability_from_name,
    cuda_from_driver,
    merge_query_and_table,
    min_driver_for_cuda,
    parse_nvidia_smi,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
CORPUS_DIR = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "nvidia_smi")
FIXTURE_DIR = os.path.join(ROOT, "tests", "fixtures", "nvidia_smi")


def _labels(directory):
    path = os.path.join(directory, "labels.tsv")
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [(directory, row) for row in csv.DictReader(handle, delimiter="\t")]


CASES = _labels(CORPUS_DIR) + _labels(FIXTURE_DIR)


def _bare(label):
    """'537.13 (NVIDIA-SMI 535.103 inside WSL)' -> '537.13'; 'n/a (...)' -> None."""
    label = (label or "").strip()
    label = re.sub(r"\s+\(.*\)$", "", label).strip()
    if label.lower() in ("", "n/a", "none", "-"):
        return None
    return label


def _expected_number(label):
    value = _bare(label)
    return int(value) if value and value.isdigit() else None


def _expected_cuda(label):
    value = _bare(label)
    return value if value and re.match(r"^\d+\.\d+$", value) else None


def test_label_files_present():
    assert os.path.isdir(FIXTURE_DIR)
    assert len(_labels(FIXTURE_DIR)) >= 10
    for _, row in _labels(FIXTURE_DIR):
        # a public report, or this project's own capture on a real GPU (its date in the source)
        assert row["source"].startswith(("https://github.com/", "this project's device check")), row


@pytest.mark.parametrize("directory,row", CASES, ids=[r["file"] for _, r in CASES])
def test_labelled_output(directory, row):
    with open(os.path.join(directory, row["file"])) as handle:
        text = handle.read()
    facts = parse_nvidia_smi(text)
    assert facts["driver_version"] == _bare(row["driver_version"])
    assert facts["cuda_version"] == _expected_cuda(row["cuda_version_shown"])
    assert len(facts["gpus"]) == int(_bare(row["gpu_count"]))
    if facts["gpus"]:
        first = facts["gpus"][0]
        assert first["name"] == _bare(row["gpu_name"])
        assert first["memory_total_mib"] == _expected_number(row["total_memory_MiB"])
        if "used_memory_MiB" in row:
            assert first["memory_used_mib"] == _expected_number(row["used_memory_MiB"])
        if "compute_capability" in row:
            assert first["compute_capability"] == _bare(row["compute_capability"])
    wsl = row["is_wsl"].strip().lower() == "yes"
    if wsl and facts["source"] == "table" and "==NVSMI LOG==" in text:
        # `nvidia-smi -q` prints no Linux-side NVIDIA-SMI number to compare with the driver's:
        # WSL2 cannot be told from nvidia-smi.exe there, but the driver is seen as Windows'
        assert facts["driver_platform"] == "windows"
    else:
        assert facts["wsl_suspected"] is wsl
    assert facts["source"] == ("query" if "csv" in row["file"] else "table")
    if facts["cuda_version"] is None and facts["driver_version"] is None:
        assert facts["warnings"], "a missing value needs a stated reason"


def _read(name):
    with open(os.path.join(FIXTURE_DIR, name)) as handle:
        return handle.read()


def test_cuda_err_is_none_with_reason_and_derived_value():
    facts = parse_nvidia_smi(_read("wsl_rtx3060_laptop_546.80_cuda_err.txt"))
    assert facts["cuda_version"] is None
    assert any("ERR!" in w for w in facts["warnings"])
    # 546.80 is a Windows driver (WSL): 12.3 GA needs >= 545.84, 12.4 needs >= 551.61
    assert facts["cuda_version_from_driver"] == "12.3"
    assert facts["nvidia_smi_version"] == "545.46"
    assert facts["driver_platform"] == "windows"


def test_not_supported_memory_states_reason():
    facts = parse_nvidia_smi(_read("gb10_not_supported_580.95.05.txt"))
    gpu = facts["gpus"][0]
    assert gpu["memory_total_mib"] is None and gpu["memory_used_mib"] is None
    assert any("Not Supported" in w for w in facts["warnings"])


def test_kmd_headers_read_as_driver_and_cuda():
    facts = parse_nvidia_smi(_read("kmd_b200_2gpu_610.43.02_cuda_umd_13.3.txt"))
    assert (facts["driver_version"], facts["cuda_version"]) == ("610.43.02", "13.3")
    assert [g["index"] for g in facts["gpus"]] == [0, 1]
    assert all(g["compute_capability"] == "10.0" for g in facts["gpus"])


def test_windows_smi_exe_marks_windows_driver():
    facts = parse_nvidia_smi(_read("windows_smi_exe_2gpu_517.48_wddm.txt"))
    assert facts["driver_platform"] == "windows"
    assert facts["wsl_suspected"] is False
    assert [g["memory_used_mib"] for g in facts["gpus"]] == [576, 2152]


def test_processes_section_is_not_read_as_gpus():
    facts = parse_nvidia_smi(_read("windows_smi_exe_460.15_old_layout.txt"))
    assert len(facts["gpus"]) == 1
    corpus = os.path.join(CORPUS_DIR, "08_rtx4090_580.65.06_cuda13.txt")
    if os.path.exists(corpus):
        with open(corpus) as handle:
            assert len(parse_nvidia_smi(handle.read())["gpus"]) == 1


def test_query_error_is_reported_for_fallback():
    facts = parse_nvidia_smi(_read("csv_compute_cap_field_invalid_old_driver.txt"))
    assert facts["gpus"] == []
    assert facts["query_error"] == "compute_cap"
    assert "compute_cap" in QUERY_ARGS[0] and "compute_cap" not in QUERY_ARGS_FALLBACK[0]


def test_query_args_shape():
    assert QUERY_ARGS[0] == "--query-gpu=" + ",".join(QUERY_FIELDS)
    assert QUERY_ARGS[1] == "--format=csv,noheader,nounits"


# Our own query, as a driver that knows compute_cap prints it (noheader,nounits).
OWN_QUERY = "0, NVIDIA GeForce RTX 4090, 24564, 232, 580.65.06, 8.9\n1, NVIDIA GeForce RTX 3090, 24576, 1, 580.65.06, 8.6\n"


def test_own_query_noheader_nounits():
    facts = parse_nvidia_smi(OWN_QUERY, fields=QUERY_FIELDS)
    assert facts["source"] == "query"
    assert facts["driver_version"] == "580.65.06"
    assert facts["cuda_version"] is None
    assert facts["cuda_version_from_driver"] == "13.0"
    assert [(g["index"], g["memory_total_mib"], g["memory_used_mib"], g["compute_capability"])
            for g in facts["gpus"]] == [(0, 24564, 232, "8.9"), (1, 24576, 1, "8.6")]


def test_query_with_header_and_units():
    text = ("index, name, memory.total [MiB], memory.used [MiB], driver_version\n"
            "0, NVIDIA H100 80GB HBM3, 81559 MiB, 0 MiB, 550.54.15\n")
    facts = parse_nvidia_smi(text)
    gpu = facts["gpus"][0]
    assert (gpu["name"], gpu["memory_total_mib"], gpu["memory_used_mib"]) == ("NVIDIA H100 80GB HBM3", 81559, 0)
    assert gpu["compute_capability"] == "9.0" and gpu["compute_capability_source"] == "name"


def test_query_not_supported_memory_value():
    text = "0, NVIDIA GB10, [N/A], [N/A], 580.95.05, 12.1\n"
    facts = parse_nvidia_smi(text, fields=QUERY_FIELDS)
    assert facts["gpus"][0]["memory_total_mib"] is None
    assert facts["gpus"][0]["compute_capability"] == "12.1"
    assert any("memory.total" in w for w in facts["warnings"])


def test_query_without_header_guesses_columns():
    facts = parse_nvidia_smi("Quadro RTX 6000, 24576 MiB, 570.211.01\n")
    assert facts["driver_version"] == "570.211.01"
    assert facts["gpus"][0]["name"] == "Quadro RTX 6000"
    assert facts["gpus"][0]["memory_total_mib"] == 24576
    assert any("guessed" in w for w in facts["warnings"])


def test_merge_query_and_table_wsl():
    table = os.path.join(CORPUS_DIR, "01_wsl_gtx1650_laptop_537.13.txt")
    if not os.path.exists(table):
        pytest.skip("shared corpus not present at ../shared/corpus")
    with open(table) as handle:
        table_text = handle.read()
    query = "0, NVIDIA GeForce GTX 1650 Ti with Max-Q Design, 4096, 128, 537.13, 7.5\n"
    facts = merge_query_and_table(query, table_text)
    assert facts["source"] == "query"
    assert facts["driver_version"] == "537.13"
    assert facts["cuda_version"] == "12.2"
    assert facts["wsl_suspected"] is True
    assert facts["gpus"][0]["name"] == "NVIDIA GeForce GTX 1650 Ti with Max-Q Design"
    assert facts["gpus"][0]["compute_capability_source"] == "query"


def test_merge_falls_back_to_table_when_query_failed():
    facts = merge_query_and_table(_read("csv_compute_cap_field_invalid_old_driver.txt"),
                                  _read("a100_pcie_80gb_535.104.05.txt"))
    assert facts["source"] == "table"
    assert facts["gpus"][0]["name"] == "NVIDIA A100 80GB PCIe"
    assert any("compute_cap" in w for w in facts["warnings"])


def test_empty_and_failure_outputs():
    assert parse_nvidia_smi("")["gpus"] == []
    facts = parse_nvidia_smi(
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n")
    assert facts["gpus"] == [] and facts["driver_version"] is None
    assert any("driver" in w for w in facts["warnings"])


@pytest.mark.parametrize("driver,windows,cuda", [
    ("470.182.03", False, "11.4"),
    ("525.105.17", False, "12.0"),
    ("535.104.05", False, "12.2"),
    ("550.54.15", False, "12.4"),
    ("560.35.03", False, "12.6"),
    ("570.211.01", False, "12.8"),
    ("575.57.08", False, "12.9"),
    ("580.65.06", False, "13.0"),
    ("590.48.01", False, "13.1"),
    ("610.43.02", False, "13.3"),
    ("537.13", True, "12.2"),
    ("546.80", True, "12.3"),
    ("555.99", True, "12.5"),
    ("566.36", True, "12.6"),
    ("572.83", True, "12.8"),
    ("576.02", True, "12.9"),
    ("591.86", True, "13.1"),
    ("610.47", True, "13.3"),
    ("300.00", False, None),
    ("garbage", False, None),
])
def test_cuda_from_driver(driver, windows, cuda):
    assert cuda_from_driver(driver, windows=windows) == cuda


def test_min_driver_for_cuda():
    assert min_driver_for_cuda("13.0") == "580.65.06"
    assert min_driver_for_cuda("12.9", windows=True) == "576.02"
    assert min_driver_for_cuda("12.8") == "570.26"


@pytest.mark.parametrize("name,cc", [
    ("NVIDIA GeForce RTX 4090", "8.9"),
    ("NVIDIA GeForce RTX 3060 Laptop GPU", "8.6"),
    ("NVIDIA GeForce GTX 1650 ...", "7.5"),
    ("Tesla T4", "7.5"),
    ("Tesla V100-SXM2-32GB", "7.0"),
    ("NVIDIA A100-SXM4-80GB", "8.0"),
    ("NVIDIA A10G", "8.6"),
    ("NVIDIA H100 80GB HBM3", "9.0"),
    ("NVIDIA H200", "9.0"),
    ("NVIDIA B200", "10.0"),
    ("NVIDIA GeForce RTX 5090", "12.0"),
    ("NVIDIA GB10", "12.1"),
    ("NVIDIA L40S", "8.9"),
    ("NVIDIA RTX A6000", "8.6"),
    ("NVIDIA RTX 6000 Ada Generation", "8.9"),
    ("Quadro RTX 6000", "7.5"),
    ("NVIDIA GeForce GTX 1080 Ti", "6.1"),
    ("Tesla P100-PCIE-16GB", "6.0"),
    ("NVIDIA GeForce ...", None),
    (None, None),
])
def test_compute_capability_from_name(name, cc):
    assert compute_capability_from_name(name) == cc


def test_module_has_no_ansible_import():
    with open(vllm_gpu.__file__) as handle:
        assert "import ansible" not in handle.read()


def test_the_driver_table_is_the_data_files():
    """vllm_gpu has no copy of NVIDIA's driver table: it reads data/vllm_compat.yml's."""
    import vllm_common
    import vllm_gpu
    minimums = vllm_common.read_yaml(vllm_gpu.DEFAULT_COMPAT_TABLE)["cuda_driver_minimums"]
    assert vllm_gpu.load_cuda_driver_minimums() == minimums
    assert not hasattr(vllm_gpu, "CUDA_DRIVER_TABLE")
    rows = vllm_gpu.driver_rows(minimums)
    assert rows[0] == ("13.4", "616.00", "616.00") and rows[-1] == ("7.0", "346.46", "347.62")
    assert [r[0] for r in rows] == sorted((r[0] for r in rows), key=vllm_common.version_tuple, reverse=True)
    for cuda, linux, windows in rows:
        assert cuda_from_driver(linux) == cuda
        assert cuda_from_driver(windows, windows=True) == cuda


def test_a_driver_table_given_or_put_in_use(monkeypatch, tmp_path):
    import vllm_gpu
    monkeypatch.setattr(vllm_gpu, "_DRIVER_ROWS", None)
    small = {"12.8": {"linux": "570.26", "windows": "570.65"}, "13.0": {"linux": "580.65.06", "windows": "580.00"}}
    assert cuda_from_driver("575.1", minimums=small) == "12.8"
    assert cuda_from_driver("560.35.03", minimums=small) is None
    assert cuda_from_driver("560.35.03") == "12.6"  # the data file's
    assert min_driver_for_cuda("12.9", minimums=small) == "580.65.06"
    vllm_gpu.use_cuda_driver_minimums(small)
    assert cuda_from_driver("560.35.03") is None and cuda_from_driver("590.1") == "13.0"
    vllm_gpu.use_cuda_driver_minimums({})
    assert cuda_from_driver("590.1") is None
    table = tmp_path / "t.json"
    table.write_text('{"cuda_driver_minimums": {"12.8": {"linux": "570.26", "windows": "570.65"}}}')
    assert vllm_gpu.load_cuda_driver_minimums(str(table)) == {"12.8": {"linux": "570.26", "windows": "570.65"}}
    assert vllm_gpu.load_cuda_driver_minimums(str(tmp_path / "absent")) == {}
