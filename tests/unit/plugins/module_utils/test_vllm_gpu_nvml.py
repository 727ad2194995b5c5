"""NVML facts (plugins/module_utils/vllm_gpu.py: read_nvml, compare_gpu_facts, choose_gpu_facts,
gather_nvml) against the nvidia-smi parser, with a fake pynvml built from real nvidia-smi outputs.

The fake answers what the real NVML would answer on the box the fixture came from: nvidia-smi is
an NVML client, so its header and table show NVML's values (memory in MiB, the CUDA version as
NVML's integer, the Windows driver's number under WSL2).
"""
import os
import types

import pytest

import vllm_gpu
from vllm_gpu import (
    QUERY_FIELDS,
    choose_gpu_facts,
    compare_gpu_facts,
    cuda_from_nvml_int,
    gather_nvml,
    merge_query_and_table,
    nvml_absent,
    nvml_library_version,
    parse_nvidia_smi,
    read_nvml,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "nvidia_smi")
MIB = 1024 * 1024


class NVMLError(Exception):
    pass


def _error_class(name):
    return type("NVMLError_" + name, (NVMLError,), {})


NotSupported = _error_class("NotSupported")
LibraryNotFound = _error_class("LibraryNotFound")
DriverNotLoaded = _error_class("DriverNotLoaded")
Unknown = _error_class("Unknown")
FunctionNotFound = _error_class("FunctionNotFound")


class FakeNVML(object):
    """The pynvml functions vllm_gpu.read_nvml calls, answering from plain data."""

    def __init__(self, driver, cuda_int, gpus, nvml_version=None, bytes_names=False, fail=None):
        self.driver, self.cuda_int, self.gpus = driver, cuda_int, gpus
        self.nvml_version, self.bytes_names = nvml_version, bytes_names
        self.fail = dict(fail or {})  # function name -> exception to raise
        self.calls = []

    def _maybe_fail(self, name):
        self.calls.append(name)
        if name in self.fail:
            raise self.fail[name]

    def nvmlInit(self):
        self._maybe_fail("nvmlInit")

    def nvmlShutdown(self):
        self._maybe_fail("nvmlShutdown")

    def nvmlSystemGetDriverVersion(self):
        self._maybe_fail("nvmlSystemGetDriverVersion")
        return self.driver

    def nvmlSystemGetCudaDriverVersion_v2(self):
        self._maybe_fail("nvmlSystemGetCudaDriverVersion_v2")
        return self.cuda_int

    def nvmlSystemGetCudaDriverVersion(self):
        self._maybe_fail("nvmlSystemGetCudaDriverVersion")
        return self.cuda_int

    def nvmlSystemGetNVMLVersion(self):
        self._maybe_fail("nvmlSystemGetNVMLVersion")
        if self.nvml_version is None:
            raise FunctionNotFound()
        return self.nvml_version

    def nvmlDeviceGetCount(self):
        self._maybe_fail("nvmlDeviceGetCount")
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index):
        self._maybe_fail("nvmlDeviceGetHandleByIndex")
        return ("handle", index)

    def _gpu(self, handle):
        return self.gpus[handle[1]]

    def nvmlDeviceGetName(self, handle):
        self._maybe_fail("nvmlDeviceGetName")
        name = self._gpu(handle)["name"]
        return name.encode() if self.bytes_names else name

    def nvmlDeviceGetMemoryInfo(self, handle):
        self._maybe_fail("nvmlDeviceGetMemoryInfo")
        gpu = self._gpu(handle)
        if gpu["memory_total_mib"] is None:
            raise NotSupported()
        # NVML counts bytes: a few KiB off a whole MiB must still round to nvidia-smi's figure
        return types.SimpleNamespace(total=gpu["memory_total_mib"] * MIB - 4096,
                                     used=(gpu["memory_used_mib"] or 0) * MIB + 4096,
                                     free=0)

    def nvmlDeviceGetCudaComputeCapability(self, handle):
        self._maybe_fail("nvmlDeviceGetCudaComputeCapability")
        major, minor = self._gpu(handle)["compute_capability"].split(".")
        return (int(major), int(minor))

    def nvmlDeviceGetUUID(self, handle):
        self._maybe_fail("nvmlDeviceGetUUID")
        return self._gpu(handle).get("uuid") or "GPU-%08d-0000-0000-0000-000000000000" % handle[1]


def _read(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def fake_from(smi, names=None, **kwargs):
    """A fake NVML that answers what the box behind the nvidia-smi facts ``smi`` would."""
    cuda = smi["cuda_version"] or "0.0"
    major, minor = (int(p) for p in cuda.split("."))
    gpus = []
    for gpu in smi["gpus"]:
        gpus.append({"name": (names or {}).get(gpu["index"], gpu["name"]),
                     "memory_total_mib": gpu["memory_total_mib"],
                     "memory_used_mib": gpu["memory_used_mib"],
                     "compute_capability": gpu["compute_capability"],
                     "uuid": gpu.get("uuid")})
    kwargs.setdefault("nvml_version", "%d.%s" % (major, smi["nvidia_smi_version"])
                      if smi.get("nvidia_smi_version") else None)
    return FakeNVML(smi["driver_version"], major * 1000 + minor * 10, gpus, **kwargs)


A100_QUERY = ("0, NVIDIA A100 80GB PCIe, 81920, 73393, 535.104.05, 8.0, "
              "GPU-5b1ae2f4-2d1e-cf0f-0b43-3a9a1c1d2e3f\n")

# (fixture, the full names NVML gives where the table cut them off, WSL2 host)
CASES = [
    ("a100_pcie_80gb_535.104.05.txt", None, False),
    ("wsl_rtx4070_555.99.txt", {0: "NVIDIA GeForce RTX 4070 Laptop GPU"}, True),
    ("gb10_not_supported_580.95.05.txt", None, False),
    ("kmd_b200_2gpu_610.43.02_cuda_umd_13.3.txt", None, False),
    ("kmd_rtx5070_610.43.02.txt", None, False),
]


@pytest.mark.parametrize("fixture,names,wsl", CASES, ids=[c[0] for c in CASES])
def test_nvml_facts_agree_with_the_parsed_nvidia_smi(fixture, names, wsl):
    smi = parse_nvidia_smi(_read(fixture))
    facts, reason = read_nvml(fake_from(smi, names), wsl=wsl)
    assert reason is None
    assert compare_gpu_facts(facts, smi) == []
    assert facts["source"] == "nvml"
    # the same shape: every key the parser gives, per GPU too (uuid added)
    assert set(smi) - set(facts) <= {"query_error"}
    for ours, theirs in zip(facts["gpus"], smi["gpus"]):
        assert set(theirs) <= set(ours)
        assert ours["uuid"].startswith("GPU-")
    assert (facts["driver_version"], facts["cuda_version"]) == (smi["driver_version"], smi["cuda_version"])
    assert [(g["index"], g["memory_total_mib"], g["compute_capability"]) for g in facts["gpus"]] == \
        [(g["index"], g["memory_total_mib"], g["compute_capability"]) for g in smi["gpus"]]
    assert facts["cuda_version_from_driver"] == smi["cuda_version_from_driver"]
    assert facts["wsl_suspected"] == smi["wsl_suspected"] == wsl
    assert facts["driver_platform"] == smi["driver_platform"]


def test_query_and_table_with_uuid_agree_with_nvml():
    smi = merge_query_and_table(A100_QUERY, _read("a100_pcie_80gb_535.104.05.txt"))
    assert smi["gpus"][0]["uuid"] == "GPU-5b1ae2f4-2d1e-cf0f-0b43-3a9a1c1d2e3f"
    facts, _ = read_nvml(fake_from(smi))
    assert facts["gpus"][0]["uuid"] == smi["gpus"][0]["uuid"]
    assert facts["gpus"][0]["memory_used_mib"] == 73393
    assert compare_gpu_facts(facts, smi) == []


def test_two_gpu_query_without_memory_agrees():
    smi = parse_nvidia_smi(_read("csv_header_compute_cap_2gpu_570.86.15.txt"))
    assert len(smi["gpus"]) == 2
    fake = fake_from(smi)
    fake.cuda_int = 12080
    facts, _ = read_nvml(fake)
    assert compare_gpu_facts(facts, smi) == []
    assert [g["name"] for g in facts["gpus"]] == ["NVIDIA TITAN V", "NVIDIA RTX 5880 Ada Generation"]


def test_gb10_memory_not_supported_is_none_and_a_warning():
    smi = parse_nvidia_smi(_read("gb10_not_supported_580.95.05.txt"))
    facts, _ = read_nvml(fake_from(smi))
    gpu = facts["gpus"][0]
    assert gpu["memory_total_mib"] is None and gpu["memory_used_mib"] is None
    assert gpu["compute_capability"] == "12.1" and gpu["compute_capability_source"] == "nvml"
    assert any("Not Supported" in w and "GB10" in w for w in facts["warnings"])
    assert any("Not Supported" in w for w in smi["warnings"])


def test_a_wrong_fake_shows_every_disagreement():
    smi = parse_nvidia_smi(_read("kmd_b200_2gpu_610.43.02_cuda_umd_13.3.txt"))
    fake = fake_from(smi)
    fake.driver = "610.43.01"
    fake.cuda_int = 13020
    fake.gpus[1]["memory_total_mib"] = 183359 - 2048
    fake.gpus[1]["compute_capability"] = "9.0"
    fake.gpus[0]["name"] = "NVIDIA H200"
    facts, _ = read_nvml(fake)
    found = compare_gpu_facts(facts, smi)
    assert found == [
        "driver version: NVML 610.43.01, nvidia-smi 610.43.02",
        "CUDA version: NVML 13.2, nvidia-smi 13.3",
        "GPU 0 name: NVML 'NVIDIA H200', nvidia-smi 'NVIDIA B200'",
        "GPU 1 total memory: NVML 181311 MiB, nvidia-smi 183359 MiB",
        "GPU 1 compute capability: NVML 9.0, nvidia-smi 10.0 (from the name)",
    ]
    fake.gpus.pop()
    facts, _ = read_nvml(fake)
    assert "GPU count: NVML 1, nvidia-smi 2" in compare_gpu_facts(facts, smi)


def test_one_mib_of_rounding_is_not_a_disagreement():
    smi = parse_nvidia_smi(_read("a100_pcie_80gb_535.104.05.txt"))
    fake = fake_from(smi)
    fake.gpus[0]["memory_total_mib"] = 81921
    facts, _ = read_nvml(fake)
    assert compare_gpu_facts(facts, smi) == []


def test_wsl_driver_numbers():
    """Under WSL2 nvidia-smi (an NVML client) prints NVML's driver version, the Windows number;
    an NVML that gave the Linux library's number instead is named as such."""
    smi = parse_nvidia_smi(_read("wsl_rtx4070_555.99.txt"))
    assert (smi["driver_version"], smi["nvidia_smi_version"]) == ("555.99", "555.52.01")
    fake = fake_from(smi, {0: "NVIDIA GeForce RTX 4070 Laptop GPU"})
    facts, _ = read_nvml(fake)  # no wsl hint: the library number tells
    assert facts["nvml_version"] == "12.555.52.01" and facts["nvidia_smi_version"] == "555.52.01"
    assert facts["wsl_suspected"] and facts["driver_platform"] == "windows"
    assert facts["cuda_version_from_driver"] == "12.5"
    fake.driver = "555.52.01"
    facts, _ = read_nvml(fake, wsl=True)
    assert compare_gpu_facts(facts, smi) == [
        "driver version: NVML 555.52.01 is the Linux-side library (NVIDIA-SMI 555.52.01), "
        "nvidia-smi's Driver Version 555.99 is the Windows driver"]


def test_cuda_integer_and_library_version():
    assert cuda_from_nvml_int(12040) == "12.4"
    assert cuda_from_nvml_int(13000) == "13.0"
    assert cuda_from_nvml_int(12090) == "12.9"
    assert cuda_from_nvml_int(0) is None and cuda_from_nvml_int("x") is None
    assert nvml_library_version(b"12.535.104.05") == "535.104.05"
    assert nvml_library_version("555.52.01") == "555.52.01"


def _one_gpu(**kwargs):
    return FakeNVML("535.104.05", 12020, [{"name": "NVIDIA A100 80GB PCIe", "memory_total_mib": 81920,
                                           "memory_used_mib": 0, "compute_capability": "8.0"}],
                    **kwargs)


def test_bytes_names_and_cuda_v1_fallback():
    fake = _one_gpu(bytes_names=True, fail={"nvmlSystemGetCudaDriverVersion_v2": AttributeError("old")})
    facts, _ = read_nvml(fake)
    assert facts["gpus"][0]["name"] == "NVIDIA A100 80GB PCIe"
    assert facts["cuda_version"] == "12.2"
    assert "nvmlShutdown" in fake.calls


@pytest.mark.parametrize("error", [LibraryNotFound(), DriverNotLoaded()])
def test_nvml_absent_is_a_reason_not_a_crash(error):
    facts, reason = read_nvml(_one_gpu(fail={"nvmlInit": error}))
    assert facts is None
    assert reason.startswith("nvmlInit failed: NVMLError_")
    assert nvml_absent(reason)


def test_every_other_nvml_error_is_a_warning():
    fail = {"nvmlSystemGetDriverVersion": Unknown(), "nvmlSystemGetCudaDriverVersion_v2": Unknown(),
            "nvmlSystemGetCudaDriverVersion": Unknown(), "nvmlDeviceGetCudaComputeCapability": Unknown(),
            "nvmlDeviceGetUUID": Unknown(), "nvmlShutdown": Unknown(), "nvmlDeviceGetMemoryInfo": Unknown()}
    facts, reason = read_nvml(_one_gpu(fail=fail))
    assert reason is None
    gpu = facts["gpus"][0]
    assert facts["driver_version"] is None and facts["cuda_version"] is None
    assert gpu["memory_total_mib"] is None and "uuid" not in gpu
    assert (gpu["compute_capability"], gpu["compute_capability_source"]) == ("8.0", "name")
    text = "\n".join(facts["warnings"])
    for name in fail:
        if name != "nvmlSystemGetCudaDriverVersion_v2":
            assert name.replace("_v2", "") in text, name
    facts, _ = read_nvml(_one_gpu(fail={"nvmlDeviceGetCount": Unknown()}))
    assert facts["gpus"] == [] and any("nvmlDeviceGetCount" in w for w in facts["warnings"])
    assert any("no GPU found in the NVML output" in w for w in facts["warnings"])
    facts, _ = read_nvml(_one_gpu(fail={"nvmlDeviceGetHandleByIndex": Unknown()}))
    assert len(facts["gpus"]) == 1 and facts["gpus"][0]["name"] is None


def test_choose_prefers_nvml_and_reports_disagreements():
    smi = parse_nvidia_smi(_read("a100_pcie_80gb_535.104.05.txt"))
    fake = fake_from(smi, fail={"nvmlSystemGetCudaDriverVersion_v2": Unknown(),
                                "nvmlSystemGetCudaDriverVersion": Unknown()})
    fake.gpus[0]["memory_total_mib"] = 40960
    nvml, _ = read_nvml(fake)
    out = choose_gpu_facts(nvml, None, smi)
    assert out["source"] == "nvml" and out["nvml"]["used"] is True
    assert out["cuda_version"] == "12.2"  # NVML failed it: nvidia-smi's header fills it in
    assert out["gpus"][0]["memory_total_mib"] == 40960
    assert out["nvml"]["disagreements"] == ["GPU 0 total memory: NVML 40960 MiB, nvidia-smi 81920 MiB"]
    assert "NVML and nvidia-smi disagree: GPU 0 total memory: NVML 40960 MiB, nvidia-smi 81920 MiB" \
        in out["warnings"]
    assert out["nvidia_smi_warnings"] == smi["warnings"]


def test_choose_falls_back_to_nvidia_smi_with_the_reason():
    smi = parse_nvidia_smi(_read("a100_pcie_80gb_535.104.05.txt"))
    out = choose_gpu_facts(None, "no pynvml (nvidia-ml-py) in this Python: No module named 'pynvml'", smi)
    assert out["source"] == "table" and out["nvml"]["used"] is False
    assert "no pynvml" in out["nvml"]["reason"]
    assert out["warnings"] == smi["warnings"]  # an absent NVML is no warning
    out = choose_gpu_facts(None, "nvmlInit failed: NVMLError_Unknown", smi)
    assert out["warnings"][-1] == "NVML not used (nvmlInit failed: NVMLError_Unknown): facts from nvidia-smi"
    assert choose_gpu_facts(None, "x", None) is None
    empty, _ = read_nvml(FakeNVML("535.104.05", 12020, []))
    out = choose_gpu_facts(empty, None, smi)
    assert out["source"] == "table" and out["nvml"]["reason"].startswith("NVML listed no GPU")


def test_choose_nvml_without_nvidia_smi():
    nvml, _ = read_nvml(_one_gpu())
    out = choose_gpu_facts(nvml, None, {"present": False, "gpus": [], "reason": "nvidia-smi failed"},
                           "nvidia-smi failed")
    assert out["source"] == "nvml" and out["nvml"]["disagreements"] == []
    assert "nvidia-smi gave nothing: nvidia-smi failed" in out["nvml"]["reason"]


def test_gather_nvml_without_pynvml():
    def no_module(name):
        raise ImportError("No module named %r" % name)

    facts, reason = gather_nvml(import_module=no_module)
    assert facts is None and reason.startswith("no pynvml") and nvml_absent(reason)


def test_gather_nvml_loads_the_wsl_library_by_path(tmp_path, monkeypatch):
    lib = tmp_path / "libnvidia-ml.so.1"
    lib.write_text("")
    module = _one_gpu()
    module.nvmlLib = None
    module._nvmlGetFunctionPointer_cache = {"nvmlInitWithFlags": "stale"}
    real_init = module.nvmlInit

    def init():
        if module.nvmlLib is None:
            raise DriverNotLoaded()
        real_init()

    module.nvmlInit = init
    import ctypes
    monkeypatch.setattr(ctypes, "CDLL", lambda path: ("lib", path))
    facts, reason = gather_nvml(wsl=False, import_module=lambda name: module, wsl_lib_dir=str(tmp_path))
    assert facts is None and "DriverNotLoaded" in reason  # not WSL: the loader's answer stands
    facts, reason = gather_nvml(wsl=True, import_module=lambda name: module, wsl_lib_dir=str(tmp_path))
    assert reason is None and facts["gpus"][0]["name"] == "NVIDIA A100 80GB PCIe"
    assert module.nvmlLib == ("lib", str(lib)) and module._nvmlGetFunctionPointer_cache == {}
    assert any(str(lib) in w for w in facts["warnings"])


def test_query_fields_end_with_uuid():
    assert QUERY_FIELDS[-1] == "uuid" and vllm_gpu.QUERY_FIELDS_FALLBACK[-1] == "uuid"
    facts = parse_nvidia_smi("0, NVIDIA GeForce RTX 4090, 24564, 232, 580.65.06, 8.9\n", fields=QUERY_FIELDS)
    assert "uuid" not in facts["gpus"][0] and facts["gpus"][0]["compute_capability"] == "8.9"
