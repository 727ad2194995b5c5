"""scripts/gpu-check: its bundle, unpacked into a temp folder and run without site-packages (no
PyYAML, no Ansible, no pynvml, no torch) against a stand-in nvidia-smi printing a real output;
then with a fake pynvml and a fake torch on PYTHONPATH, as on a GPU machine that has them."""
import json
import os
import subprocess
import sys
import tarfile
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "gpu-check")
TABLE = os.path.join(ROOT, "tests", "fixtures", "nvidia_smi", "a100_pcie_80gb_535.104.05.txt")
UUID = "GPU-5b1ae2f4-2d1e-cf0f-0b43-3a9a1c1d2e3f"
QUERY = "0, NVIDIA A100 80GB PCIe, 81920, 73393, 535.104.05, 8.0, %s" % UUID

FAKE_PYNVML = '''
import types
class NVMLError(Exception):
    pass
def nvmlInit(): pass
def nvmlShutdown(): pass
def nvmlSystemGetDriverVersion(): return "535.104.05"
def nvmlSystemGetCudaDriverVersion_v2(): return 12020
def nvmlSystemGetNVMLVersion(): return "12.535.104.05"
def nvmlDeviceGetCount(): return 1
def nvmlDeviceGetHandleByIndex(i): return i
def nvmlDeviceGetName(h): return b"NVIDIA A100 80GB PCIe"
def nvmlDeviceGetMemoryInfo(h):
    return types.SimpleNamespace(total=%d * 1048576, used=73393 * 1048576, free=0)
def nvmlDeviceGetCudaComputeCapability(h): return (8, 0)
def nvmlDeviceGetUUID(h): return "%s"
'''

FAKE_TORCH = '''
__version__ = "2.14.0+cu129"
__file__ = __file__
class version:
    cuda = "12.9"
class _Props:
    total_memory = 81920 * 1048576
class cuda:
    @staticmethod
    def is_available(): return True
    @staticmethod
    def get_arch_list(): return ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    @staticmethod
    def device_count(): return 1
    @staticmethod
    def get_device_properties(i): return _Props()
    @staticmethod
    def mem_get_info(i): return (8000 * 1048576, 81920 * 1048576)
    @staticmethod
    def get_device_name(i): return "NVIDIA A100 80GB PCIe"
    @staticmethod
    def get_device_capability(i): return (8, 0)
'''


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    pytest.importorskip("yaml")
    where = tmp_path_factory.mktemp("bundle")
    target = where / "gpu-check.tar.gz"
    out = subprocess.run([sys.executable, SCRIPT, "--bundle", str(target)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    return target


def _unpack(bundle, where):
    where.mkdir()
    with tarfile.open(str(bundle)) as tar:
        tar.extractall(str(where))
    return where


def _stand_in(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\ncase \"$1\" in --query-gpu=*) echo '%s';; *) cat '%s';; esac\n"
                   % (QUERY, TABLE))
    smi.chmod(0o755)
    return bin_dir


def _run(unpacked, tmp_path, extra_path=None, args=()):
    env = dict(os.environ, PATH="%s:%s" % (_stand_in(tmp_path), os.environ.get("PATH", "")))
    env.pop("PYTHONPATH", None)
    if extra_path:
        env["PYTHONPATH"] = str(extra_path)
    out_dir = tmp_path / "out"
    started = time.time()
    done = subprocess.run([sys.executable, "-S", "gpu-check", "--out", str(out_dir)] + list(args),
                          cwd=str(unpacked), capture_output=True, text=True, env=env, timeout=120)
    took = time.time() - started
    assert done.returncode == 0, done.stdout + done.stderr
    with open(str(out_dir / "gpu-check.json")) as handle:
        return json.load(handle), done.stdout, took


def test_bundle_is_small_and_self_contained(bundle):
    size = os.path.getsize(str(bundle))
    assert size < 1024 * 1024, size  # the device machine takes 64 MiB
    with tarfile.open(str(bundle)) as tar:
        names = set(tar.getnames())
    assert {"gpu-check", "vllm_compat.json", "module_utils/vllm_gpu.py", "module_utils/vllm_host.py",
            "module_utils/vllm_plan.py", "module_utils/vllm_options.py", "module_utils/vllm_common.py"} <= names


def test_bundle_runs_without_site_packages(bundle, tmp_path):
    unpacked = _unpack(bundle, tmp_path / "run")
    data, stdout, took = _run(unpacked, tmp_path)
    assert took < 60, took
    assert data["crashes"] == []
    smi = data["nvidia_smi"]["facts"]
    assert smi["source"] == "query" and smi["cuda_version"] == "12.2"
    assert smi["cuda_version_from_driver"] == "12.2"  # the driver table of the bundle's vllm_compat.json
    assert smi["gpus"][0]["uuid"] == UUID and smi["gpus"][0]["memory_total_mib"] == 81920
    assert [r["args"][:1] for r in data["nvidia_smi"]["runs"]] == [[a] for a in (
        "--query-gpu=index,name,memory.total,memory.used,driver_version,compute_cap,uuid",)] + [[]]
    assert data["nvml"]["facts"] is None and data["nvml"]["reason"].startswith("no pynvml")
    assert data["agreement"]["compared"] is False
    assert data["gpu"]["source"] == "query" and data["gpu"]["nvml"]["used"] is False
    assert data["plan"]["table"].endswith("vllm_compat.json")
    assert (data["plan"]["plan"] is None) == bool(data["plan"]["error"])  # a plan, or a refusal
    options = data["options"]
    assert options["backend"] == "cuda"
    assert options["error"] or 0 < options["options"]["gpu_memory_utilization"] <= 0.95
    assert data["torch"]["imported"] is False
    assert "== NVML vs nvidia-smi: not compared" in stdout
    assert "== plan" in stdout and "== server options (cuda" in stdout
    assert data["report"] == stdout.rstrip("\n")


def test_bundle_with_nvml_and_torch(bundle, tmp_path):
    unpacked = _unpack(bundle, tmp_path / "run")
    fakes = tmp_path / "fakes"
    (fakes / "torch").mkdir(parents=True)
    (fakes / "pynvml.py").write_text(FAKE_PYNVML % (81920, UUID))
    (fakes / "torch" / "__init__.py").write_text(FAKE_TORCH)
    data, stdout, _took = _run(unpacked, tmp_path, extra_path=fakes)
    assert data["crashes"] == []
    assert data["nvml"]["facts"]["source"] == "nvml"
    assert data["agreement"] == {"compared": True, "disagreements": []}
    assert data["gpu"]["source"] == "nvml" and data["gpu"]["gpus"][0]["uuid"] == UUID
    assert data["torch"]["cuda"] == "12.9" and data["torch"]["devices"][0]["capability"] == "8.0"
    assert data["torch_findings"] == ["GPU 0 (NVIDIA A100 80GB PCIe, sm_80): in torch's arch list"]
    assert "agree on every shared field" in stdout
    assert "== torch 2.14.0+cu129 (CUDA 12.9)" in stdout


def test_a_disagreement_is_reported(bundle, tmp_path):
    unpacked = _unpack(bundle, tmp_path / "run")
    fakes = tmp_path / "fakes"
    fakes.mkdir()
    (fakes / "pynvml.py").write_text(FAKE_PYNVML % (40960, UUID))
    data, stdout, _took = _run(unpacked, tmp_path, extra_path=fakes)
    assert data["agreement"]["disagreements"] == ["GPU 0 total memory: NVML 40960 MiB, nvidia-smi 81920 MiB"]
    assert "DISAGREE" in stdout


def test_from_the_checkout(tmp_path):
    """In the repository it reads plugins/module_utils and data/vllm_compat.yml directly."""
    pytest.importorskip("yaml")
    env = dict(os.environ, PATH="%s:%s" % (_stand_in(tmp_path), os.environ.get("PATH", "")))
    done = subprocess.run([sys.executable, SCRIPT, "--out", str(tmp_path / "o")], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(str(tmp_path / "o" / "gpu-check.json")) as handle:
        data = json.load(handle)
    assert data["plan"]["table"].endswith(os.path.join("data", "vllm_compat.yml"))
    assert data["nvidia_smi"]["facts"]["gpus"][0]["name"] == "NVIDIA A100 80GB PCIe"
